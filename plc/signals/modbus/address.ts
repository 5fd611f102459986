import type { SignalKind } from '../driver.ts';

// Modbus addresses as the configuration writes them (docs/plc.md, "Signal channels"):
// an area and a 0-based number — `coil:7`, `di:3`, `hr:100`, `ir:12` — a bit of a
// register `hr:12.3` (bit 0 is the least significant), and text over several registers
// `hr:20*10` (10 registers, 20 characters, the first character in the high byte).
// Pure: the configuration checks addresses with it at start, the driver reads and
// writes with it.

export type ModbusArea = 'coil' | 'di' | 'hr' | 'ir';

export interface ModbusAddress {
  area: ModbusArea;
  /** The first coil, input or register, 0-based. */
  offset: number;
  /** A bit of the register (0–15). */
  bit?: number | undefined;
  /** Registers of a text (`*N`). */
  words?: number | undefined;
}

/** Registers a text is read from when the address names no count: 20 characters. */
const DEFAULT_TEXT_WORDS = 10;
/** The most registers one read may ask for (the protocol's limit). */
export const MAX_READ_REGISTERS = 125;
/** The most coils or inputs one read may ask for. */
export const MAX_READ_BITS = 2000;

const PATTERN = /^(coil|di|hr|ir):(\d{1,5})(?:\.(\d{1,2}))?(?:\*(\d{1,3}))?$/;

const ADDRESS_RULE = 'a Modbus address: coil:N, di:N, hr:N or ir:N (0-based), hr:N.B for bit B of a register, hr:N*W for text over W registers';

/** The address, or why it is not one. */
export function parseModbusAddress(text: string): ModbusAddress | string {
  const m = PATTERN.exec(text);
  if (!m) return `not ${ADDRESS_RULE}`;
  const area = m[1] as ModbusArea;
  const offset = Number(m[2]);
  if (offset > 65535) return 'the number is above 65535';
  const registers = area === 'hr' || area === 'ir';
  if (m[3] !== undefined) {
    if (!registers) return `a bit (.B) applies to registers (hr, ir), not to ${area}`;
    const bit = Number(m[3]);
    if (bit > 15) return 'a register has bits 0 to 15';
    if (m[4] !== undefined) return 'a bit of a register cannot be text (*W)';
    return { area, offset, bit };
  }
  if (m[4] !== undefined) {
    if (!registers) return `text (*W) applies to registers (hr, ir), not to ${area}`;
    const words = Number(m[4]);
    if (words < 1 || words > MAX_READ_REGISTERS) return `text spans 1 to ${MAX_READ_REGISTERS} registers`;
    return { area, offset, words };
  }
  return { area, offset };
}

/** Parses an address known to be valid (checked by the configuration). */
export function modbusAddress(text: string): ModbusAddress {
  const parsed = parseModbusAddress(text);
  if (typeof parsed === 'string') throw new Error(`${text}: ${parsed}`);
  return parsed;
}

/** Coils and single-bit inputs; a register's bit counts as a bit too. */
export const isBitAddress = (a: ModbusAddress): boolean => a.area === 'coil' || a.area === 'di' || a.bit !== undefined;

/** Coils and holding registers can be written; discrete inputs and input registers cannot. */
export const isWritable = (a: ModbusAddress): boolean => a.area === 'coil' || a.area === 'hr';

/** The kind of value an address holds: a bit, text, or a word (a double word with `words: 2`). */
export function kindOf(a: ModbusAddress, words: 1 | 2 = 1): SignalKind {
  if (isBitAddress(a)) return 'bit';
  if (a.words !== undefined) return 'string';
  return words === 2 ? 'dword' : 'word';
}

/** How many coils or registers a value of this kind takes at this address. */
export function span(a: ModbusAddress, kind: SignalKind): number {
  if (a.area === 'coil' || a.area === 'di') return 1;
  if (kind === 'string') return a.words ?? DEFAULT_TEXT_WORDS;
  return kind === 'dword' ? 2 : 1;
}
