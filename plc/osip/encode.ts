// Writing a telegram strictly (docs/plc.md): every field padded to its width,
// the length field equal to the configured length, printable ASCII only. A value
// that does not fit throws OsipEncodeError (or CoordinateNotWritableError): it is a
// programming or configuration error, and a truncated barcode or location would
// send a TU somewhere else.

import { fieldFromCoordinate } from './coordinate.ts';
import { OsipEncodeError } from './errors.ts';
import { HEADER_FIELDS, LAYOUTS, PAYLOAD_OFFSET, groupFillerType, isTelegramType, rawName, type FieldSpec } from './layout.ts';
import { DEFAULT_OSIP_OPTIONS, isPrintable, type OsipOptions } from './options.ts';
import type { TelegramInput, TelegramType } from './telegrams.ts';
import { formatTelegramDate } from './time.ts';

const ABSENT_BARCODE = '?';
const ABSENT_LOCATION = '*';
const ABSENT_ERROR_CODE = '********';

function checkText(field: string, value: unknown): string {
  if (typeof value !== 'string') throw new OsipEncodeError(field, 'bad-value', `expected a string, got ${typeof value}`);
  if (!isPrintable(value)) throw new OsipEncodeError(field, 'non-ascii', `${JSON.stringify(value)} is not printable ASCII (0x20-0x7E)`);
  return value;
}

function checkMaxWidth(field: string, value: string, width: number): string {
  if (value.length > width) {
    throw new OsipEncodeError(field, 'too-long', `${JSON.stringify(value)} is ${value.length} characters, the field has ${width}`);
  }
  return value;
}

function checkExactWidth(field: string, value: string, width: number): string {
  checkMaxWidth(field, value, width);
  if (value.length !== width) {
    throw new OsipEncodeError(field, 'bad-value', `${JSON.stringify(value)} must be exactly ${width} characters`);
  }
  return value;
}

function writeHeaderField(field: string, value: string, width: number): string {
  return checkExactWidth(`header.${field}`, checkText(`header.${field}`, value), width);
}

function fieldText(type: TelegramType, spec: FieldSpec, input: Record<string, unknown>, options: OsipOptions): string | undefined {
  const value = input[spec.name];
  const { name, width } = spec;
  switch (spec.kind) {
    case 'barcode':
    case 'location': {
      const raw = input[rawName(name)];
      if (raw !== undefined) return checkExactWidth(rawName(name), checkText(rawName(name), raw), width);
      if (value === undefined) return (spec.kind === 'barcode' ? ABSENT_BARCODE : ABSENT_LOCATION).repeat(width);
      if (spec.kind === 'location') {
        // Every unwritable coordinate, non-ASCII included, is a CoordinateNotWritableError.
        if (typeof value !== 'string') throw new OsipEncodeError(name, 'bad-value', `expected a coordinate string, got ${typeof value}`);
        return fieldFromCoordinate(value, options.locationPadding, name);
      }
      const text = checkText(name, value);
      if (text === '') throw new OsipEncodeError(name, 'bad-value', 'an empty barcode; leave it out for "no barcode"');
      checkMaxWidth(name, text, width);
      const padding = options.barcodePadding;
      if (padding === 'none') return checkExactWidth(name, text, width);
      return padding.side === 'left' ? text.padStart(width, padding.char) : text.padEnd(width, padding.char);
    }
    case 'group': {
      const filler = options.groupFiller[groupFillerType(type)!];
      if (value === undefined || value === '') return filler.repeat(width);
      return checkMaxWidth(name, checkText(name, value), width).padEnd(width, filler);
    }
    case 'errorCode':
      if (value === undefined) return ABSENT_ERROR_CODE;
      return checkExactWidth(name, checkText(name, value), width);
    case 'date': {
      const date = value === undefined ? options.clock() : value;
      if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
        throw new OsipEncodeError(name, 'bad-value', 'expected a valid Date');
      }
      const text = formatTelegramDate(date, options.timeZone);
      if (text.length !== width) throw new OsipEncodeError(name, 'too-long', `year of ${date.toISOString()} does not fit 4 digits`);
      return text;
    }
    case 'number': {
      if (spec.extension && !options.reqExtension) {
        if (value !== undefined) throw new OsipEncodeError(name, 'bad-value', 'is part of the REQ_ extension, which is off');
        return undefined;
      }
      if (value === undefined) return options.filler.repeat(width);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
        throw new OsipEncodeError(name, 'bad-value', `expected a non-negative integer, got ${String(value)}`);
      }
      return checkMaxWidth(name, String(value), width).padStart(width, '0');
    }
  }
}

/**
 * Writes a telegram: exactly `options.telegramLength` printable ASCII characters,
 * no terminator (that is the framing's job). See TelegramInput for what an absent
 * field becomes.
 */
export function encode(telegram: TelegramInput, options: OsipOptions = DEFAULT_OSIP_OPTIONS): string {
  const type = telegram.type;
  if (!isTelegramType(type)) throw new OsipEncodeError('type', 'bad-value', `unknown telegram type ${JSON.stringify(type)}`);
  const { sender, receiver, seq } = telegram.header;
  if (!Number.isInteger(seq) || seq < 0 || seq > 99_999) {
    throw new OsipEncodeError('header.seq', 'bad-value', `must be an integer 0..99999, got ${String(seq)}`);
  }
  const head =
    options.sync +
    String(options.telegramLength).padStart(HEADER_FIELDS.length.width, '0') +
    writeHeaderField('sender', sender, HEADER_FIELDS.sender.width) +
    writeHeaderField('receiver', receiver, HEADER_FIELDS.receiver.width) +
    String(seq).padStart(HEADER_FIELDS.seq.width, '0') +
    type;

  const payload = Array.from({ length: options.telegramLength - PAYLOAD_OFFSET }, () => options.filler);
  const input = telegram as unknown as Record<string, unknown>;
  for (const spec of LAYOUTS[type]) {
    const text = fieldText(type, spec, input, options);
    if (text === undefined) continue;
    for (let i = 0; i < text.length; i++) payload[spec.offset - PAYLOAD_OFFSET + i] = text[i]!;
  }
  return head + payload.join('');
}
