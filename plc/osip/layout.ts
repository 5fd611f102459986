// The field tables of docs/plc.md ("Telegram catalogue"): one row per field, offsets 0-based.
// Decoder and encoder are both driven by these tables, so a layout exists once.

import type { GroupTelegramType } from './options.ts';
import type { TelegramType } from './telegrams.ts';

export const HEADER_LENGTH = 23;
export const TYPE_OFFSET = 23;
const TYPE_WIDTH = 4;
export const PAYLOAD_OFFSET = TYPE_OFFSET + TYPE_WIDTH;

export const HEADER_FIELDS = Object.freeze({
  sync: { offset: 0, width: 3 },
  length: { offset: 3, width: 5 },
  sender: { offset: 8, width: 5 },
  receiver: { offset: 13, width: 5 },
  seq: { offset: 18, width: 5 },
});

/**
 * barcode: TU id (padding per options; raw text kept as `raw<Name>`);
 * location: 5 × 4 coordinate (raw text kept as `raw<Name>`);
 * group: location-group name (filler per type);
 * errorCode: 8-character state bitmap / error number;
 * date: `yyyyMMddHHmmss`;
 * number: zero-padded unsigned integer (our REQ_ extension).
 */
export type FieldKind = 'barcode' | 'location' | 'group' | 'errorCode' | 'date' | 'number';

export interface FieldSpec {
  name: string;
  offset: number;
  width: number;
  kind: FieldKind;
  /** Set for the REQ_ extension: read and written only with `reqExtension`. */
  extension?: true;
}

const f = (name: string, offset: number, width: number, kind: FieldKind, extension?: true): FieldSpec =>
  extension ? { name, offset, width, kind, extension } : { name, offset, width, kind };

const tuAtLocation = [f('barcode', 27, 20, 'barcode'), f('actualLocation', 47, 20, 'location')];

export const LAYOUTS: Readonly<Record<TelegramType, readonly FieldSpec[]>> = Object.freeze({
  REQ_: [
    ...tuAtLocation,
    f('targetLocation', 67, 20, 'location'),
    f('errorCode', 87, 8, 'errorCode'),
    f('created', 95, 14, 'date'),
    f('weightGrams', 109, 6, 'number', true),
    f('lengthMm', 115, 4, 'number', true),
    f('widthMm', 119, 4, 'number', true),
    f('heightMm', 123, 4, 'number', true),
  ],
  RES_: [
    ...tuAtLocation,
    f('targetLocation', 67, 20, 'location'),
    f('targetLocationGroup', 87, 20, 'group'),
    f('errorCode', 107, 8, 'errorCode'),
    f('created', 115, 14, 'date'),
  ],
  SYNQ: [f('time', 27, 14, 'date')],
  SYNC: [f('time', 27, 14, 'date')],
  UPD_: [...tuAtLocation, f('errorCode', 67, 8, 'errorCode'), f('created', 75, 14, 'date')],
  UPDX: [...tuAtLocation, f('errorCode', 67, 8, 'errorCode'), f('created', 75, 14, 'date')],
  ACK_: [f('errorCode', 27, 8, 'errorCode'), f('created', 35, 14, 'date')],
  LOCU: [f('locationGroupName', 27, 20, 'group'), f('location', 47, 20, 'location'), f('errorCode', 67, 8, 'errorCode'), f('created', 75, 14, 'date')],
  SYSU: [f('locationGroupName', 27, 20, 'group'), f('errorCode', 47, 8, 'errorCode'), f('created', 55, 14, 'date')],
  ERR_: [f('locationGroupName', 27, 20, 'group'), f('errorCode', 47, 8, 'errorCode'), f('created', 55, 14, 'date')],
});

export const TELEGRAM_TYPES = Object.freeze(Object.keys(LAYOUTS) as TelegramType[]);

export function isTelegramType(text: string): text is TelegramType {
  return Object.hasOwn(LAYOUTS, text);
}

/** The shortest frame a type can be read from: the end of its last standard field. */
export function minimumLength(type: TelegramType): number {
  let end = PAYLOAD_OFFSET;
  for (const field of LAYOUTS[type]) if (!field.extension) end = Math.max(end, field.offset + field.width);
  return end;
}

/** `barcode` → `rawBarcode`: where the exact field text of a barcode/location is kept. */
export function rawName(name: string): string {
  return `raw${name[0]!.toUpperCase()}${name.slice(1)}`;
}

export function groupFillerType(type: TelegramType): GroupTelegramType | undefined {
  return type === 'LOCU' || type === 'SYSU' || type === 'RES_' || type === 'ERR_' ? type : undefined;
}
