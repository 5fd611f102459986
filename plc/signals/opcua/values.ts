// A point's value between OPC UA variants and the channel's SignalValue, by the point's
// kind: what a PLC stores as UInt16 or Int32, Boolean or String arrives as the number,
// flag or text the warehouse effect expects; a write goes out in the variable's own
// data type (an S7 refuses an Int32 for its UInt16 without saying much more).

import { DataType } from 'node-opcua-client';
import type { SignalKind, SignalValue } from '../driver.ts';

/** A variant's value as the point's kind; throws when it cannot be one. */
export function signalValue(raw: unknown, kind: SignalKind, address: string): SignalValue {
  if (raw === null || raw === undefined) {
    if (kind === 'string') return '';
    throw new Error(`OPC UA node ${address} has no value`);
  }
  switch (kind) {
    case 'bit':
      if (typeof raw === 'boolean') return raw;
      if (typeof raw === 'number') return raw !== 0;
      break;
    case 'word':
    case 'dword': {
      if (typeof raw === 'number' && Number.isFinite(raw)) return raw;
      if (typeof raw === 'boolean') return raw ? 1 : 0;
      // Int64/UInt64 arrive as [high, low] 32-bit halves.
      if (Array.isArray(raw) && raw.length === 2 && raw.every((n) => typeof n === 'number')) return (raw[0] as number) * 2 ** 32 + (raw[1] as number);
      if (typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
      break;
    }
    case 'string':
      if (typeof raw === 'string') return raw;
      // A scanner's code kept as bytes (ByteString).
      if (Buffer.isBuffer(raw)) return raw.toString('latin1').replace(/\0+$/, '');
      if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
      break;
  }
  throw new Error(`OPC UA node ${address}: a value of type ${describe(raw)} cannot be read as ${kind}`);
}

const INTEGER_RANGES: Partial<Record<DataType, [number, number]>> = {
  [DataType.SByte]: [-128, 127],
  [DataType.Byte]: [0, 255],
  [DataType.Int16]: [-32768, 32767],
  [DataType.UInt16]: [0, 65535],
  [DataType.Int32]: [-(2 ** 31), 2 ** 31 - 1],
  [DataType.UInt32]: [0, 2 ** 32 - 1],
  [DataType.Int64]: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  [DataType.UInt64]: [0, Number.MAX_SAFE_INTEGER],
};

/** The value to write into a variable of `dataType`; throws when it does not fit. */
export function variantValue(value: SignalValue, dataType: DataType, address: string): unknown {
  const refuse = (why: string) => new Error(`OPC UA node ${address} (${DataType[dataType] ?? dataType}): cannot write ${JSON.stringify(value)}: ${why}`);
  if (dataType === DataType.Boolean) {
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number') return value !== 0;
    throw refuse('not a flag');
  }
  if (dataType === DataType.String) return String(value);
  if (dataType === DataType.ByteString) return Buffer.from(String(value), 'latin1');
  const number = typeof value === 'boolean' ? (value ? 1 : 0) : typeof value === 'number' ? value : Number(value);
  if (typeof value === 'string' && value.trim() === '') throw refuse('not a number');
  if (!Number.isFinite(number)) throw refuse('not a number');
  if (dataType === DataType.Float || dataType === DataType.Double) return number;
  const range = INTEGER_RANGES[dataType];
  if (!range) throw refuse('data type not supported for signals');
  if (!Number.isInteger(number) || number < range[0] || number > range[1]) throw refuse(`outside ${range[0]}…${range[1]}`);
  if (dataType === DataType.Int64 || dataType === DataType.UInt64) {
    // node-opcua carries 64-bit integers as [high, low].
    const high = Math.floor(number / 2 ** 32);
    return [high, number - high * 2 ** 32];
  }
  return number;
}

function describe(raw: unknown): string {
  if (Array.isArray(raw)) return 'array';
  if (Buffer.isBuffer(raw)) return 'bytes';
  return typeof raw;
}
