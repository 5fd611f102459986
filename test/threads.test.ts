import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getPriority, setPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_WRITER_THREAD_NAME } from '../src/core/log-store/index.ts';
import { YIELDING_STEPS } from '../src/core/thread-priority.ts';
import { HTTP_THREAD_NAME } from '../src/threads/worker.ts';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { ADMIN_PASSWORD, startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';
import { adminToken, startApplianceProcess } from './support/executable.ts';
import { threads } from './support/threads.ts';
import { BUNDLE } from '../scripts/build.ts';
import { EventStream } from './support/event-stream.ts';
import { connectedPlc, site, unitWithOrder, until } from './support/warehouse.ts';

// The conveyor thread and the HTTP thread (docs/realtime.md): a PLC is answered while
// the HTTP thread is kept busy, a write handed over is answered after its commit and
// read back at once, and a refusal reads the same whichever thread gave it.

let wms: TestAppliance;
let sim: PlcSimulator;
/** Above the default, so that the test sees it taken; the main thread's priority before it (given back after). */
const CONVEYOR_NICE = -3;
const niceBefore = getPriority(process.pid);

beforeAll(async () => {
  wms = await startTestAppliance({
    // This file's process is the appliance's: its main thread is the conveyor thread, raised as a service's is.
    server: { conveyorNice: CONVEYOR_NICE },
    plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0 }] },
  });
  sim = await connectedPlc(wms, 'CNV01');
});
afterAll(async () => {
  await sim?.close();
  await wms?.close();
  // Lowering again needs no privilege.
  setPriority(process.pid, niceBefore);
});

describe('the conveyor never waits for requests', () => {
  it('a REQ_ sent while the HTTP thread is held gets its RES_ before the hold ends; a request sent meanwhile is answered after it', async () => {
    const s = await site(wms, 'HOLD');
    await unitWithOrder(wms, 'HOLD-1', s.INFEED, s.STOCK);
    const thread = wms.app.httpThread!;
    expect(thread).toBeDefined();

    // Held until released (at most a minute): as a request that hogs the thread would.
    const hold = thread.hold(60_000);
    let released = false;
    void hold.released.then(() => (released = true));
    await hold.holding;
    let answered = false;
    const meanwhile = wms.get('/v1/locations?locationId=' + encodeURIComponent(s.C1)).then((reply) => {
      answered = true;
      return reply;
    });
    try {
      const res = await sim.request({ barcode: 'HOLD-1', actualLocation: s.INFEED }, { timeoutMs: 30_000 });
      expect(res).toMatchObject({ type: 'RES_', targetLocation: s.C1 });
      // The PLC was answered by the conveyor thread while the HTTP thread was still held…
      expect(released).toBe(false);
      // …which had not answered the request sent before the REQ_.
      expect(answered).toBe(false);
    } finally {
      hold.release();
    }
    await hold.released;
    const reply = await meanwhile;
    expect(reply.status).toBe(200);
    expect(reply.body.locationId).toBe(s.C1);
  });

  it('the conveyor thread raises its priority where it may (else the start says why); the HTTP thread and the log writer run 10 below it', async () => {
    await until(() => threads().some((t) => t.name === HTTP_THREAD_NAME) && threads().some((t) => t.name === LOG_WRITER_THREAD_NAME), 'both threads named');
    const conveyor = threads().find((t) => t.tid === process.pid)!;
    const refused = wms.logs().find((l) => l.includes('the conveyor thread keeps its priority'));
    if (mayRaise(CONVEYOR_NICE)) {
      // A priority the process had already is kept.
      expect(conveyor.nice, `nice ${niceBefore} before`).toBe(Math.min(niceBefore, CONVEYOR_NICE));
      expect(refused).toBeUndefined();
    } else {
      expect(conveyor.nice).toBe(niceBefore);
      expect(JSON.parse(refused!)).toMatchObject({ level: 'warn', nice: niceBefore, asked: CONVEYOR_NICE });
    }
    // The threads of this appliance run 10 below it. This file's process may also hold
    // one kept from an appliance of an earlier file (idle, kept a minute for the next
    // start), placed below that appliance's conveyor thread: never above this one's.
    for (const name of [HTTP_THREAD_NAME, LOG_WRITER_THREAD_NAME]) {
      const named = threads().filter((t) => t.name === name);
      expect(
        named.some((t) => t.nice === conveyor.nice + YIELDING_STEPS),
        `${name}: ${named.map((t) => t.nice)}`,
      ).toBe(true);
      for (const t of named) expect(t.nice, name).toBeGreaterThanOrEqual(conveyor.nice + YIELDING_STEPS);
    }
  });
});

