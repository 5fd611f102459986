import { describe, expect, it } from 'vitest';
import {
  decode,
  DecodeError,
  decodeLocation,
  encode,
  EncodeError,
  encodeBarcode,
  encodeLocation,
  formatOsipTime,
  minimumLength,
  parseOsipTime,
  type TelegramInput,
} from './encoder.ts';

// Every example telegram of docs/plc.md, with the fields that
// produce it. The strings are copied from the document; a test below checks that the
// document still holds each of them, so the two cannot drift apart unnoticed.
const GOLDEN: Array<{ name: string; text: string; input: TelegramInput; decoded: Record<string, unknown> }> = [
  {
    name: 'REQ_',
    text: '###00160CNV01MFC__00042REQ_00000000000000004711CONV0001000200000000****************************20250312081500***************************************************',
    input: {
      type: 'REQ_',
      sender: 'CNV01',
      receiver: 'MFC__',
      seq: 42,
      // "No error" is the code left unset (`*` × 8) in the document's example.
      barcode: '4711',
      actualLocation: 'CONV/0001/0002/0000/0000',
      targetLocation: null,
      created: '20250312081500',
    },
    decoded: {
      barcode: '00000000000000004711',
      actualLocation: 'CONV/0001/0002/0000/0000',
      targetLocation: null,
      errorCode: '********',
      created: '20250312081500',
    },
  },
  {
    name: 'RES_ with target and group',
    text: '###00160MFC__CNV0100043RES_00000000000000004711CONV0001000200000000STCK0001000300020001FGSTOCK*********************20250312081500*******************************',
    input: {
      type: 'RES_',
      sender: 'MFC__',
      receiver: 'CNV01',
      seq: 43,
      barcode: '4711',
      actualLocation: 'CONV/0001/0002/0000/0000',
      targetLocation: 'STCK/0001/0003/0002/0001',
      targetLocationGroup: 'FGSTOCK',
      errorCode: '********',
      created: '20250312081500',
    },
    decoded: {
      barcode: '00000000000000004711',
      actualLocation: 'CONV/0001/0002/0000/0000',
      targetLocation: 'STCK/0001/0003/0002/0001',
      targetLocationGroup: 'FGSTOCK',
      errorCode: '********',
      created: '20250312081500',
    },
  },
  {
    name: 'RES_ without target',
    text: '###00160MFC__CNV0100043RES_00000000000000004711CONV0001000200000000************************************************20250312081500*******************************',
    input: {
      type: 'RES_',
      sender: 'MFC__',
      receiver: 'CNV01',
      seq: 43,
      barcode: '4711',
      actualLocation: 'CONV/0001/0002/0000/0000',
      created: '20250312081500',
    },
    decoded: {
      barcode: '00000000000000004711',
      actualLocation: 'CONV/0001/0002/0000/0000',
      targetLocation: null,
      targetLocationGroup: null,
      errorCode: '********',
      created: '20250312081500',
    },
  },
  {
    name: 'SYNQ',
    text: '###00160CNV01MFC__00007SYNQ20250312081459***********************************************************************************************************************',
    input: { type: 'SYNQ', sender: 'CNV01', receiver: 'MFC__', seq: 7, time: '20250312081459' },
    decoded: { time: '20250312081459' },
  },
  {
    name: 'SYNC',
    text: '###00160MFC__CNV0100008SYNC20250312081500***********************************************************************************************************************',
    input: { type: 'SYNC', sender: 'MFC__', receiver: 'CNV01', seq: 8, time: new Date(Date.UTC(2025, 2, 12, 8, 15, 0)) },
    decoded: { time: '20250312081500' },
  },
  {
    name: 'UPD_',
    text: '###00160CNV01MFC__00044UPD_00000000000000004711CONV0001000300000000********20250312081502***********************************************************************',
    input: {
      type: 'UPD_',
      sender: 'CNV01',
      receiver: 'MFC__',
      seq: 44,
      barcode: '4711',
      actualLocation: 'CONV/0001/0003/0000/0000',
      created: '20250312081502',
    },
    decoded: {
      barcode: '00000000000000004711',
      actualLocation: 'CONV/0001/0003/0000/0000',
      errorCode: '********',
      created: '20250312081502',
    },
  },
  {
    name: 'LOCU',
    text: '###00160CNV01MFC__00045LOCUCONV________________CONV00010003000000000012***120250312081510***********************************************************************',
    input: {
      type: 'LOCU',
      sender: 'CNV01',
      receiver: 'MFC__',
      seq: 45,
      locationGroupName: 'CONV',
      location: 'CONV/0001/0003/0000/0000',
      errorCode: '0012***1',
      created: '20250312081510',
    },
    decoded: {
      locationGroupName: 'CONV',
      location: 'CONV/0001/0003/0000/0000',
      errorCode: '0012***1',
      created: '20250312081510',
    },
  },
  {
    name: 'SYSU',
    text: '###00160CNV01MFC__00046SYSUCONV________________******1*20250312081520*******************************************************************************************',
    input: {
      type: 'SYSU',
      sender: 'CNV01',
      receiver: 'MFC__',
      seq: 46,
      locationGroupName: 'CONV',
      errorCode: '******1*',
      created: '20250312081520',
    },
    decoded: { locationGroupName: 'CONV', errorCode: '******1*', created: '20250312081520' },
  },
  {
    name: 'ERR_ from the PLC',
    text: '###00160CNV01MFC__00047ERR_CONV****************0000010120250312081530*******************************************************************************************',
    input: {
      type: 'ERR_',
      sender: 'CNV01',
      receiver: 'MFC__',
      seq: 47,
      locationGroupName: 'CONV',
      errorCode: '00000101',
      created: '20250312081530',
    },
    decoded: { locationGroupName: 'CONV', errorCode: '00000101', created: '20250312081530' },
  },
  {
    name: 'ERR_ from the host',
    text: '###00160MFC__CNV0100048ERR_********************0000001020250312081531*******************************************************************************************',
    input: {
      type: 'ERR_',
      sender: 'MFC__',
      receiver: 'CNV01',
      seq: 48,
      locationGroupName: null,
      errorCode: '00000010',
      created: '20250312081531',
    },
    decoded: { locationGroupName: null, errorCode: '00000010', created: '20250312081531' },
  },
];

