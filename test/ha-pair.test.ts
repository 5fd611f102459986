// Two boxes of a pair in this process, each beside its own node of a real three-node
// JetStream cluster (src/ha/pair.ts): the first box of a new pair becomes active, the
// second joins from a copy of it and follows the change log, refuses writes and serves
// reads; when the active stops the standby takes over with everything acknowledged, and
// the former active comes back as the standby.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableDigests } from '../src/ha/digest.ts';
import { logInOn, startTestBox, type TestBox } from './support/ha.ts';
import { startCluster, type NatsServer } from './support/nats.ts';
import { until } from './support/warehouse.ts';

const PAIR = 'hallp';
let cluster: NatsServer[];
let a: TestBox;
let b: TestBox;
const boxes: TestBox[] = [];

beforeAll(async () => {
  cluster = await startCluster('ha-pair', 3);
}, 120_000);

afterAll(async () => {
  for (const box of boxes) await box.close().catch(() => undefined);
});

/** The box's database, as its appliance has it now. */
function digestOf(box: TestBox): Record<string, string> {
  return tableDigests(box.pair.appliance!.db);
}

/** When the box last logged `msg` (ms; both boxes log with this process's clock). */
function timeOf(box: TestBox, msg: string): number {
  const lines = box
    .logs()
    .map((l) => JSON.parse(l) as { msg: string; time: string | number })
    .filter((l) => l.msg === msg);
  if (lines.length === 0) throw new Error(`${box.node} never logged "${msg}"`);
  return new Date(lines.at(-1)!.time).getTime();
}

async function createLocation(box: TestBox, n: number): Promise<number> {
  const locationId = `HAP1/${String(n).padStart(4, '0')}/0000/0000/0000`;
  return (await box.request('POST', '/v1/locations', { locationId, locationGroupName: 'WAREHOUSE' })).status;
}

describe('a pair in one process', () => {
  it("the pair's first box becomes active; the second joins from a copy and follows", async () => {
    a = await startTestBox(PAIR, 'box-a', cluster[0]!);
    boxes.push(a);
    await until(() => a.status().role === 'active', 'box-a becomes active', 30_000);
    await logInOn(a, PAIR);
    expect(await createLocation(a, 1)).toBe(201);
    b = await startTestBox(PAIR, 'box-b', cluster[1]!);
    boxes.push(b);
    await until(() => b.status().role === 'standby', 'box-b joins and follows', 60_000);
    expect(await createLocation(a, 2)).toBe(201);
    // Acknowledged on the active: stored in the log, applied on the standby soon after.
    await until(() => JSON.stringify(digestOf(b)) === JSON.stringify(digestOf(a)), 'the standby holds what the active holds', 30_000);
    const status = (await a.request('GET', '/v1/ha')).body as { role: string; lease: { holder: string } };
    expect(status).toMatchObject({ role: 'active', lease: { holder: 'box-a' } });
  });

  it('the standby serves reads from its copy, marked so, and refuses writes with 503 and Retry-After', async () => {
    const read = await b.request('GET', `/v1/locations?locationId=${encodeURIComponent('HAP1/0002/0000/0000/0000')}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('wms-pair-role')).toBe('standby');
    const refused = await b.request('POST', '/v1/locations', { locationId: 'HAP1/0009/0000/0000/0000', locationGroupName: 'WAREHOUSE' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.body).toMatchObject({ status: 503, message: expect.stringContaining('box-a') });
    const status = (await b.request('GET', '/v1/ha')).body as { role: string };
    expect(status).toMatchObject({ role: 'standby', lease: { holder: 'box-a' } });
  });

  it('the active stops: the standby takes over with everything acknowledged; the former active comes back as standby', async () => {
    const before = digestOf(a);
    await a.close();
    await until(() => b.status().role === 'active', 'box-b takes over', 30_000);
    expect(digestOf(b).locations).toBe(before.locations);
    expect(await createLocation(b, 3)).toBe(201);
    a = await startTestBox(PAIR, 'box-a', cluster[0]!, {}, a.dataDir);
    boxes.push(a);
    await until(() => a.status().role === 'standby', 'box-a follows again', 60_000);
    await until(() => JSON.stringify(digestOf(a)) === JSON.stringify(digestOf(b)), 'box-a holds what box-b holds', 30_000);
  });

  it('an active whose node stops: it answers nothing more, the standby takes over, and the cut-off box rejoins from a copy without the commit it never got stored', async () => {
    // box-b is active beside node 1, box-a the standby beside node 0.
    const cutOff = b;
    const other = a;
    const locationId = 'HAP1/0010/0000/0000/0000';
    let answered: number | string | undefined;
    cluster[1]!.pause();
    try {
      void cutOff.request('POST', '/v1/locations', { locationId, locationGroupName: 'WAREHOUSE' }).then(
        (r) => (answered = r.status),
        () => (answered = 'cut off'),
      );
      const committed = () => {
        try {
          return cutOff.pair.appliance!.module('common').locations.byLocationId(locationId).locationId === locationId;
        } catch {
          return false;
        }
      };
      await until(() => committed(), 'box-b commits the write', 30_000);
      await until(() => other.status().role === 'active', 'box-a takes over', 30_000);
      // Committed on box-b, never stored in the log: never acknowledged.
      expect(answered === undefined || answered === 'cut off', String(answered)).toBe(true);
      expect(await createLocation(other, 11)).toBe(201);
    } finally {
      cluster[1]!.resume();
    }
    await until(() => cutOff.status().role === 'standby', 'box-b follows again', 60_000);
    await until(() => JSON.stringify(digestOf(cutOff)) === JSON.stringify(digestOf(other)), 'box-b holds what box-a holds', 30_000);
    expect(cutOff.logs().some((l) => l.includes('joined the pair from a copy of the active'))).toBe(true);
    // Never two actives: box-b stopped acting before box-a took the lease.
    expect(timeOf(cutOff, 'lost the lease')).toBeLessThan(timeOf(other, 'took the lease'));
    const gone = await other.request('GET', `/v1/locations?locationId=${encodeURIComponent(locationId)}`);
    expect(gone.status).toBe(404);
  });
});
