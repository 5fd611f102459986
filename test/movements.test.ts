import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { apiError, recordEvents, refusal, validation } from './support/expect.ts';

// Movements module (docs/movements.md, "States and transitions /
// Movement", endpoints "Movements"; decisions in docs/movements.md), black-box over
// real HTTP. Every refused request is shown to change nothing: all movements, all
// transport units and all locations read the same after it as before.

const MOVEMENT_TYPE = 'application/vnd.vendor.movements.movement-v1+json';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TU = '/v1/transport-units';
const MV = '/v1/movements';

// Topology: WAREHOUSE ⊃ MV-ZONE ⊃ MV-SUB; WAREHOUSE ⊃ MV-OTHER.
const SRC_SUB = 'MVA/0001/0001/0000/0000'; // in MV-SUB
const SRC_ZONE = 'MVA/0002/0001/0000/0000'; // in MV-ZONE
const SRC_OTHER = 'MVA/0003/0001/0000/0000'; // in MV-OTHER
const DST_1 = 'MVB/0001/0001/0000/0000'; // in MV-ZONE, erpCode MV-ERP-1
const DST_2 = 'MVB/0002/0001/0000/0000'; // in WAREHOUSE
const LOC_UNKNOWN = 'MVX/9999/9999/9999/9999';

interface Movement {
  pKey: string;
  ol: number;
  createDt: string;
  lastModifiedDt: string;
  links: { rel: string; href: string }[];
  transportUnitBk: string;
  type: string;
  initiator?: string;
  mode: string;
  sku?: string;
  priority: number;
  state: string;
  sourceLocation: string;
  sourceLocationGroupName: string;
  target: string;
  targetLocationGroup: string;
  startedAt?: string;
  latestDueAt?: string;
  finishedAt?: string;
  createdAt: string;
}

let wms: TestAppliance;
const events: RecordedEvent[] = [];

