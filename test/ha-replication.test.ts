// The change log on a real three-node JetStream cluster (src/ha/change-log.ts,
// follower.ts): the appliance's commits captured and published to a stream with three
// replicas, a standby copy (the appliance's online backup) following the stream over
// another node of the cluster. The copy must come to hold exactly the appliance's rows,
// and go on from where it stood after its reading stopped.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import type { Db } from '../src/core/db.ts';
import { TriggerCapture } from '../src/ha/capture.ts';
import { ChangePublisher, ensureChangeLog, type ChangeLogNames } from '../src/ha/change-log.ts';
import { tableDigests } from '../src/ha/digest.ts';
import { decodeEntry, encodeEntry } from '../src/ha/entry.ts';
import { StandbyFollower, type AppliedPosition } from '../src/ha/follower.ts';
import { loadNats, type NatsConnection, type NatsLibraries } from '../src/nats/connect.ts';
import { connectBeside, standbyCopy } from './support/ha.ts';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { startCluster, type NatsServer } from './support/nats.ts';
import { connectedPlc, site, unitWithOrder, until, type Site } from './support/warehouse.ts';

const TERM = 7;

let lib: NatsLibraries;
let cluster: NatsServer[];
let wms: TestAppliance;
let sim: PlcSimulator;
let names: ChangeLogNames;
let capture: TriggerCapture;
let publisher: ChangePublisher;
/** The stream sequence of the last entry stored, and every entry published (for the test of an old term). */
let lastStored = 0;
const published: Buffer[] = [];
const failures: unknown[] = [];
let standby: Db;
let follower: StandbyFollower;
const applied: (AppliedPosition & { skipped: boolean })[] = [];

function newFollower(nc: NatsConnection): StandbyFollower {
  return new StandbyFollower({
    db: standby,
    js: lib.js.jetstream(nc),
    names,
    applied: (position, skipped) => applied.push({ ...position, skipped }),
    failed: (error) => failures.push(error),
  });
}

beforeAll(async () => {
  lib = await loadNats();
  cluster = await startCluster('ha-log', 3);
  wms = await startTestAppliance({ plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0 }] } });
  sim = await connectedPlc(wms, 'CNV01');
  // The active's node is cluster node 1, the standby's node 2; node 0 stands for the witness.
  const active = await connectBeside(cluster[1]!, 'wms-ha-active');
  names = await ensureChangeLog(lib.js, await lib.js.jetstreamManager(active), 'hall1');
  let commits = 0;
  publisher = new ChangePublisher(
    lib.js.jetstream(active),
    names,
    0,
    (_commit, seq) => (lastStored = seq),
    (_commit, error) => failures.push(error),
  );
  capture = new TriggerCapture(wms.app.db, (commit) => {
    const entry = encodeEntry(commit, TERM);
    published.push(entry);
    publisher.publish(++commits, entry);
  });
  wms.app.work.after.captureWith(capture);
  standby = await standbyCopy(wms);
  follower = newFollower(await connectBeside(cluster[2]!, 'wms-ha-standby'));
  await follower.start();
}, 120_000);

afterAll(async () => {
  await follower?.stop();
  wms?.app.work.after.captureWith(undefined);
  capture?.uninstall();
  await sim?.close();
  standby?.close();
  await wms?.close();
});

/** Waits until the standby has applied everything the stream stored and holds the appliance's rows. */
async function untilSameRows(): Promise<void> {
  let last = '';
  await until(
    () => {
      if (publisher.pending > 0 || follower.position.streamSeq !== lastStored) return false;
      // One synchronous step: no commit of the appliance comes between the two digests.
      const active = tableDigests(wms.app.db);
      const copy = tableDigests(standby);
      last = JSON.stringify(Object.keys(active).filter((t) => active[t] !== copy[t]));
      return last === '[]';
    },
    'the standby holds the rows of the active',
    30_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; tables that differ: ${last}`);
  });
  expect(failures).toEqual([]);
}

describe('the change log on a three-node cluster', () => {
  let s: Site;

  it('API writes and PLC telegrams: the standby, following the stream over another node, comes to hold the same rows', async () => {
    s = await site(wms, 'HAL2');
    await unitWithOrder(wms, 'HAL2-1', s.INFEED, s.STOCK);
    for (const at of [s.INFEED, s.C1, s.C2, s.STOCK]) await sim.request({ barcode: 'HAL2-1', actualLocation: at }, { timeoutMs: 30_000 });
    await untilSameRows();
    expect(lastStored).toBeGreaterThan(5);
    expect(follower.position).toEqual({ streamSeq: lastStored, term: TERM });
  });

  it('a standby whose reading stopped goes on from the entry after the last one it applied, and applies none twice', async () => {
    await follower.stop();
    const stoppedAt = follower.position.streamSeq;
    const from = applied.length;
    for (let n = 5; n <= 7; n++) {
      const created = await wms.post('/v1/locations', { locationId: `HAL2/000${n}/0000/0000/0000`, locationGroupName: 'HAL2' });
      expect(created.status, created.text).toBe(201);
    }
    await until(() => publisher.pending === 0 && lastStored > stoppedAt, 'the new entries are stored');
    expect(follower.position.streamSeq).toBe(stoppedAt);
    follower = newFollower(await connectBeside(cluster[2]!, 'wms-ha-standby-2'));
    await follower.start();
    await untilSameRows();
    const again = applied.slice(from);
    expect(again[0]!.streamSeq).toBe(stoppedAt + 1);
    expect(again.map((a) => a.streamSeq)).toEqual(again.map((_, i) => stoppedAt + 1 + i));
  });

  it("entries written while the log's replicas elect a new leader are sent again until stored: none fails, none is stored twice", async () => {
    // Without sending again, an entry published in the election is answered "no responders" and the active would step down.
    const admin = await connectBeside(cluster[0]!, 'wms-ha-stepdown');
    const before = lastStored;
    const entries = published.length;
    const failed = failures.length;
    const writes: Promise<number>[] = [];
    for (let n = 10; n < 40; n++) {
      writes.push(wms.post('/v1/locations', { locationId: `HAL2/00${n}/0000/0000/0000`, locationGroupName: 'HAL2' }).then((r) => r.status));
      // Halfway, the stream's leader gives up its place (as when a node comes back): the replicas elect another.
      if (n === 25) {
        const answer = (await admin.request(`$JS.API.STREAM.LEADER.STEPDOWN.${names.stream}`, '', { timeout: 30_000 })).json<{ success?: boolean }>();
        expect(answer.success).toBe(true);
      }
    }
    expect(await Promise.all(writes)).toEqual(writes.map(() => 201));
    await untilSameRows();
    expect(failures.length).toBe(failed);
    // One stream message per entry (a commit of one or more of the writes): one sent again that had been stored is not stored twice.
    expect(lastStored - before).toBe(published.length - entries);
  });

  it('an entry of an older term than one applied is skipped: its writer had lost the lease', async () => {
    const old = decodeEntry(published[published.length - 1]!);
    const nc = await connectBeside(cluster[0]!, 'wms-ha-deposed');
    const stored = await lib.js.jetstream(nc).publish(names.subject, encodeEntry(old, TERM - 1));
    await until(() => follower.position.streamSeq === stored.seq, 'the standby has read the entry');
    expect(applied.at(-1)).toEqual({ streamSeq: stored.seq, term: TERM, skipped: true });
    lastStored = stored.seq;
    await untilSameRows();
  });
});
