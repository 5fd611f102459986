import { partProblem, PARTS, plcFinding, type Finding, type Part } from './coordinate.ts';

// A coordinate pattern for creating many locations at once: each of the five parts of
// AREA/AISLE/X/Y/Z is a fixed value (`CONV`, `0000`) or a numeric range (`0001..0010`),
// counted with the width of its first value, so the parts keep to the 4 characters an
// OSIP telegram carries (docs/plc.md). The appliance has no bulk create: the screen
// sends one POST per coordinate of the expansion, in this order (z fastest).

export type Pattern = Record<Part, string>;

/** The most coordinates one pattern may make: a conveyor section, not a whole rack store. */
const MAX_COORDINATES = 1000;

const RANGE = /^(\d{1,20})\s*\.\.\s*(\d{1,20})$/;

type Expansion = { coordinates: string[]; /** Why no PLC could address them, when so. */ plc?: Finding } | { problem: Finding };

function values(part: Part, text: string): string[] | Finding {
  const range = RANGE.exec(text);
  if (range) {
    const [, fromText, toText] = range as unknown as [string, string, string];
    const from = Number(fromText);
    const to = Number(toText);
    if (to < from || to - from >= MAX_COORDINATES) return { key: 'commissioning.pattern.badRange', params: { max: MAX_COORDINATES }, part };
    const width = fromText.length;
    const out: string[] = [];
    for (let n = from; n <= to; n++) out.push(String(n).padStart(width, '0'));
    return out;
  }
  return partProblem(part, text) ?? [text];
}

/** Every coordinate the pattern names, or the first problem. */
export function expand(pattern: Pattern): Expansion {
  const lists = {} as Record<Part, string[]>;
  let count = 1;
  for (const part of PARTS) {
    const v = values(part, pattern[part].trim());
    if (!Array.isArray(v)) return { problem: v };
    count *= v.length;
    if (count > MAX_COORDINATES) return { problem: { key: 'commissioning.pattern.tooMany', params: { max: MAX_COORDINATES } } };
    lists[part] = v;
  }
  let coordinates = [''];
  for (const part of PARTS) coordinates = coordinates.flatMap((head) => lists[part].map((v) => (head ? `${head}/${v}` : v)));
  const plc = plcFinding(lists, 'commissioning.bulk');
  return plc ? { coordinates, plc } : { coordinates };
}
