import { describe, expect, it } from 'vitest';
import {
  CoordinateNotWritableError,
  ERR_CODES,
  OsipEncodeError,
  RES_REASONS,
  checkAddress,
  decode,
  encode,
  errorTelegram,
  osipOptions,
  replyHeader,
  type DecodeResult,
  type Telegram,
  type TelegramInput,
  type TelegramType,
} from './index.ts';

// The golden strings: docs/plc.md ("Telegram catalogue"), copied verbatim.
const GOLDEN = {
  req: '###00160CNV01MFC__00042REQ_00000000000000004711CONV0001000200000000****************************20250312081500***************************************************',
  res: '###00160MFC__CNV0100043RES_00000000000000004711CONV0001000200000000STCK0001000300020001FGSTOCK*********************20250312081500*******************************',
  resNoTarget:
    '###00160MFC__CNV0100043RES_00000000000000004711CONV0001000200000000************************************************20250312081500*******************************',
  synq: '###00160CNV01MFC__00007SYNQ20250312081459***********************************************************************************************************************',
  sync: '###00160MFC__CNV0100008SYNC20250312081500***********************************************************************************************************************',
  upd: '###00160CNV01MFC__00044UPD_00000000000000004711CONV0001000300000000********20250312081502***********************************************************************',
  locu: '###00160CNV01MFC__00045LOCUCONV________________CONV00010003000000000012***120250312081510***********************************************************************',
  sysu: '###00160CNV01MFC__00046SYSUCONV________________******1*20250312081520*******************************************************************************************',
  errIn:
    '###00160CNV01MFC__00047ERR_CONV****************0000010120250312081530*******************************************************************************************',
  errOut:
    '###00160MFC__CNV0100048ERR_********************0000001020250312081531*******************************************************************************************',
} as const;

const at = (hhmmss: string) => new Date(`2025-03-12T${hhmmss.slice(0, 2)}:${hhmmss.slice(2, 4)}:${hhmmss.slice(4, 6)}Z`);
const PLC = { sender: 'CNV01', receiver: 'MFC__' };
const HOST = { sender: 'MFC__', receiver: 'CNV01' };

function ok(result: DecodeResult): { telegram: Telegram; warnings: string[] } {
  if (!result.ok) throw new Error(`expected a telegram, got ${result.reason}: ${result.detail}`);
  return result;
}

function decoded<K extends TelegramType>(frame: string, type: K, options = osipOptions()): Extract<Telegram, { type: K }> {
  const { telegram, warnings } = ok(decode(frame, options));
  expect(warnings).toEqual([]);
  expect(telegram.type).toBe(type);
  return telegram as Extract<Telegram, { type: K }>;
}

/** A decoded telegram as encoder input: the same fields, the header without its length. */
function asInput(t: Telegram): TelegramInput {
  const { header, ...rest } = t;
  return { ...rest, header: { sender: header.sender, receiver: header.receiver, seq: header.seq } } as TelegramInput;
}

