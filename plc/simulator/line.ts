// How the simulated PLC's bytes go onto its link: split into writes of given sizes with
// pauses between them (a telegram that arrives in pieces), and at an emulated line speed
// (a slow serial line), so the appliance's reading is tried as a real line tries it.

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Link } from './link.ts';

/** Writes of these sizes (the rest goes last), `delayMs` apart (default 5 ms when split). */
export interface Split {
  chunks?: number[];
  delayMs?: number;
}

/** Writes `bytes` as `split` says, each piece at the line speed `lineSpeed()` gives at its turn (undefined: as fast as the link goes). */
export async function writeOnLine(link: Link, bytes: Buffer, split: Split, lineSpeed: () => number | undefined): Promise<void> {
  const pieces: Buffer[] = [];
  let at = 0;
  for (const size of split.chunks ?? []) {
    if (at >= bytes.length) break;
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  if (at < bytes.length || pieces.length === 0) pieces.push(bytes.subarray(at));
  const delayMs = split.delayMs ?? (pieces.length > 1 ? 5 : 0);
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0 && delayMs > 0) await sleep(delayMs);
    await paced(link, pieces[i]!, lineSpeed());
  }
}

/**
 * With an emulated line speed, writes in small pieces, each released when the line
 * would have finished carrying it: the peer sees the bytes no earlier than on a real
 * line, and the write resolves when the last byte is "on the other side".
 */
async function paced(link: Link, bytes: Buffer, speed: number | undefined): Promise<void> {
  if (!speed) return link.write(bytes);
  const msPerByte = 10_000 / speed;
  const start = performance.now();
  for (let at = 0; at < bytes.length; at += 16) {
    const piece = bytes.subarray(at, at + 16);
    const due = start + (at + piece.length) * msPerByte - performance.now();
    if (due > 0) await sleep(due);
    await link.write(piece);
  }
}
