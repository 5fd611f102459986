// A location's coordinate `AREA/AISLE/X/Y/Z` (the `locationId`). Each part is 1 to
// 20 characters of letters, digits, `_`, `.` and `-`; `%` is kept out because the
// wildcard search uses it. OSIP telegrams carry locations as 5 × 4 characters:
// coordinates that should travel to a PLC keep to 4 per part or use a `plcCode`.

export interface Coordinate {
  area: string;
  aisle: string;
  x: string;
  y: string;
  z: string;
}

export const COORDINATE_PARTS = ['area', 'aisle', 'x', 'y', 'z'] as const;
/** Characters of a part at most. */
export const COORDINATE_PART_MAX = 20;
/** One character a part may hold. */
export const COORDINATE_CHARACTER = /[A-Za-z0-9_.-]/;
const PART = new RegExp(`^${COORDINATE_CHARACTER.source}{1,${COORDINATE_PART_MAX}}$`);

export function parseCoordinate(text: string): Coordinate | undefined {
  const parts = text.split('/');
  if (parts.length !== 5 || !parts.every((p) => PART.test(p))) return undefined;
  const [area, aisle, x, y, z] = parts as [string, string, string, string, string];
  return { area, aisle, x, y, z };
}

export const COORDINATE_RULE = 'a 5-part coordinate AREA/AISLE/X/Y/Z, each part 1-20 of A-Z a-z 0-9 _ . -';
