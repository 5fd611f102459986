import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { Conveyor } from './conveyor.ts';
import { FakeHost, moveOrder, resFor, type FakeHostOptions } from './fake-host.ts';
import { PlcSimulator, RunTuError, type SimulatorOptions } from './simulator.ts';

// The simulator against a tiny fake host (fake-host.ts) on real loopback sockets.
// The fake host records every byte, so each test can assert exactly what went on the wire.

const A = 'CONV0001000100000000';
const B = 'CONV0001000200000000';
const C = 'CONV0001000300000000';
const D = 'STCK0001000300020001';
const ROUTES = { [A]: B, [B]: C, [C]: D }; // D → no target: the TU has arrived

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(hostOptions: FakeHostOptions = { routes: ROUTES }, simOptions: Partial<SimulatorOptions> = {}) {
  const host = new FakeHost(hostOptions);
  const port = await host.listen();
  cleanup.push(() => host.close());
  const sim = new PlcSimulator({ transport: { kind: 'tcp-client', host: '127.0.0.1', port }, ...simOptions });
  cleanup.push(() => sim.close());
  await sim.connect();
  await host.until(() => host.connections.length === 1, 5000, 'connection');
  return { host, sim, port, conn: host.connections[0]! };
}

const latin1 = (b: Buffer) => b.toString('latin1');

