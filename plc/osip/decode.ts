// Reading a frame: leniently where a telegram is still usable, strictly where it is
// not (docs/plc.md ("Bad telegrams")). Usable: any sequence number 0..99999, a malformed
// date (kept, with a warning; the adapter uses the receive time), a length field
// that disagrees with the frame (warning), characters past the last field.
// Rejected, with the ERR_ code the host answers: too short for the type, a header
// that is not sync + numeric length + numeric sequence, a byte outside printable
// ASCII, an unknown type.

import { ERR_CODES } from './codes.ts';
import { coordinateFromField, isAbsent } from './coordinate.ts';
import { HEADER_FIELDS, HEADER_LENGTH, LAYOUTS, PAYLOAD_OFFSET, TYPE_OFFSET, isTelegramType, minimumLength, rawName, type FieldSpec } from './layout.ts';
import { DEFAULT_OSIP_OPTIONS, type OsipOptions } from './options.ts';
import type { OsipHeader, Telegram } from './telegrams.ts';
import { parseTelegramDate } from './time.ts';

export type RejectReason = 'too-short' | 'bad-header' | 'non-ascii' | 'unknown-type';

/** Who to answer a rejected frame: seq is missing when it could not be read (reply with `00000`). */
export interface ReplyAddress {
  sender: string;
  receiver: string;
  seq?: number | undefined;
}

export type DecodeResult =
  | { ok: true; telegram: Telegram; warnings: string[] }
  | {
      ok: false;
      reason: RejectReason;
      /** Our ERR_ code for the reply. */
      code: string;
      /** For the log and the channel's telegram history. */
      detail: string;
      /** Present when sender and receiver could be read; answer only then. */
      header?: ReplyAddress;
    };

const REJECT_CODES: Record<RejectReason, string> = {
  'too-short': ERR_CODES.tooShort,
  'bad-header': ERR_CODES.badField,
  'non-ascii': ERR_CODES.badField,
  'unknown-type': ERR_CODES.unknownType,
};

const NOT_PRINTABLE = /[^\x20-\x7e]/g;
const NOT_PRINTABLE_ONE = /[^\x20-\x7e]/;
const FIVE_DIGITS = /^[0-9]{5}$/;
const DIGITS = /^[0-9]+$/;

function reject(reason: RejectReason, detail: string, header?: ReplyAddress): DecodeResult {
  return header ? { ok: false, reason, code: REJECT_CODES[reason], detail, header } : { ok: false, reason, code: REJECT_CODES[reason], detail };
}

const slice = (frame: string, at: { offset: number; width: number }) => frame.slice(at.offset, at.offset + at.width);

interface HeaderRead {
  header?: OsipHeader;
  /** Sender/receiver (and seq when numeric) of a header that is readable enough to answer. */
  address?: ReplyAddress;
  problem?: { reason: RejectReason; detail: string };
}

function readHeader(frame: string, options: OsipOptions): HeaderRead {
  if (frame.length < HEADER_LENGTH) {
    return { problem: { reason: 'too-short', detail: `frame of ${frame.length} characters is shorter than the ${HEADER_LENGTH}-character header` } };
  }
  const sync = slice(frame, HEADER_FIELDS.sync);
  if (sync !== options.sync) return { problem: { reason: 'bad-header', detail: `frame does not start with the sync ${options.sync}` } };
  const sender = slice(frame, HEADER_FIELDS.sender);
  const receiver = slice(frame, HEADER_FIELDS.receiver);
  const lengthText = slice(frame, HEADER_FIELDS.length);
  const seqText = slice(frame, HEADER_FIELDS.seq);
  const addressable = !NOT_PRINTABLE_ONE.test(sender + receiver);
  const seq = FIVE_DIGITS.test(seqText) ? Number(seqText) : undefined;
  const address: ReplyAddress | undefined = addressable ? { sender, receiver, seq } : undefined;
  if (!FIVE_DIGITS.test(lengthText)) {
    // docs/plc.md: a header field that is not numeric is answered with sequence 00000.
    return {
      address: address && { sender, receiver },
      problem: { reason: 'bad-header', detail: `length field ${JSON.stringify(lengthText)} is not 5 digits` },
    };
  }
  if (seq === undefined) {
    return { address, problem: { reason: 'bad-header', detail: `sequence field ${JSON.stringify(seqText)} is not 5 digits` } };
  }
  return { address, header: { length: Number(lengthText), sender, receiver, seq } };
}

