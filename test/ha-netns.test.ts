// The pair in a hall made of network namespaces (test/support/netns.ts): box a, box b
// and the witness w, each with its own nats-server node; a and b run the appliance as
// processes (`wms`, as the service runs it). The faults are a site's: the witness gone,
// an active cut off from the other two by its cluster link (it stays reachable to its
// clients), and an active stopped (SIGSTOP, as a long pause) past the lease's TTL and
// let go again. Through all of them: nothing acknowledged is lost, and a box that may
// no longer act acknowledges nothing more: it ends its process, before the other box
// takes the lease, and comes back as the standby with the same database. The floating
// address (keepalived, docs/ha/keepalived.conf) is on the active, and follows it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asService,
  boxToken,
  createdOn,
  digestOfBox,
  expectLocationsOn,
  loggedAt,
  roleOf,
  startBoxProcess,
  startWriters,
  untilRole,
  type BoxProcess,
} from './support/ha.ts';
import { untilOneMetaLeader, type NatsServer } from './support/nats.ts';
import { startFloatingAddress, type FloatingAddress } from './support/keepalived.ts';
import { HALL_PORTS, makeHall, startHallCluster, type BoxName, type Hall } from './support/netns.ts';
import { until } from './support/warehouse.ts';

const PAIR = 'halln';
let hall: Hall;
let nodes: Record<BoxName, NatsServer>;
const boxes: Partial<Record<'a' | 'b', BoxProcess>> = {};
let auth: string;
let floating: FloatingAddress;

/** Starts the appliance on box `name` of the hall, beside that box's node; on its data directory of before, if any. */
async function startBox(name: 'a' | 'b'): Promise<BoxProcess> {
  const box = hall.boxes[name];
  const started = await startBoxProcess({
    pair: PAIR,
    node: `box-${name}`,
    natsUrl: `nats://127.0.0.1:${HALL_PORTS.client}`,
    host: '0.0.0.0',
    port: HALL_PORTS.wms,
    url: `http://${box.accessIp}:${HALL_PORTS.wms}`,
    netns: box.ns,
    ...(boxes[name] ? { dataDir: boxes[name].dataDir } : {}),
  });
  boxes[name] = started;
  return started;
}

const role = (name: 'a' | 'b') => roleOf(boxes[name]!.url, auth);

