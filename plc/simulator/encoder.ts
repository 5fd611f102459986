// The simulator's own OSIP encoder and decoder (docs/plc.md ("Telegram catalogue")).
//
// Deliberately independent of the appliance's codec in plc/osip: the simulator is
// the yardstick the appliance is measured with, so a bug in one must not be able to
// hide behind the same bug in the other. It is checked byte for byte against the
// example telegrams of the protocol document (encoder.test.ts).
//
// Writing is strict (every field padded to its width, too long or non-ASCII values
// throw). Reading is lenient the way docs/plc.md asks of the appliance: `*`/`?` mean
// "absent", the length field is not compared, characters past the last field are
// ignored; only a frame too short for its type, a non-numeric header number, a
// missing sync or a non-ASCII byte are refused.

export const TELEGRAM_TYPES = ['REQ_', 'RES_', 'SYNQ', 'SYNC', 'UPD_', 'UPDX', 'ACK_', 'LOCU', 'SYSU', 'ERR_'] as const;
export type TelegramType = (typeof TELEGRAM_TYPES)[number];

export const HEADER_LENGTH = 23;
export const TYPE_END = HEADER_LENGTH + 4;

interface EncoderOptions {
  /** Total telegram length without the frame; the header's length field says the same. Default 160. */
  length?: number;
  /** Default `###`. */
  sync?: string;
  /** Pads the telegram to its length. Default `*`. */
  filler?: string;
}

/** Time as the protocol writes it: `yyyyMMddHHmmss`; a Date is written in UTC. */
export type OsipTime = Date | string;

interface Header {
  /** Five characters; shorter names are padded with `_` (like `MFC__`). */
  sender: string;
  receiver: string;
  /** 0–99999. */
  seq: number;
  /** Overrides the header's length field (a fault: the real length stays as configured). */
  lengthField?: number;
}

// What the encoder takes: absent optional fields become their "not set" text.

interface ReqInput extends Header {
  type: 'REQ_';
  /** null = no read (`?` × 20). */
  barcode: string | null;
  actualLocation: string | null;
  targetLocation?: string | null;
  errorCode?: string;
  created?: OsipTime;
}
interface ResInput extends Header {
  type: 'RES_';
  barcode: string | null;
  actualLocation: string | null;
  targetLocation?: string | null;
  targetLocationGroup?: string | null;
  errorCode?: string;
  created?: OsipTime;
}
interface TimeInput extends Header {
  type: 'SYNQ' | 'SYNC';
  time?: OsipTime;
}
interface UpdInput extends Header {
  type: 'UPD_' | 'UPDX';
  barcode: string | null;
  actualLocation: string | null;
  errorCode?: string;
  created?: OsipTime;
}
interface AckInput extends Header {
  type: 'ACK_';
  errorCode?: string;
  created?: OsipTime;
}
interface LocuInput extends Header {
  type: 'LOCU';
  locationGroupName?: string | null;
  location: string | null;
  errorCode?: string;
  created?: OsipTime;
}
interface GroupInput extends Header {
  type: 'SYSU' | 'ERR_';
  locationGroupName: string | null;
  errorCode?: string;
  created?: OsipTime;
}
export type TelegramInput = ReqInput | ResInput | TimeInput | UpdInput | AckInput | LocuInput | GroupInput;

// What the decoder returns: every field present, absent ones as null.