/** Strips the configured barcode padding (keeping at least one character) and blanks. */
function barcodeValue(field: string, options: OsipOptions): string {
  let text = field.trim();
  const padding = options.barcodePadding;
  if (padding !== 'none') {
    if (padding.side === 'left') {
      let i = 0;
      while (i < text.length - 1 && text[i] === padding.char) i++;
      text = text.slice(i);
    } else {
      let end = text.length;
      while (end > 1 && text[end - 1] === padding.char) end--;
      text = text.slice(0, end);
    }
  }
  return text;
}

/** Trailing `_`, `*` and blanks stripped (both fillers are accepted in every type). */
function groupValue(field: string): string | undefined {
  if (isAbsent(field)) return undefined;
  const name = field.replace(/[_* ]+$/, '');
  return name === '' ? undefined : name;
}

function readField(spec: FieldSpec, text: string, out: Record<string, unknown>, warnings: string[], options: OsipOptions): void {
  switch (spec.kind) {
    case 'barcode':
      out[spec.name] = isAbsent(text) ? undefined : barcodeValue(text, options);
      out[rawName(spec.name)] = text;
      return;
    case 'location':
      out[spec.name] = coordinateFromField(text);
      out[rawName(spec.name)] = text;
      return;
    case 'group':
      out[spec.name] = groupValue(text);
      return;
    case 'errorCode':
      out[spec.name] = text;
      return;
    case 'date': {
      if (isAbsent(text)) {
        out[spec.name] = undefined;
        return;
      }
      const date = parseTelegramDate(text, options.timeZone);
      if (!date) warnings.push(`${spec.name} ${JSON.stringify(text)} is not a valid yyyyMMddHHmmss date; ignored`);
      out[spec.name] = date;
      return;
    }
    case 'number': {
      if (text.length < spec.width || isAbsent(text)) {
        out[spec.name] = undefined;
        return;
      }
      if (!DIGITS.test(text)) warnings.push(`${spec.name} ${JSON.stringify(text)} is not a number; ignored`);
      out[spec.name] = DIGITS.test(text) ? Number(text) : undefined;
      return;
    }
  }
}

/**
 * Decodes one frame (the telegram text without its framing: no CR/LF, STX/ETX).
 * A non-ASCII byte arrives as a character above U+007E (the framer reads bytes as
 * latin1) and rejects the frame.
 */
export function decode(frame: string, options: OsipOptions = DEFAULT_OSIP_OPTIONS): DecodeResult {
  const read = readHeader(frame, options);
  const bad = frame.match(NOT_PRINTABLE);
  if (bad) {
    const first = bad[0].charCodeAt(0).toString(16).padStart(2, '0');
    return reject('non-ascii', `${bad.length} byte(s) outside printable ASCII (first 0x${first})`, read.address);
  }
  if (read.problem) return reject(read.problem.reason, read.problem.detail, read.address);
  const header = read.header!;
  const address = read.address!;
  if (frame.length < PAYLOAD_OFFSET) {
    return reject('too-short', `frame of ${frame.length} characters ends before the telegram type`, address);
  }
  const type = frame.slice(TYPE_OFFSET, PAYLOAD_OFFSET);
  if (!isTelegramType(type)) return reject('unknown-type', `unknown telegram type ${JSON.stringify(type)}`, address);
  const needed = minimumLength(type);
  if (frame.length < needed) {
    return reject('too-short', `${type} needs ${needed} characters, frame has ${frame.length}`, address);
  }

  const warnings: string[] = [];
  if (header.length !== frame.length) {
    warnings.push(`length field ${header.length} differs from the frame's length ${frame.length}`);
  }
  const out: Record<string, unknown> = { type, header };
  for (const spec of LAYOUTS[type]) {
    if (spec.extension && !options.reqExtension) continue;
    readField(spec, frame.slice(spec.offset, spec.offset + spec.width), out, warnings, options);
  }
  return { ok: true, telegram: out as unknown as Telegram, warnings };
}
