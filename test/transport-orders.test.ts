import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, lastOfType, startTestAppliance, type Reply, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { apiError, recordEvents, refusal, validation } from './support/expect.ts';

// Transport-orders module (docs/transport-orders.md; docs/routing.md
// and docs/plc.md; decisions and the transition table in docs/transport-orders.md),
// black-box over real HTTP. Every refused request is shown to change nothing: all
// orders, transport units and locations read the same after it as before, and no
// event was published.

const ORDER_TYPE = 'application/vnd.vendor.tms.transport-order-v1+json';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TU = '/v1/transport-units';
const TO = '/v1/transport-orders';

// Topology: WAREHOUSE ⊃ TO-ZONE ⊃ TO-SUB; WAREHOUSE ⊃ TO-OTHER.
const SRC = 'TOA/0001/0001/0000/0000'; // in TO-OTHER; where new units stand
const L_ZONE = 'TOB/0001/0001/0000/0000'; // in TO-ZONE
const L_SUB = 'TOB/0002/0001/0000/0000'; // in TO-SUB
const L_OTHER = 'TOC/0001/0001/0000/0000'; // in TO-OTHER
const L_WH = 'TOD/0001/0001/0000/0000'; // in WAREHOUSE
const LOC_UNKNOWN = 'TOX/9999/9999/9999/9999';

const STATES = ['CREATED', 'INITIALIZED', 'STARTED', 'INTERRUPTED', 'ONFAILURE', 'CANCELED', 'FINISHED'] as const;
type State = (typeof STATES)[number];
const ENDED: readonly State[] = ['INTERRUPTED', 'ONFAILURE', 'CANCELED', 'FINISHED'];

interface Order {
  pKey: string;
  persistentKey: string;
  ol: number;
  createDt: string;
  lastModifiedDt: string;
  links: { rel: string; href: string }[];
  transportUnitBK: string;
  priority: string;
  state: State;
  sourceLocation: string;
  targetLocation: string | null;
  targetLocationGroup: string | null;
  startDate?: string;
  endDate?: string;
  message?: string;
}

let wms: TestAppliance;
const events: RecordedEvent[] = [];