describe('PlcSimulator conversation', () => {
  it('sends SYNQ and resolves with the SYNC (header swapped, sequence number + 1)', async () => {
    const { sim, host, conn } = await setup();
    const sync = await sim.synq();
    expect(sync).toMatchObject({ type: 'SYNC', sender: 'MFC__', receiver: 'CNV01', seq: 2 });
    expect(sync.time).toMatch(/^\d{14}$/);
    await host.until(() => conn.telegrams.length === 1);
    const wire = latin1(conn.bytes);
    expect(wire).toMatch(/^###00160CNV01MFC__00001SYNQ\d{14}\*{119}\r\n$/);
    expect(wire).toHaveLength(162);
    expect(sim.received.map((r) => r.telegram?.type)).toEqual(['SYNC']);
    expect(sim.sent.map((s) => s.seq)).toEqual([1]);
  });

  it('request() resolves with the RES_ for its barcode and location, ignoring others', async () => {
    const { sim, conn } = await setup({
      routes: ROUTES,
      // A RES_ for another TU comes first: request() must not take it.
      reply: (t) => (t.slice(23, 27) === 'REQ_' ? [resFor(t.slice(0, 27) + '0'.repeat(16) + '9999' + t.slice(47), C), resFor(t, B)] : undefined),
    });
    const res = await sim.request({ barcode: '4711', actualLocation: 'CONV/0001/0001/0000/0000' });
    expect(res).toMatchObject({
      type: 'RES_',
      seq: 2,
      barcode: '00000000000000004711',
      actualLocation: 'CONV/0001/0001/0000/0000',
      targetLocation: 'CONV/0001/0002/0000/0000',
      errorCode: '********',
    });
    expect(latin1(conn.bytes)).toMatch(/^###00160CNV01MFC__00001REQ_00000000000000004711CONV0001000100000000\*{28}\d{14}\*{51}\r\n$/);
  });

  it('request() rejects when no matching RES_ comes within the timeout', async () => {
    const { sim } = await setup({ reply: () => [] });
    await expect(sim.request({ barcode: '4711', actualLocation: 'CONV/0001/0001/0000/0000' }, { timeoutMs: 100 })).rejects.toThrow(/no RES_/);
  });

  it('two identical requests need two RES_', async () => {
    const { sim } = await setup();
    const req = { barcode: '4711', actualLocation: 'CONV/0001/0001/0000/0000' };
    const [first, second] = await Promise.all([sim.request(req), sim.request(req)]);
    expect(first.seq).toBe(2);
    expect(second.seq).toBe(3);
  });

  it('runTu follows a 3-hop route over the conveyor until a RES_ has no target', async () => {
    const conveyor = new Conveyor(
      [
        { from: 'CONV/0001/0001/0000/0000', to: 'CONV/0001/0002/0000/0000', ms: 10 },
        { from: 'CONV/0001/0002/0000/0000', to: 'CONV/0001/0003/0000/0000', ms: 20 },
        { from: 'CONV/0001/0003/0000/0000', to: 'STCK/0001/0003/0002/0001', ms: 30 },
      ],
      { strict: true },
    );
    const { sim, conn, host } = await setup({ routes: ROUTES }, { conveyor });
    const trace = await sim.runTu('4711', 'CONV/1/1/0/0');
    expect(trace.visited).toEqual(['CONV/0001/0001/0000/0000', 'CONV/0001/0002/0000/0000', 'CONV/0001/0003/0000/0000', 'STCK/0001/0003/0002/0001']);
    expect(trace.end).toBe('no-target');
    expect(trace.steps.map((s) => s.target)).toEqual([...trace.visited.slice(1), null]);
    expect(trace.steps.map((s) => s.travelMs)).toEqual([10, 20, 30, 0]);
    for (const step of trace.steps) expect(step.latencyMs).toBeGreaterThanOrEqual(0);
    await host.until(() => conn.telegrams.length === 4);
    expect(conn.telegrams.map((t) => [t.slice(23, 27), t.slice(47, 67)])).toEqual([
      ['REQ_', A],
      ['REQ_', B],
      ['REQ_', C],
      ['REQ_', D],
    ]);
  });

  it('runTu stops at the step limit when the host keeps the TU circling', async () => {
    const { sim } = await setup({ routes: { [A]: B, [B]: A } });
    const trace = await sim.runTu('4711', 'CONV/0001/0001/0000/0000', { maxSteps: 5 });
    expect(trace.end).toBe('step-limit');
    expect(trace.steps).toHaveLength(5);
    expect(trace.visited).toHaveLength(6);
  });

  it('runTu fails with the trace so far when the host sends the TU where no belt goes', async () => {
    const conveyor = new Conveyor([{ from: 'CONV/0001/0001/0000/0000', to: 'CONV/0001/0002/0000/0000', ms: 0 }], { strict: true });
    const { sim } = await setup({ routes: ROUTES }, { conveyor });
    const err = await sim.runTu('4711', 'CONV/0001/0001/0000/0000').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunTuError);
    expect((err as RunTuError).trace.visited).toEqual(['CONV/0001/0001/0000/0000', 'CONV/0001/0002/0000/0000']);
    expect((err as RunTuError).message).toMatch(/no segment/);
  });

  it('heartbeat sends SYNQ periodically and counts the answers until stopped', async () => {
    const { sim, host, conn } = await setup();
    const beat = sim.heartbeat(20);
    await host.until(() => conn.telegrams.length >= 3);
    await sim.expect('SYNC', (t) => t.seq === 4, 2000, { since: 0 });
    beat.stop();
    await host.until(() => conn.telegrams.length === beat.sent);
    const seen = conn.telegrams.length;
    // Every SYNQ answered (SYNC seq = SYNQ seq + 1); then the line stays quiet.
    await sim.expect('SYNC', (t) => t.seq === seen + 1, 2000, { since: 0 });
    expect(beat.answered).toBe(seen);
    expect(conn.telegrams.map((t) => t.slice(18, 27))).toEqual(Array.from({ length: seen }, (_, i) => `${String(i + 1).padStart(5, '0')}SYNQ`));
    await sim.expectSilence(80);
    expect(conn.telegrams.length).toBe(seen);
  });

  it('sends LOCU, SYSU, ERR_ and UPD_ with the given fields; UPDX gets its ACK_', async () => {
    const { sim, host, conn } = await setup();
    await sim.report('CONV/0001/0002/0000/0000', '0012***1');
    await sim.groupState('CONV', '******1*');
    await sim.error('CONV', '00000101');
    await sim.update('4711', 'CONV/0001/0003/0000/0000');
    const ack = await sim.updateAcknowledged('4711', 'CONV/0001/0003/0000/0000', { errorCode: '00000000' });
    expect(ack).toMatchObject({ type: 'ACK_', seq: 5, errorCode: '00000000' });
    await host.until(() => conn.telegrams.length === 5);
    // Everything before the date field, then the date (14 digits) and filler.
    const expected: Array<[string, number]> = [
      ['###00160CNV01MFC__00001LOCU____________________CONV00010002000000000012***1', 75],
      ['###00160CNV01MFC__00002SYSUCONV________________******1*', 55],
      ['###00160CNV01MFC__00003ERR_CONV****************00000101', 55],
      ['###00160CNV01MFC__00004UPD_00000000000000004711CONV0001000300000000********', 75],
      ['###00160CNV01MFC__00005UPDX00000000000000004711CONV000100030000000000000000', 75],
    ];
    expected.forEach(([head, dateAt], i) => {
      const t = conn.telegrams[i]!;
      expect(head).toHaveLength(dateAt);
      expect(t.slice(0, dateAt)).toBe(head);
      expect(t.slice(dateAt)).toMatch(/^\d{14}\*+$/);
      expect(t).toHaveLength(160);
    });
  });

  it('expect() sees an unsolicited move order; expectSilence() fails when something arrives', async () => {
    const { sim, host, conn } = await setup();
    const order = moveOrder('CNV01', 900, '00000000000000004711', A, D);
    const waiting = sim.expect('RES_', (t) => t.targetLocation === 'STCK/0001/0003/0002/0001', 2000);
    host.send(conn, order);
    const res = await waiting;
    expect(res.seq).toBe(900);
    await sim.expectSilence(50);
    const silence = sim.expectSilence(2000);
    host.send(conn, order);
    await expect(silence).rejects.toThrow(/expected silence/);
  });

  it('logs what it cannot read and the bytes it drops', async () => {
    const { sim, host, conn } = await setup();
    const waiting = sim.expect('SYNC', () => true, 2000);
    conn.stream.write(Buffer.from('NOISE###00160MFC__CNV0100A01SYNC\r\n', 'latin1'));
    host.send(conn, '###00160MFC__CNV0100002SYNC20250312081500'.padEnd(160, '*'));
    await waiting;
    expect(sim.dropped.map((d) => [d.reason, latin1(d.bytes)])).toEqual([['before-sync', 'NOISE']]);
    expect(sim.received[0]).toMatchObject({ telegram: undefined, error: expect.stringMatching(/sequence number/) });
    expect(sim.received[1]?.telegram?.type).toBe('SYNC');
  });

  it('fixed framing: 160 bytes each way, no terminator', async () => {
    const { sim, host, conn } = await setup({ framing: 'fixed', routes: ROUTES }, { framing: { mode: 'fixed' } });
    const res = await sim.request({ barcode: '4711', actualLocation: 'CONV/0001/0002/0000/0000' });
    expect(res.targetLocation).toBe('CONV/0001/0003/0000/0000');
    const sync = await sim.synq();
    expect(sync.seq).toBe(3);
    await host.until(() => conn.telegrams.length === 2);
    expect(conn.bytes).toHaveLength(320);
    expect(latin1(conn.bytes)).not.toMatch(/[\r\n]/);
  });

  it('line framing with an LF terminator', async () => {
    const { sim, host, conn } = await setup(undefined, { framing: { mode: 'line', terminator: '\n' } });
    await sim.synq();
    await host.until(() => conn.bytes.length === 161);
    expect(latin1(conn.bytes)).toMatch(/^###00160CNV01MFC__00001SYNQ\d{14}\*{119}\n$/);
  });

  it('plays a PLC that listens (appliance channel in tcp-client mode)', async () => {
    const host = new FakeHost();
    cleanup.push(() => host.close());
    const sim = new PlcSimulator({ transport: { kind: 'tcp-server', port: 0 } });
    cleanup.push(() => sim.close());
    const { port } = await sim.listen();
    const connecting = sim.connect();
    const conn = await host.dial(port);
    await connecting;
    expect(sim.isConnected).toBe(true);
    const sync = await sim.synq();
    expect(sync.seq).toBe(2);
    expect(latin1(conn.bytes)).toMatch(/^###00160CNV01MFC__00001SYNQ/);
  });
});

describe('PlcSimulator fault injection: the exact bytes on the wire', () => {
  const synq = { type: 'SYNQ', time: '20250312081459' } as const;
  const SYNQ_TEXT = (seq: string) => `###00160CNV01MFC__${seq}SYNQ20250312081459`.padEnd(160, '*');

  it('split write: one telegram in pieces that arrive apart', async () => {
    const { sim, host } = await setup();
    const started = performance.now();
    const sending = sim.sendSplit(synq, [40, 60], 50);
    const bytes = await host.bytesOf(1, 162);
    const arrived = performance.now() - started;
    const sent = await sending;
    expect(latin1(bytes)).toBe(SYNQ_TEXT('00001') + '\r\n');
    expect(sent.bytes.equals(bytes)).toBe(true);
    // Three pieces 50 ms apart: the whole is not there before the second pause ends.
    expect(arrived).toBeGreaterThanOrEqual(95);
    await sim.expect('SYNC', () => true, 2000, { since: 0 });
  });

  it('sendRaw splits arbitrary bytes as asked', async () => {
    const { sim, host, conn } = await setup();
    const raw = Buffer.from(SYNQ_TEXT('00042') + '\r\n', 'latin1');
    const started = performance.now();
    const sending = sim.sendRaw(raw, { chunks: [1, 1, 1], delayMs: 30 });
    expect((await host.bytesOf(1, 162)).equals(raw)).toBe(true);
    const arrived = performance.now() - started;
    await sending;
    // Four pieces 30 ms apart: the whole is not there before the third pause ends.
    expect(arrived).toBeGreaterThanOrEqual(85);
    expect(conn.telegrams).toEqual([SYNQ_TEXT('00042')]);
  });

  it('coalesced write: several telegrams in one write', async () => {
    const { sim, host, conn } = await setup();
    await sim.sendCoalesced([synq, synq, synq]);
    const bytes = await host.bytesOf(1, 486);
    expect(latin1(bytes)).toBe(['00001', '00002', '00003'].map((s) => SYNQ_TEXT(s) + '\r\n').join(''));
    await host.until(() => conn.telegrams.length === 3);
    await sim.expect('SYNC', (t) => t.seq === 4, 2000, { since: 0 });
  });

  it('garbage prefix', async () => {
    const { sim, host } = await setup();
    await sim.sendWithGarbage(synq, '\x00\xffNOISE');
    expect(latin1(await host.bytesOf(1, 169))).toBe('\x00\xffNOISE' + SYNQ_TEXT('00001') + '\r\n');
  });

  it('truncated telegram', async () => {
    const { sim, host } = await setup();
    await sim.sendTruncated(synq, 30);
    expect(latin1(await host.bytesOf(1, 32))).toBe('###00160CNV01MFC__00001SYNQ202\r\n');
  });

  it('wrong length field', async () => {
    const { sim, host } = await setup();
    await sim.sendWrongLength(synq, 150);
    expect(latin1(await host.bytesOf(1, 162))).toBe('###00150' + SYNQ_TEXT('00001').slice(8) + '\r\n');
  });

  it('non-numeric sequence number', async () => {
    const { sim, host } = await setup();
    await sim.sendBadSeq(synq, '00A42');
    expect(latin1(await host.bytesOf(1, 162))).toBe(SYNQ_TEXT('00A42') + '\r\n');
  });

  it('unknown type ZZZZ', async () => {
    const { sim, host } = await setup();
    await sim.sendUnknownType();
    const text = latin1(await host.bytesOf(1, 162));
    expect(text).toMatch(/^###00160CNV01MFC__00001ZZZZ\d{14}\*{119}\r\n$/);
  });

  it('wrong receiver', async () => {
    const { sim, host } = await setup();
    await sim.sendWrongReceiver(synq, 'XXX__');
    expect(latin1(await host.bytesOf(1, 162))).toBe(SYNQ_TEXT('00001').replace('MFC__', 'XXX__') + '\r\n');
  });

  it('duplicate resend: the same bytes twice (same sequence number, same payload)', async () => {
    const { sim, host } = await setup({ reply: () => [] });
    const first = await sim.send({ type: 'REQ_', barcode: '4711', actualLocation: 'CONV/0001/0001/0000/0000' });
    const again = await sim.resendLast();
    const bytes = await host.bytesOf(1, 324);
    expect(bytes.subarray(0, 162).equals(bytes.subarray(162))).toBe(true);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(latin1(bytes.subarray(0, 162))).toMatch(/^###00160CNV01MFC__00001REQ_/);
  });

  it('counter reset: the same sequence number with a new payload', async () => {
    const { sim, host } = await setup({ reply: () => [] });
    await sim.send({ type: 'REQ_', barcode: '4711', actualLocation: 'CONV/0001/0001/0000/0000' });
    await sim.counterReset({ type: 'REQ_', barcode: '4712', actualLocation: 'CONV/0001/0001/0000/0000' });
    const bytes = latin1(await host.bytesOf(1, 324));
    expect(bytes.slice(0, 47)).toBe('###00160CNV01MFC__00001REQ_00000000000000004711');
    expect(bytes.slice(162, 162 + 47)).toBe('###00160CNV01MFC__00001REQ_00000000000000004712');
  });

  it('silence: heartbeats pause, nothing is sent, then they resume', async () => {
    const { sim, host, conn } = await setup();
    const beat = sim.heartbeat(20);
    cleanup.push(async () => beat.stop());
    await host.until(() => conn.telegrams.length >= 2);
    // Long against the beat, so that a busy box still sees beats fall into it.
    const quiet = sim.silence(2000);
    // A SYNQ already on its way still arrives; after that, nothing until the silence ends.
    const sentBefore = beat.sent;
    await host.until(() => conn.telegrams.length === sentBefore);
    // Three beats came due in the silence and sent nothing (polled: the host wakes its
    // waiters on what arrives, and nothing does).
    await expect.poll(() => beat.paused).toBeGreaterThanOrEqual(3);
    expect(beat.sent).toBe(sentBefore);
    expect(conn.telegrams).toHaveLength(sentBefore);
    await quiet;
    await host.until(() => conn.telegrams.length > sentBefore);
    expect(conn.telegrams.at(-1)!.slice(23, 27)).toBe('SYNQ');
  });

  it('reconnect while the old socket stays open', async () => {
    const { sim, host } = await setup();
    const first = sim.link!;
    const second = await sim.reconnect({ keepOld: true });
    expect(second.id).not.toBe(first.id);
    await host.until(() => host.connections.length === 2);
    const sync = await sim.synq();
    expect(sync.type).toBe('SYNC');
    expect(host.connections[0]).toMatchObject({ closed: false, bytes: Buffer.alloc(0) });
    expect(latin1(host.connections[1]!.bytes)).toMatch(/^###00160CNV01MFC__00001SYNQ/);
    expect(sim.received[0]?.link).toBe(second.id);
  });

  it('dropConnection mid-telegram: half a frame, then the connection is gone', async () => {
    const { sim, host, conn } = await setup();
    const written = await sim.dropConnection({ midTelegram: true });
    await host.until(() => conn.closed, 5000, 'close');
    expect(written).toHaveLength(81);
    expect(latin1(conn.bytes)).toMatch(/^###00160CNV01MFC__00001SYNQ\d{14}\*{40}$/);
    expect(conn.bytes.equals(written)).toBe(true);
    expect(conn.telegrams).toEqual([]);
    expect(sim.isConnected).toBe(false);
    await expect(sim.synq()).rejects.toThrow(/not connected/);
    await sim.connect();
    expect((await sim.synq()).type).toBe('SYNC');
  });

  it('slow line: writes paced like 9600 baud (10 bits a byte)', async () => {
    const { sim, host } = await setup({}, { lineSpeed: 9600 });
    const started = performance.now();
    const sending = sim.send(synq);
    const bytes = await host.bytesOf(1, 162);
    const arrived = performance.now() - started;
    await sending;
    const elapsed = performance.now() - started;
    expect(latin1(bytes)).toBe(SYNQ_TEXT('00001') + '\r\n');
    // 162 bytes at 960 bytes/s take about 169 ms: the sender takes at least that (minus
    // timer rounding), and the last byte reaches the other side no sooner. (How the reads
    // split the bytes is the receiver's business: a busy box reads them in one go.)
    expect(elapsed).toBeGreaterThanOrEqual(160);
    expect(arrived).toBeGreaterThanOrEqual(160);
  });

  it('refuses to send without a connection', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const sim = new PlcSimulator({ transport: { kind: 'tcp-client', host: '127.0.0.1', port } });
    await expect(sim.connect()).rejects.toThrow(/ECONNREFUSED/);
    await expect(sim.send(synq)).rejects.toThrow(/not connected/);
    expect(sim.nextSeq).toBe(1);
  });
});
