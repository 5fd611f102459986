import { describe, expect, it } from 'vitest';
import { decode } from '../osip/index.ts';
import { ETX, STX, createFramer, encodeFrame, type FramerOptions, type FramingEventKind, type Framer } from './framing.ts';

// Golden telegrams of docs/plc.md (appendix).
const REQ =
  '###00160CNV01MFC__00042REQ_00000000000000004711CONV0001000200000000****************************20250312081500***************************************************';
const SYNQ =
  '###00160CNV01MFC__00007SYNQ20250312081459***********************************************************************************************************************';
const LOCU =
  '###00160CNV01MFC__00045LOCUCONV________________CONV00010003000000000012***120250312081510***********************************************************************';
const THREE = [REQ, SYNQ, LOCU];

const ascii = (s: string) => Buffer.from(s, 'latin1');

interface Fed {
  frames: string[];
  totals: Partial<Record<FramingEventKind, number>>;
}

/** Pushes the chunks one by one; frames in order, event bytes summed by kind. */
function feed(framer: Framer, chunks: Uint8Array[]): Fed {
  const frames: string[] = [];
  const totals: Partial<Record<FramingEventKind, number>> = {};
  for (const chunk of chunks) {
    const r = framer.push(chunk);
    frames.push(...r.frames);
    for (const e of r.events) {
      expect(e.bytes).toBeGreaterThan(0);
      totals[e.kind] = (totals[e.kind] ?? 0) + e.bytes;
    }
  }
  return { frames, totals };
}

const bytesOf = (buf: Buffer) => [...buf].map((b) => Buffer.from([b]));

/** Deterministic chunkings of a stream: every cut point, plus pseudo-random splits. */
function* chunkings(stream: Buffer): Generator<Buffer[]> {
  yield [stream];
  yield bytesOf(stream);
  for (let cut = 1; cut < stream.length; cut += 7) yield [stream.subarray(0, cut), stream.subarray(cut)];
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return 1 + (seed % n);
  };
  for (let round = 0; round < 20; round++) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < stream.length;) {
      const n = rnd(40);
      chunks.push(stream.subarray(i, i + n));
      i += n;
    }
    yield chunks;
  }
}

/** Every chunking of the stream gives the same frames and the same event totals. */
function expectChunkingIndependent(options: FramerOptions, stream: Buffer): Fed {
  const whole = feed(createFramer(options), [stream]);
  for (const chunks of chunkings(stream)) expect(feed(createFramer(options), chunks)).toEqual(whole);
  return whole;
}

const MODES: { name: string; framer: FramerOptions; wire: (t: string) => Buffer }[] = [
  { name: 'line, CR LF', framer: { mode: 'line' }, wire: (t) => encodeFrame(t, { mode: 'line' }) },
  { name: 'line, LF', framer: { mode: 'line' }, wire: (t) => encodeFrame(t, { mode: 'line', terminator: '\n' }) },
  { name: 'fixed', framer: { mode: 'fixed' }, wire: (t) => encodeFrame(t, { mode: 'fixed' }) },
  { name: 'stxetx', framer: { mode: 'stxetx' }, wire: (t) => encodeFrame(t, { mode: 'stxetx' }) },
  { name: 'stxetx + BCC', framer: { mode: 'stxetx', bcc: true }, wire: (t) => encodeFrame(t, { mode: 'stxetx', bcc: true }) },
];

