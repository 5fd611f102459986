import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelConfigInput } from './config.ts';
import { ERR_CODES } from './osip/index.ts';
import { withLengthText, withType } from './simulator/faults.ts';
import { PlcSimulator, type SimulatorOptions } from './simulator/index.ts';
import {
  BatchRecordingHandler,
  Cleanup,
  PtyPair,
  RawClient,
  RecordingHandler,
  captureLog,
  makeChannel,
  stateReached,
  stateTrail,
  waitFor,
} from '../test/support/plc.ts';

// The channel (plc/channel.ts) over real loopback sockets and real socat pty pairs,
// spoken to by the simulator (its own encoder and framing) or by raw bytes, with a
// handler that records its calls: what the PLC gets back, and whether the adapter was
// asked at all.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const HERE = 'CONV/0001/0001/0000/0000';
const NEXT = 'CONV/0001/0002/0000/0000';
const REQ = { barcode: '4711', actualLocation: HERE };

async function serverChannel(config: Partial<ChannelConfigInput> = {}, handler = new RecordingHandler(NEXT)) {
  const { log, lines } = captureLog();
  const channel = makeChannel({ name: 'CNV01', host: '127.0.0.1', port: 0, ...config }, log);
  const trail = stateTrail(channel);
  await channel.start(handler);
  cleanup.add(() => channel.stop());
  return { channel, handler, lines, trail, port: channel.address()!.port };
}

async function simulator(port: number, options: Partial<SimulatorOptions> = {}): Promise<PlcSimulator> {
  const sim = new PlcSimulator({ transport: { kind: 'tcp-client', host: '127.0.0.1', port }, requestTimeoutMs: 3000, ...options });
  cleanup.add(() => sim.close());
  await sim.connect();
  return sim;
}

/** A REQ_ answered: everything sent before it has been processed (one at a time, in order). */
async function settled(sim: PlcSimulator, barcode = '9999') {
  return sim.request({ barcode, actualLocation: HERE });
}

describe('SYNQ → SYNC', () => {
  it('answers with the header turned around, sequence number + 1 and the host time; the adapter is not asked', async () => {
    const { handler, port } = await serverChannel();
    const raw = await RawClient.connect(port);
    cleanup.add(() => raw.close());
    await raw.write('###00160CNV01MFC__00007SYNQ20250312081459' + '*'.repeat(119) + '\r\n');
    const [sync] = await raw.telegrams(1);
    expect(sync).toMatchObject({ type: 'SYNC', sender: 'MFC__', receiver: 'CNV01', seq: 8, lengthField: 160 });
    const wire = raw.bytes.toString('latin1');
    expect(wire).toMatch(/^###00160MFC__CNV0100008SYNC\d{14}\*{119}\r\n$/);
    const hostTime = Date.parse(wire.slice(27, 41).replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, '$1-$2-$3T$4:$5:$6Z'));
    expect(Math.abs(hostTime - Date.now())).toBeLessThan(60_000);
    expect(handler.calls).toEqual([]);
  });

  it('echoes the sequence number with replySeq: echo (RES_ too)', async () => {
    const { port } = await serverChannel({ replySeq: 'echo' });
    const sim = await simulator(port);
    const sync = await sim.synq();
    expect(sync.seq).toBe(sim.sent[0]!.seq);
    const res = await sim.request(REQ);
    expect(res.seq).toBe(sim.sent[1]!.seq);
  });

  it('ACK_ always echoes the sequence number, whatever replySeq says', async () => {
    const acking = new RecordingHandler();
    acking.answer = (t) => ({ replies: t.type === 'UPDX' ? [{ type: 'ACK_', errorCode: t.errorCode }] : [], outcome: 'ok' });
    const { port } = await serverChannel({ replySeq: 'plus-one' }, acking);
    const sim = await simulator(port);
    const ack = await sim.updateAcknowledged('4711', HERE, { errorCode: '00000000' });
    expect(ack).toMatchObject({ sender: 'MFC__', receiver: 'CNV01', seq: sim.sent[0]!.seq, errorCode: '00000000' });
  });

  it('is answered ahead of telegrams already queued', async () => {
    const slow = new RecordingHandler(NEXT);
    const { port } = await serverChannel({}, slow);
    const inner = slow.handle.bind(slow);
    slow.handle = (telegram, channel) => {
      const until = Date.now() + 30;
      while (Date.now() < until); // a slow adapter: each REQ_ takes 30 ms
      return inner(telegram, channel);
    };
    const sim = await simulator(port);
    await sim.sendCoalesced([
      { type: 'REQ_', barcode: '1', actualLocation: HERE },
      { type: 'REQ_', barcode: '2', actualLocation: HERE },
      { type: 'REQ_', barcode: '3', actualLocation: HERE },
      { type: 'SYNQ' },
    ]);
    await waitFor(() => sim.received.length === 4, 5000, '4 replies');
    expect(sim.received.map((r) => r.telegram?.type)).toEqual(['SYNC', 'RES_', 'RES_', 'RES_']);
    expect(sim.received.slice(1).map((r) => (r.telegram as { barcode: string }).barcode.slice(-1))).toEqual(['1', '2', '3']);
  });
});

