// Locations travel as a 20-character field: AREA, AISLE, X, Y, Z, each exactly 4
// characters, no separators (docs/plc.md ("Telegram catalogue")). Reading cuts the field into five
// slices joined with `/`, exactly as OpenWMS does, so `SL__` stays `SL__`: the
// coordinate a site stores for a PLC-facing location is the padded one.

import { CoordinateNotWritableError } from './errors.ts';
import { DEFAULT_OSIP_OPTIONS, isPrintable, type LocationPadding } from './options.ts';
import { OSIP_LOCATION_PART_WIDTH as PART_WIDTH, OSIP_LOCATION_WIDTH as LOCATION_WIDTH } from './widths.ts';

const DIGITS = /^[0-9]+$/;

/**
 * True when an optional field counts as "not set": it starts with `*` (OpenWMS),
 * or `?` (OpenWMS's "unknown"), or is all blanks (our leniency for PLCs that
 * space-fill an empty field).
 */
export function isAbsent(field: string): boolean {
  return field.startsWith('*') || field.startsWith('?') || field.trim() === '';
}

/**
 * `CONV0001000200000000` → `CONV/0001/0002/0000/0000`; undefined when the field is
 * absent (see isAbsent). Slices are kept as they are (no unpadding).
 */
export function coordinateFromField(field: string): string | undefined {
  if (isAbsent(field)) return undefined;
  const text = field.slice(0, LOCATION_WIDTH);
  const parts: string[] = [];
  for (let i = 0; i < LOCATION_WIDTH; i += PART_WIDTH) parts.push(text.slice(i, i + PART_WIDTH));
  return parts.join('/');
}

/**
 * `CONV/1/2/0/0` → `CONV0001000200000000`, `SL/IN/1/0/0` → `SL__IN__000100000000`
 * (with the default padding). Throws CoordinateNotWritableError when the text is
 * not five `/`-separated parts, a part is empty or longer than 4, a part needs
 * padding but its padding is off, or a part is not printable ASCII. `field` names
 * the telegram field in the error.
 */
export function fieldFromCoordinate(coordinate: string, padding: LocationPadding = DEFAULT_OSIP_OPTIONS.locationPadding, field = 'location'): string {
  const parts = coordinate.split('/');
  if (parts.length !== 5) throw new CoordinateNotWritableError(coordinate, 'does not have 5 parts AREA/AISLE/X/Y/Z', field);
  return parts
    .map((part) => {
      if (part.length === 0) throw new CoordinateNotWritableError(coordinate, 'has an empty part', field);
      if (part.length > PART_WIDTH) {
        throw new CoordinateNotWritableError(coordinate, `has a part longer than ${PART_WIDTH} characters (${JSON.stringify(part)})`, field);
      }
      if (!isPrintable(part)) throw new CoordinateNotWritableError(coordinate, 'is not printable ASCII', field);
      if (part.length === PART_WIDTH) return part;
      const numeric = DIGITS.test(part);
      const pad = numeric ? padding.numeric : padding.text;
      if (pad === null) {
        throw new CoordinateNotWritableError(coordinate, `has a part shorter than ${PART_WIDTH} (${JSON.stringify(part)}) and padding is off`, field);
      }
      return numeric ? part.padStart(PART_WIDTH, pad) : part.padEnd(PART_WIDTH, pad);
    })
    .join('');
}
