// A coordinate pattern for creating many locations at once: each of the five parts of
// AREA/AISLE/X/Y/Z is a fixed value (`CONV`, `0000`) or a numeric range (`0001..0010`),
// counted with the width of its first value, so the parts keep to the 4 characters an
// OSIP telegram carries (docs/plc.md). The appliance has no bulk create: the screen
// sends one POST per coordinate of the expansion, in this order (z fastest).

export const PARTS = ['area', 'aisle', 'x', 'y', 'z'] as const;
export type Part = (typeof PARTS)[number];
export type Pattern = Record<Part, string>;

/** The most coordinates one pattern may make: a conveyor section, not a whole rack store. */
export const MAX_COORDINATES = 1000;

/** A coordinate part as the appliance takes it (src/modules/common/locations/coordinate.ts). */
const PART_TEXT = /^[A-Za-z0-9_.-]{1,20}$/;
const RANGE = /^(\d{1,20})\s*\.\.\s*(\d{1,20})$/;

/** What is wrong with a pattern, as a message key and the part it concerns. */
export interface PatternProblem {
  part?: Part;
  key: 'commissioning.pattern.badPart' | 'commissioning.pattern.badRange' | 'commissioning.pattern.tooMany';
}

export type Expansion = { coordinates: string[] } | { problem: PatternProblem };

function values(text: string): string[] | undefined | 'range' {
  const range = RANGE.exec(text);
  if (range) {
    const [, fromText, toText] = range as unknown as [string, string, string];
    const from = Number(fromText);
    const to = Number(toText);
    if (to < from || to - from >= MAX_COORDINATES) return 'range';
    const width = fromText.length;
    const out: string[] = [];
    for (let n = from; n <= to; n++) out.push(String(n).padStart(width, '0'));
    return out;
  }
  return PART_TEXT.test(text) ? [text] : undefined;
}

/** Every coordinate the pattern names, or the first problem. */
export function expand(pattern: Pattern): Expansion {
  const lists: string[][] = [];
  let count = 1;
  for (const part of PARTS) {
    const v = values(pattern[part].trim());
    if (v === undefined) return { problem: { part, key: 'commissioning.pattern.badPart' } };
    if (v === 'range') return { problem: { part, key: 'commissioning.pattern.badRange' } };
    count *= v.length;
    if (count > MAX_COORDINATES) return { problem: { key: 'commissioning.pattern.tooMany' } };
    lists.push(v);
  }
  let coordinates = [''];
  for (const list of lists) coordinates = coordinates.flatMap((head) => list.map((v) => (head ? `${head}/${v}` : v)));
  return { coordinates };
}
