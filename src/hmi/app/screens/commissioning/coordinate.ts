import { COORDINATE_CHARACTER, COORDINATE_PART_MAX, COORDINATE_PARTS, OSIP_LOCATION_PART_WIDTH, OSIP_LOCATION_WIDTH } from '../../../../contract/rules.ts';
import { t } from '../../i18n.ts';

// A location's coordinate AREA/AISLE/X/Y/Z checked where it is typed, before anything
// is sent: what the appliance would refuse (src/core/coordinate.ts, by way of the wire
// contract's rules: five parts of 1 to 20 of A–Z a–z 0–9 _ . -), said part by part, and what it would
// take but no PLC could use. An OSIP telegram carries a location as 5 × 4 characters
// (plc/osip/coordinate.ts): a longer part cannot be written into a telegram at all, and
// a shorter one travels padded (numbers with 0 in front, text with _ behind), so what
// a PLC reports is another coordinate. Such a location is reachable by a PLC only
// through its PLC code (at most the 20 characters of the location field).

export const PARTS = COORDINATE_PARTS;
export type Part = (typeof PARTS)[number];

const PLC_PART_WIDTH = OSIP_LOCATION_PART_WIDTH;
/** A PLC code fills the location field alone. */
const PLC_CODE_WIDTH = OSIP_LOCATION_WIDTH;
const MAX_PART = COORDINATE_PART_MAX;
const ALLOWED = COORDINATE_CHARACTER;

/** A finding as a message key and its parameters, put in words when shown (a language switch changes it). */
export interface Finding {
  key: string;
  params: Record<string, string | number>;
  /** The part it concerns, when it is one part. */
  part?: Part;
}

export const findingText = (f: Finding): string => t(f.key, { ...f.params, ...(f.part ? { part: t(`commissioning.part.${f.part}`) } : {}) });

/** What the appliance would refuse in one part; undefined when it takes it. */
export function partProblem(part: Part, value: string): Finding | undefined {
  if (value === '') return { key: 'commissioning.coordinate.empty', params: { max: MAX_PART }, part };
  if (value.length > MAX_PART) return { key: 'commissioning.coordinate.tooLong', params: { value, n: value.length, max: MAX_PART }, part };
  const wrong = [...new Set([...value].filter((c) => !ALLOWED.test(c)))];
  if (wrong.length) return { key: 'commissioning.coordinate.characters', params: { value, chars: wrong.map((c) => (c === ' ' ? '␣' : c)).join(' ') }, part };
  return undefined;
}

/** What the appliance would refuse in a typed coordinate; undefined when it takes it. */
export function coordinateProblem(text: string): Finding | undefined {
  const parts = text.split('/');
  if (parts.length !== PARTS.length) return { key: 'commissioning.coordinate.parts', params: { n: parts.length } };
  for (const [i, part] of PARTS.entries()) {
    const problem = partProblem(part, parts[i]!);
    if (problem) return problem;
  }
  return undefined;
}

/** A part as a telegram carries it (the default padding of a channel). */
const padded = (value: string): string => (/^\d+$/.test(value) ? value.padStart(PLC_PART_WIDTH, '0') : value.padEnd(PLC_PART_WIDTH, '_'));

/**
 * Why no PLC could address locations with these parts (the first part that does not
 * travel as it is); undefined when every part has exactly 4 characters. `parts` holds
 * the values each part takes (one, or those of a range); `words` picks the texts: one
 * location's (with the padded coordinate to write instead) or a pattern's.
 */
export function plcFinding(parts: Readonly<Record<Part, readonly string[]>>, words: 'commissioning.coordinate' | 'commissioning.bulk'): Finding | undefined {
  for (const part of PARTS) {
    const long = parts[part].find((v) => v.length > PLC_PART_WIDTH);
    if (long !== undefined) return { key: `${words}.plcLong`, params: { value: long, n: long.length, width: PLC_PART_WIDTH }, part };
  }
  for (const part of PARTS) {
    const short = parts[part].find((v) => v.length < PLC_PART_WIDTH);
    if (short !== undefined) {
      const suggestion = PARTS.map((p) => padded(parts[p][0] ?? '')).join('/');
      return { key: `${words}.plcShort`, params: { value: short, padded: padded(short), width: PLC_PART_WIDTH, suggestion }, part };
    }
  }
  return undefined;
}

/**
 * The warning for one location about to be created: none when its coordinate travels
 * as it is, or when a PLC code that fits the telegram addresses it instead.
 */
export function plcWarning(coordinate: string, plcCode: string): Finding | undefined {
  if (plcCode.length > PLC_CODE_WIDTH) return { key: 'commissioning.coordinate.plcCodeLong', params: { n: plcCode.length, width: PLC_CODE_WIDTH } };
  if (plcCode !== '') return undefined;
  const values = coordinate.split('/');
  return plcFinding(Object.fromEntries(PARTS.map((p, i) => [p, [values[i] ?? '']])) as Record<Part, string[]>, 'commissioning.coordinate');
}
