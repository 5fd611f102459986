import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { FLUSH_THREAD_NAME } from '../src/core/durability/index.ts';
import { startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';
import { EventStream } from './support/event-stream.ts';
import { scrape } from './support/metrics.ts';
import { threads } from './support/threads.ts';
import { connectedPlc, site, unitWithOrder, until } from './support/warehouse.ts';

// Answers after the flush (docs/realtime.md), `storage.flush: apart`: the conveyor
// thread commits without waiting for the disk, a thread of its own flushes the
// write-ahead log, and nothing that tells of a change (an HTTP reply, a PLC's answer,
// an event on a stream, a read that saw it) leaves before the flush that covers it. The
// flush thread is held here, as a disk that does not answer would hold it.

let wms: TestAppliance;
let sim: PlcSimulator;
const streams: EventStream[] = [];

beforeAll(async () => {
  wms = await startTestAppliance({
    storage: { flush: 'apart' },
    plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0 }] },
  });
  sim = await connectedPlc(wms, 'CNV01');
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await sim?.close();
  await wms?.close();
});

/** A promise and whether it has settled yet. */
function watched<T>(promise: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let settled = false;
  const tracked = promise.finally(() => (settled = true));
  return { settled: () => settled, promise: tracked };
}

/**
 * An unknown method on a new connection, answered 501 by the HTTP thread before any
 * handler or the database: once it is answered, the HTTP thread and this one have turned after
 * whatever was sent to them before (the measure of "meanwhile" without a fixed time).
 */
async function parserAnswers(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end('NOT HTTP AT ALL\r\n\r\n'));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('answers after the flush', () => {
  it("the write connection commits without waiting for the disk; the flush thread, at the conveyor thread's priority, flushes its write-ahead log and counts its flushes", async () => {
    expect(wms.app.db.pragma('synchronous', { simple: true })).toBe(1);
    const flusher = wms.app.flusher!;
    const flushThreads = threads().filter((t) => t.name === FLUSH_THREAD_NAME);
    expect(flushThreads.map((t) => t.nice)).toContain(threads().find((t) => t.tid === process.pid)!.nice);
    const before = flusher.line.flushed;
    const metrics = await scrape(wms);
    expect((await wms.post('/v1/location-groups', { name: 'FLUSHED-1', parentName: 'WAREHOUSE' })).status).toBe(201);
    // The reply came after a flush that covered its commit.
    expect(((flusher.line.flushed - before) | 0) > 0).toBe(true);
    const after = await scrape(wms);
    expect(after.value('wms_db_flushes_total')).toBeGreaterThan(metrics.value('wms_db_flushes_total')!);
    expect(after.value('wms_db_flush_seconds_total')).toBeGreaterThan(metrics.value('wms_db_flush_seconds_total')!);
    expect(after.value('wms_db_flush_max_seconds')).toBeGreaterThan(0);
  });

  it('while the flush thread is held, changes are committed but nothing tells of them; once it flushes, everything does', async () => {
    const s = await site(wms, 'FLSH');
    await unitWithOrder(wms, 'FLSH-1', s.INFEED, s.STOCK);
    const opened = await EventStream.open(`${wms.url}/v1/events`, { Authorization: `Bearer ${await wms.token()}` });
    streams.push(opened.stream);
    const groups = wms.app.module('common').locationGroups;
    const units = wms.app.module('common').transportUnits;
    const exists = (name: string) => {
      try {
        return groups.byName(name) !== undefined;
      } catch {
        return false;
      }
    };
    const heldEvent = (events: { data?: string }[]) => events.some((e) => e.data?.includes('"FLSH-HELD"'));

    const hold = wms.app.flusher!.hold();
    let write: { settled: () => boolean; promise: Promise<Reply> };
    let answer: { settled: () => boolean; promise: Promise<unknown> };
    let read: { settled: () => boolean; promise: Promise<Reply> };
    try {
      // A write over HTTP and a PLC's arrival report, both committed at once…
      write = watched(wms.post('/v1/location-groups', { name: 'FLSH-HELD', parentName: 'WAREHOUSE' }));
      answer = watched(sim.request({ barcode: 'FLSH-1', actualLocation: s.C1 }, { timeoutMs: 120_000 }));
      await until(() => exists('FLSH-HELD') && units.findByBarcode('FLSH-1')?.actualLocationPk === s.pKey[s.C1], 'both changes committed');
      // …and a read that sees one of them. (Whether the HTTP thread has read it by the
      // check below is not certain; that a read waits for a flush begun before it is
      // src/core/durability/line.test.ts. Here: it is answered, with the change, after.)
      read = watched(wms.get('/v1/location-groups?name=FLSH-HELD'));
      expect(await parserAnswers(wms.url)).toMatch(/^HTTP\/1\.1 501 /);
      expect(write.settled(), 'the write was answered before its flush').toBe(false);
      expect(answer.settled(), 'the PLC was answered before its flush').toBe(false);
      expect(read.settled(), 'a read of it was answered before its flush').toBe(false);
      expect(heldEvent(opened.stream.events), 'the stream told of it before its flush').toBe(false);
    } finally {
      hold.release();
    }
    const written = await write.promise;
    expect(written.status, written.text).toBe(201);
    expect(await answer.promise).toMatchObject({ type: 'RES_', targetLocation: s.C2 });
    const seen = await read.promise;
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.name).toBe('FLSH-HELD');
    await opened.stream.until(heldEvent);
  });
});

describe('storage.flush: commit (the default)', () => {
  let own: TestAppliance;
  beforeAll(async () => {
    own = await startTestAppliance();
  });
  afterAll(() => own?.close());

  it('each commit flushes itself (synchronous=FULL) and no flush thread runs; writes and their events are answered as before', async () => {
    expect(own.app.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(own.app.flusher).toBeUndefined();
    const opened = await EventStream.open(`${own.url}/v1/events`, { Authorization: `Bearer ${await own.token()}` });
    streams.push(opened.stream);
    expect((await own.post('/v1/location-groups', { name: 'OWN-FLUSH', parentName: 'WAREHOUSE' })).status).toBe(201);
    await opened.stream.until((events) => events.some((e) => e.data?.includes('"OWN-FLUSH"')));
  });
});