describe('bad telegrams (docs/plc.md ("Bad telegrams")): the reply, the counter, and no call of the adapter', () => {
  it('garbage before the sync: dropped and counted, no reply, the telegram after it is handled', async () => {
    const { channel, handler, port } = await serverChannel();
    const sim = await simulator(port);
    const mark = sim.mark();
    await sim.sendWithGarbage({ type: 'REQ_', ...REQ }, 'NOISE\x00\x7f');
    const res = await sim.expect('RES_', () => true, 3000, { since: mark });
    expect(res.targetLocation).toBe(NEXT);
    expect(channel.counters.resyncs).toBe(1);
    expect(sim.receivedOf('ERR_')).toEqual([]);
    expect(handler.types()).toEqual(['REQ_']);
  });

  it('a frame over the limit without terminator: dropped and counted, no reply; five within a minute close the connection', async () => {
    const { channel, handler, port } = await serverChannel();
    const sim = await simulator(port);
    await sim.sendRaw('###' + 'A'.repeat(1100));
    await waitFor(() => channel.counters.overflows === 1, 3000, 'overflow');
    await settled(sim);
    expect(sim.receivedOf('ERR_')).toEqual([]);
    expect(handler.types()).toEqual(['REQ_']);
    const disconnected = new Promise((resolve) => sim.once('disconnected', resolve));
    for (let n = 2; n <= 5; n++) {
      await sim.sendRaw('\n###' + 'B'.repeat(1100));
      await waitFor(() => channel.counters.overflows === n, 3000, `overflow ${n}`);
    }
    await disconnected;
    await stateReached(channel, 'WAITING');
  });

  it('too short for its type: ERR_ 00000011', async () => {
    const { channel, handler, port } = await serverChannel();
    const sim = await simulator(port);
    const sent = await sim.sendTruncated({ type: 'REQ_', ...REQ }, 100);
    const err = await sim.expect('ERR_', () => true, 3000);
    expect(err).toMatchObject({ sender: 'MFC__', receiver: 'CNV01', seq: sent.seq! + 1, errorCode: ERR_CODES.tooShort, locationGroupName: null });
    await settled(sim);
    expect(channel.counters.rxRejected['too-short']).toBe(1);
    expect(handler.types()).toEqual(['REQ_']);
  });

  it('a sequence number that is not a number: ERR_ 00000012 with sequence number 00000', async () => {
    const { channel, handler, port } = await serverChannel();
    const sim = await simulator(port);
    await sim.sendBadSeq({ type: 'REQ_', ...REQ }, '00A42');
    const err = await sim.expect('ERR_', () => true, 3000);
    expect(err).toMatchObject({ receiver: 'CNV01', seq: 0, errorCode: ERR_CODES.badField });
    await settled(sim);
    expect(channel.counters.rxRejected['bad-header']).toBe(1);
    expect(handler.types()).toEqual(['REQ_']);
  });

  it('a length field that is not a number: ERR_ 00000012 with sequence number 00000', async () => {
    const { handler, port } = await serverChannel();
    const sim = await simulator(port);
    const text = withLengthText(sim.encode({ type: 'UPD_', ...REQ }).text, '0016X');
    await sim.sendRaw(sim.frame(text));
    const err = await sim.expect('ERR_', () => true, 3000);
    expect(err).toMatchObject({ seq: 0, errorCode: ERR_CODES.badField });
    await settled(sim);
    expect(handler.types()).toEqual(['REQ_']);
  });

  it('a byte outside printable ASCII: ERR_ 00000012', async () => {
    const { channel, handler, port } = await serverChannel();
    const sim = await simulator(port);
    const { text, seq } = sim.encode({ type: 'REQ_', ...REQ });
    const bytes = Buffer.from(text, 'latin1');
    bytes[120] = 0xe4;
    await sim.sendRaw(Buffer.concat([bytes, Buffer.from('\r\n')]));
    const err = await sim.expect('ERR_', () => true, 3000);
    expect(err).toMatchObject({ seq: seq + 1, errorCode: ERR_CODES.badField });
    await settled(sim);
    expect(channel.counters.rxRejected['non-ascii']).toBe(1);
    expect(handler.types()).toEqual(['REQ_']);
  });

  it('a receiver other than our host name: ERR_ 00000014', async () => {
    const { channel, handler, port } = await serverChannel();
    const sim = await simulator(port);
    const sent = await sim.sendWrongReceiver({ type: 'REQ_', ...REQ }, 'XXX__');
    const err = await sim.expect('ERR_', () => true, 3000);
    expect(err).toMatchObject({ sender: 'MFC__', receiver: 'CNV01', seq: sent.seq! + 1, errorCode: ERR_CODES.wrongPeer });
    await settled(sim);
    expect(channel.counters.rxRejected['wrong-host']).toBe(1);
    expect(handler.types()).toEqual(['REQ_']);
  });

  it("a sender other than the channel's PLC: ERR_ 00000014; the PLC's own connection stays open", async () => {
    const { channel, handler, port } = await serverChannel();
    const sim = await simulator(port);
    await sim.synq(); // the connection is the PLC's
    await sim.send({ type: 'REQ_', ...REQ, sender: 'CNV02' });
    const err = await sim.expect('ERR_', () => true, 3000);
    expect(err).toMatchObject({ receiver: 'CNV02', errorCode: ERR_CODES.wrongPeer });
    await settled(sim);
    expect(sim.isConnected).toBe(true);
    expect(channel.counters.rxRejected['wrong-peer']).toBe(1);
    expect(handler.types()).toEqual(['REQ_']);
  });

  it('a first telegram from another sender on a new connection: ERR_ 00000014 and the connection is closed', async () => {
    const { channel, handler, port } = await serverChannel();
    const stranger = await simulator(port, { name: 'CNV02' });
    const disconnected = new Promise((resolve) => stranger.once('disconnected', resolve));
    await stranger.send({ type: 'SYNQ' });
    const err = await stranger.expect('ERR_', () => true, 3000, { since: 0 });
    expect(err).toMatchObject({ receiver: 'CNV02', errorCode: ERR_CODES.wrongPeer });
    await disconnected;
    await stateReached(channel, 'WAITING');
    expect(stranger.receivedOf('SYNC')).toEqual([]);
    expect(handler.calls).toEqual([]);
    // The real PLC is welcome afterwards.
    const plc = await simulator(port);
    await plc.synq();
    expect(channel.state).toBe('ONLINE');
  });

  it("an unknown telegram type: ERR_ 00000010 (OpenWMS's code)", async () => {
    const { channel, handler, port } = await serverChannel();
    const sim = await simulator(port);
    const sent = await sim.sendUnknownType('ZZZZ');
    const err = await sim.expect('ERR_', () => true, 3000);
    expect(err).toMatchObject({ seq: sent.seq! + 1, errorCode: ERR_CODES.unknownType });
    await settled(sim);
    expect(channel.counters.rxRejected['unknown-type']).toBe(1);
    expect(handler.types()).toEqual(['REQ_']);
  });

  it('a malformed date: kept and handled, with a warning', async () => {
    const { channel, handler, lines, port } = await serverChannel();
    const sim = await simulator(port);
    const res = await sim.request({ ...REQ, created: '20251399999999' });
    expect(res.targetLocation).toBe(NEXT);
    expect(handler.calls[0]!.telegram).toMatchObject({ type: 'REQ_', created: undefined });
    expect(channel.counters.warnings).toBe(1);
    expect(lines().some((l) => l.msg === 'telegram accepted with warnings' && /yyyyMMddHHmmss/.test(JSON.stringify(l.warnings)))).toBe(true);
    expect(sim.receivedOf('ERR_')).toEqual([]);
  });

  it('a length field that differs from the real length: kept and handled, with a warning', async () => {
    const { channel, handler, port } = await serverChannel();
    const sim = await simulator(port);
    await sim.sendWrongLength({ type: 'REQ_', ...REQ }, 159);
    const res = await sim.expect('RES_', () => true, 3000);
    expect(res.targetLocation).toBe(NEXT);
    expect(handler.types()).toEqual(['REQ_']);
    expect(channel.counters.warnings).toBe(1);
  });

  it('an adapter that fails: REQ_ → RES_ without target; others → ERR_ 00000099', async () => {
    const failing = new RecordingHandler(NEXT);
    failing.answer = () => {
      throw new Error('database is locked');
    };
    const { channel, lines, port } = await serverChannel({}, failing);
    const sim = await simulator(port);
    const res = await sim.request(REQ);
    expect(res).toMatchObject({ barcode: '00000000000000004711', actualLocation: HERE, targetLocation: null, errorCode: '********' });
    await sim.report(HERE, '0012***1');
    const err = await sim.expect('ERR_', () => true, 3000);
    expect(err.errorCode).toBe(ERR_CODES.internal);
    expect(channel.counters.outcomes.internal).toBe(2);
    expect(lines().filter((l) => l.msg === 'telegram handler failed')).toHaveLength(2);
  });

  it('a reply the adapter cannot have meant (not encodable) is answered as an internal failure', async () => {
    const buggy = new RecordingHandler();
    buggy.answer = () => ({ replies: [{ type: 'RES_', barcode: 'X'.repeat(21) }], outcome: 'ok' });
    const { channel, port } = await serverChannel({}, buggy);
    const sim = await simulator(port);
    const res = await sim.request(REQ);
    expect(res.targetLocation).toBeNull();
    expect(res.barcode).toBe('00000000000000004711');
    expect(channel.counters.outcomes).toEqual({ internal: 1 });
  });

  it('error replies are rate-limited per channel (the rest counted)', async () => {
    const { channel, handler, port } = await serverChannel({ errorRepliesPerSecond: 1 });
    const sim = await simulator(port);
    const unknown = Array.from({ length: 5 }, () => sim.frame(withType(sim.encode({ type: 'SYNQ' }).text, 'ZZZZ')));
    await sim.sendRaw(Buffer.concat(unknown));
    await settled(sim);
    expect(channel.counters.rxRejected['unknown-type']).toBe(5);
    expect(sim.receivedOf('ERR_')).toHaveLength(1);
    expect(channel.counters.errorRepliesSuppressed).toBe(4);
    expect(handler.types()).toEqual(['REQ_']);
  });

  it('a wrong BCC (stxetx): dropped and counted, no reply', async () => {
    const { channel, handler, port } = await serverChannel({ framing: 'stxetx', bcc: true });
    const sim = await simulator(port, { framing: { mode: 'stxetx', bcc: true } });
    const good = sim.frame(sim.encode({ type: 'REQ_', ...REQ }).text);
    good[good.length - 1] = good[good.length - 1]! ^ 0xff;
    await sim.sendRaw(good);
    await settled(sim);
    expect(channel.counters.bccErrors).toBe(1);
    expect(sim.receivedOf('ERR_')).toEqual([]);
    expect(handler.calls.map((c) => c.telegram.header.seq)).toEqual([sim.sent[1]!.seq]);
  });
});

