// The pair as it runs on two boxes: each appliance a process of its own (`wms` as
// installed), each beside its own node of a real three-node JetStream cluster. HTTP
// writes go on while the active is killed (`kill -9`): the standby takes over, every
// write that was acknowledged is on it, and the killed box comes back as the standby
// with the same database. An active whose node stops ends its process before the other
// box takes the lease, and rejoins from a copy without the write it never acknowledged.
// Both boxes holding commits the log never stored, with no active left: the one that wrote
// the log's last entry rebases the log on its own database; the other fetches a copy.
// (The same with each box in a network namespace of its own: test/ha-netns.test.ts.)

import { beforeAll, describe, expect, it } from 'vitest';
import type { Alarm } from '../src/contract/replies.ts';
import {
  asService,
  boxToken,
  connectBeside,
  createdOn,
  digestOfBox,
  expectLocationsOn,
  loggedAt,
  roleOf,
  startBoxProcess,
  startWriters,
  type BoxProcess,
} from './support/ha.ts';
import { freePort, startCluster, untilOneMetaLeader, type NatsServer } from './support/nats.ts';
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

/** Until both boxes' databases are the same; a timeout tells where each stands and how its log ends. */
async function untilSameDatabases(): Promise<void> {
  await until(() => digestOfBox(a) === digestOfBox(b), 'box-b holds what box-a holds', 90_000).catch(async (error: Error) => {
    const said = async (box: BoxProcess) =>
      `${box.node}: ${await fetch(`${box.url}/v1/ha`, { headers: { Authorization: `Bearer ${auth}` } })
        .then((r) => r.text())
        .catch(() => 'no answer')}\n${box.process.output().trimEnd().split('\n').slice(-8).join('\n')}`;
    throw new Error(`${error.message}\n${await said(a)}\n${await said(b)}`);
  });
}

/**
 * Until one box is active and the other its standby, in either order (which one took over
 * is the pair's to decide). `kept`: the boxes' processes as their services last started
 * them, and what a failed start said, which a timeout shows.
 */
async function untilOneActiveOneStandby(kept: () => (BoxProcess | string)[] = () => [a, b]): Promise<void> {
  let seen = '';
  await until(
    async () => {
      const roles = [await roleOf(a.url, auth), await roleOf(b.url, auth)].sort();
      seen = roles.join(', ');
      return seen === 'active, standby';
    },
    'one box is active and the other its standby',
    120_000,
  ).catch((error: Error) => {
    const tail = (text: string) => text.trimEnd().split('\n').slice(-12).join('\n');
    const tails = kept().map((box) =>
      typeof box === 'string'
        ? tail(box)
        : `${box.node} (${box.process.child.exitCode ?? box.process.child.signalCode ?? 'running'}):\n${tail(box.process.output())}`,
    );
    throw new Error(`${error.message} (last: ${seen})\n${tails.join('\n')}`);
  });
}

