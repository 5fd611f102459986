import { describe, expect, it } from 'vitest';
import {
  CoordinateNotWritableError,
  DEFAULT_OSIP_OPTIONS,
  LAYOUTS,
  OsipEncodeError,
  TELEGRAM_TYPES,
  coordinateFromField,
  decode,
  encode,
  fieldFromCoordinate,
  formatTelegramDate,
  minimumLength,
  osipOptions,
  parseTelegramDate,
  type Telegram,
} from './index.ts';

const HOST = { sender: 'MFC__', receiver: 'CNV01', seq: 1 };
const PLC = { sender: 'CNV01', receiver: 'MFC__', seq: 1 };
const created = new Date('2025-03-12T08:15:00Z');

function telegram(frame: string, options = osipOptions()): Telegram {
  const r = decode(frame, options);
  if (!r.ok) throw new Error(`${r.reason}: ${r.detail}`);
  return r.telegram;
}

describe('coordinates', () => {
  it('cuts the 20-character field into 5 × 4, keeping the padding', () => {
    expect(coordinateFromField('CONV0001000200000000')).toBe('CONV/0001/0002/0000/0000');
    expect(coordinateFromField('SL__IN__000100000000')).toBe('SL__/IN__/0001/0000/0000');
    expect(coordinateFromField('*'.repeat(20))).toBeUndefined();
    expect(coordinateFromField('?'.repeat(20))).toBeUndefined();
    expect(coordinateFromField(' '.repeat(20))).toBeUndefined();
  });

  it('pads text parts with `_` on the right and numeric parts with `0` on the left', () => {
    expect(fieldFromCoordinate('CONV/1/2/0/0')).toBe('CONV0001000200000000');
    expect(fieldFromCoordinate('SL/IN/1/0/0')).toBe('SL__IN__000100000000');
    expect(fieldFromCoordinate('OUT/A1/12/003/9999')).toBe('OUT_A1__001200039999');
    expect(fieldFromCoordinate('FGIN/IPNT/0001/0000/0000')).toBe('FGINIPNT000100000000');
    expect(coordinateFromField(fieldFromCoordinate('FGIN/IPNT/0001/0000/0000'))).toBe('FGIN/IPNT/0001/0000/0000');
  });

  it('uses configured padding, or none', () => {
    expect(fieldFromCoordinate('A/B/1/2/3', { text: '.', numeric: ' ' })).toBe('A...B...   1   2   3');
    expect(fieldFromCoordinate('AREA/AISL/0001/0002/0003', { text: null, numeric: null })).toBe('AREAAISL000100020003');
    expect(() => fieldFromCoordinate('AREA/AISL/1/0002/0003', { text: null, numeric: null })).toThrow(CoordinateNotWritableError);
    expect(() => fieldFromCoordinate('AR/AISL/0001/0002/0003', { text: null, numeric: '0' })).toThrow(/padding is off/);
  });

  it('refuses what cannot travel as 5 × 4', () => {
    for (const bad of ['STOCK/1/1/1/1', 'A/B/C/D', 'A/B/C/D/E/F', 'A//C/D/E', 'A/B/C/D/12345', '']) {
      expect(() => fieldFromCoordinate(bad), bad).toThrow(CoordinateNotWritableError);
    }
    const e = (() => {
      try {
        fieldFromCoordinate('STOCK/1/1/1/1');
      } catch (err) {
        return err as CoordinateNotWritableError;
      }
    })();
    expect(e).toMatchObject({ coordinate: 'STOCK/1/1/1/1', field: 'location', problem: 'coordinate' });
    expect(e?.message).toContain('"STOCK"');
  });

  it("writes a telegram location with the options' padding", () => {
    const options = osipOptions({ locationPadding: { text: '-', numeric: '0' } });
    const t = encode({ type: 'UPD_', header: PLC, barcode: '1', actualLocation: 'SL/IN/1/0/0', created }, options);
    expect(t.slice(47, 67)).toBe('SL--IN--000100000000');
  });
});

describe('barcode padding', () => {
  const upd = (barcode: string, options = osipOptions()) => encode({ type: 'UPD_', header: PLC, barcode, actualLocation: 'CONV/1/1/0/0', created }, options);

  it('left-pads with `0` by default and strips it again on read', () => {
    expect(upd('4711').slice(27, 47)).toBe('00000000000000004711');
    expect(telegram(upd('TU-9'))).toMatchObject({ barcode: 'TU-9', rawBarcode: '0000000000000000TU-9' });
  });

  it('pads with another character or side', () => {
    const right = osipOptions({ barcodePadding: { char: ' ', side: 'right' } });
    expect(upd('4711', right).slice(27, 47)).toBe('4711                ');
    expect(telegram(upd('4711', right), right)).toMatchObject({ barcode: '4711' });
    const underscore = osipOptions({ barcodePadding: { char: '_', side: 'left' } });
    expect(upd('4711', underscore).slice(27, 47)).toBe('________________4711');
    expect(telegram(upd('4711', underscore), underscore)).toMatchObject({ barcode: '4711' });
  });

  it('with padding off, writes only full-width barcodes and reads them unchanged', () => {
    const none = osipOptions({ barcodePadding: 'none' });
    expect(upd('00000000000000004711', none).slice(27, 47)).toBe('00000000000000004711');
    expect(() => upd('4711', none)).toThrow(OsipEncodeError);
    expect(telegram(upd('00000000000000004711', none), none)).toMatchObject({ barcode: '00000000000000004711' });
  });
});