beforeAll(async () => {
  wms = await startTestAppliance();
  recordEvents(wms, events, (event) => event.type.startsWith('movement.') || event.type === 'transportUnit.moved');
  for (const [name, parentName] of [
    ['MV-ZONE', 'WAREHOUSE'],
    ['MV-SUB', 'MV-ZONE'],
    ['MV-OTHER', 'WAREHOUSE'],
    ['MV-EMPTY', 'WAREHOUSE'],
  ]) {
    const reply = await wms.post('/v1/location-groups', { name, parentName });
    expect(reply.status, reply.text).toBe(201);
  }
  for (const [locationId, locationGroupName, erpCode] of [
    [SRC_SUB, 'MV-SUB'],
    [SRC_ZONE, 'MV-ZONE'],
    [SRC_OTHER, 'MV-OTHER'],
    [DST_1, 'MV-ZONE', 'MV-ERP-1'],
    [DST_2, 'WAREHOUSE'],
  ]) {
    const reply = await wms.post('/v1/locations', { locationId, locationGroupName, ...(erpCode ? { erpCode } : {}) });
    expect(reply.status, reply.text).toBe(201);
  }
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

const q = encodeURIComponent;
let counter = 0;

/** A new transport unit on a location; returns its barcode. */
async function newUnit(location = SRC_SUB): Promise<string> {
  const barcode = `MV-TU-${String(++counter).padStart(4, '0')}`;
  const reply = await wms.post(TU, { barcode, actualLocation: location, transportUnitType: 'EURO' });
  expect(reply.status, reply.text).toBe(201);
  return barcode;
}

const createReply = (barcode: string, body: unknown) => wms.post(`${TU}/${q(barcode)}/movements`, body);

async function create(barcode: string, body: Record<string, unknown> = {}): Promise<Movement> {
  const reply = await createReply(barcode, { sourceLocation: SRC_SUB, target: DST_1, ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function read(pKey: string): Promise<Movement> {
  const reply = await wms.get(`${MV}/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function unit(barcode: string): Promise<Record<string, any>> {
  const reply = await wms.get(`${TU}?bk=${q(barcode)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function list(path: string): Promise<Movement[]> {
  const reply = await wms.get(path);
  expect(reply.status, reply.text).toBe(200);
  expect(Array.isArray(reply.body)).toBe(true);
  return reply.body;
}

const keys = (movements: Movement[]) => movements.map((m) => m.pKey);

const activate = async (pKey: string): Promise<Movement> => {
  const reply = await wms.patch(`${MV}/${pKey}`, { state: 'ACTIVE' });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
};

const cancel = async (pKey: string): Promise<Movement> => {
  const reply = await wms.del(`${MV}/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
};

const completeReply = (pKey: string, body?: unknown) => wms.post(`${MV}/${pKey}/complete`, body);

async function complete(pKey: string, body?: unknown): Promise<Movement> {
  const reply = await completeReply(pKey, body);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Every movement, transport unit and location as the API shows them. */
async function snapshot() {
  const [movements, units, locations] = await Promise.all([wms.get(MV), wms.get(TU), wms.get('/v1/locations')]);
  for (const r of [movements, units, locations]) expect(r.status, r.text).toBe(200);
  return { movements: movements.body, units: units.body, locations: locations.body };
}

/** Sends a request that must be refused and proves that nothing changed. */
const refused = refusal({ state: snapshot, events });

const rawJson = (method: string, path: string, text: string) => wms.request(method, path, { raw: text, headers: { 'Content-Type': 'application/json' } });

/** Events published since `from`, as type list. */
const eventTypesSince = (from: number) => events.slice(from).map((e) => e.type);

// ---- index ------------------------------------------------------------------

describe('GET /v1/movements/index and the entry index', () => {
  it('names exactly the operations of the spec plus movement-findByPKey', async () => {
    const reply = await wms.get(`${MV}/index`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    expect(Object.keys(links).sort()).toEqual(
      [
        'movement-create',
        'movement-findAll',
        'movement-findForTuAndTypesAndStates',
        'movement-findForStateAndTypesAndSource',
        'movement-move',
        'movement-cancel',
        'movement-complete',
        'movement-findByPKey',
      ].sort(),
    );
    expect(links['movement-create']!.href).toBe(`${wms.url}/v1/transport-units/{transportUnitBK}/movements`);
    expect(links['movement-findAll']!.href).toBe(`${wms.url}/v1/movements`);
    expect(links['movement-findForTuAndTypesAndStates']!.href).toBe(`${wms.url}/v1/movements?barcode={barcode}&types={types}&states={states}`);
    expect(links['movement-findForStateAndTypesAndSource']!.href).toBe(`${wms.url}/v1/movements?state={state}&types={types}&source={source}`);
    expect(links['movement-move']!.href).toBe(`${wms.url}/v1/movements/{pKey}`);
    expect(links['movement-cancel']!.href).toBe(`${wms.url}/v1/movements/{pKey}`);
    expect(links['movement-complete']!.href).toBe(`${wms.url}/v1/movements/{pKey}/complete`);
    expect(links['movement-findByPKey']!.href).toBe(`${wms.url}/v1/movements/{pKey}`);
  });

  it('answers the index as XML when asked', async () => {
    const reply = await wms.get(`${MV}/index`, { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('rel="movement-findForStateAndTypesAndSource"');
  });

  it('links the module index from the public entry index as movement-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['movement-index']).toEqual({ href: `${wms.url}/v1/movements/index` });
  });
});

// ---- create -----------------------------------------------------------------

describe('POST /v1/transport-units/{transportUnitBK}/movements', () => {
  it('creates an INACTIVE movement with the defaults: 201, Location, the Movement', async () => {
    const barcode = await newUnit();
    const from = events.length;
    const reply = await createReply(barcode, { sourceLocation: SRC_SUB, target: DST_1 });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const m = reply.body as Movement;
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/transport-units/${barcode}/movements/${m.pKey}`);
    expect(m).toMatchObject({
      ol: 0,
      transportUnitBk: barcode,
      type: 'MANUAL',
      mode: 'MANUAL',
      priority: 50,
      state: 'INACTIVE',
      sourceLocation: SRC_SUB,
      sourceLocationGroupName: 'MV-SUB',
      target: DST_1,
      targetLocationGroup: 'MV-ZONE',
    });
    expect(m.createdAt).toMatch(ISO_MS);
    expect(m.createDt).toBe(m.createdAt);
    expect(m.lastModifiedDt).toMatch(ISO_MS);
    for (const absent of ['initiator', 'sku', 'startedAt', 'latestDueAt', 'finishedAt']) expect(m).not.toHaveProperty(absent);
    expect(m.links.map((l) => l.rel).sort()).toEqual(['movement-cancel', 'movement-complete', 'movement-findByPKey', 'movement-move', 'transport-unit'].sort());
    expect(m.links.find((l) => l.rel === 'movement-findByPKey')!.href).toBe(`${wms.url}/v1/movements/${m.pKey}`);
    expect(m.links.find((l) => l.rel === 'transport-unit')!.href).toBe(`${wms.url}/v1/transport-units?bk=${barcode}`);
    expect(eventTypesSince(from)).toEqual(['movement.created']);
    expect(events.at(-1)!.data).toMatchObject({ pKey: m.pKey, transportUnitBk: barcode, state: 'INACTIVE' });

    // The Location answers with the same movement, and so does the pKey lookup.
    const atLocation = await wms.get(`${TU}/${barcode}/movements/${m.pKey}`);
    expect(atLocation.status, atLocation.text).toBe(200);
    expect(atLocation.body).toEqual(m);
    expect(await read(m.pKey)).toEqual(m);
    // The unit was not moved by the creation.
    expect((await unit(barcode)).actualLocation).toBe(SRC_SUB);
  });

  it('takes every optional field; dates with 0, 3 or 9 fractional digits or an offset', async () => {
    const barcode = await newUnit();
    const m = await create(barcode, {
      transportUnitBk: barcode,
      initiator: 'ERP',
      mode: 'AUTOMATIC',
      type: 'REPLENISHMENT',
      priority: 10,
      sku: 'SKU-4711',
      latestDueAt: '2031-05-06T07:08:09Z',
      target: 'MV-ZONE',
    });
    expect(m).toMatchObject({
      initiator: 'ERP',
      mode: 'AUTOMATIC',
      type: 'REPLENISHMENT',
      priority: 10,
      sku: 'SKU-4711',
      latestDueAt: '2031-05-06T07:08:09.000Z',
      target: 'MV-ZONE',
      targetLocationGroup: 'MV-ZONE',
      state: 'INACTIVE',
    });
    expect((await create(barcode, { latestDueAt: '2031-05-06T07:08:09.123456789Z' })).latestDueAt).toBe('2031-05-06T07:08:09.123Z');
    expect((await create(barcode, { latestDueAt: '2031-05-06T07:08:09.120Z' })).latestDueAt).toBe('2031-05-06T07:08:09.120Z');
    expect((await create(barcode, { latestDueAt: '2031-05-06T09:08:09+02:00' })).latestDueAt).toBe('2031-05-06T07:08:09.000Z');
    // Priority 0 (first of all) is a priority.
    expect((await create(barcode, { priority: 0 })).priority).toBe(0);
  });

  it('accepts every movement type and a target location in the root group', async () => {
    const barcode = await newUnit();
    for (const type of ['INBOUND', 'OUTBOUND', 'REPLENISHMENT', 'RELOCATION', 'MANUAL']) {
      expect((await create(barcode, { type, target: DST_2 })).type).toBe(type);
    }
    expect((await create(barcode, { target: DST_2 })).targetLocationGroup).toBe('WAREHOUSE');
  });

  it('answers the vendor media type when asked for it', async () => {
    const barcode = await newUnit();
    const reply = await wms.post(`${TU}/${barcode}/movements`, { sourceLocation: SRC_SUB, target: DST_1 }, { headers: { Accept: MOVEMENT_TYPE } });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(new RegExp(`^${MOVEMENT_TYPE.replace(/[.+]/g, '\\$&')}`));
  });

  describe('refuses, changing nothing', () => {
    let barcode: string;
    beforeAll(async () => {
      barcode = await newUnit();
    });

    it('an unknown transport unit: 404 svc.common.common.tu.notFoundByBK', async () => {
      await refused(
        () => createReply('MV-NO-SUCH-TU', { sourceLocation: SRC_SUB, target: DST_1 }),
        apiError(404, 'svc.common.common.tu.notFoundByBK', 'MV-NO-SUCH-TU', ['MV-NO-SUCH-TU']),
      );
    });

    it('an unknown source location: 404 svc.common.common.loc.notFoundByName', async () => {
      await refused(
        () => createReply(barcode, { sourceLocation: LOC_UNKNOWN, target: DST_1 }),
        apiError(404, 'svc.common.common.loc.notFoundByName', LOC_UNKNOWN, [LOC_UNKNOWN]),
      );
      // A group is not a source location.
      await refused(
        () => createReply(barcode, { sourceLocation: 'MV-ZONE', target: DST_1 }),
        apiError(404, 'svc.common.common.loc.notFoundByName', 'MV-ZONE', ['MV-ZONE']),
      );
    });

    it('an unknown target: the location key for a coordinate, the group key for a name', async () => {
      await refused(
        () => createReply(barcode, { sourceLocation: SRC_SUB, target: LOC_UNKNOWN }),
        apiError(404, 'svc.common.common.loc.notFoundByName', LOC_UNKNOWN, [LOC_UNKNOWN]),
      );
      await refused(
        () => createReply(barcode, { sourceLocation: SRC_SUB, target: 'MV-NO-GROUP' }),
        apiError(404, 'svc.common.common.lg.notFoundByName', 'MV-NO-GROUP', ['MV-NO-GROUP']),
      );
    });

    it('a missing sourceLocation or target', async () => {
      await refused(() => createReply(barcode, { target: DST_1 }), validation('sourceLocation'));
      await refused(() => createReply(barcode, { sourceLocation: SRC_SUB }), validation('target'));
      await refused(() => createReply(barcode, { sourceLocation: '', target: DST_1 }), validation('sourceLocation'));
      await refused(() => createReply(barcode, { sourceLocation: SRC_SUB, target: null }), validation('target'));
    });

    it('a transportUnitBk that differs from the path', async () => {
      const other = await newUnit();
      await refused(() => createReply(barcode, { sourceLocation: SRC_SUB, target: DST_1, transportUnitBk: other }), validation('transportUnitBk'));
    });

    it('unknown type or mode values', async () => {
      await refused(() => createReply(barcode, { sourceLocation: SRC_SUB, target: DST_1, type: 'TELEPORT' }), validation('type'));
      await refused(() => createReply(barcode, { sourceLocation: SRC_SUB, target: DST_1, mode: 'manual' }), validation('mode'));
    });

    it('a negative, fractional or textual priority', async () => {
      for (const priority of [-1, 1.5, '10', null]) {
        await refused(() => createReply(barcode, { sourceLocation: SRC_SUB, target: DST_1, priority }), validation('priority'));
      }
    });

    it('malformed timestamps', async () => {
      for (const latestDueAt of ['2031-13-01T00:00:00Z', '2031-02-30T00:00:00Z', '2031-05-06T07:08:09', 'tomorrow', '2031-05-06', 1700000000000]) {
        await refused(() => createReply(barcode, { sourceLocation: SRC_SUB, target: DST_1, latestDueAt }), validation('latestDueAt'));
      }
    });

    it('malformed JSON or no body', async () => {
      await refused(
        () => rawJson('POST', `${TU}/${barcode}/movements`, '{"sourceLocation": '),
        (r) => expectServerError(r, 400),
      );
      await refused(() => wms.post(`${TU}/${barcode}/movements`), validation('body'));
      await refused(() => createReply(barcode, [SRC_SUB, DST_1]), apiError(400, 'core.validation.error'));
    });
  });
});

// ---- lookups ----------------------------------------------------------------

describe('GET /v1/movements and its lookups', () => {
  it('finds a movement by pKey; an unknown pKey is 404 not.found', async () => {
    const m = await create(await newUnit());
    expect((await read(m.pKey)).pKey).toBe(m.pKey);
    await refused(() => wms.get(`${MV}/no-such-movement`), apiError(404, 'not.found', 'no-such-movement'));
  });

  it('answers the Location of another unit with 404', async () => {
    const m = await create(await newUnit());
    const other = await newUnit();
    expectApiError(await wms.get(`${TU}/${other}/movements/${m.pKey}`), 404, 'not.found');
  });

  it('lists all movements, oldest first, as a JSON array', async () => {
    const a = await create(await newUnit());
    const b = await create(await newUnit());
    const reply = await wms.get(MV);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    const all = keys(reply.body);
    expect(all.indexOf(a.pKey)).toBeGreaterThanOrEqual(0);
    expect(all.indexOf(a.pKey)).toBeLessThan(all.indexOf(b.pKey));
  });

  it('refuses parameters that select no lookup instead of ignoring them', async () => {
    await refused(() => wms.get(`${MV}?barcodes=X`), validation('unknown parameter(s) barcodes'));
    // Without state= the source lookup is not selected; the list of all does not take filters.
    await refused(() => wms.get(`${MV}?types=INBOUND&source=MV-ZONE`), validation('unknown parameter(s) types, source'));
    await refused(() => wms.get(`${MV}?barcode=X&state=ACTIVE`), validation('unknown parameter(s) state'));
  });

  describe('?barcode=&types=&states=', () => {
    let barcode: string;
    let inbound: Movement;
    let outbound: Movement;
    let active: Movement;
    let done: Movement;
    beforeAll(async () => {
      barcode = await newUnit();
      await create(await newUnit(), { type: 'INBOUND' }); // another unit's
      inbound = await create(barcode, { type: 'INBOUND' });
      outbound = await create(barcode, { type: 'OUTBOUND' });
      active = await activate((await create(barcode, { type: 'INBOUND' })).pKey);
      done = await complete((await create(barcode, { type: 'RELOCATION' })).pKey, { target: SRC_SUB });
    });

    it('lists the unit movements of those types in those states', async () => {
      expect(keys(await list(`${MV}?barcode=${barcode}&types=INBOUND&states=INACTIVE`))).toEqual([inbound.pKey]);
      expect(keys(await list(`${MV}?barcode=${barcode}&types=INBOUND,OUTBOUND&states=INACTIVE,ACTIVE`))).toEqual([inbound.pKey, outbound.pKey, active.pKey]);
      expect(keys(await list(`${MV}?barcode=${barcode}&types=INBOUND,RELOCATION&states=DONE`))).toEqual([done.pKey]);
      // Repeated parameters and blanks around the commas work too.
      expect(keys(await list(`${MV}?barcode=${barcode}&types=INBOUND&types=OUTBOUND&states=${q('INACTIVE, ACTIVE')}`))).toEqual([
        inbound.pKey,
        outbound.pKey,
        active.pKey,
      ]);
    });

    it('without (or with empty) types or states: any', async () => {
      expect(keys(await list(`${MV}?barcode=${barcode}`))).toEqual([inbound.pKey, outbound.pKey, active.pKey, done.pKey]);
      expect(keys(await list(`${MV}?barcode=${barcode}&types=&states=ACTIVE`))).toEqual([active.pKey]);
    });

    it('answers an empty array when nothing matches or the barcode names no unit', async () => {
      expect(await list(`${MV}?barcode=${barcode}&types=REPLENISHMENT&states=INACTIVE`)).toEqual([]);
      expect(await list(`${MV}?barcode=MV-NOBODY&types=INBOUND&states=INACTIVE`)).toEqual([]);
    });

    it('refuses unknown enumeration values with 400', async () => {
      await refused(() => wms.get(`${MV}?barcode=${barcode}&types=INBOUND,TELEPORT&states=INACTIVE`), validation('TELEPORT'));
      await refused(() => wms.get(`${MV}?barcode=${barcode}&types=INBOUND&states=inactive`), validation('states'));
      await refused(() => wms.get(`${MV}?barcode=${barcode}&types=INBOUND&states=FINISHED`), validation('FINISHED'));
    });
  });

  describe('?state=&types=&source=', () => {
    let sub: Movement;
    let zone: Movement;
    let other: Movement;
    let urgent: Movement;
    let outbound: Movement;
    beforeAll(async () => {
      // Fresh source locations keep earlier tests' movements out of these lists.
      for (const [locationId, group] of [
        ['MVS/0001/0001/0000/0000', 'MV-SUB'],
        ['MVS/0002/0001/0000/0000', 'MV-ZONE'],
        ['MVS/0003/0001/0000/0000', 'MV-OTHER'],
      ]) {
        const reply = await wms.post('/v1/locations', { locationId, locationGroupName: group });
        expect(reply.status, reply.text).toBe(201);
      }
      const tu = await newUnit();
      sub = await create(tu, { sourceLocation: 'MVS/0001/0001/0000/0000', type: 'INBOUND' });
      zone = await create(tu, { sourceLocation: 'MVS/0002/0001/0000/0000', type: 'INBOUND', latestDueAt: '2030-01-01T00:00:00Z' });
      other = await create(tu, { sourceLocation: 'MVS/0003/0001/0000/0000', type: 'INBOUND' });
      urgent = await create(tu, { sourceLocation: 'MVS/0001/0001/0000/0000', type: 'INBOUND', priority: 5 });
      outbound = await create(tu, { sourceLocation: 'MVS/0002/0001/0000/0000', type: 'OUTBOUND' });
    });

    /** Only this block's movements: other tests create movements from the same groups. */
    const ours = async (path: string) => keys(await list(path)).filter((k) => [sub, zone, other, urgent, outbound].some((m) => m.pKey === k));

    it('a group source matches sources in it and in the groups below it, in work order', async () => {
      // priority 5 first; then priority 50: the one due earliest, then the older one.
      expect(await ours(`${MV}?state=INACTIVE&types=INBOUND&source=MV-ZONE`)).toEqual([urgent.pKey, zone.pKey, sub.pKey]);
      expect(await ours(`${MV}?state=INACTIVE&types=INBOUND&source=MV-SUB`)).toEqual([urgent.pKey, sub.pKey]);
      expect(await ours(`${MV}?state=INACTIVE&types=INBOUND,OUTBOUND&source=MV-OTHER`)).toEqual([other.pKey]);
      // Without types: any type; without source: any source.
      expect(await ours(`${MV}?state=INACTIVE&source=MV-ZONE`)).toEqual([urgent.pKey, zone.pKey, sub.pKey, outbound.pKey]);
      expect(await ours(`${MV}?state=INACTIVE&types=INBOUND`)).toEqual([urgent.pKey, zone.pKey, sub.pKey, other.pKey]);
    });

    it('a coordinate source matches that location only', async () => {
      expect(keys(await list(`${MV}?state=INACTIVE&types=INBOUND,OUTBOUND&source=${q('MVS/0002/0001/0000/0000')}`))).toEqual([zone.pKey, outbound.pKey]);
    });

    it('matches the states asked for only', async () => {
      await activate(outbound.pKey);
      expect(await ours(`${MV}?state=ACTIVE&types=OUTBOUND&source=MV-ZONE`)).toEqual([outbound.pKey]);
      expect(await ours(`${MV}?state=INACTIVE&types=OUTBOUND&source=MV-ZONE`)).toEqual([]);
      expect(await ours(`${MV}?state=INACTIVE,ACTIVE&types=OUTBOUND&source=MV-ZONE`)).toEqual([outbound.pKey]);
    });

    it('answers an empty array for a source that names nothing or an empty group', async () => {
      expect(await list(`${MV}?state=INACTIVE&types=INBOUND&source=MV-NO-GROUP`)).toEqual([]);
      expect(await list(`${MV}?state=INACTIVE&types=INBOUND&source=${q(LOC_UNKNOWN)}`)).toEqual([]);
      expect(await list(`${MV}?state=INACTIVE&types=INBOUND&source=MV-EMPTY`)).toEqual([]);
    });

    it('refuses unknown enumeration values with 400', async () => {
      await refused(() => wms.get(`${MV}?state=WAITING&types=INBOUND&source=MV-ZONE`), validation('WAITING'));
      await refused(() => wms.get(`${MV}?state=INACTIVE&types=inbound&source=MV-ZONE`), validation('types'));
    });
  });
});

// ---- PATCH ------------------------------------------------------------------

describe('PATCH /v1/movements/{pKey}', () => {
  it('activates a movement (startedAt) and deactivates it again', async () => {
    const m = await create(await newUnit());
    const from = events.length;
    const active = await activate(m.pKey);
    expect(active).toMatchObject({ pKey: m.pKey, state: 'ACTIVE', ol: 1 });
    expect(active.startedAt).toMatch(ISO_MS);
    expect(eventTypesSince(from)).toEqual(['movement.changed']);
    expect(events.at(-1)!.data).toMatchObject({ pKey: m.pKey, from: 'INACTIVE', state: 'ACTIVE', fields: ['state', 'startedAt'] });

    // ACTIVE again changes nothing.
    const again = await wms.patch(`${MV}/${m.pKey}`, { state: 'ACTIVE' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(active);

    const back = await wms.patch(`${MV}/${m.pKey}`, { state: 'INACTIVE', ol: 1 });
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ state: 'INACTIVE', ol: 2 });
    expect(back.body).not.toHaveProperty('startedAt');
  });

  it('changes the other fields; null clears the optional ones', async () => {
    const barcode = await newUnit();
    const m = await create(barcode, { initiator: 'ERP', sku: 'SKU-1', latestDueAt: '2031-01-01T00:00:00.000Z' });
    const reply = await wms.patch(`${MV}/${m.pKey}`, {
      ol: 0,
      mode: 'AUTOMATIC',
      type: 'OUTBOUND',
      priority: 7,
      sourceLocation: SRC_OTHER,
      target: 'MV-SUB',
      initiator: null,
      sku: null,
      latestDueAt: null,
      // echoed read-only fields are ignored
      pKey: 'something-else',
      createdAt: '2000-01-01T00:00:00.000Z',
      links: [],
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      pKey: m.pKey,
      ol: 1,
      mode: 'AUTOMATIC',
      type: 'OUTBOUND',
      priority: 7,
      sourceLocation: SRC_OTHER,
      sourceLocationGroupName: 'MV-OTHER',
      target: 'MV-SUB',
      targetLocationGroup: 'MV-SUB',
      state: 'INACTIVE',
      createdAt: m.createdAt,
    });
    for (const absent of ['initiator', 'sku', 'latestDueAt']) expect(reply.body).not.toHaveProperty(absent);
    // Back to a target location.
    const toLocation = await wms.patch(`${MV}/${m.pKey}`, { target: DST_2, latestDueAt: '2031-01-01T00:00:00+01:00' });
    expect(toLocation.body).toMatchObject({ target: DST_2, targetLocationGroup: 'WAREHOUSE', latestDueAt: '2030-12-31T23:00:00.000Z', ol: 2 });
  });

  it('moves the movement to another transport unit', async () => {
    const first = await newUnit();
    const second = await newUnit();
    const m = await create(first);
    const reply = await wms.patch(`${MV}/${m.pKey}`, { transportUnitBk: second });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.transportUnitBk).toBe(second);
    expect(keys(await list(`${MV}?barcode=${second}`))).toEqual([m.pKey]);
    expect(await list(`${MV}?barcode=${first}`)).toEqual([]);
  });

  it('writes nothing for a PATCH that changes nothing', async () => {
    const m = await create(await newUnit(), { priority: 3 });
    const from = events.length;
    for (const body of [{}, { priority: 3, state: 'INACTIVE', sourceLocation: SRC_SUB, target: DST_1, transportUnitBk: m.transportUnitBk }]) {
      const reply = await wms.patch(`${MV}/${m.pKey}`, body);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual(m);
    }
    expect(events.length).toBe(from);
  });

  describe('refuses, changing nothing', () => {
    let m: Movement;
    beforeAll(async () => {
      m = await create(await newUnit());
    });
    const patch = (body: unknown) => () => wms.patch(`${MV}/${m.pKey}`, body);

    it('an unknown pKey: 404 not.found', async () => {
      await refused(() => wms.patch(`${MV}/no-such-movement`, { state: 'ACTIVE' }), apiError(404, 'not.found', 'no-such-movement'));
    });

    it('a stale ol: 409 core.optimistic.lock', async () => {
      await refused(patch({ ol: 5, priority: 1 }), apiError(409, 'core.optimistic.lock'));
    });

    it('DONE or CANCELLED by PATCH: 400 (complete and DELETE do that)', async () => {
      await refused(patch({ state: 'DONE' }), validation('complete'));
      await refused(patch({ state: 'CANCELLED' }), validation('DELETE'));
    });

    it('unknown references: 404 with the key of what is missing', async () => {
      await refused(patch({ sourceLocation: LOC_UNKNOWN }), apiError(404, 'svc.common.common.loc.notFoundByName', LOC_UNKNOWN, [LOC_UNKNOWN]));
      await refused(patch({ target: LOC_UNKNOWN }), apiError(404, 'svc.common.common.loc.notFoundByName', LOC_UNKNOWN));
      await refused(patch({ target: 'MV-NO-GROUP' }), apiError(404, 'svc.common.common.lg.notFoundByName', 'MV-NO-GROUP'));
      await refused(patch({ transportUnitBk: 'MV-NO-SUCH-TU' }), apiError(404, 'svc.common.common.tu.notFoundByBK', 'MV-NO-SUCH-TU', ['MV-NO-SUCH-TU']));
    });

    it('bad values: 400 core.validation.error', async () => {
      await refused(patch({ state: 'RUNNING' }), validation('state'));
      await refused(patch({ type: 'TELEPORT' }), validation('type'));
      await refused(patch({ mode: 'SEMI' }), validation('mode'));
      await refused(patch({ priority: -5 }), validation('priority'));
      await refused(patch({ priority: 2.5 }), validation('priority'));
      await refused(patch({ latestDueAt: '31.12.2031' }), validation('latestDueAt'));
      await refused(patch({ sourceLocation: null }), validation('sourceLocation'));
      await refused(patch({ ol: -1 }), validation('ol'));
    });

    it('malformed JSON or no body', async () => {
      await refused(
        () => rawJson('PATCH', `${MV}/${m.pKey}`, '{state: ACTIVE}'),
        (r) => expectServerError(r, 400),
      );
      await refused(() => wms.patch(`${MV}/${m.pKey}`), validation('body'));
    });

    it('a completed movement: 409 svc.wms.mov.mov.completedNotMoved [pKey]', async () => {
      const done = await complete((await create(await newUnit())).pKey, { target: DST_2 });
      const cancelled = await cancel((await create(await newUnit())).pKey);
      for (const c of [done, cancelled]) {
        for (const body of [{ state: 'ACTIVE' }, { priority: 1 }, { sourceLocation: SRC_OTHER }, {}]) {
          await refused(() => wms.patch(`${MV}/${c.pKey}`, body), apiError(409, 'svc.wms.mov.mov.completedNotMoved', c.pKey, [c.pKey]));
        }
      }
    });
  });
});

// ---- DELETE (cancel) --------------------------------------------------------

describe('DELETE /v1/movements/{pKey}', () => {
  it('cancels an INACTIVE or ACTIVE movement: 200, CANCELLED, finishedAt', async () => {
    const barcode = await newUnit();
    const inactive = await create(barcode);
    const active = await activate((await create(barcode)).pKey);
    for (const m of [inactive, active]) {
      const from = events.length;
      const reply = await wms.del(`${MV}/${m.pKey}`);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({ pKey: m.pKey, state: 'CANCELLED', ol: m.ol + 1 });
      expect(reply.body.finishedAt).toMatch(ISO_MS);
      // A completed movement offers no more actions.
      expect((reply.body as Movement).links.map((l) => l.rel).sort()).toEqual(['movement-findByPKey', 'transport-unit']);
      expect(eventTypesSince(from)).toEqual(['movement.cancelled']);
      expect(events.at(-1)!.data).toMatchObject({ pKey: m.pKey, from: m.state, state: 'CANCELLED' });
      expect(await read(m.pKey)).toEqual(reply.body);
    }
    expect(active.startedAt).toBeDefined();
    expect((await read(active.pKey)).startedAt).toBe(active.startedAt);
    // The unit stays where it is.
    expect((await unit(barcode)).actualLocation).toBe(SRC_SUB);
  });

  it('refuses a CANCELLED or DONE movement with 409 svc.wms.mov.mov.completedNotCancelled, changing nothing', async () => {
    const cancelled = await cancel((await create(await newUnit())).pKey);
    const done = await complete((await create(await newUnit())).pKey);
    for (const m of [cancelled, done]) {
      await refused(() => wms.del(`${MV}/${m.pKey}`), apiError(409, 'svc.wms.mov.mov.completedNotCancelled', m.pKey, [m.pKey]));
    }
  });

  it('refuses an unknown pKey with 404 not.found', async () => {
    await refused(() => wms.del(`${MV}/no-such-movement`), apiError(404, 'not.found', 'no-such-movement'));
  });
});

// ---- complete ---------------------------------------------------------------

describe('POST /v1/movements/{pKey}/complete', () => {
  it('books the unit onto the target given: DONE, finishedAt, target set, the unit moved', async () => {
    const barcode = await newUnit();
    const m = await activate((await create(barcode, { target: 'MV-ZONE' })).pKey);
    const from = events.length;
    const done = await complete(m.pKey, { target: DST_1 });
    expect(done).toMatchObject({ pKey: m.pKey, state: 'DONE', target: DST_1, targetLocationGroup: 'MV-ZONE', startedAt: m.startedAt, ol: m.ol + 1 });
    expect(done.finishedAt).toMatch(ISO_MS);
    expect(done.links.map((l) => l.rel).sort()).toEqual(['movement-findByPKey', 'transport-unit']);
    expect(eventTypesSince(from)).toEqual(['transportUnit.moved', 'movement.completed']);
    expect(events.at(-2)!.data).toMatchObject({ barcode, from: SRC_SUB, to: DST_1 });
    expect(events.at(-1)!.data).toMatchObject({ pKey: m.pKey, from: 'ACTIVE', state: 'DONE', target: DST_1 });
    const tu = await unit(barcode);
    expect(tu.actualLocation).toBe(DST_1);
    expect(Date.parse(tu.actualLocationDate)).toBeGreaterThanOrEqual(Date.parse(m.startedAt!));
  });

  it('takes an ERP code, or targetLocation, or without a body the movement target location', async () => {
    const byErp = await newUnit();
    expect((await complete((await create(byErp)).pKey, { target: 'MV-ERP-1' })).target).toBe(DST_1);
    expect((await unit(byErp)).actualLocation).toBe(DST_1);

    const byAlias = await newUnit();
    expect((await complete((await create(byAlias)).pKey, { targetLocation: DST_2 })).target).toBe(DST_2);
    expect((await unit(byAlias)).actualLocation).toBe(DST_2);

    const byOwn = await newUnit();
    const own = await complete((await create(byOwn, { target: DST_2 })).pKey);
    expect(own).toMatchObject({ state: 'DONE', target: DST_2 });
    expect((await unit(byOwn)).actualLocation).toBe(DST_2);

    const emptyObject = await newUnit();
    expect((await complete((await create(emptyObject, { target: DST_2 })).pKey, {})).target).toBe(DST_2);
  });

  it('completes an INACTIVE movement too (startedAt stays absent)', async () => {
    const barcode = await newUnit();
    const done = await complete((await create(barcode)).pKey, { target: DST_2 });
    expect(done.state).toBe('DONE');
    expect(done).not.toHaveProperty('startedAt');
    expect(events.at(-1)!.data).toMatchObject({ from: 'INACTIVE' });
  });

  it('publishes no move when the unit already stands on the target', async () => {
    const barcode = await newUnit(DST_2);
    const m = await create(barcode, { sourceLocation: DST_2, target: DST_2 });
    const from = events.length;
    await complete(m.pKey, { target: DST_2 });
    expect(eventTypesSince(from)).toEqual(['movement.completed']);
    expect((await unit(barcode)).actualLocation).toBe(DST_2);
  });

  describe('refuses, changing neither the movement nor the unit', () => {
    let barcode: string;
    let m: Movement;
    beforeAll(async () => {
      barcode = await newUnit();
      m = await activate((await create(barcode, { target: 'MV-ZONE' })).pKey);
    });
    const send = (body?: unknown) => () => completeReply(m.pKey, body);

    it('an unknown target location: 404 svc.common.common.loc.notFoundByName', async () => {
      await refused(send({ target: LOC_UNKNOWN }), apiError(404, 'svc.common.common.loc.notFoundByName', LOC_UNKNOWN, [LOC_UNKNOWN]));
      await refused(send({ target: 'MV-NO-SUCH-ERP' }), apiError(404, 'svc.common.common.loc.notFoundByName', 'MV-NO-SUCH-ERP'));
      expect((await unit(barcode)).actualLocation).toBe(SRC_SUB);
      expect((await read(m.pKey)).state).toBe('ACTIVE');
    });

    it('a location group as the place put down, or no target while the movement targets a group: 400', async () => {
      await refused(send({ target: 'MV-ZONE' }), validation('location group'));
      await refused(send(), validation('target'));
      await refused(send({}), validation('target'));
    });

    it('target and targetLocation that differ, bad field types, malformed JSON: 400', async () => {
      await refused(send({ target: DST_1, targetLocation: DST_2 }), validation('targetLocation'));
      await refused(send({ target: 42 }), validation('target'));
      await refused(send({ target: '' }), validation('target'));
      await refused(
        () => rawJson('POST', `${MV}/${m.pKey}/complete`, '{"target":'),
        (r) => expectServerError(r, 400),
      );
    });

    it('a stale ol: 409 core.optimistic.lock', async () => {
      await refused(send({ target: DST_1, ol: m.ol + 3 }), apiError(409, 'core.optimistic.lock'));
    });

    it('an unknown pKey: 404 not.found', async () => {
      await refused(() => completeReply('no-such-movement', { target: DST_1 }), apiError(404, 'not.found', 'no-such-movement'));
    });

    it('a completed movement: 409 svc.wms.mov.mov.completedNotMoved [pKey]', async () => {
      const done = await complete((await create(await newUnit())).pKey, { target: DST_1 });
      const cancelled = await cancel((await create(await newUnit())).pKey);
      for (const c of [done, cancelled]) {
        await refused(() => completeReply(c.pKey, { target: DST_2 }), apiError(409, 'svc.wms.mov.mov.completedNotMoved', c.pKey, [c.pKey]));
      }
    });
  });
});

// ---- the whole flow ---------------------------------------------------------

describe('a movement from creation to completion', () => {
  it('create for a unit, activate, complete to a location: the unit stands there', async () => {
    const barcode = await newUnit(SRC_ZONE);
    const created = await wms.post(`${TU}/${barcode}/movements`, {
      transportUnitBk: barcode,
      sourceLocation: SRC_ZONE,
      target: 'MV-ZONE',
      type: 'RELOCATION',
      initiator: 'operator-7',
    });
    expect(created.status, created.text).toBe(201);
    const pKey = created.body.pKey as string;
    expect(created.body.state).toBe('INACTIVE');

    const active = await wms.patch(`${MV}/${pKey}`, { state: 'ACTIVE', ol: 0 });
    expect(active.status, active.text).toBe(200);
    expect(active.body.state).toBe('ACTIVE');
    expect(keys(await list(`${MV}?state=ACTIVE&types=RELOCATION&source=MV-ZONE`))).toContain(pKey);

    const done = await wms.post(`${MV}/${pKey}/complete`, { target: DST_1, ol: 1 });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ state: 'DONE', target: DST_1, ol: 2 });

    const tu = await wms.get(`${TU}?bk=${barcode}`);
    expect(tu.status).toBe(200);
    expect(tu.body.actualLocation).toBe(DST_1);
    expect(await list(`${MV}?barcode=${barcode}&types=RELOCATION&states=INACTIVE,ACTIVE`)).toEqual([]);
    expect(keys(await list(`${MV}?barcode=${barcode}&types=RELOCATION&states=DONE`))).toEqual([pKey]);
  });
});

// ---- references that change -------------------------------------------------

describe('renamed and deleted references', () => {
  it('shows the current barcode, coordinate and group names', async () => {
    const barcode = await newUnit();
    const m = await create(barcode, { sourceLocation: SRC_ZONE, target: DST_2 });
    const renamed = `${barcode}-R`;
    const put = await wms.put(`${TU}?bk=${barcode}`, { barcode: renamed });
    expect(put.status, put.text).toBe(200);
    const group = await wms.get('/v1/location-groups?name=MV-OTHER');
    const loc = await wms.get(`/v1/locations?locationId=${q(DST_2)}`);
    const moved = await wms.put('/v1/locations', { ...loc.body, locationGroupName: group.body.name });
    expect(moved.status, moved.text).toBe(200);

    const now = await read(m.pKey);
    expect(now).toMatchObject({ transportUnitBk: renamed, target: DST_2, targetLocationGroup: 'MV-OTHER', ol: m.ol });
    expect(keys(await list(`${MV}?barcode=${renamed}`))).toEqual([m.pKey]);
    expect((await wms.get(`${TU}/${renamed}/movements/${m.pKey}`)).status).toBe(200);

    const back = await wms.put('/v1/locations', { ...moved.body, locationGroupName: 'WAREHOUSE' });
    expect(back.status, back.text).toBe(200);
  });

  it('cancels the open movements of a deleted unit and keeps them all under its barcode', async () => {
    const barcode = await newUnit();
    const inactive = await create(barcode);
    const active = await activate((await create(barcode, { target: DST_2 })).pKey);
    const done = await create(barcode, { target: DST_2 });
    expect((await completeReply(done.pKey, {})).status).toBe(200);
    const mark = events.length;

    const tu = await unit(barcode);
    expect((await wms.del(`${TU}/${tu.pKey}`)).status).toBe(204);

    for (const m of [inactive, active]) {
      const now = await read(m.pKey);
      expect(now).toMatchObject({ state: 'CANCELLED', transportUnitBk: barcode });
      expect(now.finishedAt).toMatch(ISO_MS);
    }
    expect((await read(done.pKey)).state).toBe('DONE');
    expect(keys(await list(`${MV}?barcode=${barcode}`))).toEqual([inactive.pKey, active.pKey, done.pKey]);
    const cancelled = events.slice(mark).filter((e) => e.type === 'movement.cancelled');
    expect(cancelled.map((e) => [e.data.pKey, e.data.from, e.reason])).toEqual([
      [inactive.pKey, 'INACTIVE', `TransportUnit [${barcode}] was deleted`],
      [active.pKey, 'ACTIVE', `TransportUnit [${barcode}] was deleted`],
    ]);
    // Ended: neither completed nor cancelled again.
    await refused(() => completeReply(inactive.pKey, { target: DST_1 }), apiError(409, 'svc.wms.mov.mov.completedNotMoved', inactive.pKey, [inactive.pKey]));
    await refused(() => wms.del(`${MV}/${active.pKey}`), apiError(409, 'svc.wms.mov.mov.completedNotCancelled', active.pKey, [active.pKey]));
  });
});

// ---- grants -----------------------------------------------------------------

describe('grants', () => {
  let readerToken: string;
  beforeAll(async () => {
    const role = await wms.post('/roles', { name: 'MV-READER', grants: ['movements:read'] });
    expect(role.status, role.text).toBe(201);
    const user = await wms.post('/users', { username: 'mv-reader', password: 'mv-reader-password', roleNames: ['MV-READER'] });
    expect(user.status, user.text).toBe(201);
    const login = await wms.post('/oauth/token', { grant_type: 'password', username: 'mv-reader', password: 'mv-reader-password' }, { anonymous: true });
    expect(login.status, login.text).toBe(200);
    readerToken = login.body.access_token;
  });

  it('reads with movements:read and needs movements:write to change', async () => {
    const barcode = await newUnit();
    const m = await create(barcode);
    const token = readerToken;
    expect((await wms.get(`${MV}/${m.pKey}`, { token })).status).toBe(200);
    expect((await wms.get(`${MV}/index`, { token })).status).toBe(200);
    for (const send of [
      () => wms.post(`${TU}/${barcode}/movements`, { sourceLocation: SRC_SUB, target: DST_1 }, { token }),
      () => wms.patch(`${MV}/${m.pKey}`, { state: 'ACTIVE' }, { token }),
      () => wms.del(`${MV}/${m.pKey}`, { token }),
      () => wms.post(`${MV}/${m.pKey}/complete`, { target: DST_1 }, { token }),
    ]) {
      const reply = await refused(send, (r) => expectServerError(r, 403));
      expect(reply.body.message).toContain('movements:write');
    }
  });

  it('refuses a request without a token with 401', async () => {
    await refused(
      () => wms.get(MV, { anonymous: true }),
      (r) => expectServerError(r, 401),
    );
  });
});