/** Steps the change log's leader down until it is on another node than `node` (elections pick at random). */
async function untilLogLeaderAwayFrom(node: NatsServer): Promise<void> {
  const nc = await connectBeside(node, 'wms-ha-test-leader');
  const stream = `WMS_HA_${PAIR}`;
  try {
    await until(
      async () => {
        const info = await nc.request(`$JS.API.STREAM.INFO.${stream}`, '', { timeout: 10_000 }).catch(() => undefined);
        const leader = info?.json<{ cluster?: { leader?: string } }>().cluster?.leader;
        if (leader !== undefined && leader !== node.name) return true;
        await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, '', { timeout: 10_000 }).catch(() => undefined);
        return false;
      },
      `the change log's leader is on another node than ${node.name}`,
      60_000,
    );
  } finally {
    await nc.close();
  }
}

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

  // The two faults below stop nodes of the cluster (SIGSTOP, SIGKILL) and bring them back.
  // Beside a second suite, a box that joins over a node that stood still sometimes gets no
  // answer to its copy request for minutes (no responders, the active serving): until that
  // is understood they run with the hall's tests (`npm run test:hall`), not in `npm test`.
  const withTheHall = it.runIf(process.env.WMS_TEST_HALL !== undefined);

  withTheHall(
    'the active cut off from the cluster ends before the standby takes the lease; started again, it follows the log: a write it never acknowledged is on both boxes or on neither',
    async () => {
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
      // The service starts box-b again (and box-a, should the node's return make it step down too).
      const services = [asService(a, (dir) => startBox('box-a', cluster[0]!, portA, dir)), asService(b, (dir) => startBox('box-b', cluster[1]!, portB, dir))];
      try {
        await untilOneActiveOneStandby(() =>
          services.flatMap((service) => [service.current(), ...(service.trouble() ? [`a start that failed: ${service.trouble()}`] : [])]),
        );
      } finally {
        for (const service of services) service.stop();
        [a, b] = services.map((service) => service.current()) as [BoxProcess, BoxProcess];
      }
      // From the log, or from a copy when it had committed the write before it ended.
      await untilSameDatabases();
      // The write box-b never acknowledged is where the log has it: on neither box, or on
      // both (its entry, sent again while box-b's lease still held by its own clock, may
      // have reached a quorum through another node; box-b then no longer answered).
      const found = async (url: string) =>
        (await fetch(`${url}/v1/locations?locationId=${encodeURIComponent(locationId)}`, { headers: { Authorization: `Bearer ${auth}` } })).status;
      expect([404, 200]).toContain(await found(a.url));
      expect(await found(b.url)).toBe(await found(a.url));
    },
    180_000,
  );

  withTheHall(
    "both boxes hold what the log never stored and no active is left: the box that wrote the log's last entry goes on from its own database, the other fetches a copy",
    async () => {
      // box-a active beside node 0, box-b the standby beside node 1: handed over if the last test left it the other way.
      if ((await roleOf(a.url, auth)) !== 'active') {
        await until(
          async () => (await fetch(`${b.url}/v1/ha/switchover`, { method: 'POST', headers: { Authorization: `Bearer ${auth}` } })).status === 202,
          'box-b hands over',
          30_000,
        );
        await until(async () => (await roleOf(a.url, auth)) === 'active' && (await roleOf(b.url, auth)) === 'standby', 'box-a is active', 60_000);
      }
      expect(await createdOn(a.url, auth, 'HAF3/0001/0000/0000/0000')).toBe(true);
      await untilSameDatabases();
      b.process.child.kill('SIGKILL');
      await b.process.exited;
      // The log's leader on another node than box-a's, killed with the third: box-a's next entry
      // reaches no leader at all (one that only stood still would store it once it went on).
      await untilLogLeaderAwayFrom(cluster[0]!);
      // box-a alone with its node: it commits a write the log can never store, and ends.
      await Promise.all([cluster[1]!.kill(), cluster[2]!.kill()]);
      try {
        const answered = createdOn(a.url, auth, 'HAF3/0002/0000/0000/0000');
        expect(await a.process.exited).toBe(75);
        expect(await answered).toBe(false);
      } finally {
        await Promise.all([cluster[1]!.start(), cluster[2]!.start()]);
      }
      await untilOneMetaLeader(cluster, 'the cluster');
      // Started again, box-a cannot follow (its last commit is in no entry) and nobody serves a copy;
      // it wrote the log's last entry, so it takes over from its own database once the lease is free.
      a = await startBox('box-a', cluster[0]!, portA, a.dataDir);
      await until(async () => (await roleOf(a.url, auth)) === 'active', 'box-a takes over from its own database', 120_000);
      expect(a.process.output()).toContain('it takes over from its own database');
      // box-b follows the log up to the rebase, then fetches a copy.
      b = await startBox('box-b', cluster[1]!, portB, b.dataDir);
      await until(() => b.process.output().includes('the change log was rebased'), 'box-b meets the rebase', 60_000);
      await until(async () => (await roleOf(b.url, auth)) === 'standby', 'box-b follows again', 90_000);
      await untilSameDatabases();
      await expectLocationsOn(b.url, auth, ['HAF3/0001/0000/0000/0000']);
      // What box-a committed and never acknowledged stays: nothing acknowledged to anyone is lost, and both boxes agree.
      await expectLocationsOn(b.url, auth, ['HAF3/0002/0000/0000/0000']);
    },
    300_000,
  );
});
