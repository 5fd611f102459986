import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { expectApiError, expectServerError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { EventStream } from './support/event-stream.ts';
import { allPages, connectedPlc, site, unitWithOrder, until } from './support/warehouse.ts';

// History and audit over HTTP: who changed what and why (`GET /v1/events/history`), the
// trace of one transport unit with the PLC telegrams that named it
// (`GET /v1/transport-units/{bk}/history`), nothing recorded for a refused change, and
// retention of the durable logs.

let wms: TestAppliance;
let sim: PlcSimulator;
const enc = encodeURIComponent;

beforeAll(async () => {
  wms = await startTestAppliance({ plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0, resReasonCodes: true }] } });
  sim = await connectedPlc(wms, 'CNV01');
});
afterAll(async () => {
  await sim?.close();
  await wms?.close();
});

const history = (query: string) => wms.get(`/v1/events/history?${query}`);

describe('GET /v1/transport-units/{bk}/history', () => {
  it('a unit walked over three hops by PLC telegrams: every step, booked by the PLC, between the REQ_ and the RES_ that named it', async () => {
    const s = await site(wms, 'HWLK');
    const barcode = 'H-WALK';
    const orderPKey = await unitWithOrder(wms, barcode, s.INFEED, s.STOCK);
    const trace = await sim.runTu(barcode, s.INFEED, { maxSteps: 10, timeoutMs: 10_000 });
    expect(trace.visited).toEqual([s.INFEED, s.C1, s.C2, s.STOCK]);

    // The telegram log is written with the next commit or within a moment: wait for the last RES_.
    let entries: any[] = [];
    await until(async () => {
      entries = (await allPages(wms, `/v1/transport-units/${barcode}/history?limit=1000`)).items;
      return entries.filter((e) => e.source === 'telegram' && e.type === 'RES_').length === 4;
    }, 'the four RES_ are in the log');

    const summary = entries.map((e) => (e.source === 'event' ? `${e.type} by ${e.actor.kind}:${e.actor.name}` : `${e.direction} ${e.type}`));
    expect(summary).toEqual([
      'transportUnit.created by user:admin',
      'transportOrder.created by user:admin',
      'transportOrder.started by user:admin',
      'in REQ_',
      'out RES_',
      'in REQ_',
      'transportUnit.moved by plc:CNV01',
      'out RES_',
      'in REQ_',
      'transportUnit.moved by plc:CNV01',
      'out RES_',
      'in REQ_',
      'transportUnit.moved by plc:CNV01',
      'transportOrder.finished by plc:CNV01',
      'out RES_',
    ]);
    const moves = entries.filter((e) => e.type === 'transportUnit.moved').map((e) => [e.data.from, e.data.to]);
    expect(moves).toEqual([
      [s.INFEED, s.C1],
      [s.C1, s.C2],
      [s.C2, s.STOCK],
    ]);
    const requests = entries.filter((e) => e.source === 'telegram' && e.direction === 'in');
    expect(requests.map((r) => [r.location, r.barcode, r.order, r.outcome, r.channel])).toEqual(
      [s.INFEED, s.C1, s.C2, s.STOCK].map((at) => [at, barcode, orderPKey, 'ok', 'CNV01']),
    );
    for (const res of entries.filter((e) => e.source === 'telegram' && e.direction === 'out')) {
      expect(res).toMatchObject({ barcode, outcome: 'reply', channel: 'CNV01' });
      expect(res.latencyMs).toBeGreaterThanOrEqual(0);
      expect(res.text).toMatch(/^###00160MFC__CNV01\d{5}RES_/);
    }
    // Decoded as the telegram log decodes them: where each RES_ sent the unit; the last, at its target, nowhere.
    const answers = entries
      .filter((e) => e.source === 'telegram' && e.type === 'RES_')
      .map((e) => [e.fields?.actualLocation, e.fields?.targetLocation ?? null]);
    expect(answers).toEqual([
      [s.INFEED, s.C1],
      [s.C1, s.C2],
      [s.C2, s.STOCK],
      [s.STOCK, null],
    ]);
    const ids = entries.filter((e) => e.source === 'event').map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('pages like the event history: limit, then Link rel="next" until the end, the pages joined are the whole trace', async () => {
    const whole = (await wms.get('/v1/transport-units/H-WALK/history?limit=1000')).body as unknown[];
    const paged = await allPages(wms, '/v1/transport-units/H-WALK/history?limit=4');
    expect(paged.pages).toBe(Math.ceil(whole.length / 4));
    expect(paged.items).toEqual(whole);
    const last = await wms.get('/v1/transport-units/H-WALK/history?limit=1000');
    expect(last.headers.get('link')).toBeNull();
  });

  it('a unit with stock, movements and a lock: its own events and those of others that name it', async () => {
    const s = await site(wms, 'HSTK');
    const barcode = 'H-STOCK';
    expect((await wms.post('/v1/transport-units', { barcode, actualLocation: s.INFEED, transportUnitType: 'EURO' })).status).toBe(201);
    const movement = await wms.post(`/v1/transport-units/${barcode}/movements`, { sourceLocation: s.INFEED, target: s.STOCK });
    expect(movement.status, movement.text).toBe(201);
    expect((await wms.patch(`/v1/transport-units?bk=${barcode}&newLocation=${enc(s.C1)}`)).status).toBe(200);
    const types = ((await wms.get(`/v1/transport-units/${barcode}/history`)).body as any[]).map((e) => e.type);
    expect(types).toEqual(['transportUnit.created', 'movement.created', 'transportUnit.moved']);
  });

  it('an unknown barcode has no history; bad paging parameters are 400', async () => {
    expect((await wms.get('/v1/transport-units/NO-SUCH-UNIT/history')).body).toEqual([]);
    expectApiError(await wms.get('/v1/transport-units/H-WALK/history?limit=0'), 400, 'core.validation.error');
    expectApiError(await wms.get('/v1/transport-units/H-WALK/history?limit=1001'), 400, 'core.validation.error');
    expectApiError(await wms.get('/v1/transport-units/H-WALK/history?after=bm90LWEtY3Vyc29y'), 400, 'core.validation.error');
    expectServerError(await wms.get('/v1/transport-units/H-WALK/history', { anonymous: true }), 401);
  });
});

describe('GET /v1/events/history', () => {
  let location: { locationId: string; pKey: string };
  beforeAll(async () => {
    const created = await wms.post('/v1/locations', { locationId: 'HAUD/0001/0000/0000/0000', locationGroupName: 'WAREHOUSE' });
    location = { locationId: 'HAUD/0001/0000/0000/0000', pKey: created.body.pKey };
  });

  it("a lock with a reason: who did it, when and why, on the location's history", async () => {
    const before = new Date().toISOString();
    const locked = await wms.patch(`/v1/location/${location.pKey}?op=change-state`, { errorCode: '00000001', reason: 'night shift: roller 4 broken' });
    expect(locked.status, locked.text).toBe(204);
    const reply = await history(`subjectKind=location&subject=${enc(location.locationId)}&types=location.stateChanged`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toEqual([
      {
        id: expect.any(Number),
        type: 'location.stateChanged',
        at: expect.any(String),
        actor: { kind: 'user', name: 'admin' },
        reason: 'night shift: roller 4 broken',
        subject: { kind: 'location', key: location.locationId },
        data: { locationId: location.locationId, pKey: location.pKey, field: 'incomingActive', value: false, from: true },
      },
    ]);
    expect(reply.body[0].at >= before).toBe(true);
  });

  it("a group lock with a reason cascades, each group's event carrying the reason; a reason over 200 characters is refused", async () => {
    const parent = await wms.post('/v1/location-groups', { name: 'HAUD-P', parentName: 'WAREHOUSE' });
    expect((await wms.post('/v1/location-groups', { name: 'HAUD-C', parentName: 'HAUD-P' })).status).toBe(201);
    const changed = await wms.request('PATCH', `/v1/location-group/${parent.body.pKey}?op=change-state&statein=NOT_AVAILABLE`, {
      body: { reason: 'fire drill' },
    });
    expect(changed.status, changed.text).toBe(204);
    const events = (await history('types=locationGroup.stateChanged&actor=admin')).body.filter((e: any) => e.data.name.startsWith('HAUD-'));
    expect(events.map((e: any) => [e.subject.key, e.reason])).toEqual([
      ['HAUD-P', 'fire drill'],
      ['HAUD-C', 'fire drill'],
    ]);

    const newest = wms.app.events.newest();
    expectApiError(
      await wms.patch(`/v1/location/${location.pKey}?op=change-state`, { errorCode: '00000000', reason: 'x'.repeat(201) }),
      400,
      'core.validation.error',
    );
    expect(wms.app.events.newest()).toBe(newest);
    expect((await wms.get(`/v1/locations/${location.pKey}`)).body.incomingActive).toBe(false);
  });

  it('filters: types with prefixes, actor by name or kind:name, subject kind, from/to; oldest first', async () => {
    const all = (await allPages(wms, '/v1/events/history?limit=1000')).items;
    expect(all.length).toBeGreaterThan(20);
    const ids = all.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    const byType = (await allPages(wms, '/v1/events/history?types=transportUnit.*&limit=1000')).items;
    expect(byType.length).toBeGreaterThan(0);
    expect(byType.every((e) => e.type.startsWith('transportUnit.'))).toBe(true);
    expect(byType).toEqual(all.filter((e) => e.type.startsWith('transportUnit.')));

    const byPlc = (await allPages(wms, '/v1/events/history?actor=plc:CNV01&limit=1000')).items;
    expect(byPlc.length).toBeGreaterThan(0);
    expect(byPlc).toEqual(all.filter((e) => e.actor.kind === 'plc' && e.actor.name === 'CNV01'));
    expect((await allPages(wms, '/v1/events/history?actor=CNV01&limit=1000')).items).toEqual(byPlc);

    const orders = (await allPages(wms, '/v1/events/history?subjectKind=transportOrder&limit=1000')).items;
    expect(orders).toEqual(all.filter((e) => e.subject.kind === 'transportOrder'));

    const middle = all[Math.floor(all.length / 2)]!;
    const fromMiddle = (await allPages(wms, `/v1/events/history?from=${enc(middle.at)}&limit=1000`)).items;
    expect(fromMiddle).toEqual(all.filter((e) => e.at >= middle.at));
    const untilMiddle = (await allPages(wms, `/v1/events/history?to=${enc(middle.at)}&limit=1000`)).items;
    expect(untilMiddle).toEqual(all.filter((e) => e.at <= middle.at));
  });

  it('pages: limit (default 100, at most 1000), Link rel="next" with an opaque cursor while more exist', async () => {
    const all = (await allPages(wms, '/v1/events/history?limit=1000')).items;
    const first = await history('limit=7');
    expect(first.body).toEqual(all.slice(0, 7));
    const link = first.headers.get('link')!;
    expect(link).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/v1\/events\/history\?limit=7&after=[\w-]+>; rel="next"$/);
    const paged = await allPages(wms, '/v1/events/history?limit=7');
    expect(paged.items).toEqual(all);
    expect(paged.pages).toBe(Math.ceil(all.length / 7));
    expect((await history('')).body).toEqual(all.slice(0, 100));
  });

  it("refuses what it cannot answer with 400 and the spec's error body", async () => {
    for (const query of [
      'limit=0',
      'limit=1001',
      'limit=ten',
      'after=garbage',
      'types=no.such.type',
      'types=location%20created',
      'subject=HAUD%2F0001%2F0000%2F0000%2F0000',
      'subjectKind=planet',
      'from=yesterday',
      'to=2026-13-01T00:00:00Z',
    ]) {
      expectApiError(await history(query), 400, 'core.validation.error');
    }
    expectServerError(await wms.get('/v1/events/history', { anonymous: true }), 401);
  });

  it('is linked from the events index', async () => {
    const index = (await wms.get('/v1/events/index')).body._links;
    expect(index['events-history'].href).toBe(
      `${wms.url}/v1/events/history?types={types}&subjectKind={subjectKind}&subject={subject}&actor={actor}&from={from}&to={to}&limit={limit}&after={after}`,
    );
    expect(index['events-ticket'].href).toBe(`${wms.url}/v1/events/tickets`);
    expect(index['transport-unit-history'].href).toBe(`${wms.url}/v1/transport-units/{bk}/history?limit={limit}&after={after}`);
  });
});

describe('a failing change writes no event', () => {
  it('refused over REST: nothing in the log, nothing on the stream', async () => {
    const { stream } = await EventStream.open(`${wms.url}/v1/events`, { Authorization: `Bearer ${await wms.token()}` });
    try {
      await stream.until(() => stream.raw.join('').includes('retry:'));
      const newest = wms.app.events.newest();
      expectApiError(await wms.post('/v1/locations', { locationId: 'HAUD/0001/0000/0000/0000', locationGroupName: 'WAREHOUSE' }), 409, 'already.exists');
      expectApiError(
        await wms.post('/v1/transport-units', { barcode: 'H-NONE', actualLocation: 'NOPE/0001/0000/0000/0000', transportUnitType: 'EURO' }),
        404,
        'svc.common.common.loc.notFoundByName',
      );
      expectApiError(
        await wms.del(`/v1/locations/${(await wms.get('/v1/locations?locationId=HWLK%2F0004%2F0000%2F0000%2F0000')).body.pKey}`),
        409,
        'svc.common.common.loc.notEmpty',
      );
      expect(wms.app.events.newest()).toBe(newest);
      // The next change that succeeds is the first thing the stream sees.
      expect((await wms.post('/v1/location-groups', { name: 'HAUD-AFTER' })).status).toBe(201);
      await stream.until((events) => events.length > 0);
      expect(stream.events.map((e) => e.event)).toEqual(['locationGroup.created']);
      expect(Number(stream.events[0]!.id)).toBe(newest + 1);
    } finally {
      stream.close();
    }
  });

  it('a change that fails half-way inside a unit of work leaves neither rows nor events', async () => {
    const { work } = wms.app;
    const common = wms.app.module('common');
    const newest = wms.app.events.newest();
    expect(() =>
      work.run(() => {
        common.locations.create({ locationId: 'HAUD/0009/0000/0000/0000', locationGroupName: 'WAREHOUSE' });
        common.locationGroups.create({ name: 'HAUD-HALF' });
        throw new Error('fails after two changes');
      }),
    ).toThrow('fails after two changes');
    expect(wms.app.events.newest()).toBe(newest);
    expect((await wms.get('/v1/locations?locationId=HAUD%2F0009%2F0000%2F0000%2F0000')).status).toBe(404);
    expect((await wms.get('/v1/location-groups?name=HAUD-HALF')).status).toBe(404);
  });
});

describe('retention', () => {
  it('prunes the oldest events past events.maxRows in batches; a view that missed pruned ones is told to reset', async () => {
    const small = await startTestAppliance({ events: { maxRows: 1000 } });
    try {
      const group = await small.post('/v1/location-groups', { name: 'RET', parentName: 'WAREHOUSE' });
      const { work } = small.app;
      const common = small.app.module('common');
      for (let i = 0; i < 1500; i++)
        work.run(() => common.locationGroups.changeState(group.body.pKey, { groupStateIn: i % 2 ? 'AVAILABLE' : 'NOT_AVAILABLE' }));
      const newest = small.app.events.newest();
      expect(small.app.events.oldest()).toBe(1);
      await small.app.module('retention').runOnce();
      expect(small.app.events.oldest()).toBe(newest - 999); // the newest 1,000 kept
      expect(small.app.events.newest()).toBe(newest);
      expect(small.logs().some((line) => line.includes('retention: old rows pruned'))).toBe(true);
      // Still everything after the cut; before it, a reset.
      const page = (await small.get('/v1/events/history?limit=1')).body;
      expect(page[0].id).toBe(newest - 999);
      const { stream } = await EventStream.open(`${small.url}/v1/events`, { Authorization: `Bearer ${await small.token()}`, 'Last-Event-ID': '5' });
      await stream.until((events) => events.some((e) => e.event === 'reset'));
      stream.close();
      // The ids go on from where they were, never reused.
      expect((await small.post('/v1/location-groups', { name: 'RET-NEXT' })).status).toBe(201);
      expect(small.app.events.newest()).toBe(newest + 1);
    } finally {
      await small.close();
    }
  });
});