describe('golden strings', () => {
  it('are all 160 characters (a check on the copies above)', () => {
    for (const frame of Object.values(GOLDEN)) expect(frame).toHaveLength(160);
  });

  it('decodes REQ_ field by field', () => {
    expect(decoded(GOLDEN.req, 'REQ_')).toEqual({
      type: 'REQ_',
      header: { length: 160, ...PLC, seq: 42 },
      barcode: '4711',
      rawBarcode: '00000000000000004711',
      actualLocation: 'CONV/0001/0002/0000/0000',
      rawActualLocation: 'CONV0001000200000000',
      targetLocation: undefined,
      rawTargetLocation: '********************',
      errorCode: '********',
      created: at('081500'),
    });
  });

  it('decodes RES_ with and without a target', () => {
    expect(decoded(GOLDEN.res, 'RES_')).toEqual({
      type: 'RES_',
      header: { length: 160, ...HOST, seq: 43 },
      barcode: '4711',
      rawBarcode: '00000000000000004711',
      actualLocation: 'CONV/0001/0002/0000/0000',
      rawActualLocation: 'CONV0001000200000000',
      targetLocation: 'STCK/0001/0003/0002/0001',
      rawTargetLocation: 'STCK0001000300020001',
      targetLocationGroup: 'FGSTOCK',
      errorCode: '********',
      created: at('081500'),
    });
    const hold = decoded(GOLDEN.resNoTarget, 'RES_');
    expect(hold.targetLocation).toBeUndefined();
    expect(hold.rawTargetLocation).toBe('*'.repeat(20));
    expect(hold.targetLocationGroup).toBeUndefined();
    expect(hold.errorCode).toBe('********');
  });

  it('decodes SYNQ and SYNC', () => {
    expect(decoded(GOLDEN.synq, 'SYNQ')).toEqual({ type: 'SYNQ', header: { length: 160, ...PLC, seq: 7 }, time: at('081459') });
    expect(decoded(GOLDEN.sync, 'SYNC')).toEqual({ type: 'SYNC', header: { length: 160, ...HOST, seq: 8 }, time: at('081500') });
  });

  it('decodes UPD_', () => {
    expect(decoded(GOLDEN.upd, 'UPD_')).toEqual({
      type: 'UPD_',
      header: { length: 160, ...PLC, seq: 44 },
      barcode: '4711',
      rawBarcode: '00000000000000004711',
      actualLocation: 'CONV/0001/0003/0000/0000',
      rawActualLocation: 'CONV0001000300000000',
      errorCode: '********',
      created: at('081502'),
    });
  });

  it('decodes LOCU (group before location)', () => {
    expect(decoded(GOLDEN.locu, 'LOCU')).toEqual({
      type: 'LOCU',
      header: { length: 160, ...PLC, seq: 45 },
      locationGroupName: 'CONV',
      location: 'CONV/0001/0003/0000/0000',
      rawLocation: 'CONV0001000300000000',
      errorCode: '0012***1',
      created: at('081510'),
    });
  });

  it('decodes SYSU and both ERR_ directions', () => {
    expect(decoded(GOLDEN.sysu, 'SYSU')).toEqual({
      type: 'SYSU',
      header: { length: 160, ...PLC, seq: 46 },
      locationGroupName: 'CONV',
      errorCode: '******1*',
      created: at('081520'),
    });
    expect(decoded(GOLDEN.errIn, 'ERR_')).toEqual({
      type: 'ERR_',
      header: { length: 160, ...PLC, seq: 47 },
      locationGroupName: 'CONV',
      errorCode: '00000101',
      created: at('081530'),
    });
    expect(decoded(GOLDEN.errOut, 'ERR_')).toEqual({
      type: 'ERR_',
      header: { length: 160, ...HOST, seq: 48 },
      locationGroupName: undefined,
      errorCode: '00000010',
      created: at('081531'),
    });
  });

  it('encodes every example from its fields, byte for byte', () => {
    const inputs: [string, TelegramInput][] = [
      [GOLDEN.req, { type: 'REQ_', header: { ...PLC, seq: 42 }, barcode: '4711', actualLocation: 'CONV/1/2/0/0', created: at('081500') }],
      [
        GOLDEN.res,
        {
          type: 'RES_',
          header: { ...HOST, seq: 43 },
          barcode: '4711',
          actualLocation: 'CONV/0001/0002/0000/0000',
          targetLocation: 'STCK/1/3/2/1',
          targetLocationGroup: 'FGSTOCK',
          errorCode: '********',
          created: at('081500'),
        },
      ],
      [
        GOLDEN.resNoTarget,
        {
          type: 'RES_',
          header: { ...HOST, seq: 43 },
          barcode: '4711',
          actualLocation: 'CONV/0001/0002/0000/0000',
          created: at('081500'),
        },
      ],
      [GOLDEN.synq, { type: 'SYNQ', header: { ...PLC, seq: 7 }, time: at('081459') }],
      [GOLDEN.sync, { type: 'SYNC', header: { ...HOST, seq: 8 }, time: at('081500') }],
      [GOLDEN.upd, { type: 'UPD_', header: { ...PLC, seq: 44 }, barcode: '4711', actualLocation: 'CONV/1/3/0/0', created: at('081502') }],
      [
        GOLDEN.locu,
        {
          type: 'LOCU',
          header: { ...PLC, seq: 45 },
          locationGroupName: 'CONV',
          location: 'CONV/0001/0003/0000/0000',
          errorCode: '0012***1',
          created: at('081510'),
        },
      ],
      [GOLDEN.sysu, { type: 'SYSU', header: { ...PLC, seq: 46 }, locationGroupName: 'CONV', errorCode: '******1*', created: at('081520') }],
      [GOLDEN.errIn, { type: 'ERR_', header: { ...PLC, seq: 47 }, locationGroupName: 'CONV', errorCode: '00000101', created: at('081530') }],
      [GOLDEN.errOut, { type: 'ERR_', header: { ...HOST, seq: 48 }, errorCode: ERR_CODES.unknownType, created: at('081531') }],
    ];
    for (const [golden, input] of inputs) expect(encode(input)).toBe(golden);
  });

  it('re-encodes every decoded example unchanged', () => {
    for (const frame of Object.values(GOLDEN)) expect(encode(asInput(ok(decode(frame)).telegram))).toBe(frame);
  });

  it('builds the RES_ reply from the REQ_ (raw fields echoed, seq + 1)', () => {
    const req = decoded(GOLDEN.req, 'REQ_');
    const res = encode({
      type: 'RES_',
      header: replyHeader(req.header, 'plus-one'),
      rawBarcode: req.rawBarcode,
      rawActualLocation: req.rawActualLocation,
      targetLocation: 'STCK/0001/0003/0002/0001',
      targetLocationGroup: 'FGSTOCK',
      errorCode: req.errorCode,
      created: at('081500'),
    });
    expect(res).toBe(GOLDEN.res);
  });

  it('builds the SYNC reply from the SYNQ', () => {
    const synq = decoded(GOLDEN.synq, 'SYNQ');
    expect(encode({ type: 'SYNC', header: replyHeader(synq.header, 'plus-one'), time: at('081500') })).toBe(GOLDEN.sync);
  });

  it('builds the unknown-type ERR_ of the appendix', () => {
    const errIn = decoded(GOLDEN.errIn, 'ERR_');
    expect(errorTelegram(ERR_CODES.unknownType, errIn.header, undefined, { created: at('081531') })).toBe(GOLDEN.errOut);
  });
});