describe.each(MODES)('every mode: $name', ({ framer, wire }) => {
  it('delivers one telegram from one chunk, framing removed', () => {
    expect(feed(createFramer(framer), [wire(REQ)])).toEqual({ frames: [REQ], totals: {} });
  });

  it('delivers 3 telegrams from one chunk', () => {
    const chunk = Buffer.concat(THREE.map(wire));
    expect(feed(createFramer(framer), [chunk])).toEqual({ frames: THREE, totals: {} });
  });

  it('delivers 1 telegram from one-byte chunks, nothing before its last byte', () => {
    const f = createFramer(framer);
    const bytes = bytesOf(wire(SYNQ));
    expect(bytes.length).toBeGreaterThanOrEqual(160);
    for (const b of bytes.slice(0, -1)) expect(f.push(b)).toEqual({ frames: [], events: [] });
    expect(f.push(bytes[bytes.length - 1]!)).toEqual({ frames: [SYNQ], events: [] });
    expect(f.buffered).toBe(0);
  });

  it('gives the same result however the stream is cut', () => {
    const stream = Buffer.concat([ascii('garbage'), wire(REQ), wire(SYNQ), ascii('#x#'), wire(LOCU)]);
    const fed = expectChunkingIndependent(framer, stream);
    expect(fed.frames).toEqual(THREE);
    expect(fed.totals.resync).toBeGreaterThanOrEqual(10);
  });

  it('resynchronises on ###: bytes before the sync are dropped and reported', () => {
    const f = createFramer(framer);
    const r = f.push(Buffer.concat([ascii('noise!'), wire(REQ)]));
    expect(r.frames).toEqual([REQ]);
    expect(r.events).toEqual([{ kind: 'resync', bytes: 6 }]);
  });

  it('discards a partial frame on reset (dropped connection)', () => {
    const f = createFramer(framer);
    const half = wire(REQ).subarray(0, 80);
    expect(f.push(half).frames).toEqual([]);
    expect(f.reset()).toBeGreaterThanOrEqual(79);
    expect(f.buffered).toBe(0);
    expect(f.push(wire(SYNQ))).toEqual({ frames: [SYNQ], events: [] });
  });

  it('reports non-ASCII bytes and still delivers the frame, so the codec can answer ERR_', () => {
    const bad = REQ.slice(0, 30) + '\u00e9' + REQ.slice(31);
    // encodeFrame refuses non-ASCII, so put the byte into a good frame.
    const raw = wire(REQ);
    raw[raw.indexOf('###', 0, 'latin1') + 30] = 0xe9;
    if (framer.bcc) raw[raw.length - 1] = raw.subarray(1, -1).reduce((x, b) => x ^ b, 0);
    const r = createFramer(framer).push(raw);
    expect(r.frames).toEqual([bad]);
    expect(r.events).toEqual([{ kind: 'non-ascii', bytes: 1 }]);
    const decoded = decode(r.frames[0]!);
    expect(decoded.ok ? 'ok' : decoded.reason).toBe('non-ascii');
  });
});

describe('line mode', () => {
  it('handles a CR LF split across chunks', () => {
    const f = createFramer({ mode: 'line' });
    expect(f.push(ascii(REQ + '\r')).frames).toEqual([]);
    expect(f.push(ascii('\n' + SYNQ))).toEqual({ frames: [REQ], events: [] });
    expect(f.push(ascii('\r'))).toEqual({ frames: [], events: [] });
    expect(f.push(ascii('\n'))).toEqual({ frames: [SYNQ], events: [] });
  });

  it('drops exactly one trailing CR', () => {
    const r = createFramer({ mode: 'line' }).push(ascii(REQ + '\r\r\n'));
    expect(r.frames).toEqual([REQ + '\r']);
    expect(r.events).toEqual([{ kind: 'non-ascii', bytes: 1 }]);
  });

  it('ignores blank lines silently but reports a line without sync', () => {
    expect(feed(createFramer({ mode: 'line' }), [ascii('\r\n\n' + REQ + '\r\n\r\n')])).toEqual({ frames: [REQ], totals: {} });
    expect(feed(createFramer({ mode: 'line' }), [ascii('hello PLC\r\n' + REQ + '\n')])).toEqual({ frames: [REQ], totals: { resync: 9 } });
  });

  it('passes a truncated telegram on to the codec (which rejects it too short)', () => {
    const r = createFramer({ mode: 'line' }).push(ascii(REQ.slice(0, 100) + '\r\n' + REQ + '\r\n'));
    expect(r.frames).toEqual([REQ.slice(0, 100), REQ]);
    const first = decode(r.frames[0]!);
    expect(first.ok ? 'ok' : first.reason).toBe('too-short');
  });

  it('overflow: a frame past the cap is dropped up to the next ###', () => {
    const junk = '###' + 'x'.repeat(1100);
    const fed = expectChunkingIndependent({ mode: 'line' }, ascii(junk + REQ + '\r\n' + SYNQ + '\r\n'));
    expect(fed).toEqual({ frames: [REQ, SYNQ], totals: { overflow: 1103 } });
  });

  it('overflow: an overlong line ends at its LF', () => {
    const fed = expectChunkingIndependent({ mode: 'line' }, ascii('###' + 'x'.repeat(1100) + '\r\nabc' + REQ + '\r\n'));
    expect(fed).toEqual({ frames: [REQ], totals: { overflow: 1103, resync: 3 } });
  });

  it('overflow: garbage without any sync never grows the buffer', () => {
    const f = createFramer({ mode: 'line', maxFrame: 200 });
    const fed = feed(f, [ascii('#'.repeat(3) + 'y'.repeat(5000))]);
    expect(fed.totals.overflow).toBe(5003);
    expect(f.buffered).toBeLessThanOrEqual(2);
    expect(feed(f, [ascii('\n' + REQ + '\n')])).toEqual({ frames: [REQ], totals: {} });
  });

  it('takes a frame of exactly the cap, refuses one byte more', () => {
    const exact = '###' + 'z'.repeat(197);
    expect(expectChunkingIndependent({ mode: 'line', maxFrame: 200 }, ascii(exact + '\r\n'))).toEqual({ frames: [exact], totals: {} });
    expect(expectChunkingIndependent({ mode: 'line', maxFrame: 200 }, ascii(exact + 'z\r\n' + REQ + '\n'))).toEqual({
      frames: [REQ],
      totals: { overflow: 201 },
    });
  });

  it('keeps a sync split across chunks', () => {
    const f = createFramer({ mode: 'line' });
    expect(f.push(ascii('junk#'))).toEqual({ frames: [], events: [{ kind: 'resync', bytes: 4 }] });
    expect(f.push(ascii('#'))).toEqual({ frames: [], events: [] });
    expect(f.push(ascii(REQ.slice(2) + '\n'))).toEqual({ frames: [REQ], events: [] });
  });

  it('starts a frame at the last ### of a run of #, however it is cut', () => {
    expect(expectChunkingIndependent({ mode: 'line' }, ascii('#####' + REQ.slice(3) + '\n'))).toEqual({ frames: [REQ], totals: { resync: 2 } });
    expect(expectChunkingIndependent({ mode: 'fixed' }, ascii('#x####' + REQ.slice(3)))).toEqual({ frames: [REQ], totals: { resync: 3 } });
    const stx = encodeFrame('##' + REQ, { mode: 'stxetx' });
    expect(expectChunkingIndependent({ mode: 'stxetx' }, stx)).toEqual({ frames: [REQ], totals: { resync: 2 } });
  });

  it('merges consecutive drops of one kind within a push into one event', () => {
    const r = createFramer({ mode: 'line' }).push(ascii('aa\r\nbb\r\ncc' + REQ + '\n'));
    expect(r.events).toEqual([{ kind: 'resync', bytes: 6 }]);
  });
});

