// Two boxes of a pair in this process, each beside its own node of a real three-node
// JetStream cluster (src/ha/pair.ts): the first box of a new pair becomes active, the
// second joins from a copy of it and follows the change log, refuses writes and serves
// reads; when the active stops the standby takes over with everything acknowledged, and
// the former active comes back as the standby; a PLC's repeated request gets the answer
// the former active gave. (An active that loses its lease ends its process: that, and a
// kill -9, are tested with processes, test/ha-failover.test.ts.)

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alarm, PairStatus } from '../src/contract/replies.ts';
import { tableDigests } from '../src/ha/digest.ts';
import { expectApiError, expectServerError, startTestAppliance } from './support/appliance.ts';
import { login, userWithGrants } from './support/users.ts';
import { EventStream } from './support/event-stream.ts';
import { logInOn, startTestBox, type TestBox } from './support/ha.ts';
import { startCluster, type NatsServer } from './support/nats.ts';
import { site, unitWithOrder, until } from './support/warehouse.ts';
import { migrations } from '../db/migrations/index.ts';
import { latestSchema } from '../src/core/migrations.ts';
import { Conveyor, PlcSimulator } from '../plc/simulator/index.ts';

const PAIR = 'hallp';
/** Both boxes have the conveyor's channel; only the active listens on it. */
const BOX = { plc: { channels: [{ name: 'CNV01', transport: 'tcp-server' as const, host: '127.0.0.1', port: 0 }] } };
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

/** The pair's open alarms on a box. */
async function pairAlarms(box: TestBox): Promise<Alarm[]> {
  const reply = await box.request('GET', '/v1/alarms');
  expect(reply.status).toBe(200);
  return (reply.body as Alarm[]).filter((alarm) => alarm.kind.startsWith('pair.'));
}

async function createLocation(box: TestBox, n: number): Promise<number> {
  const locationId = `HAP1/${String(n).padStart(4, '0')}/0000/0000/0000`;
  return (await box.request('POST', '/v1/locations', { locationId, locationGroupName: 'WAREHOUSE' })).status;
}

/**
 * Three clients creating locations at `url` one after another until `done()`: what was
 * answered 201 by the box itself, 201 relayed by it (`WMS-Relayed-By`), and anything else.
 */
async function writeUntil(url: string, done: () => boolean, token: string) {
  const written = { acknowledged: [] as string[], relayed: [] as string[], refused: [] as string[] };
  let next = 0;
  await Promise.all(
    [1, 2, 3].map(async () => {
      while (!done()) {
        const locationId = `HAP2/${String(++next).padStart(4, '0')}/0000/0000/0000`;
        try {
          const res = await fetch(`${url}/v1/locations`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ locationId, locationGroupName: 'WAREHOUSE' }),
          });
          const text = await res.text();
          if (res.status !== 201) written.refused.push(`${locationId}: ${res.status} ${text}`);
          else (res.headers.get('wms-relayed-by') === 'box-a' ? written.relayed : written.acknowledged).push(locationId);
        } catch (err) {
          written.refused.push(`${locationId}: ${(err as Error).cause ?? (err as Error).message}`);
        }
      }
    }),
  );
  return written;
}