describe('lenient reading', () => {
  const withSeq = (frame: string, seq: string) => frame.slice(0, 18) + seq + frame.slice(23);

  it('accepts sequence numbers up to 99999 (beyond a Java short)', () => {
    expect(decoded(withSeq(GOLDEN.synq, '99999'), 'SYNQ').header.seq).toBe(99_999);
    expect(decoded(withSeq(GOLDEN.synq, '32768'), 'SYNQ').header.seq).toBe(32_768);
    expect(decoded(withSeq(GOLDEN.synq, '00000'), 'SYNQ').header.seq).toBe(0);
  });

  it('keeps a telegram with a malformed date, with a warning', () => {
    for (const date of ['20251312081500', '20250230081500', '2025031208150X', '20250312246000']) {
      const frame = GOLDEN.req.slice(0, 95) + date + GOLDEN.req.slice(109);
      const { telegram, warnings } = ok(decode(frame));
      expect(telegram.type === 'REQ_' && telegram.created).toBeUndefined();
      expect(telegram.type === 'REQ_' && telegram.barcode).toBe('4711');
      expect(warnings).toEqual([expect.stringContaining(`created "${date}"`)]);
    }
  });

  it('reads an absent date as undefined without a warning', () => {
    const frame = GOLDEN.synq.slice(0, 27) + '*'.repeat(14) + GOLDEN.synq.slice(41);
    expect(decoded(frame, 'SYNQ').time).toBeUndefined();
  });

  it('keeps a telegram whose length field is wrong, with a warning', () => {
    const frame = '###00200' + GOLDEN.upd.slice(8);
    const { telegram, warnings } = ok(decode(frame));
    expect(telegram.header.length).toBe(200);
    expect(telegram.type).toBe('UPD_');
    expect(warnings).toEqual(["length field 200 differs from the frame's length 160"]);
  });

  it('tolerates characters past the last field and a short filler', () => {
    const long = ok(decode(GOLDEN.sysu + 'EXTRA-STUFF-1234'));
    expect(long.telegram).toMatchObject({ type: 'SYSU', locationGroupName: 'CONV', errorCode: '******1*' });
    expect(long.warnings).toEqual([expect.stringContaining('176')]);
    // A SYSU cut right after its date is still complete.
    const short = ok(decode(GOLDEN.sysu.slice(0, 69)));
    expect(short.telegram).toMatchObject({ type: 'SYSU', created: at('081520') });
    expect(short.warnings).toEqual([expect.stringContaining('69')]);
  });

  it('reads `?`, `*` and blanks as absent in optional fields', () => {
    const frame = '###00160CNV01MFC__00050REQ_' + '?'.repeat(20) + '*'.repeat(20) + ' '.repeat(20) + '********' + '20250312081500';
    const req = ok(decode(frame.padEnd(160, '*'))).telegram;
    expect(req).toMatchObject({
      type: 'REQ_',
      barcode: undefined,
      rawBarcode: '?'.repeat(20),
      actualLocation: undefined,
      targetLocation: undefined,
      rawTargetLocation: ' '.repeat(20),
    });
    const target = ok(decode(GOLDEN.req.slice(0, 67) + '?'.repeat(20) + GOLDEN.req.slice(87))).telegram;
    expect(target.type === 'REQ_' && target.targetLocation).toBeUndefined();
  });

  it('strips trailing `_` and `*` from group names in every type, undefined when empty', () => {
    const locu = (group: string) => ok(decode(GOLDEN.locu.slice(0, 27) + group + GOLDEN.locu.slice(47))).telegram;
    expect(locu('CONV****************')).toMatchObject({ locationGroupName: 'CONV' });
    expect(locu('FG_STOCK_1__________')).toMatchObject({ locationGroupName: 'FG_STOCK_1' });
    expect(locu('____________________')).toMatchObject({ locationGroupName: undefined });
    expect(locu('ABCDEFGHIJKLMNOPQRST')).toMatchObject({ locationGroupName: 'ABCDEFGHIJKLMNOPQRST' });
    const err = ok(decode(GOLDEN.errIn.slice(0, 27) + 'CONV________________' + GOLDEN.errIn.slice(47))).telegram;
    expect(err).toMatchObject({ type: 'ERR_', locationGroupName: 'CONV' });
  });

  it('keeps a LOCU without location (group only)', () => {
    const frame = GOLDEN.locu.slice(0, 47) + '*'.repeat(20) + GOLDEN.locu.slice(67);
    expect(decoded(frame, 'LOCU')).toMatchObject({ locationGroupName: 'CONV', location: undefined, rawLocation: '*'.repeat(20) });
  });

  it('keeps barcode text and strips only the configured padding', () => {
    const withBarcode = (b: string) => GOLDEN.req.slice(0, 27) + b + GOLDEN.req.slice(47);
    expect(decoded(withBarcode('ABC-0042            '), 'REQ_').barcode).toBe('ABC-0042');
    expect(decoded(withBarcode('0'.repeat(20)), 'REQ_').barcode).toBe('0');
    expect(decoded(withBarcode('TU-12345678901234567'), 'REQ_').barcode).toBe('TU-12345678901234567');
    const none = osipOptions({ barcodePadding: 'none' });
    expect(decoded(GOLDEN.req, 'REQ_', none).barcode).toBe('00000000000000004711');
  });

  it('reads and writes headers with any 5-character names', () => {
    const t = decoded(GOLDEN.synq.slice(0, 8) + 'A B C' + 'x-y_z' + GOLDEN.synq.slice(18), 'SYNQ');
    expect(t.header).toMatchObject({ sender: 'A B C', receiver: 'x-y_z' });
  });
});