describe('group filler per type', () => {
  it('is `_` in LOCU/SYSU and `*` in RES_/ERR_ by default', () => {
    expect(encode({ type: 'SYSU', header: PLC, locationGroupName: 'FG', created }).slice(27, 47)).toBe('FG' + '_'.repeat(18));
    expect(encode({ type: 'LOCU', header: PLC, locationGroupName: 'FG', created }).slice(27, 47)).toBe('FG' + '_'.repeat(18));
    expect(encode({ type: 'ERR_', header: HOST, locationGroupName: 'FG', created }).slice(27, 47)).toBe('FG' + '*'.repeat(18));
    expect(encode({ type: 'RES_', header: HOST, targetLocationGroup: 'FG', created }).slice(87, 107)).toBe('FG' + '*'.repeat(18));
  });

  it('is configurable per type', () => {
    const options = osipOptions({ groupFiller: { ...DEFAULT_OSIP_OPTIONS.groupFiller, ERR_: '_', SYSU: ' ' } });
    expect(encode({ type: 'ERR_', header: HOST, locationGroupName: 'FG', created }, options).slice(27, 47)).toBe('FG' + '_'.repeat(18));
    expect(encode({ type: 'SYSU', header: PLC, locationGroupName: 'FG', created }, options).slice(27, 47)).toBe('FG' + ' '.repeat(18));
    expect(encode({ type: 'LOCU', header: PLC, locationGroupName: 'FG', created }, options).slice(27, 47)).toBe('FG' + '_'.repeat(18));
  });
});

describe('telegram length, sync, filler and host name', () => {
  it('writes the configured length into the header and pads to it', () => {
    const options = osipOptions({ telegramLength: 200, filler: '.', sync: '$$$' });
    const t = encode({ type: 'SYNC', header: HOST, time: created }, options);
    expect(t).toHaveLength(200);
    expect(t.slice(0, 27)).toBe('$$$00200MFC__CNV0100001SYNC');
    expect(t.slice(41)).toBe('.'.repeat(159));
    expect(telegram(t, options)).toMatchObject({ type: 'SYNC', header: { length: 200 }, time: created });
    expect(decode(t).ok).toBe(false);
  });

  it('checks options once, at start-up', () => {
    expect(() => osipOptions({ telegramLength: 128 })).toThrow(/telegramLength/);
    expect(() => osipOptions({ telegramLength: 100_000 })).toThrow(/telegramLength/);
    expect(() => osipOptions({ sync: '##' })).toThrow(/sync/);
    expect(() => osipOptions({ filler: '**' })).toThrow(/filler/);
    expect(() => osipOptions({ hostName: 'MFC' })).toThrow(/hostName/);
    expect(() => osipOptions({ hostName: 'MFC\u00e9_' })).toThrow(/hostName/);
    expect(() => osipOptions({ barcodePadding: { char: '', side: 'left' } })).toThrow(/barcodePadding/);
    expect(() => osipOptions({ timeZone: 'Mars/Olympus' })).toThrow(/timeZone/);
    expect(() => osipOptions({ groupFiller: { ...DEFAULT_OSIP_OPTIONS.groupFiller, RES_: '\n' } })).toThrow(/groupFiller/);
    expect(osipOptions()).toMatchObject({
      telegramLength: 160,
      sync: '###',
      filler: '*',
      hostName: 'MFC__',
      reqExtension: false,
      timeZone: 'UTC',
      barcodePadding: { char: '0', side: 'left' },
      locationPadding: { text: '_', numeric: '0' },
      groupFiller: { LOCU: '_', SYSU: '_', RES_: '*', ERR_: '*' },
    });
  });
});

describe('dates', () => {
  it('reads and writes in the configured zone', () => {
    const berlin = osipOptions({ timeZone: 'Europe/Berlin' });
    const winter = new Date('2025-03-12T08:15:00Z');
    const summer = new Date('2025-07-01T22:30:05Z');
    expect(formatTelegramDate(winter, 'Europe/Berlin')).toBe('20250312091500');
    expect(formatTelegramDate(summer, 'Europe/Berlin')).toBe('20250702003005');
    expect(parseTelegramDate('20250312091500', 'Europe/Berlin')).toEqual(winter);
    expect(parseTelegramDate('20250702003005', 'Europe/Berlin')).toEqual(summer);
    const t = encode({ type: 'SYNC', header: HOST, time: summer }, berlin);
    expect(t.slice(27, 41)).toBe('20250702003005');
    expect(telegram(t, berlin)).toMatchObject({ time: summer });
  });

  it('drops milliseconds and refuses impossible dates', () => {
    expect(formatTelegramDate(new Date('2025-12-31T23:59:59.999Z'), 'UTC')).toBe('20251231235959');
    expect(parseTelegramDate('20240229000000', 'UTC')).toEqual(new Date('2024-02-29T00:00:00Z'));
    for (const bad of ['20250229000000', '20250431000000', '20250001000000', '20250100000000', '2025010100000', '2025-1-1000000']) {
      expect(parseTelegramDate(bad, 'UTC'), bad).toBeUndefined();
    }
  });
});