describe('fixed mode', () => {
  it('takes exactly L bytes and reports what a CR LF-appending PLC adds', () => {
    const fed = expectChunkingIndependent({ mode: 'fixed' }, ascii(THREE.map((t) => t + '\r\n').join('')));
    expect(fed).toEqual({ frames: THREE, totals: { resync: 6 } });
  });

  it('uses the configured length and sync', () => {
    const t = '$$$00200' + 'p'.repeat(192);
    const fed = expectChunkingIndependent({ mode: 'fixed', length: 200, sync: '$$$' }, ascii('..' + t + t));
    expect(fed).toEqual({ frames: [t, t], totals: { resync: 2 } });
  });

  it('drops a frame start it cannot find, keeping a split sync', () => {
    const f = createFramer({ mode: 'fixed' });
    expect(f.push(ascii('x'.repeat(3000) + '##'))).toEqual({ frames: [], events: [{ kind: 'resync', bytes: 3000 }] });
    expect(f.buffered).toBe(2);
    expect(f.push(ascii(REQ.slice(2)))).toEqual({ frames: [REQ], events: [] });
  });

  it('refuses a length beyond the cap', () => {
    expect(() => createFramer({ mode: 'fixed', length: 2000 })).toThrow(RangeError);
    expect(() => createFramer({ mode: 'fixed', length: 2000, maxFrame: 2000 })).not.toThrow();
  });
});