describe('encoder golden strings', () => {
  it.each(GOLDEN)('$name is 160 characters', ({ text }) => {
    expect(text).toHaveLength(160);
  });

  it.each(GOLDEN)('$name encodes byte for byte', ({ text, input }) => {
    expect(encode(input)).toBe(text);
  });

  it.each(GOLDEN)('$name decodes to its fields', ({ text, input, decoded }) => {
    expect(decode(text)).toEqual({
      type: input.type,
      sender: input.sender,
      receiver: input.receiver,
      seq: input.seq,
      lengthField: 160,
      ...decoded,
    });
  });

  it('holds ten distinct example telegrams', () => {
    const examples = new Set(GOLDEN.map((g) => g.text));
    expect(examples.size).toBe(GOLDEN.length);
    expect(examples.size).toBe(10);
  });
});

describe('encoder field rules', () => {
  const header = { sender: 'CNV01', receiver: 'MFC__', seq: 1 } as const;

  it('pads barcodes with leading zeros and writes a no-read as ?', () => {
    expect(encodeBarcode('4711')).toBe('00000000000000004711');
    expect(encodeBarcode(null)).toBe('????????????????????');
    expect(() => encodeBarcode('1'.repeat(21))).toThrow(EncodeError);
  });

  it('pads number parts of a location with 0 and text parts with _', () => {
    expect(encodeLocation('SL/1/2/IN/0')).toBe('SL__00010002IN__0000');
    expect(encodeLocation('CONV0001000200000000')).toBe('CONV0001000200000000');
    expect(encodeLocation(null)).toBe('*'.repeat(20));
    expect(decodeLocation('SL__00010002IN__0000')).toBe('SL__/0001/0002/IN__/0000');
    expect(decodeLocation('?'.repeat(20))).toBeNull();
    expect(() => encodeLocation('A/B/C/D')).toThrow(EncodeError);
    expect(() => encodeLocation('AREAX/B/C/D/E')).toThrow(EncodeError);
    expect(() => encodeLocation('SHORT')).toThrow(EncodeError);
  });

  it('pads short header names with _ and refuses long ones', () => {
    expect(encode({ ...header, sender: 'PLC', type: 'SYNQ', time: '20250101000000' }).slice(8, 13)).toBe('PLC__');
    expect(() => encode({ ...header, sender: 'PLC001', type: 'SYNQ' })).toThrow(EncodeError);
  });

  it('refuses non-ASCII values, wrong code widths and out-of-range sequence numbers', () => {
    expect(() => encode({ ...header, type: 'SYSU', locationGroupName: 'GRÜN', errorCode: '******1*' })).toThrow(EncodeError);
    expect(() => encode({ ...header, type: 'SYSU', locationGroupName: 'G', errorCode: '1' })).toThrow(EncodeError);
    expect(() => encode({ ...header, seq: 100_000, type: 'SYNQ' })).toThrow(EncodeError);
  });

  it('writes a configured telegram length and an overridden length field', () => {
    const text = encode({ ...header, type: 'SYNQ', time: '20250101000000' }, { length: 200 });
    expect(text).toHaveLength(200);
    expect(text.slice(3, 8)).toBe('00200');
    const lying = encode({ ...header, type: 'SYNQ', time: '20250101000000', lengthField: 150 });
    expect(lying).toHaveLength(160);
    expect(lying.slice(3, 8)).toBe('00150');
    expect(() => encode({ ...header, type: 'RES_', barcode: '1', actualLocation: null }, { length: 120 })).toThrow(EncodeError);
  });

  it('writes ACK_ and UPDX per docs/plc.md', () => {
    const ack = encode({ sender: 'MFC__', receiver: 'CNV01', seq: 44, type: 'ACK_', errorCode: '00000000', created: '20250312081502' });
    expect(ack.slice(23, 49)).toBe('ACK_0000000020250312081502');
    expect(decode(ack)).toMatchObject({ type: 'ACK_', seq: 44, errorCode: '00000000', created: '20250312081502' });
    const updx = encode({ ...header, type: 'UPDX', barcode: '4711', actualLocation: 'CONV/0001/0003/0000/0000', created: '20250312081502' });
    expect(updx.slice(23)).toBe(GOLDEN[5]!.text.slice(23).replace('UPD_', 'UPDX'));
  });

  it('formats and parses the protocol time in UTC', () => {
    expect(formatOsipTime(new Date(Date.UTC(2025, 0, 2, 3, 4, 5)))).toBe('20250102030405');
    expect(parseOsipTime('20250102030405')?.toISOString()).toBe('2025-01-02T03:04:05.000Z');
    expect(parseOsipTime('20250231000000')).toBeNull();
    expect(parseOsipTime('2025XX31000000')).toBeNull();
  });
});