beforeAll(async () => {
  wms = await startTestAppliance();
  recordEvents(wms, events, (event) => event.type.startsWith('transportOrder.'));
  for (const [name, parentName] of [
    ['TO-ZONE', 'WAREHOUSE'],
    ['TO-SUB', 'TO-ZONE'],
    ['TO-OTHER', 'WAREHOUSE'],
  ]) {
    const reply = await wms.post('/v1/location-groups', { name, parentName });
    expect(reply.status, reply.text).toBe(201);
  }
  for (const [locationId, locationGroupName] of [
    [SRC, 'TO-OTHER'],
    [L_ZONE, 'TO-ZONE'],
    [L_SUB, 'TO-SUB'],
    [L_OTHER, 'TO-OTHER'],
    [L_WH, 'WAREHOUSE'],
  ]) {
    const reply = await wms.post('/v1/locations', { locationId, locationGroupName });
    expect(reply.status, reply.text).toBe(201);
  }
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

const q = encodeURIComponent;
let counter = 0;

/** A new transport unit on a location; returns its barcode. */
async function newUnit(location = SRC): Promise<string> {
  const barcode = `TO-TU-${String(++counter).padStart(4, '0')}`;
  const reply = await wms.post(TU, { barcode, actualLocation: location, transportUnitType: 'EURO' });
  expect(reply.status, reply.text).toBe(201);
  return barcode;
}

const createReply = (body: unknown) => wms.post(TO, body);

async function create(barcode: string, body: Record<string, unknown> = { targetLocation: L_ZONE }): Promise<Order> {
  const reply = await createReply({ barcode, ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function read(pKey: string): Promise<Order> {
  const reply = await wms.get(`${TO}/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function list(path: string): Promise<Order[]> {
  const reply = await wms.get(path);
  expect(reply.status, reply.text).toBe(200);
  expect(Array.isArray(reply.body)).toBe(true);
  return reply.body;
}

const ofUnit = (barcode: string) => list(`${TO}?barcode=${q(barcode)}`);
const keys = (orders: Order[]) => orders.map((o) => o.pKey);
const stateOf = async (pKey: string) => (await read(pKey)).state;

const patchReply = (pKey: string, body: unknown) => wms.patch(`${TO}/${pKey}`, body);

async function patch(pKey: string, body: Record<string, unknown>): Promise<Order> {
  const reply = await patchReply(pKey, body);
  expect(reply.status, reply.text).toBe(204);
  expect(reply.text).toBe('');
  return read(pKey);
}

async function cancel(pKey: string): Promise<Order> {
  const reply = await wms.del(`${TO}/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function unit(barcode: string): Promise<Record<string, any>> {
  const reply = await wms.get(`${TU}?bk=${q(barcode)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Books a unit onto a location over REST, as integrators and OpenWMS's CP005 do. */
async function move(barcode: string, location: string): Promise<void> {
  const reply = await wms.patch(`${TU}?bk=${q(barcode)}&newLocation=${q(location)}`, undefined);
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body.actualLocation).toBe(location);
}

/** The unit's STARTED orders (never more than one). */
const startedOf = async (barcode: string) => list(`${TO}?barcode=${q(barcode)}&state=STARTED`);

/** Every order, transport unit and location as the API shows them. */
async function snapshot() {
  const [orders, units, locations] = await Promise.all([wms.get(TO), wms.get(TU), wms.get('/v1/locations')]);
  for (const r of [orders, units, locations]) expect(r.status, r.text).toBe(200);
  return { orders: orders.body, units: units.body, locations: locations.body };
}

/** Sends a request that must be refused and proves that nothing changed. */
const refused = refusal({ state: snapshot, events });

/** The spec: `not.found` whose message is the key, without `obj`. */
const plainNotFound = (reply: Reply) => {
  expectApiError(reply, 404, 'not.found');
  expect(reply.body.message).toBe('not.found');
  expect(reply.body).not.toHaveProperty('obj');
};

const invalidParameter = (reply: Reply) => {
  expectApiError(reply, 400, 'core.invalid.parameter');
  expect(reply.body).not.toHaveProperty('obj');
};

const rawJson = (method: string, path: string, text: string) => wms.request(method, path, { raw: text, headers: { 'Content-Type': 'application/json' } });

const eventTypesSince = (from: number) => events.slice(from).map((e) => e.type);
const eventsSince = (from: number) => events.slice(from).map((e) => `${e.type} ${String('pKey' in e.data ? e.data.pKey : undefined)}`);

/**
 * An order of a fresh unit in the given state: STARTED is the unit's first order;
 * INITIALIZED the second (the first stays STARTED); an ended one was STARTED first.
 */
async function orderIn(state: State): Promise<Order> {
  const barcode = await newUnit();
  const first = await create(barcode, { targetLocation: L_ZONE });
  if (state === 'STARTED') return first;
  if (state === 'INITIALIZED') return create(barcode, { targetLocation: L_OTHER });
  return patch(first.pKey, { state });
}

// ---- index ------------------------------------------------------------------

describe('GET /v1/transport-orders/index and the entry index', () => {
  it('names every operation of the module', async () => {
    const reply = await wms.get(`${TO}/index`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    expect(Object.keys(links).sort()).toEqual(
      [
        'transport-orders-create',
        'transport-orders-findbypkey',
        'transport-orders-findall',
        'transport-orders-findbybarcode',
        'transport-orders-findbystate',
        'transport-orders-findbybarcodeandstate',
        'transport-orders-update',
        'transport-orders-cancel',
      ].sort(),
    );
    const href = (name: string) => links[name]!.href;
    expect(href('transport-orders-create')).toBe(`${wms.url}${TO}`);
    expect(href('transport-orders-findbypkey')).toBe(`${wms.url}${TO}/{pKey}`);
    expect(href('transport-orders-findall')).toBe(`${wms.url}${TO}`);
    expect(href('transport-orders-findbybarcode')).toBe(`${wms.url}${TO}?barcode={barcode}`);
    expect(href('transport-orders-findbystate')).toBe(`${wms.url}${TO}?state={state}`);
    expect(href('transport-orders-findbybarcodeandstate')).toBe(`${wms.url}${TO}?barcode={barcode}&state={state}`);
    expect(href('transport-orders-update')).toBe(`${wms.url}${TO}/{pKey}`);
    expect(href('transport-orders-cancel')).toBe(`${wms.url}${TO}/{pKey}`);
  });

  it('answers the index as XML when asked', async () => {
    const reply = await wms.get(`${TO}/index`, { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('rel="transport-orders-findbybarcodeandstate"');
  });

  it('links the module index from the public entry index as transport-order-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['transport-order-index']).toEqual({ href: `${wms.url}${TO}/index` });
  });
});

// ---- create -----------------------------------------------------------------

describe('POST /v1/transport-orders', () => {
  it('creates an order and starts it at once: 201, Location, the TransportOrder', async () => {
    const barcode = await newUnit();
    const from = events.length;
    const reply = await createReply({ barcode, targetLocation: L_ZONE });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const o = reply.body as Order;
    expect(reply.headers.get('location')).toBe(`${wms.url}${TO}/${o.persistentKey}`);
    expect(o).toMatchObject({
      pKey: o.persistentKey,
      ol: 0,
      transportUnitBK: barcode,
      priority: 'NORMAL',
      state: 'STARTED',
      sourceLocation: SRC,
      targetLocation: L_ZONE,
      targetLocationGroup: null,
    });
    expect(o.startDate).toMatch(ISO_MS);
    expect(o.createDt).toMatch(ISO_MS);
    expect(o.lastModifiedDt).toMatch(ISO_MS);
    expect(o).not.toHaveProperty('endDate');
    expect(o).not.toHaveProperty('message');
    expect(o.links.map((l) => l.rel).sort()).toEqual(
      ['transport-orders-cancel', 'transport-orders-findbypkey', 'transport-orders-update', 'transport-unit'].sort(),
    );
    expect(o.links.find((l) => l.rel === 'transport-orders-findbypkey')!.href).toBe(`${wms.url}${TO}/${o.pKey}`);
    expect(o.links.find((l) => l.rel === 'transport-unit')!.href).toBe(`${wms.url}${TU}?bk=${barcode}`);
    expect(eventTypesSince(from)).toEqual(['transportOrder.created', 'transportOrder.started']);
    expect(events.at(-1)!.data).toMatchObject({ pKey: o.pKey, transportUnitBK: barcode, state: 'STARTED', targetLocation: L_ZONE });
    expect(await read(o.pKey)).toEqual(o);
    // Creating an order moves nothing.
    expect((await unit(barcode)).actualLocation).toBe(SRC);
  });

  it('queues a second order of the unit as INITIALIZED, without a start date', async () => {
    const barcode = await newUnit();
    const first = await create(barcode);
    const from = events.length;
    const second = await create(barcode, { targetLocationGroup: 'TO-ZONE', priority: 'HIGHEST' });
    expect(second).toMatchObject({ state: 'INITIALIZED', priority: 'HIGHEST', targetLocation: null, targetLocationGroup: 'TO-ZONE' });
    expect(second).not.toHaveProperty('startDate');
    expect(eventTypesSince(from)).toEqual(['transportOrder.created']);
    // A higher priority does not push the running order aside.
    expect(await stateOf(first.pKey)).toBe('STARTED');
    expect(keys(await startedOf(barcode))).toEqual([first.pKey]);
  });

  it('takes a group target, and a location in the group or below it together with the group', async () => {
    const byGroup = await create(await newUnit(), { targetLocationGroup: 'TO-ZONE' });
    expect(byGroup).toMatchObject({ targetLocation: null, targetLocationGroup: 'TO-ZONE', state: 'STARTED' });
    const direct = await create(await newUnit(), { targetLocation: L_ZONE, targetLocationGroup: 'TO-ZONE' });
    expect(direct).toMatchObject({ targetLocation: L_ZONE, targetLocationGroup: 'TO-ZONE' });
    const below = await create(await newUnit(), { targetLocation: L_SUB, targetLocationGroup: 'WAREHOUSE' });
    expect(below).toMatchObject({ targetLocation: L_SUB, targetLocationGroup: 'WAREHOUSE' });
  });

  it('takes every priority level', async () => {
    const barcode = await newUnit();
    for (const priority of ['LOWEST', 'LOW', 'NORMAL', 'HIGH', 'HIGHEST']) {
      expect((await create(barcode, { targetLocation: L_WH, priority })).priority).toBe(priority);
    }
  });

  it('records a problem (text or the problem object) as message; empty pKey and state CREATED are accepted', async () => {
    const a = await create(await newUnit(), { targetLocation: L_ZONE, problem: 'scanner fault at infeed', pKey: null, state: null });
    expect(a.message).toBe('scanner fault at infeed');
    const b = await create(await newUnit(), { targetLocation: L_ZONE, problem: { message: 'overweight', messageNo: 7 }, state: 'CREATED' });
    expect(b.message).toBe('overweight');
    expect(b.state).toBe('STARTED');
    const c = await create(await newUnit(), { targetLocation: L_ZONE, problem: null });
    expect(c).not.toHaveProperty('message');
  });

  it('accepts and answers the vendor media type', async () => {
    const barcode = await newUnit();
    const reply = await wms.request('POST', TO, {
      raw: JSON.stringify({ barcode, targetLocation: L_ZONE }),
      headers: { 'Content-Type': ORDER_TYPE, Accept: ORDER_TYPE },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(new RegExp(`^${ORDER_TYPE.replace(/[.+]/g, '\\$&')}`));
  });

  it('queues an order to where the unit stands while another order runs', async () => {
    const barcode = await newUnit();
    await create(barcode, { targetLocation: L_ZONE });
    const back = await create(barcode, { targetLocation: SRC });
    expect(back.state).toBe('INITIALIZED');
  });

  describe('refusals', () => {
    let barcode: string;
    beforeAll(async () => {
      barcode = await newUnit();
    });

    it('an unknown transport unit: 404 not.found, message not.found', async () => {
      await refused(() => createReply({ barcode: 'TO-NO-SUCH-TU', targetLocation: L_ZONE }), plainNotFound);
    });

    it('an unknown target location or group: 404 not.found, message not.found', async () => {
      await refused(() => createReply({ barcode, targetLocation: LOC_UNKNOWN }), plainNotFound);
      await refused(() => createReply({ barcode, targetLocation: 'not-a-coordinate' }), plainNotFound);
      await refused(() => createReply({ barcode, targetLocationGroup: 'TO-NO-SUCH-GROUP' }), plainNotFound);
      await refused(() => createReply({ barcode, targetLocation: L_ZONE, targetLocationGroup: 'TO-NO-SUCH-GROUP' }), plainNotFound);
    });

    it('a priority level that is not defined: 400 core.invalid.parameter', async () => {
      for (const priority of ['URGENT', 'highest', '', 3, null, true]) {
        await refused(() => createReply({ barcode, targetLocation: L_ZONE, priority }), invalidParameter);
      }
    });

    it('a location outside the target group: 400 core.validation.error', async () => {
      await refused(() => createReply({ barcode, targetLocation: L_OTHER, targetLocationGroup: 'TO-ZONE' }), validation('targetLocationGroup'));
      await refused(() => createReply({ barcode, targetLocation: L_WH, targetLocationGroup: 'TO-SUB' }), validation('targetLocation'));
    });

    it('no target, no barcode, a pKey or another state: 400 core.validation.error', async () => {
      await refused(() => createReply({ barcode }), validation('targetLocation'));
      await refused(() => createReply({ barcode, targetLocation: null, targetLocationGroup: null }), validation('targetLocationGroup'));
      await refused(() => createReply({ targetLocation: L_ZONE }), validation('barcode'));
      await refused(() => createReply({ barcode: '', targetLocation: L_ZONE }), validation('barcode'));
      await refused(() => createReply({ barcode, targetLocation: L_ZONE, pKey: 'my-own-key' }), validation('pKey'));
      await refused(() => createReply({ barcode, targetLocation: L_ZONE, state: 'STARTED' }), validation('state'));
      await refused(() => createReply({ barcode, targetLocation: 42 }), validation('targetLocation'));
      await refused(() => createReply({ barcode, targetLocation: L_ZONE, problem: 12 }), validation('problem'));
      await refused(() => wms.post(TO, undefined), validation('body'));
    });

    it('malformed JSON: 400 server-declined', async () => {
      await refused(
        () => rawJson('POST', TO, '{"barcode": '),
        (r) => expectServerError(r, 400),
      );
    });

    it('a target the unit already stands at, when the order would start: 400 svc.tms.to.tuAlreadyAtTarget', async () => {
      await refused(() => createReply({ barcode, targetLocation: SRC }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget', SRC, [barcode, SRC]));
      // SRC lies in TO-OTHER, below WAREHOUSE.
      await refused(() => createReply({ barcode, targetLocationGroup: 'TO-OTHER' }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget'));
      await refused(() => createReply({ barcode, targetLocationGroup: 'WAREHOUSE' }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget'));
      await refused(() => createReply({ barcode, targetLocation: SRC, targetLocationGroup: 'WAREHOUSE' }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget'));
    });
  });
});

// ---- lookups ----------------------------------------------------------------

describe('GET /v1/transport-orders', () => {
  let unitA: string;
  let unitB: string;
  let a1: Order;
  let a2: Order;
  let a3: Order;
  let b1: Order;
  beforeAll(async () => {
    unitA = await newUnit();
    unitB = await newUnit();
    a1 = await create(unitA, { targetLocation: L_ZONE });
    a2 = await create(unitA, { targetLocation: L_OTHER });
    a3 = await create(unitA, { targetLocation: L_WH });
    b1 = await create(unitB, { targetLocationGroup: 'TO-SUB' });
    a3 = await cancel(a3.pKey);
  });

  it('by pKey', async () => {
    const o = await read(a2.pKey);
    expect(o).toMatchObject({ pKey: a2.pKey, persistentKey: a2.pKey, state: 'INITIALIZED', transportUnitBK: unitA });
  });

  it('an unknown pKey: 404 not.found naming it', async () => {
    await refused(() => wms.get(`${TO}/no-such-order`), apiError(404, 'not.found', 'no-such-order', ['no-such-order']));
  });

  it('all, oldest first', async () => {
    const all = keys(await list(TO));
    const mine = all.filter((k) => [a1.pKey, a2.pKey, a3.pKey, b1.pKey].includes(k));
    expect(mine).toEqual([a1.pKey, a2.pKey, a3.pKey, b1.pKey]);
  });

  it("by barcode: the unit's orders, oldest first; an unknown barcode has none", async () => {
    expect(keys(await ofUnit(unitA))).toEqual([a1.pKey, a2.pKey, a3.pKey]);
    expect(keys(await ofUnit(unitB))).toEqual([b1.pKey]);
    expect(await ofUnit('TO-NO-SUCH-TU')).toEqual([]);
  });

  it('by state (comma-separated or repeated)', async () => {
    const started = keys(await list(`${TO}?state=STARTED`));
    expect(started).toContain(a1.pKey);
    expect(started).toContain(b1.pKey);
    expect(started).not.toContain(a2.pKey);
    const some = keys(await list(`${TO}?state=INITIALIZED,CANCELED`));
    expect(some).toContain(a2.pKey);
    expect(some).toContain(a3.pKey);
    expect(some).not.toContain(a1.pKey);
    expect(keys(await list(`${TO}?state=INITIALIZED&state=CANCELED`))).toEqual(some);
    for (const o of await list(`${TO}?state=CANCELED`)) expect(o.state).toBe('CANCELED');
  });

  it('by barcode and state', async () => {
    expect(keys(await list(`${TO}?barcode=${unitA}&state=STARTED,INITIALIZED`))).toEqual([a1.pKey, a2.pKey]);
    expect(keys(await list(`${TO}?barcode=${unitA}&state=CANCELED`))).toEqual([a3.pKey]);
    expect(keys(await list(`${TO}?barcode=${unitB}&state=FINISHED`))).toEqual([]);
  });

  it('refuses unknown states and unknown parameters with 400 core.validation.error', async () => {
    await refused(() => wms.get(`${TO}?state=RUNNING`), validation('RUNNING'));
    await refused(() => wms.get(`${TO}?state=`), validation('state'));
    await refused(() => wms.get(`${TO}?barcode=${unitA}&state=STARTED,DONE`), validation('DONE'));
    await refused(() => wms.get(`${TO}?barcode=`), validation('barcode'));
    await refused(() => wms.get(`${TO}?bk=${unitA}`), validation('bk'));
    await refused(() => wms.get(`${TO}?state=STARTED&priority=HIGH`), validation('priority'));
  });
});

// ---- the transition table ----------------------------------------------------

describe('state transitions by PATCH (table-driven)', () => {
  type Outcome = 'same' | 'ok' | 'invalid' | 'oneStarted';
  const table: Record<Exclude<State, 'CREATED'>, Record<State, Outcome>> = {
    INITIALIZED: {
      CREATED: 'invalid',
      INITIALIZED: 'same',
      STARTED: 'oneStarted',
      INTERRUPTED: 'invalid',
      ONFAILURE: 'ok',
      CANCELED: 'ok',
      FINISHED: 'invalid',
    },
    STARTED: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'same',
      INTERRUPTED: 'ok',
      ONFAILURE: 'ok',
      CANCELED: 'ok',
      FINISHED: 'ok',
    },
    INTERRUPTED: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'invalid',
      INTERRUPTED: 'same',
      ONFAILURE: 'invalid',
      CANCELED: 'invalid',
      FINISHED: 'invalid',
    },
    ONFAILURE: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'invalid',
      INTERRUPTED: 'invalid',
      ONFAILURE: 'same',
      CANCELED: 'invalid',
      FINISHED: 'invalid',
    },
    CANCELED: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'invalid',
      INTERRUPTED: 'invalid',
      ONFAILURE: 'invalid',
      CANCELED: 'same',
      FINISHED: 'invalid',
    },
    FINISHED: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'invalid',
      INTERRUPTED: 'invalid',
      ONFAILURE: 'invalid',
      CANCELED: 'invalid',
      FINISHED: 'same',
    },
  };

  const eventOf: Partial<Record<State, string>> = {
    STARTED: 'transportOrder.started',
    FINISHED: 'transportOrder.finished',
    CANCELED: 'transportOrder.canceled',
    INTERRUPTED: 'transportOrder.changed',
    ONFAILURE: 'transportOrder.changed',
  };

  for (const [from, row] of Object.entries(table) as [Exclude<State, 'CREATED'>, Record<State, Outcome>][]) {
    for (const [to, outcome] of Object.entries(row) as [State, Outcome][]) {
      it(`${from} → ${to}: ${outcome}`, async () => {
        const order = await orderIn(from);
        expect(order.state).toBe(from);
        if (outcome === 'invalid') {
          await refused(
            () => patchReply(order.pKey, { state: to }),
            apiError(409, 'svc.tms.to.invalidStateTransition', `from ${from} to ${to}`, [order.pKey, from, to]),
          );
        } else if (outcome === 'oneStarted') {
          const running = (await startedOf(order.transportUnitBK))[0]!;
          await refused(
            () => patchReply(order.pKey, { state: to }),
            apiError(409, 'svc.tms.to.alreadyStartedForTu', running.pKey, [order.pKey, order.transportUnitBK, running.pKey]),
          );
        } else if (outcome === 'same') {
          const from_ = events.length;
          const after = await patch(order.pKey, { state: to });
          expect(after).toEqual(order);
          expect(events.length).toBe(from_);
        } else {
          const from_ = events.length;
          const after = await patch(order.pKey, { state: to });
          expect(after.state).toBe(to);
          expect(after.ol).toBe(order.ol + 1);
          expect(after.endDate).toMatch(ISO_MS);
          expect(after.startDate).toBe(order.startDate);
          expect(after.links.map((l) => l.rel).sort()).toEqual(['transport-orders-findbypkey', 'transport-unit']);
          const ownEvents = events.slice(from_).filter((e) => 'pKey' in e.data && e.data.pKey === order.pKey);
          expect(ownEvents.map((e) => e.type)).toEqual([eventOf[to]]);
          expect(ownEvents[0]!.data).toMatchObject({ state: to, from });
          const own = ownEvents[0]!;
          if (own.type === 'transportOrder.changed') expect(own.data.fields).toEqual(['state', 'endDate']);
          // Nothing moves back out of an ended state.
          for (const back of STATES.filter((s) => s !== to)) {
            await refused(() => patchReply(order.pKey, { state: back }), apiError(409, 'svc.tms.to.invalidStateTransition'));
          }
        }
      });
    }
  }

  it('no move leads into CREATED, and an order is never seen CREATED', async () => {
    const all = await list(TO);
    expect(all.some((o) => o.state === 'CREATED')).toBe(false);
  });
});

// ---- starting the next order -------------------------------------------------

describe('the next order starts when one ends', () => {
  it('highest priority first, then the oldest; one STARTED order at most at every step', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const b = await create(barcode, { targetLocation: L_OTHER }); // NORMAL
    const c = await create(barcode, { targetLocation: L_WH, priority: 'HIGH' });
    const d = await create(barcode, { targetLocation: L_SUB, priority: 'HIGH' });
    const e = await create(barcode, { targetLocationGroup: 'TO-ZONE', priority: 'LOWEST' });
    const f = await create(barcode, { targetLocation: L_OTHER, priority: 'HIGHEST' });
    const g = await create(barcode, { targetLocation: L_WH, priority: 'LOW' });
    const states = async () => Object.fromEntries((await ofUnit(barcode)).map((o) => [o.pKey, o.state]));
    expect(await states()).toEqual({
      [a.pKey]: 'STARTED',
      [b.pKey]: 'INITIALIZED',
      [c.pKey]: 'INITIALIZED',
      [d.pKey]: 'INITIALIZED',
      [e.pKey]: 'INITIALIZED',
      [f.pKey]: 'INITIALIZED',
      [g.pKey]: 'INITIALIZED',
    });

    let from = events.length;
    await patch(a.pKey, { state: 'FINISHED' });
    expect(eventsSince(from)).toEqual([`transportOrder.finished ${a.pKey}`, `transportOrder.started ${f.pKey}`]);
    expect(keys(await startedOf(barcode))).toEqual([f.pKey]);
    const started = await read(f.pKey);
    expect(started.startDate).toMatch(ISO_MS);
    expect(started.ol).toBe(f.ol + 1);

    await patch(f.pKey, { state: 'FINISHED' });
    expect(keys(await startedOf(barcode))).toEqual([c.pKey]);

    from = events.length;
    const canceled = await cancel(c.pKey);
    expect(canceled.state).toBe('CANCELED');
    expect(eventsSince(from)).toEqual([`transportOrder.canceled ${c.pKey}`, `transportOrder.started ${d.pKey}`]);
    expect(keys(await startedOf(barcode))).toEqual([d.pKey]);

    await patch(d.pKey, { state: 'INTERRUPTED' });
    expect(keys(await startedOf(barcode))).toEqual([b.pKey]);
    await patch(b.pKey, { state: 'ONFAILURE' });
    expect(keys(await startedOf(barcode))).toEqual([g.pKey]);
    await patch(g.pKey, { state: 'CANCELED' });
    expect(keys(await startedOf(barcode))).toEqual([e.pKey]);
    await patch(e.pKey, { state: 'CANCELED' });
    expect(await startedOf(barcode)).toEqual([]);
    expect(await states()).toEqual({
      [a.pKey]: 'FINISHED',
      [b.pKey]: 'ONFAILURE',
      [c.pKey]: 'CANCELED',
      [d.pKey]: 'INTERRUPTED',
      [e.pKey]: 'CANCELED',
      [f.pKey]: 'FINISHED',
      [g.pKey]: 'CANCELED',
    });

    // The unit is free again: a new order starts at once.
    const h = await create(barcode, { targetLocation: L_ZONE });
    expect(h.state).toBe('STARTED');
  });

  it('three orders of one unit finished and cancelled one by one, in any order: never two STARTED', async () => {
    const barcode = await newUnit();
    const [a, b, c] = [
      await create(barcode, { targetLocation: L_ZONE }),
      await create(barcode, { targetLocation: L_OTHER }),
      await create(barcode, { targetLocation: L_WH }),
    ];
    const check = async (expected: string[]) => {
      expect(keys(await startedOf(barcode))).toEqual(expected);
      expect((await list(`${TO}?state=STARTED`)).filter((o) => o.transportUnitBK === barcode).length).toBeLessThanOrEqual(1);
    };
    await check([a.pKey]);
    // Cancel the queued middle one first: the running one stays.
    await cancel(b.pKey);
    await check([a.pKey]);
    // Cancelling it again is refused.
    await refused(() => wms.del(`${TO}/${b.pKey}`), apiError(409, 'svc.tms.to.endedNotCancelled', b.pKey, [b.pKey, 'CANCELED']));
    await patch(a.pKey, { state: 'FINISHED' });
    await check([c.pKey]);
    // A second start of the same order is no change.
    await patch(c.pKey, { state: 'STARTED' });
    await check([c.pKey]);
    await cancel(c.pKey);
    await check([]);
    expect((await ofUnit(barcode)).map((o) => o.state)).toEqual(['FINISHED', 'CANCELED', 'CANCELED']);
  });

  it('a priority change of a queued order decides which one starts next', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const b = await create(barcode, { targetLocation: L_OTHER });
    const c = await create(barcode, { targetLocation: L_WH });
    await patch(c.pKey, { priority: 'HIGH' });
    await cancel(a.pKey);
    expect(keys(await startedOf(barcode))).toEqual([c.pKey]);
    expect(await stateOf(b.pKey)).toBe('INITIALIZED');
  });

  it('the schema itself refuses a second STARTED order of a unit', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const b = await create(barcode, { targetLocation: L_OTHER });
    // Tried on a copy of the database (an online backup): the running appliance's
    // tables are written by its services only.
    const backup = await wms.post('/v1/backups');
    expect(backup.status, backup.text).toBe(201);
    const copy = new Database(path.join(wms.dataDir, 'backups', backup.body.name));
    try {
      expect(() => copy.prepare("UPDATE transport_orders SET state = 'STARTED', start_date = ? WHERE pk = ?").run(new Date().toISOString(), b.pKey)).toThrow(
        /UNIQUE constraint failed/,
      );
      expect(copy.prepare('SELECT pk, state FROM transport_orders WHERE pk IN (?, ?) ORDER BY state').all(a.pKey, b.pKey)).toEqual([
        { pk: b.pKey, state: 'INITIALIZED' },
        { pk: a.pKey, state: 'STARTED' },
      ]);
    } finally {
      copy.close();
    }
    expect(await stateOf(a.pKey)).toBe('STARTED');
  });
});

// ---- moving the unit finishes orders --------------------------------------------

describe('a unit booked onto its target finishes its order', () => {
  it('at the target location: FINISHED with endDate, and the next order starts', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const b = await create(barcode, { targetLocation: L_OTHER });
    let from = events.length;
    await move(barcode, L_WH); // not the target
    expect(await stateOf(a.pKey)).toBe('STARTED');
    expect(eventTypesSince(from)).toEqual([]);

    from = events.length;
    await move(barcode, L_ZONE);
    const finished = await read(a.pKey);
    expect(finished.state).toBe('FINISHED');
    expect(finished.endDate).toMatch(ISO_MS);
    expect(finished.sourceLocation).toBe(SRC);
    expect(eventsSince(from)).toEqual([`transportOrder.finished ${a.pKey}`, `transportOrder.started ${b.pKey}`]);
    expect(keys(await startedOf(barcode))).toEqual([b.pKey]);
    // The next order's source stays where the unit stood when it was created.
    expect((await read(b.pKey)).sourceLocation).toBe(SRC);

    await move(barcode, L_OTHER);
    expect(await stateOf(b.pKey)).toBe('FINISHED');
    expect(await startedOf(barcode)).toEqual([]);
    // A further move touches no ended order.
    from = events.length;
    await move(barcode, L_ZONE);
    expect(eventTypesSince(from)).toEqual([]);
  });

  it("anywhere in the target group's subtree, for an order with only a group target", async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocationGroup: 'TO-ZONE' });
    await move(barcode, L_WH); // WAREHOUSE is above TO-ZONE, not in it
    expect(await stateOf(a.pKey)).toBe('STARTED');
    await move(barcode, L_SUB); // TO-SUB lies below TO-ZONE
    expect(await stateOf(a.pKey)).toBe('FINISHED');

    const other = await newUnit();
    const b = await create(other, { targetLocationGroup: 'TO-ZONE' });
    await move(other, L_ZONE); // the group itself
    expect(await stateOf(b.pKey)).toBe('FINISHED');
  });

  it('an order with a location and a group target finishes at the location only', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_SUB, targetLocationGroup: 'TO-ZONE' });
    await move(barcode, L_ZONE);
    expect(await stateOf(a.pKey)).toBe('STARTED');
    await move(barcode, L_SUB);
    expect(await stateOf(a.pKey)).toBe('FINISHED');
  });

  it('a next order whose target the unit already reached finishes at once, and the one after starts', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const b = await create(barcode, { targetLocationGroup: 'TO-ZONE' });
    const c = await create(barcode, { targetLocation: L_OTHER });
    const from = events.length;
    await move(barcode, L_ZONE);
    expect(eventsSince(from)).toEqual([
      `transportOrder.finished ${a.pKey}`,
      `transportOrder.started ${b.pKey}`,
      `transportOrder.finished ${b.pKey}`,
      `transportOrder.started ${c.pKey}`,
    ]);
    expect((await ofUnit(barcode)).map((o) => o.state)).toEqual(['FINISHED', 'FINISHED', 'STARTED']);
  });

  it('also when the move comes with an update of the unit (PUT …?bk= with actualLocation)', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const reply = await wms.put(`${TU}?bk=${barcode}`, { actualLocation: L_ZONE });
    expect(reply.status, reply.text).toBe(200);
    expect(await stateOf(a.pKey)).toBe('FINISHED');
  });

  it('also when a completed movement books the unit', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const movement = await wms.post(`${TU}/${barcode}/movements`, { sourceLocation: SRC, target: L_ZONE });
    expect(movement.status, movement.text).toBe(201);
    const done = await wms.post(`/v1/movements/${movement.body.pKey}/complete`, {});
    expect(done.status, done.text).toBe(200);
    expect(await stateOf(a.pKey)).toBe('FINISHED');
  });

  it('cancelling the running order starts the next one, which finishes at once when the unit stands at its target', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const b = await create(barcode, { targetLocation: SRC }); // where the unit stands
    const c = await create(barcode, { targetLocation: L_WH });
    const from = events.length;
    await cancel(a.pKey);
    expect(eventsSince(from)).toEqual([
      `transportOrder.canceled ${a.pKey}`,
      `transportOrder.started ${b.pKey}`,
      `transportOrder.finished ${b.pKey}`,
      `transportOrder.started ${c.pKey}`,
    ]);
  });
});

// ---- redirect -------------------------------------------------------------------

describe('PATCH redirects an order that has not ended', () => {
  it('a STARTED order to a new location: 204, ol + 1, event, and it finishes there, not at the old target', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const from = events.length;
    const after = await patch(a.pKey, { targetLocation: L_OTHER });
    expect(after).toMatchObject({ state: 'STARTED', targetLocation: L_OTHER, targetLocationGroup: null, ol: a.ol + 1 });
    expect(after.startDate).toBe(a.startDate);
    expect(eventTypesSince(from)).toEqual(['transportOrder.redirected']);
    expect(events.at(-1)!.data).toMatchObject({
      pKey: a.pKey,
      targetLocation: L_OTHER,
      from: { targetLocation: L_ZONE, targetLocationGroup: null },
    });
    await move(barcode, L_ZONE);
    expect(await stateOf(a.pKey)).toBe('STARTED');
    await move(barcode, L_OTHER);
    expect(await stateOf(a.pKey)).toBe('FINISHED');
  });

  it('to a group; a location given alone must lie in the kept group; null clears one target', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    let o = await patch(a.pKey, { targetLocationGroup: 'TO-ZONE' });
    expect(o).toMatchObject({ targetLocation: L_ZONE, targetLocationGroup: 'TO-ZONE' });
    o = await patch(a.pKey, { targetLocation: L_SUB }); // TO-SUB lies below TO-ZONE
    expect(o).toMatchObject({ targetLocation: L_SUB, targetLocationGroup: 'TO-ZONE' });
    await refused(() => patchReply(a.pKey, { targetLocation: L_OTHER }), validation('targetLocationGroup [TO-ZONE]'));
    o = await patch(a.pKey, { targetLocation: null });
    expect(o).toMatchObject({ targetLocation: null, targetLocationGroup: 'TO-ZONE' });
    o = await patch(a.pKey, { targetLocation: L_WH, targetLocationGroup: null });
    expect(o).toMatchObject({ targetLocation: L_WH, targetLocationGroup: null });
    await refused(() => patchReply(a.pKey, { targetLocation: null }), validation('at least one target'));
    await refused(() => patchReply(a.pKey, { targetLocation: null, targetLocationGroup: null }), validation('at least one target'));
  });

  it('a queued order, even to where the unit stands now', async () => {
    const barcode = await newUnit();
    await create(barcode, { targetLocation: L_ZONE });
    const b = await create(barcode, { targetLocation: L_OTHER });
    const after = await patch(b.pKey, { targetLocation: SRC });
    expect(after).toMatchObject({ state: 'INITIALIZED', targetLocation: SRC });
  });

  it('the same target again is no change', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const from = events.length;
    expect(await patch(a.pKey, { targetLocation: L_ZONE, targetLocationGroup: null, barcode, pKey: a.pKey, priority: 'NORMAL' })).toEqual(a);
    expect(events.length).toBe(from);
  });

  it('refuses an unknown target (404 not.found), a STARTED order to where the unit stands (400), and every ended order (409)', async () => {
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    await refused(() => patchReply(a.pKey, { targetLocation: LOC_UNKNOWN }), plainNotFound);
    await refused(() => patchReply(a.pKey, { targetLocationGroup: 'TO-NO-SUCH-GROUP' }), plainNotFound);
    await refused(() => patchReply(a.pKey, { targetLocation: SRC }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget', SRC, [barcode, SRC]));
    await refused(() => patchReply(a.pKey, { targetLocation: null, targetLocationGroup: 'WAREHOUSE' }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget'));
    for (const state of ENDED) {
      const ended = await orderIn(state);
      await refused(() => patchReply(ended.pKey, { targetLocation: L_OTHER }), apiError(409, 'svc.tms.to.endedNotRedirected', state, [ended.pKey, state]));
      await refused(() => patchReply(ended.pKey, { targetLocationGroup: 'TO-ZONE' }), apiError(409, 'svc.tms.to.endedNotRedirected'));
    }
  });
});

// ---- priority and problem ----------------------------------------------------------

describe('PATCH priority and problem', () => {
  it('changes the priority of a STARTED and of a queued order', async () => {
    const barcode = await newUnit();
    const a = await create(barcode);
    const b = await create(barcode, { targetLocation: L_OTHER });
    const from = events.length;
    expect((await patch(a.pKey, { priority: 'HIGHEST' })).priority).toBe('HIGHEST');
    expect((await patch(b.pKey, { priority: 'LOWEST' })).priority).toBe('LOWEST');
    expect(eventTypesSince(from)).toEqual(['transportOrder.changed', 'transportOrder.changed']);
    expect(events.at(-1)!.data).toMatchObject({ pKey: b.pKey, priority: 'LOWEST', fields: ['priority'] });
  });

  it('refuses a priority level that is not defined with 400 core.invalid.parameter', async () => {
    const a = await create(await newUnit());
    for (const priority of ['URGENT', 'normal', 5, null, {}]) {
      await refused(() => patchReply(a.pKey, { priority }), invalidParameter);
    }
    // Also together with other changes, and on an ended order.
    await refused(() => patchReply(a.pKey, { priority: 'URGENT', targetLocation: L_OTHER }), invalidParameter);
    const ended = await orderIn('FINISHED');
    await refused(() => patchReply(ended.pKey, { priority: 'URGENT' }), invalidParameter);
  });

  it('refuses to change the priority or the problem of an ended order: 409 svc.tms.to.endedNotChanged', async () => {
    for (const state of ENDED) {
      const ended = await orderIn(state);
      await refused(() => patchReply(ended.pKey, { priority: 'HIGH' }), apiError(409, 'svc.tms.to.endedNotChanged', state, [ended.pKey, state]));
      await refused(() => patchReply(ended.pKey, { problem: 'late' }), apiError(409, 'svc.tms.to.endedNotChanged'));
      // The values it already has are no change.
      expect(await patch(ended.pKey, { priority: 'NORMAL', state, targetLocation: L_ZONE })).toEqual(ended);
    }
  });

  it('records a problem as message; the problem object works too; null clears it', async () => {
    const a = await create(await newUnit());
    const from = events.length;
    expect((await patch(a.pKey, { problem: 'no route at TOA/0001/0001/0000/0000' })).message).toBe('no route at TOA/0001/0001/0000/0000');
    expect(eventTypesSince(from)).toEqual(['transportOrder.changed']);
    expect(events.at(-1)!.data).toMatchObject({ fields: ['message'] });
    expect((await patch(a.pKey, { problem: { message: 'target locked', messageNo: 3 } })).message).toBe('target locked');
    const cleared = await patch(a.pKey, { problem: null });
    expect(cleared).not.toHaveProperty('message');
    expect(cleared.state).toBe('STARTED');
  });

  it('changes state, priority and problem in one request', async () => {
    const barcode = await newUnit();
    const a = await create(barcode);
    const from = events.length;
    const after = await patch(a.pKey, { state: 'ONFAILURE', priority: 'LOW', problem: 'conveyor jam' });
    expect(after).toMatchObject({ state: 'ONFAILURE', priority: 'LOW', message: 'conveyor jam', ol: a.ol + 1 });
    expect(eventTypesSince(from)).toEqual(['transportOrder.changed']);
    expect(lastOfType(events, 'transportOrder.changed').data.fields).toEqual(['priority', 'state', 'endDate', 'message']);
  });
});

// ---- other PATCH refusals --------------------------------------------------------

describe('PATCH refusals', () => {
  it('an unknown pKey: 404 not.found', async () => {
    await refused(() => patchReply('no-such-order', { priority: 'HIGH' }), apiError(404, 'not.found', 'no-such-order', ['no-such-order']));
  });

  it('another pKey or barcode in the body, an unknown state, a bad body: 400 core.validation.error', async () => {
    const barcode = await newUnit();
    const a = await create(barcode);
    await refused(() => patchReply(a.pKey, { pKey: 'another-order', priority: 'HIGH' }), validation('pKey'));
    const other = await newUnit();
    await refused(() => patchReply(a.pKey, { barcode: other }), validation('barcode'));
    await refused(() => patchReply(a.pKey, { state: 'RUNNING' }), validation('state'));
    await refused(() => patchReply(a.pKey, { problem: 42 }), validation('problem'));
    await refused(() => patchReply(a.pKey, { ol: -1 }), validation('ol'));
    await refused(() => patchReply(a.pKey, undefined), validation('body'));
    await refused(
      () => rawJson('PATCH', `${TO}/${a.pKey}`, '{"priority"'),
      (r) => expectServerError(r, 400),
    );
  });

  it('a stale ol: 409 core.optimistic.lock; the current one applies', async () => {
    const a = await create(await newUnit());
    await refused(
      () => patchReply(a.pKey, { ol: a.ol + 5, priority: 'HIGH' }),
      apiError(409, 'core.optimistic.lock', a.pKey, [a.pKey, String(a.ol + 5), String(a.ol)]),
    );
    expect((await patch(a.pKey, { ol: a.ol, priority: 'HIGH' })).ol).toBe(a.ol + 1);
    await refused(() => patchReply(a.pKey, { ol: a.ol, priority: 'LOW' }), apiError(409, 'core.optimistic.lock'));
  });
});

// ---- cancel ----------------------------------------------------------------------

describe('DELETE /v1/transport-orders/{pKey} cancels', () => {
  it('a STARTED order: 200 with the CANCELED order (endDate, no change links)', async () => {
    const barcode = await newUnit();
    const a = await create(barcode);
    const from = events.length;
    const o = await cancel(a.pKey);
    expect(o).toMatchObject({ pKey: a.pKey, state: 'CANCELED', ol: a.ol + 1, startDate: a.startDate });
    expect(o.endDate).toMatch(ISO_MS);
    expect(o.links.map((l) => l.rel).sort()).toEqual(['transport-orders-findbypkey', 'transport-unit']);
    expect(eventTypesSince(from)).toEqual(['transportOrder.canceled']);
    expect(await read(a.pKey)).toEqual(o);
  });

  it('a queued order: the running one goes on', async () => {
    const barcode = await newUnit();
    const a = await create(barcode);
    const b = await create(barcode, { targetLocation: L_OTHER });
    const o = await cancel(b.pKey);
    expect(o.state).toBe('CANCELED');
    expect(o).not.toHaveProperty('startDate');
    expect(await stateOf(a.pKey)).toBe('STARTED');
  });

  it('refuses an ended order (409 svc.tms.to.endedNotCancelled) and an unknown one (404 not.found)', async () => {
    for (const state of ENDED) {
      const ended = await orderIn(state);
      await refused(() => wms.del(`${TO}/${ended.pKey}`), apiError(409, 'svc.tms.to.endedNotCancelled', state, [ended.pKey, state]));
    }
    await refused(() => wms.del(`${TO}/no-such-order`), apiError(404, 'not.found', 'no-such-order'));
  });
});

// ---- names and deleted units ---------------------------------------------------------

describe('the transport unit', () => {
  it('a renamed unit shows its new barcode in its orders, which are found by it', async () => {
    const barcode = await newUnit();
    const a = await create(barcode);
    const renamed = `${barcode}-R`;
    const reply = await wms.put(`${TU}?bk=${barcode}`, { barcode: renamed });
    expect(reply.status, reply.text).toBe(200);
    expect((await read(a.pKey)).transportUnitBK).toBe(renamed);
    expect(keys(await ofUnit(renamed))).toEqual([a.pKey]);
    // Its orders still follow its moves.
    await move(renamed, L_ZONE);
    expect(await stateOf(a.pKey)).toBe('FINISHED');
  });

  it("a deleted unit's open orders are CANCELED with a message; they are still found by its barcode", async () => {
    const barcode = await newUnit();
    const a = await create(barcode);
    const b = await create(barcode, { targetLocation: L_OTHER });
    const done = await create(await newUnit(), { targetLocation: L_WH });
    const tu = await unit(barcode);
    const from = events.length;
    expect((await wms.del(`${TU}/${tu.pKey}`)).status).toBe(204);
    expect(eventsSince(from)).toEqual([`transportOrder.canceled ${b.pKey}`, `transportOrder.canceled ${a.pKey}`]);
    const orders = await ofUnit(barcode);
    expect(keys(orders)).toEqual([a.pKey, b.pKey]);
    for (const o of orders) {
      expect(o.state).toBe('CANCELED');
      expect(o.message).toBe(`TransportUnit [${barcode}] was deleted`);
      expect(o.transportUnitBK).toBe(barcode);
    }
    expect(await stateOf(done.pKey)).toBe('STARTED');
  });
});

// ---- the service for the PLC adapter and routing -------------------------------------------

describe('the targets of open orders', () => {
  const L_TMP = 'TOT/0001/0001/0000/0000'; // in TO-OTHER
  const G_TMP = 'TO-TMP'; // empty

  it('cannot be deleted while an order is open (409 …inUse); once it has ended they can, and it keeps their names', async () => {
    const location = await wms.post('/v1/locations', { locationId: L_TMP, locationGroupName: 'TO-OTHER' });
    expect(location.status, location.text).toBe(201);
    const group = await wms.post('/v1/location-groups', { name: G_TMP, parentName: 'WAREHOUSE' });
    expect(group.status, group.text).toBe(201);
    const barcode = await newUnit();
    const toLocation = await create(barcode, { targetLocation: L_TMP });
    const toGroup = await create(barcode, { targetLocationGroup: G_TMP });
    expect([toLocation.state, toGroup.state]).toEqual(['STARTED', 'INITIALIZED']);

    const deleteLocation = () => wms.del(`/v1/locations/${location.body.pKey}`);
    const deleteGroup = () => wms.del(`/v1/location-groups/${group.body.pKey}`);
    await refused(deleteLocation, apiError(409, 'svc.common.common.loc.inUse', L_TMP, [L_TMP]));
    await refused(deleteGroup, apiError(409, 'svc.common.common.lg.inUse', G_TMP, [G_TMP]));

    await cancel(toLocation.pKey);
    expect(await stateOf(toGroup.pKey)).toBe('STARTED');
    expect((await deleteLocation()).status).toBe(204);
    await refused(deleteGroup, apiError(409, 'svc.common.common.lg.inUse', G_TMP, [G_TMP]));
    await cancel(toGroup.pKey);
    expect((await deleteGroup()).status).toBe(204);

    expect(await read(toLocation.pKey)).toMatchObject({ state: 'CANCELED', targetLocation: L_TMP });
    expect(await read(toGroup.pKey)).toMatchObject({ state: 'CANCELED', targetLocationGroup: G_TMP });
  });
});

describe('service functions for callers with their own transaction', () => {
  it("startedOrderOf: the STARTED order's key, source and target; none for a free or unknown unit", async () => {
    const orders = wms.app.module('transport-orders');
    const barcode = await newUnit();
    expect(orders.startedOrderOf(barcode)).toBeUndefined();
    expect(orders.startedOrderOf('TO-NO-SUCH-TU')).toBeUndefined();
    const a = await create(barcode, { targetLocation: L_SUB, targetLocationGroup: 'TO-ZONE' });
    await create(barcode, { targetLocation: L_OTHER });
    expect(orders.startedOrderOf(barcode)).toEqual({
      pKey: a.pKey,
      sourceLocation: a.sourceLocation,
      targetLocation: L_SUB,
      targetLocationGroup: 'TO-ZONE',
    });
    const g = await create(await newUnit(), { targetLocationGroup: 'TO-ZONE' });
    expect(orders.startedOrderOf(g.transportUnitBK)).toEqual({
      pKey: g.pKey,
      sourceLocation: g.sourceLocation,
      targetLocation: null,
      targetLocationGroup: 'TO-ZONE',
    });
  });

  it("a unit booked inside a caller's unit of work settles its orders there; the events follow the commit", async () => {
    const { work } = wms.app;
    const common = wms.app.module('common');
    const orders = wms.app.module('transport-orders');
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const b = await create(barcode, { targetLocation: L_OTHER });
    const from = events.length;
    // As the PLC adapter does for one telegram: book the unit and look at its orders in one unit of work.
    const inside = work.run(() => {
      const moved = common.transportUnits.moveTo(common.transportUnits.byBarcode(barcode), common.locations.resolve(L_ZONE));
      return { moved, a: orders.byPKey(a.pKey).state, b: orders.byPKey(b.pKey).state, delivered: events.length };
    });
    expect(inside).toEqual({ moved: true, a: 'FINISHED', b: 'STARTED', delivered: from }); // settled inside, nothing delivered yet
    expect(eventsSince(from)).toEqual([`transportOrder.finished ${a.pKey}`, `transportOrder.started ${b.pKey}`]);
    expect(await stateOf(b.pKey)).toBe('STARTED');
  });

  it('the booking and its orders roll back with the caller; a location that is no target changes no order', async () => {
    const { work } = wms.app;
    const common = wms.app.module('common');
    const barcode = await newUnit();
    const a = await create(barcode, { targetLocation: L_ZONE });
    const before = await snapshot();
    const from = events.length;
    expect(() =>
      work.run(() => {
        common.transportUnits.moveTo(common.transportUnits.byBarcode(barcode), common.locations.resolve(L_ZONE));
        throw new Error('telegram refused');
      }),
    ).toThrow('telegram refused');
    expect(await snapshot()).toEqual(before);
    expect(events.length).toBe(from);
    expect(work.run(() => common.transportUnits.moveTo(common.transportUnits.byBarcode(barcode), common.locations.resolve(L_WH)))).toBe(true);
    expect(eventTypesSince(from)).toEqual([]);
    expect(await stateOf(a.pKey)).toBe('STARTED');
  });

  it('recordProblem sets the message in the running unit of work; an ended order refuses it', async () => {
    const { work } = wms.app;
    const orders = wms.app.module('transport-orders');
    const a = await create(await newUnit());
    const from = events.length;
    const delivered = work.run(() => {
      orders.recordProblem(a.pKey, `no route at ${SRC}`);
      return events.length;
    });
    expect(delivered).toBe(from);
    expect(eventTypesSince(from)).toEqual(['transportOrder.changed']);
    expect(events.at(-1)!.data).toMatchObject({ fields: ['message'], message: `no route at ${SRC}` });
    expect((await read(a.pKey)).message).toBe(`no route at ${SRC}`);
    const ended = await orderIn('FINISHED');
    expect(() => orders.recordProblem(ended.pKey, 'late')).toThrow(/has ended/);
  });
});

// ---- grants ----------------------------------------------------------------------

describe('grants', () => {
  let readerToken: string;
  beforeAll(async () => {
    const role = await wms.post('/roles', { name: 'TO-READER', grants: ['transport-orders:read'] });
    expect(role.status, role.text).toBe(201);
    const user = await wms.post('/users', { username: 'to-reader', password: 'to-reader-password', roleNames: ['TO-READER'] });
    expect(user.status, user.text).toBe(201);
    const login = await wms.post('/oauth/token', { grant_type: 'password', username: 'to-reader', password: 'to-reader-password' }, { anonymous: true });
    expect(login.status, login.text).toBe(200);
    readerToken = login.body.access_token;
  });

  it('reads with transport-orders:read and needs transport-orders:write to change', async () => {
    const barcode = await newUnit();
    const a = await create(barcode);
    const token = readerToken;
    for (const path of [`${TO}/index`, TO, `${TO}/${a.pKey}`, `${TO}?barcode=${barcode}`, `${TO}?state=STARTED`, `${TO}?barcode=${barcode}&state=STARTED`]) {
      expect((await wms.get(path, { token })).status, path).toBe(200);
    }
    for (const send of [
      () => wms.post(TO, { barcode, targetLocation: L_OTHER }, { token }),
      () => wms.patch(`${TO}/${a.pKey}`, { priority: 'HIGH' }, { token }),
      () => wms.del(`${TO}/${a.pKey}`, { token }),
    ]) {
      const reply = await refused(send, (r) => expectServerError(r, 403));
      expect(reply.body.message).toContain('transport-orders:write');
    }
  });

  it('refuses a request without a token with 401', async () => {
    await refused(
      () => wms.get(TO, { anonymous: true }),
      (r) => expectServerError(r, 401),
    );
  });
});