describe('stxetx mode', () => {
  const frame = (t: string, bcc = false) => encodeFrame(t, { mode: 'stxetx', bcc });

  it('handles STX, ETX and BCC split across chunks', () => {
    const f = createFramer({ mode: 'stxetx', bcc: true });
    const w = frame(REQ, true);
    expect(f.push(w.subarray(0, 1)).frames).toEqual([]);
    expect(f.push(w.subarray(1, 161)).frames).toEqual([]);
    expect(f.push(w.subarray(161, 162)).frames).toEqual([]);
    expect(f.push(w.subarray(162))).toEqual({ frames: [REQ], events: [] });
  });

  it('drops a frame with a wrong BCC and reports it; the next frame is fine', () => {
    const bad = frame(REQ, true);
    bad[bad.length - 1]! ^= 0xff;
    const fed = expectChunkingIndependent({ mode: 'stxetx', bcc: true }, Buffer.concat([bad, frame(SYNQ, true)]));
    expect(fed).toEqual({ frames: [SYNQ], totals: { 'bcc-error': 163 } });
    const corrupted = frame(LOCU, true);
    corrupted[50] = 0x41;
    expect(feed(createFramer({ mode: 'stxetx', bcc: true }), [corrupted]).totals).toEqual({ 'bcc-error': 163 });
  });

  it('reads a BCC byte that happens to equal STX or ETX', () => {
    for (const target of [STX, ETX]) {
      const t = [...Array(1000).keys()]
        .map((seq) => SYNQ.slice(0, 18) + String(seq).padStart(5, '0') + SYNQ.slice(23))
        .find((candidate) => frame(candidate, true).at(-1) === target)!;
      expect(t).toBeDefined();
      const fed = expectChunkingIndependent({ mode: 'stxetx', bcc: true }, Buffer.concat([frame(t, true), frame(REQ, true)]));
      expect(fed).toEqual({ frames: [t, REQ], totals: {} });
    }
  });

  it('computes the BCC as the XOR of everything after STX through ETX', () => {
    const w = frame('###A', true);
    expect([...w]).toEqual([STX, 0x23, 0x23, 0x23, 0x41, ETX, 0x23 ^ 0x23 ^ 0x23 ^ 0x41 ^ ETX]);
  });

  it('resynchronises inside a frame and between frames', () => {
    const stream = Buffer.concat([ascii('\r\n'), frame(REQ), ascii('zz'), frame('ab' + SYNQ)]);
    expect(expectChunkingIndependent({ mode: 'stxetx' }, stream)).toEqual({ frames: [REQ, SYNQ], totals: { resync: 6 } });
    expect(feed(createFramer({ mode: 'stxetx' }), [frame('no sync at all')]).totals).toEqual({ resync: 16 });
  });

  it('restarts at a new STX when a frame lost its ETX', () => {
    const stream = Buffer.concat([ascii('\u0002' + REQ.slice(0, 70)), frame(SYNQ)]);
    expect(expectChunkingIndependent({ mode: 'stxetx' }, stream)).toEqual({ frames: [SYNQ], totals: { resync: 71 } });
  });

  it('overflow: a frame past the cap is dropped up to the next frame start', () => {
    const stream = Buffer.concat([ascii('\u0002###' + 'q'.repeat(1100)), frame(REQ, true)]);
    expect(expectChunkingIndependent({ mode: 'stxetx', bcc: true }, stream)).toEqual({ frames: [REQ], totals: { overflow: 1104 } });
    const f = createFramer({ mode: 'stxetx', maxFrame: 200 });
    expect(feed(f, [ascii('\u0002' + 'q'.repeat(5000))]).totals).toEqual({ overflow: 5001 });
    expect(f.buffered).toBe(0);
  });

  it('reports a BCC the channel did not expect as noise between frames', () => {
    const fed = feed(createFramer({ mode: 'stxetx' }), [Buffer.concat([frame(REQ, true), frame(SYNQ, true)])]);
    expect(fed).toEqual({ frames: [REQ, SYNQ], totals: { resync: 2 } });
  });
});

describe('encodeFrame', () => {
  it('appends the configured terminator in line mode only', () => {
    expect(encodeFrame(REQ, { mode: 'line' }).toString('latin1')).toBe(REQ + '\r\n');
    expect(encodeFrame(REQ, { mode: 'line', terminator: '\n' }).toString('latin1')).toBe(REQ + '\n');
    expect(encodeFrame(REQ, { mode: 'line', terminator: '' }).toString('latin1')).toBe(REQ);
    expect(encodeFrame(REQ, { mode: 'line' })).toHaveLength(162);
    expect(encodeFrame(REQ, { mode: 'fixed', terminator: '\r\n' }).toString('latin1')).toBe(REQ);
    expect(encodeFrame(REQ, { mode: 'stxetx', terminator: '\r\n' })).toHaveLength(162);
    expect(encodeFrame(REQ, { mode: 'stxetx', bcc: true })).toHaveLength(163);
  });

  it('refuses a telegram that is not printable ASCII', () => {
    expect(() => encodeFrame(REQ + '\n', { mode: 'line' })).toThrow(RangeError);
    expect(() => encodeFrame('###\u00e9', { mode: 'fixed' })).toThrow(RangeError);
  });

  it('rejects unknown modes and bad options', () => {
    expect(() => createFramer({ mode: 'crlf' as 'line' })).toThrow(RangeError);
    expect(() => createFramer({ mode: 'line', sync: '' })).toThrow(RangeError);
    expect(() => createFramer({ mode: 'line', maxFrame: 2 })).toThrow(RangeError);
  });
});