describe('a pair in one process', () => {
  it("the pair's first box becomes active; the second joins from a copy and follows", async () => {
    a = await startTestBox(PAIR, 'box-a', cluster[0]!, BOX);
    boxes.push(a);
    await until(() => a.status().role === 'active', 'box-a becomes active', 30_000);
    await logInOn(a, PAIR);
    expect(await createLocation(a, 1)).toBe(201);
    b = await startTestBox(PAIR, 'box-b', cluster[1]!, BOX);
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
    expectServerError(refused, 503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.body).toMatchObject({ status: 503, message: expect.stringContaining('box-a') });
    const status = (await b.request('GET', '/v1/ha')).body as { role: string };
    expect(status).toMatchObject({ role: 'standby', lease: { holder: 'box-a' } });
    const metrics = (await b.request('GET', '/metrics')).text;
    expect(metrics).toContain('wms_ha_role{role="standby"} 1');
    expect(metrics).toContain('wms_ha_role{role="active"} 0');
    expect(metrics).toMatch(/^wms_ha_lag_entries 0$/m);
    expect(metrics).toContain('wms_ha_degraded{kind="nodeDown"} 0');
  });

  it('an event stream on the standby (a ticket from it, as a browser asks) hears what the active commits, once it is applied', async () => {
    const ticket = await b.request('POST', '/v1/events/tickets');
    expect(ticket.status).toBe(200);
    const { stream, response } = await EventStream.open(`${b.url()}/v1/events?ticket=${(ticket.body as { ticket: string }).ticket}`);
    expect(response.status).toBe(200);
    try {
      expect(await createLocation(a, 5)).toBe(201);
      await stream.until((events) => events.some((e) => e.event === 'location.created' && e.data!.includes('HAP1/0005')));
    } finally {
      stream.close();
    }
  });

  it("the floating address's check passes on the active alone, without a token", async () => {
    const acting = await fetch(`${a.url()}/v1/ha/active`);
    expect(acting.status).toBe(200);
    expect(await acting.json()).toMatchObject({ node: 'box-a', role: 'active', term: expect.any(Number) });
    const standby = await fetch(`${b.url()}/v1/ha/active`);
    expect(standby.status).toBe(503);
    expect(standby.headers.get('retry-after')).toBe('1');
    expect(await standby.json()).toMatchObject({ status: 503, message: expect.stringContaining('the active is box-a') });
  });

  it('each box sees the other and the three nodes: the pair is healthy', async () => {
    await until(() => a.status().healthy && b.status().healthy, 'both boxes find the pair healthy', 30_000);
    const status = (await a.request('GET', '/v1/ha')).body as PairStatus;
    expect(status).toMatchObject({ healthy: true, degraded: [], peer: { node: 'box-b', role: 'standby', lagEntries: 0 } });
    expect(status.nodes!.map((n) => [n.box, n.current])).toEqual(
      expect.arrayContaining([
        ['box-a', true],
        ['box-b', true],
        [null, true],
      ]),
    );
    expect((await b.request('GET', '/v1/ha')).body).toMatchObject({ healthy: true, peer: { node: 'box-a', role: 'active' } });
  });

  it('the witness gone: the pair goes on, degraded, and the active raises an alarm; back, the alarm clears', async () => {
    const witness = cluster[2]!;
    await witness.stop();
    try {
      await until(() => a.status().degraded.some((d) => d.kind === 'nodeDown'), 'the active finds the witness down', 30_000);
      expect(await createLocation(a, 2_001)).toBe(201);
      await until(
        async () => (await pairAlarms(a)).some((al) => al.kind === 'pair.nodeDown' && al.state === 'active'),
        'the active raises pair.nodeDown',
        60_000,
      );
    } finally {
      await witness.start();
    }
    await until(() => a.status().healthy, 'the pair is healthy again', 60_000);
    await until(async () => !(await pairAlarms(a)).some((al) => al.kind === 'pair.nodeDown'), 'pair.nodeDown clears', 30_000);
  });

  it("the active stops: the standby takes over with everything acknowledged, an HMI's event stream resumes there from its Last-Event-ID, a failover alarm and, while alone, one for the missing standby; the former active comes back as standby", async () => {
    // An HMI's event stream on the active, which has seen a location made.
    const auth = { Authorization: `Bearer ${await b.view().token()}` };
    const onA = await EventStream.open(`${a.url()}/v1/events`, auth);
    expect(onA.response.status).toBe(200);
    expect(await createLocation(a, 4)).toBe(201);
    const seen = await onA.stream.until((events) => events.some((e) => e.event === 'location.created' && e.data!.includes('HAP1/0004')));
    const lastEventId = seen.filter((e) => e.id !== undefined).at(-1)!.id!;
    // An orderly stop: the active answers what it has under way and gives the lease up.
    const before = digestOf(a);
    await a.close();
    onA.stream.close();
    await until(() => b.status().role === 'active', 'box-b takes over', 30_000);
    expect(digestOf(b).locations).toBe(before.locations);
    expect(await createLocation(b, 3)).toBe(201);
    // The stream reconnects to the new active with its Last-Event-ID: it goes on, no reset.
    const onB = await EventStream.open(`${b.url()}/v1/events`, { ...auth, 'Last-Event-ID': lastEventId });
    expect(onB.response.status).toBe(200);
    const resumed = await onB.stream.until((events) => events.some((e) => e.event === 'location.created' && e.data!.includes('HAP1/0003')));
    onB.stream.close();
    expect(resumed.some((e) => e.event === 'reset')).toBe(false);
    expect(resumed.some((e) => e.data?.includes('HAP1/0004'))).toBe(false); // what it had seen is not sent again
    expect(Number(resumed.find((e) => e.id !== undefined)!.id)).toBeGreaterThan(Number(lastEventId));
    expect(b.status().lastFailover).toMatchObject({ node: 'box-b', from: 'box-a', planned: true });
    await until(
      async () => (await pairAlarms(b)).some((al) => al.kind === 'pair.failover' && al.severity === 'warning' && al.params.from === 'box-a'),
      'box-b raises pair.failover',
      30_000,
    );
    await until(async () => (await pairAlarms(b)).some((al) => al.kind === 'pair.standbyMissing'), 'box-b raises pair.standbyMissing', 60_000);
    // Nobody to hand over to: a switchover now would leave the hall without an active.
    expectApiError(await b.request('POST', '/v1/ha/switchover'), 409, 'ha.noStandby');
    a = await startTestBox(PAIR, 'box-a', cluster[0]!, BOX, a.dataDir);
    boxes.push(a);
    await until(() => a.status().role === 'standby', 'box-a follows again', 60_000);
    await until(() => JSON.stringify(digestOf(a)) === JSON.stringify(digestOf(b)), 'box-a holds what box-b holds', 30_000);
    await until(async () => !(await pairAlarms(b)).some((al) => al.kind === 'pair.standbyMissing'), 'pair.standbyMissing clears', 30_000);
  });

  it("a PLC's request repeated after a failover gets the same answer from the new active, not a second decision", async () => {
    // box-b is active, box-a the standby.
    const [active, standby] = [b, a];
    const s = await site(active.view(), 'HAPL');
    await unitWithOrder(active.view(), 'HAPL-1', s.INFEED, s.STOCK);
    const channelPort = (box: TestBox) => box.view().app.module('plc').channel('CNV01').address()!.port;
    const sim = new PlcSimulator({
      transport: { kind: 'tcp-client', host: '127.0.0.1', port: channelPort(active) },
      name: 'CNV01',
      requestTimeoutMs: 10_000,
      conveyor: new Conveyor([], { defaultMs: 5 }),
    });
    try {
      await sim.connect({ timeoutMs: 10_000 });
      await sim.synq({ timeoutMs: 10_000 });
      const mark = sim.mark();
      expect(await sim.request({ barcode: 'HAPL-1', actualLocation: s.C1 }, { timeoutMs: 10_000 })).toMatchObject({ targetLocation: s.C2 });
      // The active stops; the PLC dials its address again, which is now the other box's.
      await active.close();
      await until(() => standby.status().role === 'active', 'box-b takes over', 30_000);
      sim.dialNext('127.0.0.1', channelPort(standby));
      await sim.reconnect({ timeoutMs: 10_000 });
      // As a PLC whose answer was lost: the same telegram again, byte for byte.
      await sim.resendLast();
      await sim.expect('RES_', (t) => t.barcode === 'HAPL-1'.padStart(20, '0'), 10_000, { since: mark + 1 });
      const answers = sim.received.filter((r) => r.index >= mark && r.telegram?.type === 'RES_').map((r) => r.text);
      expect(answers).toHaveLength(2);
      expect(answers[1]).toBe(answers[0]);
      expect(standby.view().app.module('plc').channel('CNV01').snapshot().counters.duplicates).toBe(1);
      // Moved once: the unit is where the first answer left it, its order goes on.
      const unit = await standby.request('GET', `/v1/transport-units?barcode=HAPL-1`);
      expect(unit.body).toMatchObject({ actualLocation: s.C1 });
    } finally {
      await sim.close();
    }
    b = await startTestBox(PAIR, 'box-b', cluster[1]!, BOX, active.dataDir);
    boxes.push(b);
    await until(() => b.status().role === 'standby', 'box-b follows again', 60_000);
    await until(() => JSON.stringify(digestOf(b)) === JSON.stringify(digestOf(a)), 'box-b holds what box-a holds', 30_000);
  });

  it('a planned switchover: the active finishes what it has under way and hands over; the standby takes over at once; asked of the standby it is refused', async () => {
    // box-a is active, box-b the standby; a switchover needs a standby box-a has heard follow.
    await until(() => a.status().peer?.role === 'standby', 'box-a hears box-b follow', 30_000);
    const refused = await b.request('POST', '/v1/ha/switchover');
    expect(refused.status).toBe(503); // a standby refuses every write, this one too
    // Clients at the active's address, as behind the floating address before it moves: what
    // they send while box-a hands over is held and answered by box-b, none refused.
    const writing = writeUntil(a.url(), () => b.status().role === 'active', await a.view().token());
    const asked = await a.request('POST', '/v1/ha/switchover');
    expect(asked.status, asked.text).toBe(202);
    await until(() => b.status().role === 'active', 'box-b takes over', 30_000);
    const written = await writing;
    expect(written.refused, 'refused during the switchover').toEqual([]);
    expect(written.relayed.length, 'writes box-a held and box-b answered').toBeGreaterThan(0);
    await until(() => a.status().role === 'standby', 'box-a follows', 30_000);
    expect(await createLocation(b, 20)).toBe(201);
    for (const locationId of [...written.acknowledged, ...written.relayed]) {
      const found = await b.request('GET', `/v1/locations?locationId=${encodeURIComponent(locationId)}`);
      expect(found.status, locationId).toBe(200);
    }
    expect(b.status().lastFailover).toMatchObject({ from: 'box-a', planned: true });
    await until(
      async () => (await pairAlarms(b)).some((al) => al.kind === 'pair.failover' && al.severity === 'warning'),
      'a switchover raises pair.failover as a warning',
      30_000,
    );
    await until(() => JSON.stringify(digestOf(a)) === JSON.stringify(digestOf(b)), 'box-a holds what box-b holds', 30_000);
  });
});