describe('REQ_ weight/dimension extension', () => {
  const ext = osipOptions({ reqExtension: true });
  const base = { type: 'REQ_' as const, header: PLC, barcode: '4711', actualLocation: 'CONV/1/2/0/0', created };

  it("is ignored when off: an OpenWMS peer's filler is not read", () => {
    const t = encode(base);
    expect(t.slice(109)).toBe('*'.repeat(51));
    expect(telegram(t)).not.toHaveProperty('weightGrams');
    expect(() => encode({ ...base, weightGrams: 1 })).toThrow(/extension/);
  });

  it('writes and reads weight and dimensions at 109-126', () => {
    const t = encode({ ...base, weightGrams: 12_500, lengthMm: 1200, widthMm: 800, heightMm: 45 }, ext);
    expect(t.slice(109, 127)).toBe('012500' + '1200' + '0800' + '0045');
    expect(t.slice(127)).toBe('*'.repeat(33));
    expect(telegram(t, ext)).toMatchObject({ weightGrams: 12_500, lengthMm: 1200, widthMm: 800, heightMm: 45 });
  });

  it('reads `*` as absent and warns about non-numbers', () => {
    const absent = encode({ ...base, weightGrams: 7 }, ext);
    expect(absent.slice(115, 127)).toBe('*'.repeat(12));
    expect(telegram(absent, ext)).toMatchObject({ weightGrams: 7, lengthMm: undefined, widthMm: undefined, heightMm: undefined });
    const junk = absent.slice(0, 115) + '12x4' + absent.slice(119);
    const r = decode(junk, ext);
    expect(r.ok && r.warnings).toEqual([expect.stringContaining('lengthMm "12x4"')]);
    expect(r.ok && r.telegram).toMatchObject({ weightGrams: 7, lengthMm: undefined });
  });

  it('reads a REQ_ that ends before the extension as without it', () => {
    const r = decode(encode(base, ext).slice(0, 112), ext);
    expect(r.ok && r.telegram).toMatchObject({ weightGrams: undefined, lengthMm: undefined });
  });

  it('refuses values that do not fit', () => {
    expect(() => encode({ ...base, weightGrams: 1_000_000 }, ext)).toThrow(OsipEncodeError);
    expect(() => encode({ ...base, heightMm: 10_000 }, ext)).toThrow(/too-long|characters/);
    expect(() => encode({ ...base, widthMm: -1 }, ext)).toThrow(OsipEncodeError);
    expect(() => encode({ ...base, lengthMm: 1.5 }, ext)).toThrow(OsipEncodeError);
  });
});

describe('layout tables', () => {
  it('match docs/plc.md: contiguous fields from offset 27, within 160 characters', () => {
    const ends: Record<string, number> = { REQ_: 109, RES_: 129, SYNQ: 41, SYNC: 41, UPD_: 89, UPDX: 89, ACK_: 49, LOCU: 89, SYSU: 69, ERR_: 69 };
    expect([...TELEGRAM_TYPES].sort()).toEqual(Object.keys(ends).sort());
    for (const type of TELEGRAM_TYPES) {
      let next = 27;
      for (const field of LAYOUTS[type]) {
        expect(field.offset, `${type}.${field.name}`).toBe(next);
        next = field.offset + field.width;
      }
      expect(next).toBeLessThanOrEqual(160);
      expect(minimumLength(type)).toBe(ends[type]);
    }
  });

  it('round-trips UPDX and ACK_ (the feature-branch pair)', () => {
    const updx = encode({ type: 'UPDX', header: PLC, barcode: '4711', actualLocation: 'CONV/1/3/0/0', errorCode: '******01', created });
    expect(updx.slice(23, 89)).toBe('UPDX00000000000000004711CONV0001000300000000******0120250312081500');
    expect(telegram(updx)).toMatchObject({ type: 'UPDX', barcode: '4711', actualLocation: 'CONV/0001/0003/0000/0000', errorCode: '******01' });
    const ack = encode({ type: 'ACK_', header: HOST, errorCode: '******01', created });
    expect(ack.slice(23, 49)).toBe('ACK_******0120250312081500');
    expect(telegram(ack)).toMatchObject({ type: 'ACK_', errorCode: '******01', created });
  });
});