describe('rejections', () => {
  const rejected = (frame: string) => {
    const r = decode(frame);
    if (r.ok) throw new Error('expected a rejection');
    return r;
  };

  it('too short for the header: no header to answer', () => {
    expect(rejected('###00160CNV01MFC__0004')).toMatchObject({ reason: 'too-short', code: '00000011' });
    expect(rejected('###00160CNV01MFC__0004').header).toBeUndefined();
    expect(rejected('')).toMatchObject({ reason: 'too-short', code: ERR_CODES.tooShort });
  });

  it('too short for the type or the type field: answered with the header', () => {
    expect(rejected(GOLDEN.req.slice(0, 25))).toMatchObject({ reason: 'too-short', code: '00000011', header: { ...PLC, seq: 42 } });
    expect(rejected(GOLDEN.req.slice(0, 108))).toMatchObject({ reason: 'too-short', code: '00000011', header: { ...PLC, seq: 42 } });
    expect(rejected(GOLDEN.sysu.slice(0, 68))).toMatchObject({ reason: 'too-short', header: { seq: 46 } });
    expect(rejected(GOLDEN.res.slice(0, 128))).toMatchObject({ reason: 'too-short', header: { ...HOST, seq: 43 } });
  });

  it('a header that is not sync + numbers', () => {
    const badLength = rejected('###0016XCNV01MFC__00042' + GOLDEN.req.slice(23));
    expect(badLength).toMatchObject({ reason: 'bad-header', code: '00000012', header: PLC });
    expect(badLength.header?.seq).toBeUndefined();
    const badSeq = rejected('###00160CNV01MFC__0004A' + GOLDEN.req.slice(23));
    expect(badSeq).toMatchObject({ reason: 'bad-header', code: '00000012', header: PLC });
    expect(badSeq.header?.seq).toBeUndefined();
    expect(rejected('###00160CNV01MFC__-0042' + GOLDEN.req.slice(23)).reason).toBe('bad-header');
    const noSync = rejected('##$' + GOLDEN.req.slice(3));
    expect(noSync).toMatchObject({ reason: 'bad-header', code: '00000012' });
    expect(noSync.header).toBeUndefined();
  });

  it('a byte outside printable ASCII', () => {
    const latin = rejected(GOLDEN.locu.slice(0, 27) + 'K\u00fchlhaus' + GOLDEN.locu.slice(35));
    expect(latin).toMatchObject({ reason: 'non-ascii', code: '00000012', header: { ...PLC, seq: 45 } });
    expect(rejected(GOLDEN.synq.slice(0, 100) + '\t' + GOLDEN.synq.slice(101))).toMatchObject({ reason: 'non-ascii', header: { seq: 7 } });
    expect(rejected(GOLDEN.synq + '\r')).toMatchObject({ reason: 'non-ascii' });
    const inSender = rejected('###00160CN\u0000' + GOLDEN.synq.slice(11));
    expect(inSender).toMatchObject({ reason: 'non-ascii', code: '00000012' });
    expect(inSender.header).toBeUndefined();
  });

  it("an unknown type: OpenWMS's 00000010, with the header", () => {
    expect(rejected(GOLDEN.req.slice(0, 23) + 'ZZZZ' + GOLDEN.req.slice(27))).toMatchObject({
      reason: 'unknown-type',
      code: '00000010',
      header: { ...PLC, seq: 42 },
    });
    expect(rejected(GOLDEN.req.slice(0, 23) + 'req_' + GOLDEN.req.slice(27)).reason).toBe('unknown-type');
    expect(rejected(GOLDEN.req.slice(0, 23) + 'ERR ' + GOLDEN.req.slice(27)).detail).toContain('"ERR "');
  });
});