interface DecodedHeader {
  sender: string;
  receiver: string;
  seq: number;
  /** The header's length field as sent (not checked against the real length). */
  lengthField: number;
}
export interface ReqTelegram extends DecodedHeader {
  type: 'REQ_';
  /** The 20 characters as sent (e.g. `00000000000000004711`); null when `*`/`?`. */
  barcode: string | null;
  /** `AREA/AISLE/X/Y/Z`; null when `*`/`?`. */
  actualLocation: string | null;
  targetLocation: string | null;
  errorCode: string;
  created: string;
}
export interface ResTelegram extends DecodedHeader {
  type: 'RES_';
  barcode: string | null;
  actualLocation: string | null;
  targetLocation: string | null;
  targetLocationGroup: string | null;
  errorCode: string;
  created: string;
}
export interface TimeTelegram extends DecodedHeader {
  type: 'SYNQ' | 'SYNC';
  time: string;
}
export interface UpdTelegram extends DecodedHeader {
  type: 'UPD_' | 'UPDX';
  barcode: string | null;
  actualLocation: string | null;
  errorCode: string;
  created: string;
}
export interface AckTelegram extends DecodedHeader {
  type: 'ACK_';
  errorCode: string;
  created: string;
}
export interface LocuTelegram extends DecodedHeader {
  type: 'LOCU';
  locationGroupName: string | null;
  location: string | null;
  errorCode: string;
  created: string;
}
interface GroupTelegram extends DecodedHeader {
  type: 'SYSU' | 'ERR_';
  locationGroupName: string | null;
  errorCode: string;
  created: string;
}
export type Telegram = ReqTelegram | ResTelegram | TimeTelegram | UpdTelegram | AckTelegram | LocuTelegram | GroupTelegram;
/** The decoded telegram of one type (SYNQ and SYNC, UPD_ and UPDX share a layout). */
export type TelegramOf<T extends TelegramType> = T extends unknown ? NarrowTo<Telegram, T> : never;
type NarrowTo<U, T> = U extends { type: infer K } ? (T extends K ? U & { type: T } : never) : never;

// One field table per type: offset and width straight from docs/plc.md.

type Kind = 'barcode' | 'location' | 'group_' | 'group*' | 'code' | 'date';
interface Field {
  name: string;
  offset: number;
  width: number;
  kind: Kind;
}
const f = (name: string, offset: number, width: number, kind: Kind): Field => ({ name, offset, width, kind });

const LAYOUTS: Record<TelegramType, readonly Field[]> = {
  REQ_: [
    f('barcode', 27, 20, 'barcode'),
    f('actualLocation', 47, 20, 'location'),
    f('targetLocation', 67, 20, 'location'),
    f('errorCode', 87, 8, 'code'),
    f('created', 95, 14, 'date'),
  ],
  RES_: [
    f('barcode', 27, 20, 'barcode'),
    f('actualLocation', 47, 20, 'location'),
    f('targetLocation', 67, 20, 'location'),
    // RES_ and ERR_ pad group names with `*`, LOCU and SYSU with `_`.
    f('targetLocationGroup', 87, 20, 'group*'),
    f('errorCode', 107, 8, 'code'),
    f('created', 115, 14, 'date'),
  ],
  SYNQ: [f('time', 27, 14, 'date')],
  SYNC: [f('time', 27, 14, 'date')],
  UPD_: [f('barcode', 27, 20, 'barcode'), f('actualLocation', 47, 20, 'location'), f('errorCode', 67, 8, 'code'), f('created', 75, 14, 'date')],
  UPDX: [f('barcode', 27, 20, 'barcode'), f('actualLocation', 47, 20, 'location'), f('errorCode', 67, 8, 'code'), f('created', 75, 14, 'date')],
  ACK_: [f('errorCode', 27, 8, 'code'), f('created', 35, 14, 'date')],
  // Group before location.
  LOCU: [f('locationGroupName', 27, 20, 'group_'), f('location', 47, 20, 'location'), f('errorCode', 67, 8, 'code'), f('created', 75, 14, 'date')],
  SYSU: [f('locationGroupName', 27, 20, 'group_'), f('errorCode', 47, 8, 'code'), f('created', 55, 14, 'date')],
  ERR_: [f('locationGroupName', 27, 20, 'group*'), f('errorCode', 47, 8, 'code'), f('created', 55, 14, 'date')],
};

/** Where the last field of a type ends: a shorter frame cannot be read. */
export function minimumLength(type: TelegramType): number {
  const fields = LAYOUTS[type];
  const last = fields[fields.length - 1]!;
  return last.offset + last.width;
}

export function isTelegramType(text: string): text is TelegramType {
  return (TELEGRAM_TYPES as readonly string[]).includes(text);
}

export class EncodeError extends Error {
  override name = 'EncodeError';
}

