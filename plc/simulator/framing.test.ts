import { describe, expect, it } from 'vitest';
import { bcc, Deframer, ETX, frame, STX, type DeframeEvent } from './framing.ts';

const SYNQ = '###00160CNV01MFC__00007SYNQ20250312081459'.padEnd(160, '*');
const SYNC = '###00160MFC__CNV0100008SYNC20250312081500'.padEnd(160, '*');

const frames = (events: DeframeEvent[]) => events.flatMap((e) => (e.kind === 'frame' ? [e.bytes.toString('latin1')] : []));
const dropped = (events: DeframeEvent[]) => events.flatMap((e) => (e.kind === 'dropped' ? [[e.reason, e.bytes.toString('latin1')]] : []));

describe('frame', () => {
  it('appends CR LF by default, or the configured terminator', () => {
    expect(frame(SYNQ).toString('latin1')).toBe(SYNQ + '\r\n');
    expect(frame(SYNQ, { terminator: '\n' }).toString('latin1')).toBe(SYNQ + '\n');
    expect(frame(SYNQ, { terminator: '' }).toString('latin1')).toBe(SYNQ);
  });

  it('writes fixed frames without terminator', () => {
    expect(frame(SYNQ, { mode: 'fixed' })).toHaveLength(160);
  });

  it('wraps stxetx frames and appends the XOR of telegram and ETX as BCC', () => {
    const plain = frame(SYNQ, { mode: 'stxetx' });
    expect(plain[0]).toBe(STX);
    expect(plain.subarray(1, 161).toString('latin1')).toBe(SYNQ);
    expect(plain[161]).toBe(ETX);
    expect(plain).toHaveLength(162);
    const checked = frame(SYNQ, { mode: 'stxetx', bcc: true });
    expect(checked).toHaveLength(163);
    let x = 0;
    for (const ch of Buffer.from(SYNQ + '\x03', 'latin1')) x ^= ch;
    expect(checked[162]).toBe(x);
    expect(bcc(Buffer.from([0x01, 0x02, 0x04]))).toBe(0x07);
  });
});

describe('Deframer, line', () => {
  it('reassembles a telegram written byte by byte and drops the CR', () => {
    const d = new Deframer();
    const events: DeframeEvent[] = [];
    for (const byte of frame(SYNC)) events.push(...d.push(Buffer.from([byte])));
    expect(frames(events)).toEqual([SYNC]);
    expect(d.pending).toBe(0);
  });

  it('splits several telegrams in one chunk, with LF or CR LF', () => {
    const d = new Deframer();
    const chunk = Buffer.from(`${SYNQ}\r\n${SYNC}\n${SYNQ}\r\n`, 'latin1');
    expect(frames(d.push(chunk))).toEqual([SYNQ, SYNC, SYNQ]);
  });

  it('drops garbage before the sync and lines without one', () => {
    const d = new Deframer();
    const events = d.push(Buffer.from(`NOISE${SYNC}\r\nhello\r\n\r\n`, 'latin1'));
    expect(frames(events)).toEqual([SYNC]);
    expect(dropped(events)).toEqual([
      ['before-sync', 'NOISE'],
      ['no-sync', 'hello'],
    ]);
  });

  it('gives up a frame that grows past the limit and resynchronises on the next sync', () => {
    const d = new Deframer({ maxFrame: 300 });
    const events = [...d.push(Buffer.from('x'.repeat(400), 'latin1')), ...d.push(Buffer.from(`${SYNC}\r\n`, 'latin1'))];
    expect(frames(events)).toEqual([SYNC]);
    expect(dropped(events).map(([reason]) => reason)).toContain('overflow');
  });
});

describe('Deframer, fixed', () => {
  it('takes exactly the telegram length, across and within chunks', () => {
    const d = new Deframer({ mode: 'fixed' });
    const wire = Buffer.from(SYNC + SYNQ + SYNC, 'latin1');
    expect(frames(d.push(wire.subarray(0, 100)))).toEqual([]);
    expect(frames(d.push(wire.subarray(100)))).toEqual([SYNC, SYNQ, SYNC]);
  });

  it('skips to the sync when the stream starts elsewhere', () => {
    const d = new Deframer({ mode: 'fixed' });
    const events = d.push(Buffer.from(`\r\n##${SYNC}`, 'latin1'));
    expect(frames(events)).toEqual([SYNC]);
    expect(dropped(events)).toEqual([['before-sync', '\r\n##']]);
  });
});

describe('Deframer, stxetx', () => {
  it('unwraps frames with a good BCC and drops those with a bad one', () => {
    const d = new Deframer({ mode: 'stxetx', bcc: true });
    const good = frame(SYNC, { mode: 'stxetx', bcc: true });
    const bad = Buffer.from(good);
    bad.writeUInt8(bad.readUInt8(bad.length - 1) ^ 0xff, bad.length - 1);
    const events = d.push(Buffer.concat([Buffer.from('zz'), bad, good.subarray(0, 50)]));
    expect(frames(events)).toEqual([]);
    expect(dropped(events).map(([reason]) => reason)).toEqual(['before-sync', 'bcc']);
    expect(frames(d.push(good.subarray(50)))).toEqual([SYNC]);
  });

  it('works without BCC', () => {
    const d = new Deframer({ mode: 'stxetx' });
    expect(frames(d.push(Buffer.concat([frame(SYNQ, { mode: 'stxetx' }), frame(SYNC, { mode: 'stxetx' })])))).toEqual([SYNQ, SYNC]);
  });
});