describe('an upgrade that changes the schema', () => {
  const PAIR_U = 'hallu';
  /** A later build: this one's migrations and one more. */
  const newer = [
    ...migrations,
    { version: latestSchema(migrations) + 10, name: 'upgrade_probe', sql: 'CREATE TABLE upgrade_probe (id INTEGER PRIMARY KEY, note TEXT NOT NULL);' },
  ];
  const create = async (box: TestBox, n: number) =>
    (await box.request('POST', '/v1/locations', { locationId: `HAU1/${String(n).padStart(4, '0')}/0000/0000/0000`, locationGroupName: 'WAREHOUSE' })).status;

  it('a box of a newer build applies no entry of the older schema and says so; once the other box runs that build too, it joins from a copy and follows', async () => {
    let ua = await startTestBox(PAIR_U, 'up-a', cluster[0]!);
    boxes.push(ua);
    await until(() => ua.status().role === 'active', 'up-a becomes active', 30_000);
    await logInOn(ua, PAIR_U);
    expect(await create(ua, 1)).toBe(201);
    let ub = await startTestBox(PAIR_U, 'up-b', cluster[1]!);
    boxes.push(ub);
    await until(() => ub.status().role === 'standby', 'up-b follows', 60_000);

    // up-a is upgraded first: it stops (up-b takes over) and starts with the newer build,
    // which migrates its copy at its start.
    await ua.close();
    await until(() => ub.status().role === 'active', 'up-b takes over', 30_000);
    ua = await startTestBox(PAIR_U, 'up-a', cluster[0]!, {}, ua.dataDir, { migrations: newer });
    boxes.push(ua);
    await until(() => ua.status().role === 'standby', 'up-a starts as standby', 60_000);
    expect(ua.status().replication.schema).toBe(latestSchema(newer));
    // up-b, of the older build, writes rows of the older schema: up-a applies none of them.
    expect(await create(ub, 2)).toBe(201);
    await until(() => (ua.status().problem ?? '').includes('older than this box'), 'up-a says it cannot follow an older schema', 30_000);
    expect((await ua.request('GET', `/v1/locations?locationId=${encodeURIComponent('HAU1/0002/0000/0000/0000')}`)).status).toBe(404);
    await until(
      () => ub.status().degraded.some((d) => d.kind === 'standbyMissing' && d.message.includes('schema')),
      'up-b names what keeps up-a from following',
      30_000,
    );

    // up-b is upgraded too: as it stops nobody takes over (up-a does not follow); it starts
    // with the newer build, takes the lease and writes the newer schema; up-a joins from a copy.
    await ub.close();
    ub = await startTestBox(PAIR_U, 'up-b', cluster[1]!, {}, ub.dataDir, { migrations: newer });
    boxes.push(ub);
    await until(() => ub.status().role === 'active', 'up-b, upgraded, is active again', 60_000);
    await until(() => ua.status().role === 'standby' && ua.status().problem === undefined, 'up-a joins from a copy and follows', 60_000);
    expect(await create(ub, 3)).toBe(201);
    await until(() => JSON.stringify(digestOf(ua)) === JSON.stringify(digestOf(ub)), 'up-a holds what up-b holds', 30_000);
    expect(digestOf(ua)).toHaveProperty('upgrade_probe');
    expect((await ua.request('GET', `/v1/locations?locationId=${encodeURIComponent('HAU1/0002/0000/0000/0000')}`)).status).toBe(200);
  });
});

