// Nothing acknowledged before its entry is stored on a quorum (src/ha/gate.ts), on the
// real appliance and a real three-node JetStream cluster: the appliance's flush line
// waits for the change log. With two of the three nodes stopped, a write is committed
// but not answered, and a read of it and a PLC's answer wait too; once the nodes are
// back, the entry is stored and all three are answered.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { TriggerCapture } from '../src/ha/capture.ts';
import { ChangePublisher, ensureChangeLog, type ChangeLogNames } from '../src/ha/change-log.ts';
import { decodeEntry, encodeEntry } from '../src/ha/entry.ts';
import { ReplicationGate } from '../src/ha/gate.ts';
import { loadNats, type NatsConnection, type NatsLibraries } from '../src/nats/connect.ts';
import { connectBeside } from './support/ha.ts';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { startCluster, streamMessages, type NatsServer } from './support/nats.ts';
import { connectedPlc, site, unitWithOrder, until, type Site } from './support/warehouse.ts';

let lib: NatsLibraries;
let cluster: NatsServer[];
let wms: TestAppliance;
let sim: PlcSimulator;
let active: NatsConnection;
let names: ChangeLogNames;
let gate: ReplicationGate;
const callbackFailures: unknown[] = [];

beforeAll(async () => {
  lib = await loadNats();
  cluster = await startCluster('ha-gate', 3);
  // Without the HTTP thread the reads wait on the conveyor thread's line, the one the gate is.
  wms = await startTestAppliance({
    server: { httpThread: false },
    plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0 }] },
  });
  sim = await connectedPlc(wms, 'CNV01');
  // The active's node is cluster node 1; nodes 0 and 2 are the standby's and the witness's.
  active = await connectBeside(cluster[1]!, 'wms-ha-active');
  names = await ensureChangeLog(lib.js, await lib.js.jetstreamManager(active), 'gate');
  // Long enough for the nodes to come back within it on a busy box (on a pair the lease's TTL bounds it).
  const publisher = new ChangePublisher(
    lib.js.jetstream(active, { timeout: 60_000 }),
    names,
    0,
    (seq) => gate.stored(seq),
    (seq, error) => gate.failed(seq, error),
  );
  gate = new ReplicationGate(
    new TriggerCapture(wms.app.db),
    (seq, changes, events) => publisher.publish(seq, encodeEntry({ changes, eventIds: events.map((e) => e.id) }, 1)),
    (err) => callbackFailures.push(err),
  );
  wms.app.work.after.flushWith(gate);
  wms.app.work.after.captureWith(gate);
}, 120_000);

afterAll(async () => {
  for (const node of cluster ?? []) node.resume();
  await sim?.close();
  await wms?.close();
});

/** The entries in the change log that write a location with this id. */
async function entriesWriting(locationId: string): Promise<number> {
  const messages = await streamMessages(await lib.js.jetstreamManager(active), names.stream);
  return messages.filter((m) => {
    const entry = decodeEntry(m.data);
    return entry.changes.rows.some((r) => r.table === 'locations' && r.values?.includes(locationId));
  }).length;
}

describe('the replication gate on a three-node cluster', () => {
  let s: Site;

  it("a write's reply, a read and a PLC's answer come once the commit's entry is stored", async () => {
    s = await site(wms, 'HAG1');
    await unitWithOrder(wms, 'HAG1-1', s.INFEED, s.STOCK);
    const created = await wms.post('/v1/locations', { locationId: 'HAG1/0005/0000/0000/0000', locationGroupName: 'HAG1' });
    expect(created.status, created.text).toBe(201);
    // Answered: its entry is in the change log already.
    expect(await entriesWriting('HAG1/0005/0000/0000/0000')).toBe(1);
    const res = await sim.request({ barcode: 'HAG1-1', actualLocation: s.INFEED }, { timeoutMs: 30_000 });
    expect(res.type).toBe('RES_');
    expect(gate.broken).toBeUndefined();
    expect(callbackFailures).toEqual([]);
  });

  it('while no quorum can store an entry, a committed write, a read of it and a PLC answer wait; once stored, all three are answered', async () => {
    // Two of three nodes stop: the active's own node takes the publishes and cannot store them.
    cluster[0]!.pause();
    cluster[2]!.pause();
    const settled: string[] = [];
    const headers = { Authorization: `Bearer ${await wms.token()}`, 'Content-Type': 'application/json' };
    const locationId = 'HAG1/0006/0000/0000/0000';
    let status: number | undefined;
    try {
      void fetch(`${wms.url}/v1/locations`, { method: 'POST', headers, body: JSON.stringify({ locationId, locationGroupName: 'HAG1' }) }).then(async (r) => {
        status = r.status;
        settled.push(`write ${r.status} ${await r.text()}`);
      });
      const common = wms.app.module('common');
      // Committed on this box: the services read it at once.
      await until(() => {
        try {
          return common.locations.byLocationId(locationId).locationId === locationId;
        } catch {
          return false;
        }
      }, 'the write is committed');
      void fetch(`${wms.url}/v1/locations?locationId=${encodeURIComponent(locationId)}`, { headers }).then(() => settled.push('read'));
      const channel = wms.app.module('plc').channel('CNV01');
      const read = channel.counters.rxOk;
      void sim.request({ barcode: 'HAG1-1', actualLocation: s.C1 }, { timeoutMs: 90_000 }).then(() => settled.push('RES_'));
      // Not answered: the commit is done, its entry cannot be stored (every reply handled
      // after it waits for it too, a /healthz as well). Without the gate the write's reply
      // would have left with its commit, before the commit could be seen here.
      await until(() => channel.counters.rxOk > read, "the PLC's request is read");
      expect(settled).toEqual([]);
    } finally {
      cluster[0]!.resume();
      cluster[2]!.resume();
    }
    await until(() => settled.length === 3, 'the three are answered once the entry is stored', 60_000);
    expect(status, settled.join('; ')).toBe(201);
    expect(await entriesWriting(locationId)).toBe(1);
    expect(gate.broken).toBeUndefined();
  });
});