describe('strict writing', () => {
  const res = (fields: Partial<Extract<TelegramInput, { type: 'RES_' }>>) =>
    encode({ type: 'RES_', header: { ...HOST, seq: 1 }, created: at('081500'), ...fields });
  const thrown = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e;
    }
    throw new Error('expected a throw');
  };

  it('throws on a value too long for its field, never truncates', () => {
    expect(thrown(() => res({ barcode: '123456789012345678901' }))).toMatchObject({ field: 'barcode', problem: 'too-long' });
    expect(thrown(() => res({ targetLocationGroup: 'G'.repeat(21) }))).toMatchObject({ field: 'targetLocationGroup', problem: 'too-long' });
    expect(thrown(() => res({ rawBarcode: '0'.repeat(21) }))).toMatchObject({ field: 'rawBarcode', problem: 'too-long' });
    expect(thrown(() => encode({ type: 'SYNC', header: { ...HOST, sender: 'MFC___', seq: 1 } }))).toMatchObject({
      field: 'header.sender',
      problem: 'too-long',
    });
    expect(thrown(() => res({ errorCode: '000000001' }))).toBeInstanceOf(OsipEncodeError);
    expect(res({ barcode: '12345678901234567890', targetLocationGroup: 'G'.repeat(20) })).toHaveLength(160);
  });

  it('throws on non-ASCII and control characters', () => {
    expect(thrown(() => res({ barcode: 'K\u00fchl' }))).toMatchObject({ field: 'barcode', problem: 'non-ascii' });
    expect(thrown(() => res({ targetLocationGroup: 'A\nB' }))).toMatchObject({ problem: 'non-ascii' });
    expect(thrown(() => encode({ type: 'SYNC', header: { sender: 'MF\u00c7__', receiver: 'CNV01', seq: 1 } }))).toMatchObject({ problem: 'non-ascii' });
    expect(thrown(() => res({ targetLocation: 'STCK/0001/00\u00e93/0002/0001' }))).toBeInstanceOf(CoordinateNotWritableError);
  });

  it('throws a CoordinateNotWritableError the adapter can catch', () => {
    const e = thrown(() => res({ targetLocation: 'STOCK/1/1/1/1' }));
    expect(e).toBeInstanceOf(CoordinateNotWritableError);
    expect(e).toBeInstanceOf(OsipEncodeError);
    expect(e).toMatchObject({ field: 'targetLocation', coordinate: 'STOCK/1/1/1/1', problem: 'coordinate' });
    expect(thrown(() => res({ actualLocation: 'CONV/1/2/0' }))).toBeInstanceOf(CoordinateNotWritableError);
  });

  it('throws on fields of the wrong shape', () => {
    expect(thrown(() => res({ errorCode: '0000001' }))).toMatchObject({ field: 'errorCode', problem: 'bad-value' });
    expect(thrown(() => res({ rawActualLocation: 'CONV' }))).toMatchObject({ field: 'rawActualLocation', problem: 'bad-value' });
    expect(thrown(() => res({ barcode: '' }))).toMatchObject({ field: 'barcode' });
    expect(thrown(() => res({ created: new Date(Number.NaN) }))).toMatchObject({ field: 'created' });
    expect(thrown(() => encode({ type: 'SYNC', header: { ...HOST, receiver: 'CNV1', seq: 1 } }))).toMatchObject({ field: 'header.receiver' });
    expect(thrown(() => encode({ type: 'SYNC', header: { ...HOST, seq: 100_000 } }))).toMatchObject({ field: 'header.seq' });
    expect(thrown(() => encode({ type: 'SYNC', header: { ...HOST, seq: 1.5 } }))).toMatchObject({ field: 'header.seq' });
    expect(thrown(() => encode({ type: 'ZZZZ', header: { ...HOST, seq: 1 } } as unknown as TelegramInput))).toMatchObject({ field: 'type' });
  });

  it('writes absent fields as OpenWMS expects', () => {
    const t = encode({ type: 'RES_', header: { ...HOST, seq: 1 }, created: at('081500') });
    expect(t.slice(27, 47)).toBe('?'.repeat(20));
    expect(t.slice(47, 107)).toBe('*'.repeat(60));
    expect(t.slice(107, 115)).toBe('********');
    const locu = encode({ type: 'LOCU', header: { ...PLC, seq: 1 }, created: at('081500') });
    expect(locu.slice(27, 47)).toBe('_'.repeat(20));
    expect(decoded(locu, 'LOCU')).toMatchObject({ locationGroupName: undefined, location: undefined });
  });

  it('takes the time from the clock when no date is given', () => {
    const options = osipOptions({ clock: () => new Date('2031-01-02T03:04:05.999Z') });
    expect(encode({ type: 'SYNC', header: { ...HOST, seq: 1 } }, options).slice(27, 41)).toBe('20310102030405');
  });
});