describe('a box alone', () => {
  it('says so on GET /v1/ha and refuses a switchover with 409 ha.notActive', async () => {
    const wms = await startTestAppliance();
    try {
      expect((await wms.get('/v1/ha')).body).toEqual({ pair: null, node: null, role: 'alone' });
      // A box alone acts: the check of a floating address passes (one box needs none, but a check set up anyway holds it there).
      const acting = await wms.get('/v1/ha/active', { anonymous: true });
      expect(acting.status).toBe(200);
      expect(acting.body).toEqual({ node: null, role: 'alone', term: null });
      expectApiError(await wms.post('/v1/ha/switchover'), 409, 'ha.notActive');
    } finally {
      await wms.close();
    }
  });

  it("asks for its grants: no token 401, ha:read alone 403 on a switchover, in the spec's server-declined body", async () => {
    const wms = await startTestAppliance();
    try {
      expectServerError(await wms.get('/v1/ha', { anonymous: true }), 401);
      await userWithGrants(wms, 'ha-reader', 'ha-reader-password', ['ha:read']);
      const token = await login(wms, 'ha-reader', 'ha-reader-password');
      expect((await wms.get('/v1/ha', { token })).status).toBe(200);
      expectServerError(await wms.post('/v1/ha/switchover', undefined, { token }), 403);
    } finally {
      await wms.close();
    }
  });
});