describe('decoder', () => {
  const synq = GOLDEN[3]!.text;
  const reason = (text: string) => {
    try {
      decode(text);
      return 'ok';
    } catch (err) {
      return (err as DecodeError).reason;
    }
  };

  it('tolerates a wrong length field and characters past the last field', () => {
    expect(decode('###00150' + synq.slice(8)).lengthField).toBe(150);
    expect(decode(synq + 'EXTRA')).toMatchObject({ type: 'SYNQ', time: '20250312081459' });
    expect(decode(synq.slice(0, minimumLength('SYNQ')))).toMatchObject({ type: 'SYNQ' });
  });

  it('refuses a missing sync, non-ASCII, a short frame, a non-numeric header and an unknown type', () => {
    expect(reason('xx' + synq)).toBe('sync');
    expect(reason(synq.slice(0, 60) + '\u00e9' + synq.slice(61))).toBe('ascii');
    expect(reason(synq.slice(0, 20))).toBe('short');
    expect(reason(synq.slice(0, minimumLength('SYNQ') - 1))).toBe('short');
    expect(reason(synq.slice(0, 18) + '00A07' + synq.slice(23))).toBe('header');
    expect(reason('###0016X' + synq.slice(8))).toBe('header');
    expect(reason(synq.slice(0, 23) + 'ZZZZ' + synq.slice(27))).toBe('unknown-type');
  });

  it('keeps the header of a telegram it cannot read', () => {
    try {
      decode(synq.slice(0, 23) + 'ZZZZ' + synq.slice(27));
      expect.unreachable();
    } catch (err) {
      expect((err as DecodeError).header).toEqual({ sender: 'CNV01', receiver: 'MFC__', seqText: '00007', type: 'ZZZZ' });
    }
  });
});
