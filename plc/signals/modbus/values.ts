import type { SignalKind, SignalValue } from '../driver.ts';
import type { ModbusAddress } from './address.ts';
import { span } from './address.ts';

// Values in Modbus terms: a coil or input is a flag; a register a 16-bit word (unsigned);
// a double word two registers, the high word first; text one character per byte, the
// first in a register's high byte, padded with NUL.

/** The value at `index` of what a read returned (coils as flags, registers as words). */
export function decodeValue(data: readonly (number | boolean)[], index: number, a: ModbusAddress, kind: SignalKind): SignalValue {
  const at = (i: number) => {
    const v = data[index + i];
    if (v === undefined) throw new Error(`the device answered fewer values than asked for`);
    return v;
  };
  if (a.area === 'coil' || a.area === 'di') return at(0) === true || at(0) === 1;
  const word = (i: number) => Number(at(i)) & 0xffff;
  if (a.bit !== undefined) return ((word(0) >> a.bit) & 1) === 1;
  if (kind === 'bit') return word(0) !== 0;
  if (kind === 'dword') return word(0) * 0x10000 + word(1);
  if (kind === 'string') {
    const bytes: number[] = [];
    for (let i = 0; i < span(a, kind); i++) bytes.push(word(i) >> 8, word(i) & 0xff);
    return Buffer.from(bytes).toString('latin1').replace(/\0+$/, '');
  }
  return word(0);
}

/** A value to write as words (a coil or bit: [0] or [1]); throws when it does not fit. */
export function encodeValue(a: ModbusAddress, kind: SignalKind, value: SignalValue): number[] {
  if (kind === 'bit' || a.area === 'coil' || a.bit !== undefined) {
    const on = typeof value === 'boolean' ? value : typeof value === 'number' ? value !== 0 : value !== '' && value !== '0';
    return [on ? 1 : 0];
  }
  if (kind === 'string') {
    const words = span(a, kind);
    const bytes = Buffer.from(String(value), 'latin1');
    if (bytes.length > words * 2) throw new Error(`text of ${bytes.length} characters does not fit ${words} registers`);
    const out: number[] = [];
    for (let i = 0; i < words; i++) out.push(((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
    return out;
  }
  const n = typeof value === 'boolean' ? (value ? 1 : 0) : Number(value);
  const max = kind === 'dword' ? 0xffffffff : 0xffff;
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${String(value)} is not a whole number 0–${max}`);
  return kind === 'dword' ? [Math.floor(n / 0x10000), n & 0xffff] : [n];
}