describe('bursts: what queued up together goes to the adapter together', () => {
  const reqText = (seq: number, barcode: string) =>
    `###00160CNV01MFC__${String(seq).padStart(5, '0')}REQ_${barcode.padStart(20, '0')}CONV0001000100000000****************************20250312081500${'*'.repeat(51)}\r\n`;

  it('3 REQ_ in one write: one handleBatch call with the 3, answered in arrival order', async () => {
    const { channel, handler, port } = await serverChannel({}, new BatchRecordingHandler(NEXT));
    const raw = await RawClient.connect(port);
    cleanup.add(() => raw.close());
    await raw.write(reqText(1, '4711') + reqText(2, '4712') + reqText(3, '4713'));
    const replies = await raw.telegrams(3);
    expect((handler as BatchRecordingHandler).batches).toEqual([3]);
    expect(replies.map((r) => [r.type, r.seq, 'barcode' in r ? r.barcode : undefined])).toEqual([
      ['RES_', 2, '00000000000000004711'],
      ['RES_', 3, '00000000000000004712'],
      ['RES_', 4, '00000000000000004713'],
    ]);
    expect(channel.snapshot().telegrams.map((t) => `${t.direction} ${t.outcome}`)).toEqual(['in ok', 'out reply', 'in ok', 'out reply', 'in ok', 'out reply']);
  });

  it('a resend in the same burst as its original: handled once, both answered with the same bytes', async () => {
    const { channel, handler, port } = await serverChannel({}, new BatchRecordingHandler(NEXT));
    const raw = await RawClient.connect(port);
    cleanup.add(() => raw.close());
    await raw.write(reqText(7, '4711') + reqText(7, '4711'));
    await raw.telegrams(2);
    expect(handler.calls).toHaveLength(1);
    expect(raw.frames[0]).toBe(raw.frames[1]);
    expect(channel.counters.duplicates).toBe(1);
  });

  it('a garbage frame inside a burst is answered in its place, between the replies of the others', async () => {
    const { handler, port } = await serverChannel({}, new BatchRecordingHandler(NEXT));
    const raw = await RawClient.connect(port);
    cleanup.add(() => raw.close());
    const unknownType = reqText(2, '4712').replace('REQ_', 'ZZZZ');
    await raw.write(reqText(1, '4711') + unknownType + reqText(3, '4713'));
    const replies = await raw.telegrams(3);
    expect(replies.map((r) => r.type)).toEqual(['RES_', 'ERR_', 'RES_']);
    expect((handler as BatchRecordingHandler).batches).toEqual([2]);
  });

  it('a handleBatch that throws: every telegram of the burst is answered as an internal failure', async () => {
    const failing = new BatchRecordingHandler(NEXT);
    failing.handleBatch = () => {
      throw new Error('adapter bug');
    };
    const { channel, port, lines } = await serverChannel({}, failing);
    const raw = await RawClient.connect(port);
    cleanup.add(() => raw.close());
    await raw.write(reqText(1, '4711') + reqText(2, '4712'));
    const replies = await raw.telegrams(2);
    expect(replies.map((r) => [r.type, 'targetLocation' in r ? r.targetLocation : 'n/a'])).toEqual([
      ['RES_', null],
      ['RES_', null],
    ]);
    expect(channel.counters.outcomes).toEqual({ internal: 2 });
    expect(lines().some((l) => l.msg === 'telegram handler failed' && l.telegrams === 2)).toBe(true);
  });
});