describe('replies', () => {
  it('swaps the addresses and applies the sequence rule modulo 100000', () => {
    expect(replyHeader({ ...PLC, seq: 42 }, 'plus-one')).toEqual({ ...HOST, seq: 43 });
    expect(replyHeader({ ...PLC, seq: 42 }, 'echo')).toEqual({ ...HOST, seq: 42 });
    expect(replyHeader({ ...PLC, seq: 99_999 }, 'plus-one')).toEqual({ ...HOST, seq: 0 });
    expect(replyHeader({ ...PLC }, 'plus-one')).toEqual({ ...HOST, seq: 0 });
  });

  it('answers from our host name even when the request named another receiver', () => {
    expect(replyHeader({ sender: 'CNV01', receiver: 'XYZ__', seq: 5 }, 'plus-one', osipOptions({ hostName: 'WMS01' }))).toEqual({
      sender: 'WMS01',
      receiver: 'CNV01',
      seq: 6,
    });
  });

  it('builds ERR_ replies for every rejection, seq 00000 without a readable sequence', () => {
    const created = at('120000');
    const badSeq = decode('###00160CNV01MFC__0004A' + 'SYNQ'.padEnd(137, '*'));
    expect(badSeq.ok).toBe(false);
    if (badSeq.ok) return;
    const err = errorTelegram(badSeq.code, badSeq.header, undefined, { created });
    expect(err).toBe('###00160MFC__CNV0100000ERR_' + '*'.repeat(20) + '00000012' + '20250312120000'.padEnd(105, '*'));
    const echo = errorTelegram(ERR_CODES.tooShort, { ...PLC, seq: 9 }, undefined, { created, seqRule: 'echo' });
    expect(echo.slice(18, 23)).toBe('00009');
    const anonymous = errorTelegram(ERR_CODES.badField, undefined, undefined, { created, peer: 'CNV07' });
    expect(anonymous.slice(8, 23)).toBe('MFC__CNV0700000');
    expect(errorTelegram(ERR_CODES.internal, undefined, undefined, { created }).slice(8, 23)).toBe('MFC__*****00000');
    expect(decoded(echo, 'ERR_')).toMatchObject({ locationGroupName: undefined, errorCode: '00000011' });
    expect(() => errorTelegram('10', undefined)).toThrow(OsipEncodeError);
  });

  it('names the codes of docs/plc.md and docs/plc.md', () => {
    expect(ERR_CODES).toEqual({
      unknownType: '00000010',
      tooShort: '00000011',
      badField: '00000012',
      unknownEntity: '00000013',
      wrongPeer: '00000014',
      internal: '00000099',
    });
    expect(Object.values(RES_REASONS)).toEqual(['00000000', '00000001', '00000002', '00000003', '00000004', '00000005']);
  });

  it('checks addressing', () => {
    expect(checkAddress({ ...PLC })).toBeUndefined();
    expect(checkAddress({ ...PLC }, undefined, 'CNV01')).toBeUndefined();
    expect(checkAddress({ sender: 'CNV01', receiver: 'MFC01' })).toBe('wrong-host');
    expect(checkAddress({ ...PLC }, undefined, 'CNV02')).toBe('wrong-peer');
  });
});
