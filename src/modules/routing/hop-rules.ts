import { validationError } from '../../core/errors.ts';
import type { DefaultHopInput, HopInput } from './schema.ts';

// The rules a list of hops or default hops keeps before it replaces the stored one
// (400 naming the entry): positions are the indexes, no hop to itself, none listed
// twice, and first-choice hops that never run in a circle (a unit would never arrive).

const checkPositions = (list: readonly { pos?: number | undefined }[]) =>
  list.forEach((h, i) => {
    if (h.pos !== undefined && h.pos !== i) {
      throw validationError(`Validation failed: [${i}].pos: is ${h.pos}, but the position of an entry is its index in the array (${i})`);
    }
  });

/** A cycle of first-choice hops (source → its first next → …) as a path, or undefined. */
function firstChoiceCycle(hops: readonly HopInput[]): string[] | undefined {
  const first = new Map<string, string>();
  for (const h of hops) if (!first.has(h.source)) first.set(h.source, h.next);
  const done = new Set<string>();
  for (const start of first.keys()) {
    const path: string[] = [];
    let at: string | undefined = start;
    while (at !== undefined && !done.has(at)) {
      const seen = path.indexOf(at);
      if (seen >= 0) return [...path.slice(seen), at];
      path.push(at);
      at = first.get(at);
    }
    for (const p of path) done.add(p);
  }
  return undefined;
}

export function checkHops(hops: readonly HopInput[]): void {
  checkPositions(hops);
  const pairs = new Set<string>();
  hops.forEach((h, i) => {
    if (h.source === h.next) throw validationError(`Validation failed: [${i}]: a hop from [${h.source}] to itself`);
    const pair = `${h.source}\u0000${h.next}`;
    if (pairs.has(pair)) throw validationError(`Validation failed: [${i}]: the hop [${h.source}] → [${h.next}] is listed twice`);
    pairs.add(pair);
  });
  const cycle = firstChoiceCycle(hops);
  if (cycle) {
    throw validationError(`Validation failed: the first-choice hops run in a circle: ${cycle.join(' → ')}; a unit would never arrive`);
  }
}

export function checkDefaultHops(hops: readonly DefaultHopInput[]): void {
  checkPositions(hops);
  const entries = new Set<string>();
  hops.forEach((h, i) => {
    if (h.source !== undefined && h.source === h.next) {
      throw validationError(`Validation failed: [${i}]: a hop from [${h.source}] to itself`);
    }
    const entry = `${h.source !== undefined ? `L${h.source}` : `G${h.sourceGroup}`}\u0000${h.next}`;
    if (entries.has(entry)) {
      throw validationError(`Validation failed: [${i}]: the entry [${h.source ?? h.sourceGroup}] → [${h.next}] is listed twice`);
    }
    entries.add(entry);
  });
}