describe('duplicates', () => {
  it('an identical resend gets identical bytes back, and the adapter is called once', async () => {
    const { channel, handler, port } = await serverChannel();
    const raw = await RawClient.connect(port);
    cleanup.add(() => raw.close());
    const req = '###00160CNV01MFC__00042REQ_00000000000000004711CONV0001000100000000****************************20250312081500' + '*'.repeat(51) + '\r\n';
    await raw.write(req);
    await raw.telegrams(1);
    const first = Buffer.from(raw.bytes);
    // Let the clock move on: a re-encoded reply would carry another date.
    await new Promise((r) => setTimeout(r, 1100));
    await raw.write(req);
    await raw.telegrams(2);
    expect(raw.bytes.subarray(first.length).equals(first)).toBe(true);
    expect(handler.calls).toHaveLength(1);
    expect(channel.counters.duplicates).toBe(1);
    expect(channel.snapshot().telegrams.map((t) => `${t.direction} ${t.outcome}`)).toEqual(['in ok', 'out reply', 'in duplicate', 'out cached-reply']);
  });

  it('a one-way telegram resent is not processed again and answered with nothing', async () => {
    const { handler, port } = await serverChannel();
    const sim = await simulator(port);
    await sim.update('4711', HERE);
    await sim.resendLast();
    await settled(sim);
    expect(handler.types()).toEqual(['UPD_', 'REQ_']);
    expect(sim.received).toHaveLength(1);
  });

  it('the same sequence number with another payload (a PLC counter reset) is handled as new, with a warning', async () => {
    const { channel, handler, lines, port } = await serverChannel();
    const sim = await simulator(port);
    await sim.request(REQ);
    await sim.counterReset({ type: 'REQ_', barcode: '4712', actualLocation: HERE });
    const res = await sim.expect('RES_', (t) => t.barcode === '00000000000000004712', 3000);
    expect(res.targetLocation).toBe(NEXT);
    expect(handler.calls.map((c) => c.telegram.header.seq)).toEqual([1, 1]);
    expect(channel.counters.duplicates).toBe(0);
    expect(lines().some((l) => l.level === 'warn' && /same sequence number/.test(l.msg))).toBe(true);
  });

  it('a resend after duplicateWindowMs is handled again', async () => {
    const { channel, handler, port } = await serverChannel({ duplicateWindowMs: 50 });
    const sim = await simulator(port);
    await sim.request(REQ);
    await new Promise((r) => setTimeout(r, 150));
    await sim.resendLast();
    await waitFor(() => sim.receivedOf('RES_').length === 2, 3000, 'second RES_');
    expect(handler.calls).toHaveLength(2);
    expect(channel.counters.duplicates).toBe(0);
  });
});

