// The active's lease (src/ha/lease.ts) on a real three-node JetStream cluster: two
// contenders, each connected to one node only (as each box is to the node beside it),
// take, renew, hand over and lose the lease. What is asserted is order, never speed:
// at no instant do both hold it, and a holder that is cut off stops before the other
// takes over.

import { beforeAll, describe, expect, it } from 'vitest';
import { openLeaseStore } from '../src/ha/kv-store.ts';
import { Lease, leaseMargin, type LeaseChange, type LeaseStore } from '../src/ha/lease.ts';
import { loadNats, type NatsConnection } from '../src/nats/connect.ts';
import { connectBeside } from './support/ha.ts';
import { startCluster, type NatsServer } from './support/nats.ts';
import { until } from './support/warehouse.ts';

const TTL = 2000;

interface Contender {
  node: string;
  lease: Lease;
  store: LeaseStore;
  /** Every change of holding, with the instant it happened (this process's clock). */
  changes: (LeaseChange & { at: number })[];
  nc: NatsConnection;
}

let cluster: NatsServer[];
let pairs = 0;
/** Set when a contender took the lease while another still held it by its own clock. */
const overlaps: string[] = [];
const everyone = new Set<Contender>();

beforeAll(async () => {
  cluster = await startCluster('ha-lease', 3);
}, 120_000);

/** A new pair's name, so that each test has a bucket of its own. */
const newPair = () => `lease${++pairs}`;

async function contender(node: string, server: NatsServer, pair: string): Promise<Contender> {
  const lib = await loadNats();
  const nc = await connectBeside(server, `wms-ha-${node}`, { reconnectTimeWait: 200 });
  const store = await openLeaseStore(lib, nc, pair, TTL / 4);
  const self: Contender = { node, lease: undefined as unknown as Lease, store, changes: [], nc };
  self.lease = new Lease({
    store,
    node,
    ttlMs: TTL,
    onChange: (change) => {
      self.changes.push({ ...change, at: performance.now() });
      if (change.holds) for (const other of everyone) if (other !== self && other.lease.holds()) overlaps.push(`${node} took while ${other.node} held`);
    },
  });
  everyone.add(self);
  return self;
}

async function retire(...contenders: Contender[]): Promise<void> {
  for (const c of contenders) {
    await c.lease.stop(false);
    everyone.delete(c);
    await c.nc.close();
  }
}

const holder = (...cs: Contender[]) => cs.filter((c) => c.lease.holds());

/** The holder the other node follows: `a` (on `nodeA`) takes the lease, then `b` (on `nodeB`) starts and sees it held by `a`. */
async function aHoldsBFollows(nodeA: NatsServer, nodeB: NatsServer): Promise<[a: Contender, b: Contender]> {
  const pair = newPair();
  const a = await contender('a', nodeA, pair);
  a.lease.start();
  await until(() => a.lease.holds(), 'a holds the lease');
  const b = await contender('b', nodeB, pair);
  b.lease.start();
  await until(() => (b.lease.status() as { holder?: string }).holder === 'a', 'b sees a holding');
  return [a, b];
}

describe('the lease on a three-node cluster', () => {
  it('one of two contenders takes it and renews it; its revision at the taking is the term its renewals carry', async () => {
    const pair = newPair();
    const a = await contender('a', cluster[0]!, pair);
    const b = await contender('b', cluster[1]!, pair);
    a.lease.start();
    b.lease.start();
    await until(() => holder(a, b).length === 1, 'one contender holds the lease');
    const [held] = holder(a, b);
    const term = held!.lease.term!;
    // Four more renewals: the revision moves on, the term stays, the other never holds.
    const first = (await held!.store.get())!.revision;
    await until(async () => {
      expect(holder(a, b).length).toBeLessThanOrEqual(1);
      return (await held!.store.get())!.revision >= first + 4;
    }, 'four renewals');
    const entry = (await held!.store.get())!;
    expect(entry.value).toMatchObject({ node: held!.node, term });
    expect(held!.lease.term).toBe(term);
    const other = held === a ? b : a;
    expect(other.lease.status()).toMatchObject({ role: 'follower', holder: held!.node, term, reachable: true });
    expect(overlaps).toEqual([]);
    await retire(a, b);
  });

  it('a holder that gives it up hands it over: the other takes it with a newer term', async () => {
    const [a, b] = await aHoldsBFollows(cluster[0]!, cluster[1]!);
    const termA = a.lease.term!;
    await a.lease.stop(true);
    expect(a.lease.holds()).toBe(false);
    await until(() => b.lease.holds(), 'b takes the released lease');
    expect(b.lease.term!).toBeGreaterThan(termA);
    expect(a.changes.map((c) => [c.holds, c.reason])).toEqual([
      [true, 'taken'],
      [false, 'stopped'],
    ]);
    expect(overlaps).toEqual([]);
    await retire(a, b);
  });

  it('a holder that stops without a word is taken over only after its own time ran out', async () => {
    const [a, b] = await aHoldsBFollows(cluster[0]!, cluster[1]!);
    const status = a.lease.status();
    if (status.role !== 'holder') throw new Error('a no longer holds the lease');
    // a's last renewal lets it act until then; it stops renewing now (a crash).
    const aActsUntil = performance.now() + status.validForMs;
    await a.lease.stop(false);
    await until(() => b.lease.holds(), 'b takes the lease over', 4 * TTL);
    const taken = b.changes.find((c) => c.holds)!;
    expect(taken.at).toBeGreaterThanOrEqual(aActsUntil);
    expect(overlaps).toEqual([]);
    await retire(a, b);
  });

  it('a holder cut off from the cluster stops acting before the other takes over, and follows once back', async () => {
    // Cluster nodes 1 and 2 are the two boxes' nodes; node 0 stands for the witness.
    const [a, b] = await aHoldsBFollows(cluster[1]!, cluster[2]!);
    // a's box hangs with its node: nothing a sends is answered.
    cluster[1]!.pause();
    try {
      await until(() => b.lease.holds(), 'b takes the lease over', 30_000);
      const lost = a.changes.find((c) => !c.holds);
      const taken = b.changes.find((c) => c.holds)!;
      expect(lost, 'a stepped down').toBeDefined();
      expect(lost!.reason).toBe('renewal failed for the TTL');
      expect(lost!.at).toBeLessThan(taken.at);
      expect(a.lease.holds()).toBe(false);
    } finally {
      cluster[1]!.resume();
    }
    // Back: a follows b's lease and does not take it.
    await until(() => (a.lease.status() as { holder?: string }).holder === 'b', 'a sees b holding', 30_000);
    expect(a.lease.holds()).toBe(false);
    expect(b.lease.holds()).toBe(true);
    expect(overlaps).toEqual([]);
    await retire(a, b);
  });

  it('after its thread stood still past the TTL, the holder no longer holds, before any timer of it has run', async () => {
    const pair = newPair();
    const a = await contender('a', cluster[0]!, pair);
    a.lease.start();
    await until(() => a.lease.holds(), 'a holds the lease');
    // A pause as long as a stopped process or a long collection: the thread does nothing else.
    const stillUntil = performance.now() + TTL + leaseMargin(TTL);
    while (performance.now() < stillUntil) {
      /* standing still */
    }
    expect(a.lease.holds()).toBe(false);
    expect(a.lease.term).toBeUndefined();
    await retire(a);
  });
});
