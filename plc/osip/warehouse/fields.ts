import { CoordinateNotWritableError } from '../errors.ts';
import { fieldFromCoordinate, isAbsent } from '../coordinate.ts';
import type { LocationRef, PlcOperations, UnitRef } from '../../port.ts';
import type { AdapterOptions, HandlingResult, ReplyInput, TelegramFacts } from '../port.ts';

// Between the 20-character fields of a telegram and the adapter's warehouse terms:
// a location field as a coordinate or PLC code to look up, a location written back
// into a field, and the shapes of a handler's result.

const LOCATION_FIELD_WIDTH = 20;

export const result = (outcome: string, reply?: ReplyInput, facts?: TelegramFacts): HandlingResult => ({
  replies: reply ? [reply] : [],
  outcome,
  ...(facts ? { facts } : {}),
});

/** An ERR_ reply with one of our codes; the group field stays `*` × 20. */
export const errReply = (code: string): ReplyInput => ({ type: 'ERR_', errorCode: code });

/**
 * The location a field names, looked up as the channel says: by coordinate (the field
 * cut into 5 × 4), by PLC code (the field's text without surrounding blanks), or by
 * coordinate and then by PLC code. A field that is not a coordinate is a PLC code in
 * any case. Undefined for an absent field.
 */
export function locationRef(addressing: AdapterOptions['locationAddressing'], coordinate: string | undefined, rawField: string): LocationRef | undefined {
  if (isAbsent(rawField)) return undefined;
  const byCoordinate = addressing !== 'plcCode' && coordinate !== undefined;
  const plcCode = rawField.trim();
  const byPlcCode = !(byCoordinate && addressing === 'coordinate') && plcCode !== '';
  return { ...(byCoordinate ? { coordinate } : {}), ...(byPlcCode ? { plcCode } : {}) };
}

/** The unit a barcode field names (undefined: a no-read): the barcode without the channel's padding, and the field as sent. */
export const unitRef = (barcode: string | undefined, rawBarcode: string): UnitRef | undefined =>
  barcode === undefined ? undefined : { barcode, asSent: rawBarcode };

const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * A location as the 20 characters of a telegram field: its coordinate as 5 × 4
 * (default padding: text parts `_`, numbers `0`), else its PLC code when that fits
 * (right-padded with blanks, which a PLC-code reader trims). Undefined when neither
 * can be written; the caller answers without that location and warns.
 */
export function locationField(adapter: Pick<PlcOperations, 'plcCodeOf'>, locationId: string): string | undefined {
  try {
    return fieldFromCoordinate(locationId);
  } catch (err) {
    if (!(err instanceof CoordinateNotWritableError)) throw err;
  }
  const plcCode = adapter.plcCodeOf(locationId);
  if (!plcCode || plcCode.length > LOCATION_FIELD_WIDTH || !PRINTABLE.test(plcCode) || isAbsent(plcCode)) return undefined;
  return plcCode.padEnd(LOCATION_FIELD_WIDTH, ' ');
}

/** A group name that fits the 20-character field of a RES_; undefined otherwise. */
export function groupField(name: string | null | undefined): string | undefined {
  if (!name || name.length > LOCATION_FIELD_WIDTH || !PRINTABLE.test(name)) return undefined;
  return name;
}