/** The floating address is on box `name` alone, and the appliance that answers there is that box's, active. */
async function untilFloatingOn(name: 'a' | 'b'): Promise<void> {
  let seen = '';
  try {
    await until(
      async () => {
        const holders = floating.holders();
        const reply = await fetch(`http://${floating.ip}:${HALL_PORTS.wms}/v1/ha/active`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
        const body = reply?.ok ? ((await reply.json()) as { node: string }) : undefined;
        seen = `held by [${holders.join(', ')}], answered by ${body?.node ?? reply?.status ?? 'nobody'}`;
        return holders.length === 1 && holders[0] === name && body?.node === `box-${name}`;
      },
      `the floating address is on box-${name}`,
      60_000,
    );
  } catch (error) {
    const tail = (box: 'a' | 'b') => boxes[box]!.process.output().trimEnd().split('\n').slice(-15).join('\n');
    throw new Error(
      `${(error as Error).message} (${seen})\nkeepalived on a:\n${floating.output('a')}\nkeepalived on b:\n${floating.output('b')}\nbox-a's log ends with:\n${tail('a')}\nbox-b's log ends with:\n${tail('b')}`,
    );
  }
}

/**
 * What each node knows of its routes and of the interest in the active's copy subject: for
 * a failure's message, when a box that joins hears no answer to its copy request.
 */
async function routesAndInterest(): Promise<string> {
  const lines = await Promise.all(
    Object.entries(nodes).map(async ([name, node]) => {
      const routez = (await node.monitor('/routez').catch(() => ({}))) as {
        routes?: { remote_id: string; ip: string; did_solicit: boolean; subscriptions: number }[];
      };
      const subsz = (await node.monitor('/subsz?subs=1&limit=100000').catch(() => ({}))) as { subscriptions_list?: { subject: string; cid: number }[] };
      const copy = (subsz.subscriptions_list ?? []).filter((sub) => sub.subject === `wms.ha.${PAIR}.copy`).map((sub) => `cid ${sub.cid}`);
      const routes = (routez.routes ?? [])
        .map((r) => `${r.ip} (cid ${(r as { rid?: number }).rid ?? '?'}) ${r.did_solicit ? 'dialled' : 'accepted'} ${r.subscriptions} subs`)
        .join('; ');
      return `${name}: routes [${routes}], the copy subject's subscriptions: [${copy.join(', ')}]`;
    }),
  );
  return lines.join('\n');
}

/** Every node of the hall has a route to each of the other two (its `/routez`). */
async function untilRoutesWhole(all: Record<BoxName, NatsServer>): Promise<void> {
  let seen = '';
  try {
    await until(
      async () => {
        const counts = await Promise.all(
          Object.values(all).map(async (n) => ((await n.monitor('/routez').catch(() => ({}))) as { num_routes?: number }).num_routes ?? 0),
        );
        seen = counts.join(', ');
        return counts.every((c) => c >= 2);
      },
      'the hall routes whole again',
      60_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message} (routes per node: ${seen})`);
  }
}

beforeAll(async () => {
  hall = makeHall();
  nodes = await startHallCluster(hall);
  await startBox('a');
  auth = await boxToken(boxes.a!.url);
  await untilRole(boxes.a!, auth, 'active', 60_000);
  await startBox('b');
  await untilRole(boxes.b!, auth, 'standby', 60_000);
  floating = startFloatingAddress(hall);
  await untilFloatingOn('a');
}, 180_000);

afterAll(() => hall?.close());

describe('a pair in a hall of network namespaces', () => {
  it('the witness gone: the pair goes on acknowledging (two of three nodes are a quorum), the floating address stays', async () => {
    await nodes.w.stop();
    try {
      let n = 0;
      // The lease's and the log's leaders may have been on the witness: their election takes a moment.
      await until(
        () => createdOn(boxes.a!.url, auth, `HAN1/${String(++n).padStart(4, '0')}/0000/0000/0000`),
        'a write is acknowledged without the witness',
        60_000,
      );
      expect(await role('a')).toBe('active');
      expect(floating.holders()).toEqual(['a']);
    } finally {
      await nodes.w.start();
    }
    // The witness back and the cluster whole before the next fault.
    await untilOneMetaLeader([nodes.a, nodes.b, nodes.w], 'hall');
  }, 180_000);

  it('the active cut off from the other two: it ends before the standby takes the lease; nothing acknowledged is lost; healed and started again, it follows', async () => {
    // Clients on the access network: the cut box stays reachable to them.
    const writers = startWriters('HAN2', () => [boxes.a!.url, boxes.b!.url], auth, 3);
    try {
      await until(() => writers.acknowledged.length >= 20, 'writes are acknowledged by box-a', 30_000);
      hall.cut('a');
      expect(await boxes.a!.process.exited).toBe(75);
      await untilRole(boxes.b!, auth, 'active', 60_000);
      const before = writers.acknowledged.length;
      await until(() => writers.acknowledged.length >= before + 20, 'writes are acknowledged by box-b', 30_000);
    } finally {
      await writers.stop();
      hall.heal('a');
    }
    // Never two actives: box-a stopped acting before box-b took the lease.
    expect(loggedAt(boxes.a!, 'lost the lease')).toBeLessThan(loggedAt(boxes.b!, 'took the lease'));
    await expectLocationsOn(boxes.b!.url, auth, writers.acknowledged);
    // The address the PLCs and browsers use moved with the lease.
    await untilFloatingOn('b');
    // The cable back: box-a's node routes to both others again before box-a asks the active for a copy.
    await untilRoutesWhole(nodes);
    // Both boxes kept as their services keep them: box-a, which ended, is started again; so
    // is box-b, should the node's return make it step down too (then neither box can follow
    // on its own, and the one that wrote the log's last entry rebases it: docs/ha.md).
    const services = { a: asService(boxes.a!, () => startBox('a')), b: asService(boxes.b!, () => startBox('b')) };
    try {
      await until(async () => [await role('a'), await role('b')].sort().join() === 'active,standby', 'one box active and the other standby', 120_000);
    } catch (error) {
      const b = boxes.b!;
      const tail = b.process.output().trimEnd().split('\n').slice(-20).join('\n');
      const exit = b.process.child.exitCode ?? b.process.child.signalCode ?? 'running';
      throw new Error(`${(error as Error).message}\n${await routesAndInterest()}\nbox-b (${exit}) ends its log with:\n${tail}`);
    } finally {
      services.a.stop();
      services.b.stop();
    }
    await until(() => digestOfBox(boxes.a!) === digestOfBox(boxes.b!), 'box-a holds what box-b holds', 30_000);
    await expectLocationsOn(boxes.a!.url, auth, writers.acknowledged);
    await untilFloatingOn((await role('a')) === 'active' ? 'a' : 'b');
  }, 240_000);

  it('the active stopped past the lease (SIGSTOP) and let go: it acknowledges nothing after waking, ends, and follows once started again', async () => {
    // One box is active (the one the last test left so), the other the standby.
    const [active, other] = (await role('a')) === 'active' ? (['a', 'b'] as const) : (['b', 'a'] as const);
    const stopped = boxes[active]!;
    stopped.process.child.kill('SIGSTOP');
    let answered: Promise<boolean> | undefined;
    try {
      // A write that reaches it while it stands still.
      answered = createdOn(stopped.url, auth, 'HAN3/0001/0000/0000/0000');
      await untilRole(boxes[other]!, auth, 'active', 60_000);
    } finally {
      stopped.process.child.kill('SIGCONT');
    }
    expect(await stopped.process.exited).toBe(75);
    expect(await answered).toBe(false);
    await untilFloatingOn(other);
    await startBox(active);
    await untilRole(boxes[active]!, auth, 'standby', 90_000);
    await until(() => digestOfBox(boxes.a!) === digestOfBox(boxes.b!), 'both boxes hold the same', 30_000);
    const res = await fetch(`${boxes[other]!.url}/v1/locations?locationId=${encodeURIComponent('HAN3/0001/0000/0000/0000')}`, {
      headers: { Authorization: `Bearer ${auth}` },
    });
    expect(res.status).toBe(404);
  }, 240_000);
});