const PRINTABLE = /^[\x20-\x7e]*$/;

function printable(what: string, value: string): string {
  if (!PRINTABLE.test(value)) throw new EncodeError(`${what} must be printable ASCII: ${JSON.stringify(value)}`);
  return value;
}

function withinWidth(what: string, value: string, width: number): string {
  if (value.length > width) throw new EncodeError(`${what} is longer than ${width} characters: "${value}"`);
  return printable(what, value);
}

/** A 5-character header name; shorter names are padded with `_` as in `MFC__`. */
function encodeName(name: string): string {
  return withinWidth('name', name, 5).padEnd(5, '_');
}

/** Barcodes are right-aligned and padded with `0`; null is a no-read (`?` × 20). */
export function encodeBarcode(barcode: string | null): string {
  if (barcode === null) return '?'.repeat(20);
  return withinWidth('barcode', barcode, 20).padStart(20, '0');
}

/**
 * `AREA/AISLE/X/Y/Z` → the 20-character coordinate: number parts padded with
 * leading `0`, text parts with trailing `_`. A 20-character value without `/` is
 * taken as already encoded; null is "not set" (`*` × 20).
 */
export function encodeLocation(location: string | null): string {
  if (location === null) return '*'.repeat(20);
  if (!location.includes('/')) {
    if (location.length !== 20) throw new EncodeError(`location must be AREA/AISLE/X/Y/Z or 20 characters: "${location}"`);
    return printable('location', location);
  }
  const parts = location.split('/');
  if (parts.length !== 5) throw new EncodeError(`location must have 5 parts: "${location}"`);
  return parts
    .map((part) => {
      withinWidth('location part', part, 4);
      return /^\d+$/.test(part) ? part.padStart(4, '0') : part.padEnd(4, '_');
    })
    .join('');
}

/** The 20-character coordinate → `AREA/AISLE/X/Y/Z`; `*`/`?` (not set, unknown) → null. */
export function decodeLocation(field: string): string | null {
  if (absent(field)) return null;
  return [0, 4, 8, 12, 16].map((i) => field.slice(i, i + 4)).join('/');
}

function encodeGroup(name: string | null | undefined, filler: '_' | '*'): string {
  return withinWidth('group name', name ?? '', 20).padEnd(20, filler);
}

function encodeCode(code: string | undefined): string {
  if (code === undefined) return '*'.repeat(8);
  if (code.length !== 8) throw new EncodeError(`error code must be 8 characters: "${code}"`);
  return printable('error code', code);
}

/** `yyyyMMddHHmmss` in UTC. */
export function formatOsipTime(date: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return (
    p(date.getUTCFullYear(), 4) + p(date.getUTCMonth() + 1) + p(date.getUTCDate()) + p(date.getUTCHours()) + p(date.getUTCMinutes()) + p(date.getUTCSeconds())
  );
}

/** `yyyyMMddHHmmss` (read as UTC) → Date; anything malformed → null. */
export function parseOsipTime(text: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  // Date.UTC rolls 31 February into March; the round trip catches it.
  return formatOsipTime(date) === text ? date : null;
}

function encodeTime(time: OsipTime | undefined): string {
  if (time === undefined) return formatOsipTime(new Date());
  if (time instanceof Date) return formatOsipTime(time);
  // A string is written as given, so a test can send a malformed date on purpose.
  if (time.length !== 14) throw new EncodeError(`time must be 14 characters (yyyyMMddHHmmss): "${time}"`);
  return printable('time', time);
}

function encodeField(field: Field, value: unknown): string {
  switch (field.kind) {
    case 'barcode':
      if (value === undefined) throw new EncodeError(`${field.name} is missing (null means no read)`);
      return encodeBarcode(value as string | null);
    case 'location':
      return encodeLocation((value as string | null | undefined) ?? null);
    case 'group_':
      return encodeGroup(value as string | null | undefined, '_');
    case 'group*':
      return encodeGroup(value as string | null | undefined, '*');
    case 'code':
      return encodeCode(value as string | undefined);
    case 'date':
      return encodeTime(value as OsipTime | undefined);
  }
}

