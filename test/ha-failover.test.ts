// The pair as it runs on two boxes: each appliance a process of its own (`wms` as
// installed), each beside its own node of a real three-node JetStream cluster. HTTP
// writes go on while the active is killed (`kill -9`): the standby takes over, every
// write that was acknowledged is on it, and the killed box comes back as the standby
// with the same database. An active whose node stops ends its process before the other
// box takes the lease, and rejoins from a copy without the write it never acknowledged.
// (The same with each box in a network namespace of its own: test/ha-netns.test.ts.)

import { beforeAll, describe, expect, it } from 'vitest';
import type { Alarm } from '../src/contract/replies.ts';
import { boxToken, createdOn, digestOfBox, expectLocationsOn, loggedAt, roleOf, startBoxProcess, startWriters, type BoxProcess } from './support/ha.ts';
import { freePort, startCluster, type NatsServer } from './support/nats.ts';
import { until } from './support/warehouse.ts';

const PAIR = 'hallf';
let cluster: NatsServer[];
let a: BoxProcess;
let b: BoxProcess;
let portA: number;
let portB: number;
let auth: string;

const startBox = (node: string, server: NatsServer, port: number, dataDir?: string) =>
  startBoxProcess({ pair: PAIR, node, natsUrl: server.url, host: '127.0.0.1', port, ...(dataDir ? { dataDir } : {}) });

beforeAll(async () => {
  cluster = await startCluster('ha-failover', 3);
}, 120_000);

describe('a pair of processes', () => {
  it('kill -9 the active under HTTP writes: the standby takes over with every acknowledged write; the killed box rejoins with the same database', async () => {
    [portA, portB] = [await freePort(), await freePort()];
    a = await startBox('box-a', cluster[0]!, portA);
    auth = await boxToken(a.url);
    await until(async () => (await roleOf(a.url, auth)) === 'active', 'box-a is active', 30_000);
    b = await startBox('box-b', cluster[1]!, portB);
    await until(async () => (await roleOf(b.url, auth)) === 'standby', 'box-b follows', 60_000);

    // Writers, as clients behind a floating address would: to whichever box takes the write.
    const writers = startWriters('HAF1', () => [a.url, b.url], auth, 4);
    try {
      await until(() => writers.acknowledged.length >= 40, 'writes are acknowledged by box-a', 30_000);
      a.process.child.kill('SIGKILL');
      await a.process.exited;
      const before = writers.acknowledged.length;
      await until(async () => (await roleOf(b.url, auth)) === 'active', 'box-b takes over', 30_000);
      await until(() => writers.acknowledged.length >= before + 40, 'writes are acknowledged by box-b', 30_000);
    } finally {
      await writers.stop();
    }
    // Every acknowledged write is on the new active.
    await expectLocationsOn(b.url, auth, writers.acknowledged);
    // A failure, not a handover: the new active raises a major alarm that names the box before.
    await until(
      async () => {
        const alarms = (await (await fetch(`${b.url}/v1/alarms`, { headers: { Authorization: `Bearer ${auth}` } })).json()) as Alarm[];
        return alarms.some((al) => al.kind === 'pair.failover' && al.severity === 'major' && al.params.from === 'box-a' && al.params.cause === 'failure');
      },
      'box-b raises pair.failover',
      30_000,
    );

    // The killed box comes back as the standby and holds what the active holds.
    a = await startBox('box-a', cluster[0]!, portA, a.dataDir);
    await until(async () => (await roleOf(a.url, auth)) === 'standby', 'box-a follows again', 60_000);
    await until(() => digestOfBox(a) === digestOfBox(b), 'box-a holds what box-b holds', 30_000);
  });

  it('the active cut off from the cluster ends before the standby takes the lease; started again, it follows without the write it never acknowledged', async () => {
    // box-b is active beside node 1, box-a the standby beside node 0.
    const locationId = 'HAF2/0001/0000/0000/0000';
    cluster[1]!.pause();
    let answered: Promise<boolean>;
    try {
      answered = createdOn(b.url, auth, locationId);
      // It cannot renew: it ends its process (the service would start it again).
      expect(await b.process.exited).toBe(75);
      await until(async () => (await roleOf(a.url, auth)) === 'active', 'box-a takes over', 30_000);
      expect(await answered).toBe(false);
    } finally {
      cluster[1]!.resume();
    }
    // Never two actives: box-b had stopped acting before box-a took the lease.
    expect(loggedAt(b, 'lost the lease')).toBeLessThan(loggedAt(a, 'took the lease'));
    b = await startBox('box-b', cluster[1]!, portB, b.dataDir);
    await until(async () => (await roleOf(b.url, auth)) === 'standby', 'box-b follows again', 60_000);
    // From the log, or from a copy when it had committed the write before it ended.
    await until(() => digestOfBox(a) === digestOfBox(b), 'box-b holds what box-a holds', 30_000);
    const gone = await fetch(`${a.url}/v1/locations?locationId=${encodeURIComponent(locationId)}`, { headers: { Authorization: `Bearer ${auth}` } });
    expect(gone.status).toBe(404);
  });
});