describe('framing over TCP', () => {
  // `read`: how the test reads the replies (a reply without terminator is read as fixed-length).
  const cases: { name: string; config: Partial<ChannelConfigInput>; sim: SimulatorOptions['framing']; read?: SimulatorOptions['framing']; reply: RegExp }[] = [
    { name: 'line, CR LF', config: {}, sim: { mode: 'line' }, reply: /^###00160MFC__CNV0100002SYNC\d{14}\*{119}\r\n$/ },
    { name: 'line, LF', config: { terminator: 'LF' }, sim: { mode: 'line', terminator: '\n' }, reply: /^###00160MFC__CNV0100002SYNC\d{14}\*{119}\n$/ },
    {
      name: 'line, no terminator',
      config: { terminator: 'NONE' },
      sim: { mode: 'line' },
      read: { mode: 'fixed' },
      reply: /^###00160MFC__CNV0100002SYNC\d{14}\*{119}$/,
    },
    { name: 'fixed', config: { framing: 'fixed' }, sim: { mode: 'fixed' }, reply: /^###00160MFC__CNV0100002SYNC\d{14}\*{119}$/ },
    { name: 'stxetx', config: { framing: 'stxetx' }, sim: { mode: 'stxetx' }, reply: /^\x02###00160MFC__CNV0100002SYNC\d{14}\*{119}\x03$/ },
    {
      name: 'stxetx with BCC',
      config: { framing: 'stxetx', bcc: true },
      sim: { mode: 'stxetx', bcc: true },
      reply: /^\x02###00160MFC__CNV0100002SYNC\d{14}\*{119}\x03[\s\S]$/,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: the reply's exact bytes; 3 telegrams in one write; one telegram in 160 one-byte writes`, async () => {
      const { handler, port } = await serverChannel(c.config);
      const raw = await RawClient.connect(port, c.read ?? c.sim);
      cleanup.add(() => raw.close());
      const sim = new PlcSimulator({ transport: { kind: 'tcp-client', host: '127.0.0.1', port }, framing: c.sim });
      const synq = sim.encode({ type: 'SYNQ' }).text;
      await raw.write(sim.frame(synq));
      await raw.telegrams(1);
      const wire = raw.bytes.toString('latin1');
      expect(wire).toMatch(c.reply);
      if (c.sim?.bcc) {
        let x = 0;
        for (const b of raw.bytes.subarray(1, raw.bytes.length - 1)) x ^= b;
        expect(raw.bytes[raw.bytes.length - 1]).toBe(x);
      }
      const three = ['1', '2', '3'].map((b) => sim.frame(sim.encode({ type: 'REQ_', barcode: b, actualLocation: HERE }).text));
      await raw.write(Buffer.concat(three));
      const replies = await raw.telegrams(4);
      expect(replies.slice(1).map((t) => t.type === 'RES_' && t.barcode!.slice(-1))).toEqual(['1', '2', '3']);
      const one = sim.frame(sim.encode({ type: 'REQ_', barcode: '4', actualLocation: HERE }).text);
      for (const byte of one) {
        await raw.write(Buffer.from([byte]));
        await new Promise((r) => setImmediate(r));
      }
      const [, , , , last] = await raw.telegrams(5);
      expect(last).toMatchObject({ type: 'RES_', barcode: '00000000000000000004', targetLocation: NEXT });
      expect(handler.types()).toEqual(['REQ_', 'REQ_', 'REQ_', 'REQ_']);
    });
  }
});

describe('connections of a tcp-server channel', () => {
  it("a connection dropped mid-telegram: the partial frame is discarded; the next connection's REQ_ is answered", async () => {
    const { channel, handler, lines, trail, port } = await serverChannel();
    const sim = await simulator(port);
    await sim.synq();
    const partial = await sim.dropConnection({ midTelegram: true });
    expect(partial.length).toBeGreaterThan(20);
    await waitFor(() => channel.counters.partialFrames === 1, 3000, 'partial frame discarded');
    await stateReached(channel, 'WAITING');
    await sim.connect();
    const res = await sim.request(REQ);
    expect(res.targetLocation).toBe(NEXT);
    expect(Object.values(channel.counters.rxRejected).every((n) => n === 0)).toBe(true);
    expect(channel.counters.resyncs).toBe(0);
    expect(handler.types()).toEqual(['REQ_']);
    expect(trail).toEqual(['WAITING', 'LINKED', 'ONLINE', 'CLOSED', 'WAITING', 'LINKED', 'ONLINE']);
    expect(lines().some((l) => l.msg === 'partial telegram discarded with its connection')).toBe(true);
  });

  it('a new connection of the same PLC supersedes the old one, which is closed', async () => {
    const { channel, handler, trail, port } = await serverChannel();
    const sim = await simulator(port);
    await sim.synq();
    const oldLink = sim.link!.id;
    const closedLinks: number[] = [];
    sim.on('disconnected', (l) => closedLinks.push(l.id));
    await sim.reconnect({ keepOld: true });
    // Until the new connection proves to be the PLC, the old one stays.
    await waitFor(() => channel.snapshot().connections === 2, 3000, 'second connection');
    expect(closedLinks).toEqual([]);
    const res = await sim.request(REQ);
    expect(res.targetLocation).toBe(NEXT);
    await waitFor(() => closedLinks.includes(oldLink), 3000, 'old connection closed');
    expect(channel.counters.superseded).toBe(1);
    expect(channel.state).toBe('ONLINE');
    expect(channel.snapshot().connections).toBe(1);
    expect(handler.types()).toEqual(['REQ_']);
    expect(trail).toEqual(['WAITING', 'LINKED', 'ONLINE']);
  });

  it("a second connection that never sends a valid telegram is closed after idleTimeoutMs; the PLC's stays", async () => {
    // The PLC's own connection is bound to the same rule until its first heartbeat
    // arrives: 2 s, not less, so that a busy box (a second suite beside this one) still
    // gets the first heartbeat in before it.
    const { channel, port } = await serverChannel({ idleTimeoutMs: 2000, staleTimeoutMs: 60_000 });
    const sim = await simulator(port);
    const heartbeat = sim.heartbeat(50);
    cleanup.add(() => heartbeat.stop());
    await stateReached(channel, 'ONLINE');
    const idle = await RawClient.connect(port);
    cleanup.add(() => idle.close());
    await idle.whenClosed(30_000);
    expect(channel.state).toBe('ONLINE');
    expect(sim.isConnected).toBe(true);
  });
});

describe('who may connect', () => {
  it('allowFrom: a peer outside the list is closed at once, counted, and logged once', async () => {
    const { channel, lines, port } = await serverChannel({ allowFrom: ['10.99.0.0/16', 'fd00::/8'] });
    for (let i = 0; i < 3; i++) {
      const stray = await RawClient.connect(port);
      cleanup.add(() => stray.close());
      await stray.whenClosed();
    }
    expect(channel.counters.refusedPeers).toBe(3);
    expect(channel.counters.connections).toBe(0);
    expect(channel.state).toBe('WAITING');
    expect(lines().filter((l) => /not in allowFrom/.test(l.msg))).toHaveLength(1);
  });

  it('allowFrom: a peer in the list (an IPv4 range) connects and is answered', async () => {
    const { channel, port } = await serverChannel({ allowFrom: ['127.0.0.0/8'] });
    const sim = await simulator(port);
    expect((await sim.request(REQ)).targetLocation).toBe(NEXT);
    expect(channel.counters.refusedPeers).toBe(0);
  });
});

describe('state machine', () => {
  it('LINKED → ONLINE → STALE (idle) → ONLINE → STALE → CLOSED (stale) → WAITING', async () => {
    const { channel, trail, lines, port } = await serverChannel({ idleTimeoutMs: 150, staleTimeoutMs: 1000 });
    expect(channel.state).toBe('WAITING');
    const sim = await simulator(port);
    await stateReached(channel, 'LINKED');
    await sim.synq();
    expect(channel.state).toBe('ONLINE');
    await stateReached(channel, 'STALE');
    await sim.synq();
    expect(channel.state).toBe('ONLINE');
    const disconnected = new Promise((resolve) => sim.once('disconnected', resolve));
    await stateReached(channel, 'STALE');
    await disconnected;
    await stateReached(channel, 'WAITING');
    expect(trail).toEqual(['WAITING', 'LINKED', 'ONLINE', 'STALE', 'ONLINE', 'STALE', 'CLOSED', 'WAITING']);
    expect(channel.counters.stateChanges).toEqual({ DISABLED: 0, WAITING: 2, LINKED: 1, ONLINE: 2, STALE: 2, CLOSED: 1 });
    const changes = lines().filter((l) => /^PLC channel [A-Z]+$/.test(l.msg));
    expect(changes.map((l) => `${l.from}→${l.to}`)).toEqual([
      'DISABLED→WAITING',
      'WAITING→LINKED',
      'LINKED→ONLINE',
      'ONLINE→STALE',
      'STALE→ONLINE',
      'ONLINE→STALE',
      'STALE→CLOSED',
      'CLOSED→WAITING',
    ]);
    expect(changes.find((l) => l.to === 'CLOSED')!.reason).toMatch(/no valid telegram for 1000 ms/);
  });

  it('a connection that never sends a valid telegram is closed after idleTimeoutMs; the channel waits again (it never had the PLC)', async () => {
    const { channel, trail, port } = await serverChannel({ idleTimeoutMs: 100, staleTimeoutMs: 60_000 });
    const raw = await RawClient.connect(port);
    cleanup.add(() => raw.close());
    await raw.whenClosed();
    await stateReached(channel, 'WAITING');
    expect(trail).toEqual(['WAITING', 'LINKED', 'WAITING']);
  });

  it('a disabled channel stays DISABLED and listens on nothing', async () => {
    const { log } = captureLog();
    const channel = makeChannel({ name: 'CNV01', enabled: false, host: '127.0.0.1', port: 0 }, log);
    await channel.start(new RecordingHandler());
    cleanup.add(() => channel.stop());
    expect(channel.state).toBe('DISABLED');
    expect(channel.address()).toBeUndefined();
    expect(channel.sendUnsolicited({ type: 'RES_' })).toBe(false);
  });
});

describe('unsolicited telegrams', () => {
  it("go out with the channel's own counter, 1, 2, … and wrap after 32767 to 1", async () => {
    const { channel, port } = await serverChannel();
    expect(channel.sendUnsolicited({ type: 'RES_', barcode: '4711', actualLocation: HERE, targetLocation: NEXT })).toBe(false);
    const sim = await simulator(port);
    await stateReached(channel, 'LINKED');
    expect(channel.sendUnsolicited({ type: 'RES_', barcode: '4711', actualLocation: HERE, targetLocation: NEXT })).toBe(true);
    expect(channel.sendUnsolicited({ type: 'RES_', barcode: '4712', actualLocation: HERE, targetLocation: NEXT })).toBe(true);
    await waitFor(() => sim.receivedOf('RES_').length === 2, 3000, 'two RES_');
    expect(sim.receivedOf('RES_').map((t) => [t.seq, t.sender, t.receiver, t.barcode, t.targetLocation])).toEqual([
      [1, 'MFC__', 'CNV01', '00000000000000004711', NEXT],
      [2, 'MFC__', 'CNV01', '00000000000000004712', NEXT],
    ]);
    // Jump the counter to its end rather than sending 32765 telegrams.
    channel.nextOwnSeq = 32_767;
    channel.sendUnsolicited({ type: 'RES_', barcode: '1', actualLocation: HERE });
    channel.sendUnsolicited({ type: 'RES_', barcode: '2', actualLocation: HERE });
    await waitFor(() => sim.receivedOf('RES_').length === 4, 3000, 'four RES_');
    expect(
      sim
        .receivedOf('RES_')
        .slice(2)
        .map((t) => t.seq),
    ).toEqual([32_767, 1]);
    expect(channel.snapshot().telegrams.filter((t) => t.outcome === 'unsolicited')).toHaveLength(4);
  });

  it('are refused on a channel with unsolicited: false (half-duplex)', async () => {
    const { channel, port } = await serverChannel({ unsolicited: false });
    const sim = await simulator(port);
    await sim.synq();
    expect(channel.sendUnsolicited({ type: 'RES_', barcode: '4711', actualLocation: HERE })).toBe(false);
    await sim.expectSilence(100);
  });
});

describe('tcp-client channel against the simulator listening', () => {
  it('connects, reconnects after the simulator restarts, and logs a refused connect once', async () => {
    const first = new PlcSimulator({ transport: { kind: 'tcp-server', host: '127.0.0.1', port: 0 }, requestTimeoutMs: 3000 });
    const { port } = await first.listen();
    const { log, lines } = captureLog();
    const channel = makeChannel({ name: 'CNV01', transport: 'tcp-client', host: '127.0.0.1', port }, log, { backoffMs: [20, 40, 60] });
    const trail = stateTrail(channel);
    await channel.start(new RecordingHandler(NEXT));
    cleanup.add(() => channel.stop());
    await first.connect();
    expect((await first.request(REQ)).targetLocation).toBe(NEXT);
    await first.close();
    await stateReached(channel, 'CLOSED');
    // Down for a while: several refused connects, one log line.
    await waitFor(() => channel.counters.stateChanges.WAITING >= 2, 3000, 'a retry');
    await new Promise((r) => setTimeout(r, 400));
    const second = new PlcSimulator({ transport: { kind: 'tcp-server', host: '127.0.0.1', port }, requestTimeoutMs: 3000 });
    cleanup.add(() => second.close());
    await second.connect({ timeoutMs: 5000 });
    expect((await second.synq()).seq).toBe(2);
    expect(channel.state).toBe('ONLINE');
    const problems = lines().filter((l) => l.msg.startsWith('link problem'));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.problem).toBe('connect ECONNREFUSED');
    const recovered = lines().filter((l) => l.msg === 'connected after link problem');
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.repeats).toBeGreaterThanOrEqual(1);
    expect(trail).toEqual(['WAITING', 'LINKED', 'ONLINE', 'CLOSED', 'WAITING', 'LINKED', 'ONLINE']);
  });
});

describe('serial channel over a socat pty pair', () => {
  const cases: { name: string; config: Partial<ChannelConfigInput>; sim: SimulatorOptions['framing'] }[] = [
    { name: 'line', config: {}, sim: { mode: 'line' } },
    { name: 'fixed', config: { framing: 'fixed' }, sim: { mode: 'fixed' } },
    { name: 'stxetx with BCC', config: { framing: 'stxetx', bcc: true }, sim: { mode: 'stxetx', bcc: true } },
  ];

  for (const c of cases) {
    it(`${c.name}: SYNQ → SYNC, 3 telegrams in one write, one telegram in 160 one-byte writes`, async () => {
      const pty = await PtyPair.open();
      cleanup.add(() => pty.close());
      const { log } = captureLog();
      const handler = new RecordingHandler(NEXT);
      const channel = makeChannel({ name: 'CNV01', transport: 'serial', device: pty.host, ...c.config }, log);
      await channel.start(handler);
      cleanup.add(() => channel.stop());
      await stateReached(channel, 'LINKED');
      const sim = new PlcSimulator({ transport: { kind: 'serial', path: pty.plc }, framing: c.sim, requestTimeoutMs: 3000 });
      cleanup.add(() => sim.close());
      await sim.connect();
      const sync = await sim.synq();
      expect(sync).toMatchObject({ sender: 'MFC__', receiver: 'CNV01', seq: 2 });
      await sim.sendCoalesced(['1', '2', '3'].map((b) => ({ type: 'REQ_' as const, barcode: b, actualLocation: HERE })));
      await waitFor(() => sim.receivedOf('RES_').length === 3, 3000, 'three RES_');
      expect(sim.receivedOf('RES_').map((t) => t.barcode!.slice(-1))).toEqual(['1', '2', '3']);
      const length = sim.frame(sim.encode({ type: 'SYNQ' }).text).length;
      await sim.sendSplit(
        { type: 'REQ_', barcode: '4', actualLocation: HERE },
        Array.from({ length: length - 1 }, () => 1),
        1,
      );
      const res = await sim.expect('RES_', (t) => t.barcode === '00000000000000000004', 5000, { since: 0 });
      expect(res.targetLocation).toBe(NEXT);
      expect(handler.types()).toEqual(['REQ_', 'REQ_', 'REQ_', 'REQ_']);
      expect(channel.snapshot().peer).toBe(pty.host);
    });
  }

  it('reopens the device after it disappeared and came back', async () => {
    const pty = await PtyPair.open();
    cleanup.add(() => pty.close());
    const { log, lines } = captureLog();
    const channel = makeChannel({ name: 'CNV01', transport: 'serial', device: pty.host }, log, { backoffMs: [50, 100] });
    const trail = stateTrail(channel);
    await channel.start(new RecordingHandler(NEXT));
    cleanup.add(() => channel.stop());
    await stateReached(channel, 'LINKED');
    await pty.kill();
    await stateReached(channel, 'CLOSED');
    await waitFor(() => lines().some((l) => l.msg.startsWith('link problem')), undefined, 'a failed reopen');
    await pty.start();
    await stateReached(channel, 'LINKED');
    const sim = new PlcSimulator({ transport: { kind: 'serial', path: pty.plc }, requestTimeoutMs: 3000 });
    cleanup.add(() => sim.close());
    await sim.connect();
    expect((await sim.request(REQ)).targetLocation).toBe(NEXT);
    expect(trail).toEqual(['WAITING', 'LINKED', 'CLOSED', 'WAITING', 'LINKED', 'ONLINE']);
    expect(lines().filter((l) => l.msg.startsWith('link problem'))).toHaveLength(1);
  });
});