function encodeNumber(what: string, n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 99_999) throw new EncodeError(`${what} must be an integer 0–99999: ${n}`);
  return String(n).padStart(5, '0');
}

/** A telegram as the text the PLC puts on the wire (before framing). */
export function encode(telegram: TelegramInput, options: EncoderOptions = {}): string {
  const length = options.length ?? 160;
  const sync = options.sync ?? '###';
  const filler = options.filler ?? '*';
  const layout = LAYOUTS[telegram.type];
  if (!layout) throw new EncodeError(`unknown telegram type "${String(telegram.type)}"`);
  let text =
    sync +
    encodeNumber('length field', telegram.lengthField ?? length) +
    encodeName(telegram.sender) +
    encodeName(telegram.receiver) +
    encodeNumber('sequence number', telegram.seq) +
    telegram.type;
  const values = telegram as unknown as Record<string, unknown>;
  for (const field of layout) {
    // The table is contiguous, so appending in order puts every field at its offset.
    if (text.length !== field.offset) throw new Error(`layout of ${telegram.type} is not contiguous at ${field.name}`);
    text += encodeField(field, values[field.name]);
  }
  if (text.length > length) throw new EncodeError(`${telegram.type} needs ${text.length} characters, telegram length is ${length}`);
  return text.padEnd(length, filler);
}

export class DecodeError extends Error {
  override name = 'DecodeError';
  readonly reason: 'sync' | 'ascii' | 'short' | 'header' | 'unknown-type';
  /** The header, when it could be read (e.g. to answer a wrong type). */
  readonly header: { sender: string; receiver: string; seqText: string; type: string } | undefined;

  constructor(reason: DecodeError['reason'], message: string, header?: DecodeError['header']) {
    super(message);
    this.reason = reason;
    this.header = header;
  }
}

function absent(field: string): boolean {
  return field.startsWith('*') || field.startsWith('?');
}

function decodeField(field: Field, text: string): string | null {
  const raw = text.slice(field.offset, field.offset + field.width);
  switch (field.kind) {
    case 'barcode':
      return absent(raw) ? null : raw;
    case 'location':
      return decodeLocation(raw);
    case 'group_':
    case 'group*': {
      const name = raw.replace(/[_*]+$/, '');
      return name === '' ? null : name;
    }
    case 'code':
    case 'date':
      return raw;
  }
}

/** Reads one telegram (the frame's text without terminator). Throws DecodeError. */
export function decode(text: string, options: Pick<EncoderOptions, 'sync'> = {}): Telegram {
  const sync = options.sync ?? '###';
  if (!text.startsWith(sync)) throw new DecodeError('sync', `telegram does not start with "${sync}"`);
  if (!PRINTABLE.test(text)) throw new DecodeError('ascii', 'telegram holds a byte outside printable ASCII');
  if (text.length < TYPE_END) throw new DecodeError('short', `telegram is ${text.length} characters, shorter than its header`);
  const header = {
    sender: text.slice(8, 13),
    receiver: text.slice(13, 18),
    seqText: text.slice(18, 23),
    type: text.slice(23, 27),
  };
  const lengthText = text.slice(3, 8);
  if (!/^\d{5}$/.test(lengthText)) throw new DecodeError('header', `length field is not numeric: "${lengthText}"`, header);
  if (!/^\d{5}$/.test(header.seqText)) throw new DecodeError('header', `sequence number is not numeric: "${header.seqText}"`, header);
  if (!isTelegramType(header.type)) throw new DecodeError('unknown-type', `unknown telegram type "${header.type}"`, header);
  const need = minimumLength(header.type);
  if (text.length < need) {
    throw new DecodeError('short', `${header.type} needs ${need} characters, got ${text.length}`, header);
  }
  const telegram: Record<string, unknown> = {
    type: header.type,
    sender: header.sender,
    receiver: header.receiver,
    seq: Number(header.seqText),
    lengthField: Number(lengthText),
  };
  for (const field of LAYOUTS[header.type]) telegram[field.name] = decodeField(field, text);
  return telegram as unknown as Telegram;
}