describe('the priorities of the appliance as its own process (the bundle)', () => {
  it('the conveyor thread at -10 where it may; the HTTP thread, the log writer and the thread pool (a login hashes there) below it', async () => {
    const cwd = tempDir('wms-priorities-');
    const wmsProcess = await startApplianceProcess(process.execPath, [BUNDLE, '--port', '0', '--host', '127.0.0.1', '--data-dir', path.join(cwd, 'data')], {
      cwd,
      env: { PATH: process.env.PATH, WMS_ADMIN_PASSWORD: ADMIN_PASSWORD },
    });
    try {
      await adminToken(wmsProcess.url, ADMIN_PASSWORD);
      const pid = wmsProcess.child.pid!;
      const started = getPriority(process.pid);
      const all = () => threads(pid);
      await until(() => all().some((t) => t.name === HTTP_THREAD_NAME) && all().some((t) => t.name === LOG_WRITER_THREAD_NAME), 'both threads named');
      const conveyor = all().find((t) => t.tid === pid)!;
      if (mayRaise(-10)) expect(conveyor.nice).toBe(Math.min(started, -10));
      else expect(wmsProcess.output()).toContain('the conveyor thread keeps its priority');
      for (const name of [HTTP_THREAD_NAME, LOG_WRITER_THREAD_NAME]) {
        expect(
          all()
            .filter((t) => t.name === name)
            .map((t) => t.nice),
          name,
        ).toEqual([conveyor.nice + YIELDING_STEPS]);
      }
      const pool = all().filter((t) => t.name === 'libuv-worker');
      expect(pool.length).toBeGreaterThan(0);
      for (const t of pool) expect(t.nice, 'a thread of the pool').toBe(started);
    } finally {
      wmsProcess.child.kill('SIGTERM');
      await wmsProcess.exited;
    }
  });
});

/** Whether this process may raise a thread to `nice`: root (CAP_SYS_NICE) or a nice limit that allows it (RLIMIT_NICE, 20 - nice). */
function mayRaise(nice: number): boolean {
  if (process.getuid?.() === 0) return true;
  const limit = /^Max nice priority\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return limit !== null && 20 - Number(limit[1]) <= nice;
}

describe('a write handed over to the conveyor thread', () => {
  it('is read back at once, its events reach a stream on the HTTP thread, and the location cache there forgets what it changed', async () => {
    const stream = (await EventStream.open(`${wms.url}/v1/events?types=location.stateChanged`, { Authorization: `Bearer ${await wms.token()}` })).stream;
    try {
      const s = await site(wms, 'HAND');
      // Read once on the HTTP thread: its location cache holds C2 from here on.
      expect((await wms.get('/v1/locations?locationId=' + encodeURIComponent(s.C2))).body.plcState).toBe(0);
      for (let round = 1; round <= 20; round++) {
        const changed = await wms.patch(`/v1/location/${s.pKey[s.C2]}?op=change-state`, { errorCode: '********', plcState: round });
        expect(changed.status, changed.text).toBe(204);
        // The reply came after the commit: the read that follows sees it, never the cached row.
        expect((await wms.get('/v1/locations?locationId=' + encodeURIComponent(s.C2))).body.plcState).toBe(round);
      }
      const plcStates = (events: readonly { data?: string }[]) =>
        events.map((event) => JSON.parse(event.data!).data).filter((data) => data.locationId === s.C2 && data.field === 'plcState');
      const events = await stream.until((received) => plcStates(received).length >= 20, 30_000);
      expect(plcStates(events).map((data) => data.value)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    } finally {
      stream.close();
    }
  });

  it('refused by a rule, answers the API-declined body; refused before it runs, the server-declined one', async () => {
    const duplicate = await wms.post('/v1/location-groups', { name: 'WAREHOUSE' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(duplicate.body).toMatchObject({ httpStatus: '409' });
    const malformed = await wms.request('POST', '/v1/location-groups', { raw: '{"name":', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ status: 400, path: '/v1/location-groups' });
    expect(malformed.body.requestId).toBe(malformed.headers.get('x-request-id'));
  });
});

describe('an HTTP thread that fails', () => {
  it('is started again on the same port while the conveyor goes on; what was written stays, tokens stay good', async () => {
    const s = await site(wms, 'FAIL');
    await unitWithOrder(wms, 'FAIL-1', s.INFEED, s.STOCK);
    const thread = wms.app.httpThread!;
    const restarts = thread.restarts;
    thread.failOnPurpose();
    await until(() => wms.logs().some((line) => line.includes('the HTTP thread ended unexpectedly')), 'the conveyor thread saw the HTTP thread end');
    // The PLC is answered whatever the HTTP thread does.
    const res = await sim.request({ barcode: 'FAIL-1', actualLocation: s.INFEED }, { timeoutMs: 30_000 });
    expect(res).toMatchObject({ type: 'RES_', targetLocation: s.C1 });
    await until(() => thread.restarts === restarts + 1, 'the HTTP thread started again', 30_000);
    expect(thread.url).toBe(wms.url);
    // The booking the PLC's report made meanwhile is there, read with the token issued before.
    const unit = await wms.get('/v1/transport-units?bk=FAIL-1');
    expect(unit.status, unit.text).toBe(200);
    expect(unit.body.actualLocation).toBe(s.INFEED);
    const created = await wms.post('/v1/location-groups', { name: 'FAIL-AFTER', parentName: 'WAREHOUSE' });
    expect(created.status, created.text).toBe(201);
  });
});
