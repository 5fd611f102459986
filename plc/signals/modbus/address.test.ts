import { describe, expect, it } from 'vitest';
import { kindOf, modbusAddress, parseModbusAddress } from './address.ts';
import { batchesOf } from './batches.ts';
import { decodeValue, encodeValue } from './values.ts';

// Modbus addresses, how the points of a poll are batched, and values in Modbus terms.

describe('Modbus addresses', () => {
  it('reads the four areas, a bit of a register and text over registers', () => {
    expect(parseModbusAddress('coil:7')).toEqual({ area: 'coil', offset: 7 });
    expect(parseModbusAddress('hr:12.3')).toEqual({ area: 'hr', offset: 12, bit: 3 });
    expect(parseModbusAddress('ir:20*10')).toEqual({ area: 'ir', offset: 20, words: 10 });
    expect(kindOf(modbusAddress('di:1'))).toBe('bit');
    expect(kindOf(modbusAddress('hr:1'), 2)).toBe('dword');
    expect(kindOf(modbusAddress('hr:1*4'))).toBe('string');
  });

  it.each([
    ['hr100', 'not a Modbus address'],
    ['hr:70000', 'above 65535'],
    ['coil:1.2', 'applies to registers'],
    ['hr:1.16', 'bits 0 to 15'],
    ['di:1*2', 'applies to registers'],
    ['hr:1*0', '1 to 125 registers'],
  ])('refuses %s', (text, why) => {
    expect(parseModbusAddress(text)).toContain(why);
  });
});

describe('batches', () => {
  it('reads adjacent addresses of one area in one request, others apart', () => {
    const p = (id: string, address: string, kind: 'bit' | 'word' | 'dword' = 'word') => ({ id, address: modbusAddress(address), kind });
    const batches = batchesOf([
      p('a', 'hr:100'),
      p('b', 'hr:101', 'dword'),
      p('c', 'hr:12.3', 'bit'),
      p('d', 'hr:400'),
      p('e', 'coil:7', 'bit'),
      p('f', 'coil:0', 'bit'),
    ]);
    expect(batches.map((b) => `${b.area}:${b.start}+${b.count} ${b.members.map((m) => m.id).join('')}`)).toEqual([
      'coil:0+8 fe',
      'hr:12+1 c',
      'hr:100+3 ab',
      'hr:400+1 d',
    ]);
  });
});

describe('values', () => {
  it('decodes flags, words, double words (high word first), bits and text', () => {
    expect(decodeValue([false, true], 1, modbusAddress('coil:1'), 'bit')).toBe(true);
    expect(decodeValue([0, 0b1000], 1, modbusAddress('hr:1.3'), 'bit')).toBe(true);
    expect(decodeValue([1, 2], 0, modbusAddress('hr:0'), 'dword')).toBe(65_538);
    expect(decodeValue([0x3437, 0x3131, 0], 0, modbusAddress('hr:0*3'), 'string')).toBe('4711');
  });

  it('encodes what is written, and refuses what does not fit', () => {
    expect(encodeValue(modbusAddress('hr:0*3'), 'string', '4711')).toEqual([0x3437, 0x3131, 0]);
    expect(encodeValue(modbusAddress('hr:0'), 'dword', 65_538)).toEqual([1, 2]);
    expect(encodeValue(modbusAddress('coil:0'), 'bit', true)).toEqual([1]);
    expect(() => encodeValue(modbusAddress('hr:0'), 'word', 70_000)).toThrow('not a whole number');
    expect(() => encodeValue(modbusAddress('hr:0*1'), 'string', 'abc')).toThrow('does not fit');
  });
});
