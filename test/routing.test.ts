import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, lastOfType, startTestAppliance, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { apiError, recordEvents, refusal, validation } from './support/expect.ts';

// Routing module (docs/routing.md; decisions in
// docs/routing.md), black-box over real HTTP. Every refused request is shown to change
// nothing: all routes, all hops, the default hop table, all locations and all groups
// read the same after it as before, and no event was published.
//
// The transport-orders module is connected by the composition root later; until then
// the appliance routes every unit as one without order. The decision tests with orders
// connect an OrderLookup of their own (a map barcode → STARTED order), the interface the
// transport-orders module implements.

const ROUTE_TYPE = 'application/vnd.vendor.routing.route-v1+json';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const R = '/v1/api/routes';
const DH = '/v1/api/default-hops';
const DECIDE = `${R}/decision`;

// CRUD topology: WAREHOUSE ⊃ RT-ZONE ⊃ RT-IN, RT-CONV, RT-STOCK ⊃ RT-AISLE; WAREHOUSE ⊃ RT-OTHER.
const IN1 = 'RTI/0001/0000/0000/0000'; // RT-IN
const C1 = 'RTC/0001/0000/0000/0000'; // RT-CONV
const C2 = 'RTC/0002/0000/0000/0000'; // RT-CONV
const C3 = 'RTC/0003/0000/0000/0000'; // RT-CONV
const S1 = 'RTS/0001/0000/0000/0000'; // RT-AISLE
const S2 = 'RTS/0002/0000/0000/0000'; // RT-STOCK
const O1 = 'RTO/0001/0000/0000/0000'; // RT-OTHER
const UNKNOWN_LOC = 'RTX/9999/9999/9999/9999';

// Decision topology (kept apart, so that the CRUD routes never match):
// WAREHOUSE ⊃ DX ⊃ DX-IN, DX-CONV, DX-STOCK.
const DIN = 'DXI/0001/0000/0000/0000'; // DX-IN
const DC1 = 'DXC/0001/0000/0000/0000'; // DX-CONV
const DC2 = 'DXC/0002/0000/0000/0000'; // DX-CONV
const DS1 = 'DXS/0001/0000/0000/0000'; // DX-STOCK

let wms: TestAppliance;
const events: RecordedEvent[] = [];

beforeAll(async () => {
  wms = await startTestAppliance();
  recordEvents(wms, events, (event) => /^(route|routing|location|locationGroup)\./.test(event.type));
  for (const [name, parentName] of [
    ['RT-ZONE', 'WAREHOUSE'],
    ['RT-IN', 'RT-ZONE'],
    ['RT-CONV', 'RT-ZONE'],
    ['RT-STOCK', 'RT-ZONE'],
    ['RT-AISLE', 'RT-STOCK'],
    ['RT-OTHER', 'WAREHOUSE'],
    ['DX', 'WAREHOUSE'],
    ['DX-IN', 'DX'],
    ['DX-CONV', 'DX'],
    ['DX-STOCK', 'DX'],
  ]) {
    const reply = await wms.post('/v1/location-groups', { name, parentName });
    expect(reply.status, reply.text).toBe(201);
  }
  for (const [locationId, locationGroupName] of [
    [IN1, 'RT-IN'],
    [C1, 'RT-CONV'],
    [C2, 'RT-CONV'],
    [C3, 'RT-CONV'],
    [S1, 'RT-AISLE'],
    [S2, 'RT-STOCK'],
    [O1, 'RT-OTHER'],
    [DIN, 'DX-IN'],
    [DC1, 'DX-CONV'],
    [DC2, 'DX-CONV'],
    [DS1, 'DX-STOCK'],
  ]) {
    const reply = await wms.post('/v1/locations', { locationId, locationGroupName });
    expect(reply.status, reply.text).toBe(201);
  }
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

const enc = encodeURIComponent;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${String(++counter).padStart(3, '0')}`;

interface RouteBody {
  pKey: string;
  ol: number;
  createDt: string;
  lastModifiedDt: string;
  links: { rel: string; href: string }[];
  name: string;
  description?: string;
  sourceLocationName?: string;
  sourceLocationGroupName?: string;
  targetLocationName?: string;
  targetLocationGroupName?: string;
  key: string;
  enabled: boolean;
}

async function create(body: Record<string, unknown>): Promise<RouteBody> {
  const reply = await wms.post(R, { name: unique('route'), ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function read(key: string): Promise<RouteBody> {
  const reply = await wms.get(`${R}/${enc(key)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function hopsOf(key: string) {
  const reply = await wms.get(`${R}/${enc(key)}/hops`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { pos: number; source: string; next: string }[];
}

async function putHops(key: string, hops: unknown) {
  const reply = await wms.put(`${R}/${enc(key)}/hops`, hops);
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { pos: number; source: string; next: string }[];
}

async function putDefaults(hops: unknown) {
  const reply = await wms.put(DH, hops);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function locationPk(locationId: string): Promise<string> {
  const reply = await wms.get(`/v1/locations?locationId=${enc(locationId)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.pKey;
}

async function groupPk(name: string): Promise<string> {
  const reply = await wms.get(`/v1/location-groups?name=${enc(name)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.pKey;
}

/** Routes, every route's hops, the default table, locations and groups as the API shows them. */
async function snapshot() {
  const [routes, defaults, locations, groups] = await Promise.all([wms.get(R), wms.get(DH), wms.get('/v1/locations'), wms.get('/v1/location-groups')]);
  for (const r of [routes, defaults, locations, groups]) expect(r.status, r.text).toBe(200);
  const hops: Record<string, unknown> = {};
  for (const r of routes.body as RouteBody[]) hops[r.key] = await hopsOf(r.key);
  return { routes: routes.body, hops, defaults: defaults.body, locations: locations.body, groups: groups.body };
}

/** Sends a request that must be refused and proves that nothing changed. */
const refused = refusal({ state: snapshot, events });

const eventTypesSince = (from: number) => events.slice(from).map((e) => e.type);

async function decision(location: string, barcode?: string) {
  const reply = await wms.get(`${DECIDE}?location=${enc(location)}${barcode ? `&barcode=${enc(barcode)}` : ''}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

// ---- index ------------------------------------------------------------------

describe('GET /v1/api/routes/index and the entry index', () => {
  it('names every routing operation', async () => {
    const reply = await wms.get(`${R}/index`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    const expected: Record<string, string> = {
      'routes-create': R,
      'routes-findall': R,
      'routes-findbykey': `${R}/{key}`,
      'routes-update': R,
      'routes-delete': `${R}/{key}`,
      'routes-enable': `${R}/{key}/enable`,
      'routes-disable': `${R}/{key}/disable`,
      'route-hops-find': `${R}/{key}/hops`,
      'route-hops-replace': `${R}/{key}/hops`,
      'default-hops-find': DH,
      'default-hops-replace': DH,
      'routing-decide': `${DECIDE}?location={location}&barcode={barcode}&assumeEnabled={assumeEnabled}`,
    };
    expect(Object.keys(links).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, path] of Object.entries(expected)) expect(links[name]!.href, name).toBe(wms.url + path);
  });

  it('answers the index as XML when asked', async () => {
    const reply = await wms.get(`${R}/index`, { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('rel="routing-decide"');
  });

  it('links the module index from the public entry index as routing-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['routing-index']).toEqual({ href: `${wms.url}${R}/index` });
  });
});

// ---- create -----------------------------------------------------------------

describe('POST /v1/api/routes', () => {
  it('creates a route with the key sent: 201, Location …/v1/api/routes/<key>, absent fields omitted', async () => {
    const from = events.length;
    const reply = await wms.post(R, {
      name: 'IN to STOCK',
      description: 'infeed to the stock aisles',
      sourceLocationGroupName: 'RT-IN',
      targetLocationGroupName: 'RT-STOCK',
      key: 'IN-STOCK',
      enabled: true,
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('location')).toBe(`${wms.url}${R}/IN-STOCK`);
    const r = reply.body as RouteBody;
    expect(r).toMatchObject({
      pKey: 'IN-STOCK',
      key: 'IN-STOCK',
      ol: 0,
      name: 'IN to STOCK',
      description: 'infeed to the stock aisles',
      sourceLocationGroupName: 'RT-IN',
      targetLocationGroupName: 'RT-STOCK',
      enabled: true,
    });
    expect(r.createDt).toMatch(ISO_MS);
    expect(r.lastModifiedDt).toBe(r.createDt);
    for (const absent of ['sourceLocationName', 'targetLocationName']) expect(r).not.toHaveProperty(absent);
    expect(r.links).toEqual([
      { rel: 'routes-findbykey', href: `${wms.url}${R}/IN-STOCK` },
      { rel: 'route-hops-find', href: `${wms.url}${R}/IN-STOCK/hops` },
    ]);
    expect(await read('IN-STOCK')).toEqual(r);
    expect(eventTypesSince(from)).toEqual(['route.created']);
    expect(events.at(-1)!.data).toEqual({ key: 'IN-STOCK', name: 'IN to STOCK', enabled: true });
  });

  it('generates the key when none is sent; the Location uses it; enabled defaults to true', async () => {
    const reply = await wms.post(R, { name: unique('gen'), sourceLocationName: IN1, targetLocationName: S1 });
    expect(reply.status, reply.text).toBe(201);
    const r = reply.body as RouteBody;
    expect(r.key).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(r.pKey).toBe(r.key);
    expect(r.enabled).toBe(true);
    expect(reply.headers.get('location')).toBe(`${wms.url}${R}/${r.key}`);
    expect(r).toMatchObject({ sourceLocationName: IN1, targetLocationName: S1 });
    for (const absent of ['description', 'sourceLocationGroupName', 'targetLocationGroupName']) expect(r).not.toHaveProperty(absent);
  });

  it('creates a route without source (from anywhere), a disabled one, and takes a vendor-typed request', async () => {
    const reply = await wms.request('POST', R, {
      body: { name: unique('anywhere'), targetLocationName: O1, enabled: false },
      headers: { 'Content-Type': ROUTE_TYPE, Accept: ROUTE_TYPE },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(new RegExp(`^${ROUTE_TYPE.replace(/[.+]/g, '\\$&')}`));
    expect(reply.body).toMatchObject({ targetLocationName: O1, enabled: false });
    expect(reply.body).not.toHaveProperty('sourceLocationName');
    expect(reply.body).not.toHaveProperty('sourceLocationGroupName');
  });

  it('ignores echoed read-only fields (pKey, ol, links, dates)', async () => {
    const r = await create({
      key: 'ECHO-1',
      pKey: 'something-else',
      ol: 7,
      createDt: '2020-01-01T00:00:00.000Z',
      links: [],
      targetLocationGroupName: 'RT-OTHER',
    });
    expect(r).toMatchObject({ key: 'ECHO-1', pKey: 'ECHO-1', ol: 0 });
    expect(r.createDt).not.toBe('2020-01-01T00:00:00.000Z');
  });

  it('refuses a taken name: 409 already.exists, nothing changed', async () => {
    const r = await create({ targetLocationName: S2 });
    await refused(() => wms.post(R, { name: r.name, targetLocationName: S1 }), apiError(409, 'already.exists', r.name));
  });

  it('refuses a taken key: 409 already.exists, nothing changed', async () => {
    await refused(() => wms.post(R, { name: unique('dup-key'), key: 'IN-STOCK', targetLocationName: S1 }), apiError(409, 'already.exists', 'IN-STOCK'));
  });

  it('refuses an unknown location: 404 svc.common.common.loc.notFoundByName, nothing changed', async () => {
    await refused(
      () => wms.post(R, { name: unique('bad'), sourceLocationName: UNKNOWN_LOC, targetLocationName: S1 }),
      apiError(404, 'svc.common.common.loc.notFoundByName', UNKNOWN_LOC, [UNKNOWN_LOC]),
    );
    await refused(
      () => wms.post(R, { name: unique('bad'), targetLocationName: UNKNOWN_LOC }),
      apiError(404, 'svc.common.common.loc.notFoundByName', UNKNOWN_LOC, [UNKNOWN_LOC]),
    );
  });

  it('refuses an unknown group: 404 svc.common.common.lg.notFoundByName, nothing changed', async () => {
    await refused(
      () => wms.post(R, { name: unique('bad'), sourceLocationGroupName: 'RT-NOPE', targetLocationName: S1 }),
      apiError(404, 'svc.common.common.lg.notFoundByName', 'RT-NOPE', ['RT-NOPE']),
    );
    await refused(
      () => wms.post(R, { name: unique('bad'), targetLocationGroupName: 'RT-NOPE' }),
      apiError(404, 'svc.common.common.lg.notFoundByName', 'RT-NOPE', ['RT-NOPE']),
    );
  });

  it('refuses a self-route (source = target location or group): 400, nothing changed', async () => {
    await refused(() => wms.post(R, { name: unique('self'), sourceLocationName: C1, targetLocationName: C1 }), validation('must differ'));
    await refused(
      () => wms.post(R, { name: unique('self'), sourceLocationGroupName: 'RT-CONV', targetLocationGroupName: 'RT-CONV' }),
      validation('must differ'),
    );
  });

  it('refuses two sources, no target, two targets: 400, nothing changed', async () => {
    await refused(
      () => wms.post(R, { name: unique('bad'), sourceLocationName: C1, sourceLocationGroupName: 'RT-IN', targetLocationName: S1 }),
      validation('not both'),
    );
    await refused(() => wms.post(R, { name: unique('bad'), sourceLocationName: C1 }), validation('needs a target'));
    await refused(() => wms.post(R, { name: unique('bad'), targetLocationName: S1, targetLocationGroupName: 'RT-STOCK' }), validation('not both'));
  });

  it('refuses missing or bad fields: 400 core.validation.error naming the field, nothing changed', async () => {
    await refused(() => wms.post(R, { targetLocationName: S1 }), validation('name'));
    await refused(() => wms.post(R, { name: '  ', targetLocationName: S1 }), validation('name'));
    await refused(() => wms.post(R, { name: unique('bad'), targetLocationName: S1, enabled: 'yes' }), validation('enabled'));
    await refused(() => wms.post(R, { name: unique('bad'), targetLocationName: '' }), validation('targetLocationName'));
    await refused(() => wms.post(R, [{ name: unique('bad') }]), validation('body'));
  });

  it('refuses keys that do not stand in a URL path unchanged, and the reserved index/decision: 400, nothing changed', async () => {
    for (const key of ['a/b', 'with space', '.hidden', '', 'x'.repeat(65), 'index', 'decision', 'ümlaut']) {
      await refused(() => wms.post(R, { name: unique('bad-key'), key, targetLocationName: S1 }), validation('key'));
    }
  });

  it('refuses a second ENABLED route with the same source and target: 409 already.exists, nothing changed; a disabled one is fine', async () => {
    const first = await create({ sourceLocationName: C1, targetLocationGroupName: 'RT-AISLE' });
    await refused(
      () => wms.post(R, { name: unique('twin'), sourceLocationName: C1, targetLocationGroupName: 'RT-AISLE' }),
      apiError(409, 'already.exists', first.name),
    );
    const twin = await create({ sourceLocationName: C1, targetLocationGroupName: 'RT-AISLE', enabled: false });
    expect(twin.enabled).toBe(false);
    // Source-less twins are ambiguous as well.
    await create({ targetLocationName: C3 });
    await refused(() => wms.post(R, { name: unique('twin'), targetLocationName: C3 }), apiError(409, 'already.exists'));
  });
});

// ---- read -------------------------------------------------------------------

describe('GET /v1/api/routes/{key} and GET /v1/api/routes', () => {
  it('answers 404 not.found for an unknown key', async () => {
    await refused(() => wms.get(`${R}/NO-SUCH-ROUTE`), apiError(404, 'not.found', 'NO-SUCH-ROUTE'));
  });

  it('lists all routes by name as application/json', async () => {
    const reply = await wms.get(R);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    const names = (reply.body as RouteBody[]).map((r) => r.name);
    expect(names.length).toBeGreaterThan(3);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('IN to STOCK');
  });

  it('refuses unknown query parameters on the list: 400', async () => {
    await refused(() => wms.get(`${R}?name=x`), validation('unknown parameter'));
  });
});

// ---- update -----------------------------------------------------------------

describe('PUT /v1/api/routes', () => {
  it('replaces the route named by key: 200, ol + 1, absent fields cleared, absent enabled kept', async () => {
    const r = await create({ description: 'first', sourceLocationName: C2, targetLocationGroupName: 'RT-STOCK', enabled: false });
    const from = events.length;
    const reply = await wms.put(R, { key: r.key, ol: r.ol, name: `${r.name}-renamed`, sourceLocationGroupName: 'RT-CONV', targetLocationName: S2 });
    expect(reply.status, reply.text).toBe(200);
    const u = reply.body as RouteBody;
    expect(u).toMatchObject({
      key: r.key,
      ol: 1,
      name: `${r.name}-renamed`,
      sourceLocationGroupName: 'RT-CONV',
      targetLocationName: S2,
      enabled: false,
      createDt: r.createDt,
    });
    for (const absent of ['description', 'sourceLocationName', 'targetLocationGroupName']) expect(u).not.toHaveProperty(absent);
    expect(u.lastModifiedDt >= r.lastModifiedDt).toBe(true);
    expect(await read(r.key)).toEqual(u);
    expect(eventTypesSince(from)).toEqual(['route.changed']);
    const changed = lastOfType(events, 'route.changed');
    expect(changed.data).toMatchObject({ key: r.key, name: u.name });
    expect([...changed.data.fields].sort()).toEqual(
      ['description', 'name', 'sourceLocationGroupName', 'sourceLocationName', 'targetLocationGroupName', 'targetLocationName'].sort(),
    );

    const enabled = await wms.put(R, { ...u, enabled: true });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, ol: 2 });
  });

  it('an update that changes nothing writes nothing: ol stays, no event', async () => {
    const r = await create({ targetLocationName: C2, description: 'same' });
    const from = events.length;
    const reply = await wms.put(R, r);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual(r);
    expect(eventTypesSince(from)).toEqual([]);
  });

  it('refuses a stale ol: 409 core.optimistic.lock, nothing changed', async () => {
    const r = await create({ targetLocationName: C2, sourceLocationName: S2 });
    expect((await wms.put(R, { ...r, description: 'x' })).status).toBe(200);
    await refused(() => wms.put(R, { ...r, description: 'y' }), apiError(409, 'core.optimistic.lock'));
  });

  it('refuses an unknown key (404 not.found), a taken name (409), unknown references (404), a self-route and bad shapes (400)', async () => {
    const r = await create({ targetLocationName: S1, sourceLocationName: C3 });
    const other = await create({ targetLocationName: S1, sourceLocationName: C2 });
    await refused(() => wms.put(R, { ...r, key: 'NO-SUCH-ROUTE' }), apiError(404, 'not.found', 'NO-SUCH-ROUTE'));
    await refused(() => wms.put(R, { ...r, name: other.name }), apiError(409, 'already.exists', other.name));
    await refused(() => wms.put(R, { ...r, targetLocationName: UNKNOWN_LOC }), apiError(404, 'svc.common.common.loc.notFoundByName'));
    await refused(
      () => wms.put(R, { ...r, sourceLocationName: null, sourceLocationGroupName: 'RT-NOPE' }),
      apiError(404, 'svc.common.common.lg.notFoundByName'),
    );
    await refused(() => wms.put(R, { ...r, targetLocationName: C3 }), validation('must differ'));
    await refused(() => wms.put(R, { ...r, targetLocationName: null }), validation('needs a target'));
    await refused(() => wms.put(R, { ...r, key: undefined }), validation('key'));
    await refused(() => wms.put(R, { ...r, ol: -1 }), validation('ol'));
  });

  it('refuses to enable (or re-point) a route onto the ends of another enabled route: 409, nothing changed', async () => {
    const live = await create({ sourceLocationName: S1, targetLocationName: O1 });
    const spare = await create({ sourceLocationName: S1, targetLocationName: O1, enabled: false });
    await refused(() => wms.put(R, { ...spare, enabled: true }), apiError(409, 'already.exists', live.name));
    const elsewhere = await create({ sourceLocationName: S2, targetLocationName: O1 });
    await refused(() => wms.put(R, { ...elsewhere, sourceLocationName: S1 }), apiError(409, 'already.exists', live.name));
  });
});

// ---- enable / disable / delete --------------------------------------------

describe('POST /v1/api/routes/{key}/enable|disable', () => {
  it('disables and enables: 200 with the route, ol + 1; setting the flag it has changes nothing', async () => {
    const r = await create({ sourceLocationName: C1, targetLocationName: O1 });
    const from = events.length;
    const off = await wms.post(`${R}/${r.key}/disable`);
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ key: r.key, enabled: false, ol: 1 });
    const again = await wms.post(`${R}/${r.key}/disable`);
    expect(again.body).toMatchObject({ enabled: false, ol: 1 });
    const on = await wms.post(`${R}/${r.key}/enable`);
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ enabled: true, ol: 2 });
    expect(eventTypesSince(from)).toEqual(['route.changed', 'route.changed']);
    expect(events.at(-1)!.data).toMatchObject({ key: r.key, fields: ['enabled'], enabled: true });
  });

  it('refuses an unknown key (404 not.found) and enabling a twin of an enabled route (409), nothing changed', async () => {
    await refused(() => wms.post(`${R}/NO-SUCH-ROUTE/enable`), apiError(404, 'not.found'));
    await refused(() => wms.post(`${R}/NO-SUCH-ROUTE/disable`), apiError(404, 'not.found'));
    const live = await create({ sourceLocationName: C2, targetLocationName: O1 });
    const twin = await create({ sourceLocationName: C2, targetLocationName: O1, enabled: false });
    await refused(() => wms.post(`${R}/${twin.key}/enable`), apiError(409, 'already.exists', live.name));
  });
});

describe('DELETE /v1/api/routes/{key}', () => {
  it('deletes the route and its hops: 204, then 404', async () => {
    const r = await create({ sourceLocationName: C3, targetLocationName: O1 });
    await putHops(r.key, [{ source: C3, next: C1 }]);
    const from = events.length;
    const reply = await wms.del(`${R}/${r.key}`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expectApiError(await wms.get(`${R}/${r.key}`), 404, 'not.found');
    expectApiError(await wms.get(`${R}/${r.key}/hops`), 404, 'not.found');
    expect(eventTypesSince(from)).toEqual(['route.deleted']);
    // The key is free again.
    expect((await create({ key: r.key, targetLocationName: O1, sourceLocationName: C3 })).key).toBe(r.key);
  });

  it('answers 404 not.found for an unknown key, nothing changed', async () => {
    await refused(() => wms.del(`${R}/NO-SUCH-ROUTE`), apiError(404, 'not.found'));
  });
});

// ---- hops -------------------------------------------------------------------

describe('GET|PUT /v1/api/routes/{key}/hops', () => {
  it("starts empty, replaces the list in order (pos = index), raises the route's ol", async () => {
    const r = await create({ sourceLocationGroupName: 'RT-IN', targetLocationName: S1 });
    expect(await hopsOf(r.key)).toEqual([]);
    const from = events.length;
    const hops = await putHops(r.key, [
      { source: IN1, next: C1 },
      { source: IN1, next: C2 }, // an alternative
      { source: C1, next: S1 },
      { source: C2, next: C1 }, // C2's first choice goes on through C1: no circle
    ]);
    expect(hops).toEqual([
      { pos: 0, source: IN1, next: C1 },
      { pos: 1, source: IN1, next: C2 },
      { pos: 2, source: C1, next: S1 },
      { pos: 3, source: C2, next: C1 },
    ]);
    expect(await hopsOf(r.key)).toEqual(hops);
    expect((await read(r.key)).ol).toBe(r.ol + 1);
    expect(eventTypesSince(from)).toEqual(['route.hopsReplaced']);
    expect(events.at(-1)!.data).toEqual({ key: r.key, name: r.name, hops: 4 });

    // Echoing what GET answered is accepted; a shorter list replaces the longer one; [] empties it.
    expect(await putHops(r.key, hops.slice(0, 1))).toEqual(hops.slice(0, 1));
    expect(await putHops(r.key, [])).toEqual([]);
    expect((await read(r.key)).ol).toBe(r.ol + 3);
  });

  it('allows an alternative that leads back (only first-choice hops are checked for circles)', async () => {
    const r = await create({ sourceLocationName: C1, targetLocationName: S2 });
    const hops = await putHops(r.key, [
      { source: C1, next: C2 },
      { source: C2, next: S2 },
      { source: C2, next: C1 }, // recirculation when S2 is locked
    ]);
    expect(hops).toHaveLength(3);
  });

  it('refuses an unknown route (404 not.found) and an unknown location (404 loc.notFoundByName), nothing changed', async () => {
    const r = await create({ sourceLocationName: C2, targetLocationName: S2 });
    await putHops(r.key, [{ source: C2, next: S2 }]);
    await refused(() => wms.put(`${R}/NO-SUCH-ROUTE/hops`, [{ source: C2, next: S2 }]), apiError(404, 'not.found'));
    await refused(() => wms.get(`${R}/NO-SUCH-ROUTE/hops`), apiError(404, 'not.found'));
    await refused(
      () =>
        wms.put(`${R}/${r.key}/hops`, [
          { source: C2, next: C3 },
          { source: C3, next: UNKNOWN_LOC },
        ]),
      apiError(404, 'svc.common.common.loc.notFoundByName', UNKNOWN_LOC, [UNKNOWN_LOC]),
    );
    await refused(
      () => wms.put(`${R}/${r.key}/hops`, [{ source: UNKNOWN_LOC, next: C3 }]),
      apiError(404, 'svc.common.common.loc.notFoundByName', UNKNOWN_LOC, [UNKNOWN_LOC]),
    );
  });

  it('refuses a hop to itself, a hop listed twice, a circle of first choices, a wrong pos and bad shapes: 400, nothing changed', async () => {
    const r = await create({ sourceLocationName: C3, targetLocationName: S2 });
    await putHops(r.key, [{ source: C3, next: S2 }]);
    const put = (body: unknown) => () => wms.put(`${R}/${r.key}/hops`, body);
    await refused(
      put([
        { source: C3, next: C1 },
        { source: C1, next: C1 },
      ]),
      validation('to itself'),
    );
    await refused(
      put([
        { source: C3, next: C1 },
        { source: C3, next: C1 },
      ]),
      validation('listed twice'),
    );
    await refused(
      put([
        { source: C3, next: C1 },
        { source: C1, next: C2 },
        { source: C2, next: C3 },
      ]),
      validation(`${C3} → ${C1} → ${C2} → ${C3}`),
    );
    // A circle not through the first hop's source is found as well.
    await refused(
      put([
        { source: C3, next: C1 },
        { source: C1, next: C2 },
        { source: C2, next: C1 },
      ]),
      validation('circle'),
    );
    await refused(put([{ pos: 1, source: C3, next: C1 }]), validation('pos'));
    await refused(put({ source: C3, next: C1 }), validation('body'));
    await refused(put([{ source: C3 }]), validation('next'));
    await refused(put([{ source: '', next: C1 }]), validation('source'));
  });
});

// ---- default hops -----------------------------------------------------------

describe('GET|PUT /v1/api/default-hops', () => {
  it('replaces the table in order: location and group sources, alternatives, pos = index', async () => {
    const from = events.length;
    const table = await putDefaults([
      { source: IN1, next: C1 },
      { sourceGroup: 'RT-IN', next: C2 },
      { sourceGroup: 'RT-IN', next: C3 },
      { sourceGroup: 'RT-CONV', next: C1 }, // into its own group: does not apply at C1 itself
    ]);
    expect(table).toEqual([
      { pos: 0, source: IN1, next: C1 },
      { pos: 1, sourceGroup: 'RT-IN', next: C2 },
      { pos: 2, sourceGroup: 'RT-IN', next: C3 },
      { pos: 3, sourceGroup: 'RT-CONV', next: C1 },
    ]);
    const reply = await wms.get(DH);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(table);
    expect(eventTypesSince(from)).toEqual(['routing.defaultHopsReplaced']);
    expect(await putDefaults(table)).toEqual(table);
    expect(await putDefaults([])).toEqual([]);
  });

  it('refuses unknown locations and groups (404), self-hops, duplicates, bad pos and shapes (400), nothing changed', async () => {
    await putDefaults([{ source: IN1, next: C1 }]);
    const put = (body: unknown) => () => wms.put(DH, body);
    await refused(put([{ source: UNKNOWN_LOC, next: C1 }]), apiError(404, 'svc.common.common.loc.notFoundByName', UNKNOWN_LOC));
    await refused(put([{ source: IN1, next: UNKNOWN_LOC }]), apiError(404, 'svc.common.common.loc.notFoundByName', UNKNOWN_LOC));
    await refused(put([{ sourceGroup: 'RT-NOPE', next: C1 }]), apiError(404, 'svc.common.common.lg.notFoundByName', 'RT-NOPE', ['RT-NOPE']));
    await refused(put([{ source: C1, next: C1 }]), validation('to itself'));
    await refused(
      put([
        { sourceGroup: 'RT-IN', next: C1 },
        { sourceGroup: 'RT-IN', next: C1 },
      ]),
      validation('listed twice'),
    );
    await refused(put([{ source: IN1, sourceGroup: 'RT-IN', next: C1 }]), validation('exactly one'));
    await refused(put([{ next: C1 }]), validation('exactly one'));
    await refused(put([{ source: IN1, next: C1, pos: 3 }]), validation('pos'));
    await refused(put({ source: IN1, next: C1 }), validation('body'));
    await putDefaults([]);
  });
});

// ---- the decision lookup and the cache ------------------------------------

describe('GET /v1/api/routes/decision (the routing decision; changes show at once)', () => {
  const BC = 'RT-TU-0001';
  const BC_NO_ORDER = 'RT-TU-0002';
  /** pKey of the transport order of BC. */
  let orderKey: string;

  beforeAll(async () => {
    for (const barcode of [BC, BC_NO_ORDER]) {
      const reply = await wms.post('/v1/transport-units', { barcode, actualLocation: DIN, transportUnitType: 'EURO' });
      expect(reply.status, reply.text).toBe(201);
    }
    const order = await wms.post('/v1/transport-orders', { barcode: BC, targetLocation: DS1 });
    expect(order.status, order.text).toBe(201);
    expect(order.body.state).toBe('STARTED');
    orderKey = order.body.persistentKey;
  });
  /** Points the unit's (real, STARTED) transport order at another target. */
  const redirect = async (target: { targetLocation: string | null; targetLocationGroup: string | null }) => {
    const reply = await wms.patch(`/v1/transport-orders/${orderKey}`, target);
    expect(reply.status, reply.text).toBe(204);
  };

  const lock = async (locationId: string, errorCode: string) => {
    const reply = await wms.patch(`/v1/location/${await locationPk(locationId)}?op=change-state`, { errorCode });
    expect(reply.status, reply.text).toBe(204);
  };

  it('no order and no default hop: NO_ORDER (reason 00000001), with and without barcode', async () => {
    expect(await decision(DIN)).toEqual({ result: 'NO_ORDER', reasonCode: '00000001' });
    expect(await decision(DIN, BC_NO_ORDER)).toEqual({ result: 'NO_ORDER', reasonCode: '00000001' });
  });

  it('a new default hop table applies at once: NEXT via DEFAULT; a unit with an order and no route uses it too', async () => {
    await putDefaults([{ sourceGroup: 'DX-IN', next: DC1 }]);
    expect(await decision(DIN)).toEqual({ result: 'NEXT', reasonCode: '00000000', nextLocation: DC1, via: 'DEFAULT' });
    expect(await decision(DIN, BC)).toEqual({
      result: 'NEXT',
      reasonCode: '00000000',
      nextLocation: DC1,
      via: 'DEFAULT',
      order: { pKey: orderKey, targetLocation: DS1 },
    });
    expect(await decision(DC1, BC)).toEqual({ result: 'NO_ROUTE', reasonCode: '00000002', order: { pKey: orderKey, targetLocation: DS1 } });
  });

  it('a new route, its hops, disabling, enabling and deleting it change the decision at once', async () => {
    await create({ key: 'D-R1', name: 'DX in to stock', sourceLocationName: DIN, targetLocationGroupName: 'DX-STOCK' });
    // No hop at DIN yet: the route is found, the default table answers.
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC1, via: 'DEFAULT', route: { key: 'D-R1', name: 'DX in to stock' } });
    await putHops('D-R1', [
      { source: DIN, next: DC2 },
      { source: DC2, next: DS1 },
    ]);
    expect(await decision(DIN, BC)).toEqual({
      result: 'NEXT',
      reasonCode: '00000000',
      nextLocation: DC2,
      via: 'ROUTE',
      route: { key: 'D-R1', name: 'DX in to stock' },
      order: { pKey: orderKey, targetLocation: DS1 },
    });
    // The unit without order is not routed by routes.
    expect(await decision(DIN, BC_NO_ORDER)).toMatchObject({ result: 'NEXT', nextLocation: DC1, via: 'DEFAULT' });

    expect((await wms.post(`${R}/D-R1/disable`)).status).toBe(200);
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC1, via: 'DEFAULT' });
    expect(await decision(DIN, BC)).not.toHaveProperty('route');
    expect((await wms.post(`${R}/D-R1/enable`)).status).toBe(200);
    expect(await decision(DIN, BC)).toMatchObject({ nextLocation: DC2, via: 'ROUTE' });

    // A more specific route (to the target location itself) wins at once, and loses when deleted.
    await create({ key: 'D-R2', sourceLocationName: DIN, targetLocationName: DS1 });
    await putHops('D-R2', [{ source: DIN, next: DC1 }]);
    expect(await decision(DIN, BC)).toMatchObject({ nextLocation: DC1, via: 'ROUTE', route: { key: 'D-R2' } });
    expect((await wms.del(`${R}/D-R2`)).status).toBe(204);
    expect(await decision(DIN, BC)).toMatchObject({ nextLocation: DC2, route: { key: 'D-R1' } });

    // Re-pointing the route by PUT: from DX-IN's group instead of DIN still matches; from DC1 no longer does.
    const r1 = await read('D-R1');
    expect((await wms.put(R, { ...r1, sourceLocationName: null, sourceLocationGroupName: 'DX-IN' })).status).toBe(200);
    expect(await decision(DIN, BC)).toMatchObject({ nextLocation: DC2, route: { key: 'D-R1' } });
    expect((await wms.put(R, { ...r1, ol: undefined, sourceLocationName: DC1 })).status).toBe(200);
    expect(await decision(DIN, BC)).toMatchObject({ nextLocation: DC1, via: 'DEFAULT' });
    expect(await decision(DIN, BC)).not.toHaveProperty('route');
    expect((await wms.put(R, { ...r1, ol: undefined })).status).toBe(200);
    expect(await decision(DIN, BC)).toMatchObject({ nextLocation: DC2, route: { key: 'D-R1' } });
  });

  it('assumeEnabled: the decision as if a disabled route were enabled (a dry run), which changes nothing', async () => {
    await create({ key: 'D-R3', name: 'dry run', sourceLocationName: DIN, targetLocationName: DS1, enabled: false });
    await putHops('D-R3', [{ source: DIN, next: DC1 }]);
    const live = await decision(DIN, BC);
    expect(live).not.toMatchObject({ route: { key: 'D-R3' } });
    const dry = await wms.get(`${DECIDE}?location=${enc(DIN)}&barcode=${enc(BC)}&assumeEnabled=D-R3`);
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({ result: 'NEXT', nextLocation: DC1, via: 'ROUTE', route: { key: 'D-R3' } });
    // Nothing changed: the route is still disabled and the live decision the same.
    expect((await read('D-R3')).enabled).toBe(false);
    expect(await decision(DIN, BC)).toEqual(live);
    expectApiError(await wms.get(`${DECIDE}?location=${enc(DIN)}&barcode=${enc(BC)}&assumeEnabled=NO-SUCH-ROUTE`), 404, 'not.found');
    expect((await wms.del(`${R}/D-R3`)).status).toBe(204);
  });

  it('locking the next location over REST changes the decision at once: the alternative, then LOCKED', async () => {
    await putHops('D-R1', [
      { source: DIN, next: DC2 },
      { source: DIN, next: DC1 },
      { source: DC2, next: DS1 },
      { source: DC1, next: DS1 },
    ]);
    expect(await decision(DIN, BC)).toMatchObject({ nextLocation: DC2 });
    await lock(DC2, '*******1');
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC1, via: 'ROUTE' });
    await lock(DC1, '*******1');
    expect(await decision(DIN, BC)).toEqual({
      result: 'LOCKED',
      reasonCode: '00000003',
      lock: 'NEXT_LOCKED',
      via: 'ROUTE',
      candidates: [DC2, DC1],
      route: { key: 'D-R1', name: 'DX in to stock' },
      order: { pKey: orderKey, targetLocation: DS1 },
    });
    await lock(DC2, '*******0');
    await lock(DC1, '*******0');
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC2 });
  });

  it("locking the next location's group (or an ancestor) over REST changes the decision at once", async () => {
    const conv = await groupPk('DX-CONV');
    const dx = await groupPk('DX');
    expect((await wms.patch(`/v1/location-group/${conv}?op=change-state&statein=NOT_AVAILABLE`)).status).toBe(204);
    expect(await decision(DIN, BC)).toMatchObject({ result: 'LOCKED', lock: 'NEXT_LOCKED' });
    expect((await wms.patch(`/v1/location-group/${conv}?op=change-state&statein=AVAILABLE`)).status).toBe(204);
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC2 });
    // The group state of the next location set through its location's bitmap (position 2).
    await lock(DC2, '*****1**');
    expect(await decision(DIN, BC)).toMatchObject({ result: 'LOCKED' });
    await lock(DC2, '*****0**');
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC2 });
    // The whole DX tree: the cascade reaches DX-CONV as well.
    expect((await wms.patch(`/v1/location-group/${dx}?op=change-state&statein=NOT_AVAILABLE`)).status).toBe(204);
    expect(await decision(DIN, BC)).toMatchObject({ result: 'LOCKED' });
    expect((await wms.patch(`/v1/location-group/${dx}?op=change-state&statein=AVAILABLE`)).status).toBe(204);
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC2 });
  });

  it('a location that lets nothing out (outgoingActive=false) holds the unit: LOCKED SOURCE_OUTGOING_LOCKED', async () => {
    await lock(DIN, '******1*');
    expect(await decision(DIN, BC)).toMatchObject({ result: 'LOCKED', reasonCode: '00000003', lock: 'SOURCE_OUTGOING_LOCKED' });
    expect(await decision(DIN)).toMatchObject({ result: 'LOCKED', lock: 'SOURCE_OUTGOING_LOCKED', via: 'DEFAULT' });
    await lock(DIN, '******0*');
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC2 });
  });

  it('a renamed next location is answered under its new coordinate at once', async () => {
    const pk = await locationPk(DC2);
    const renamed = 'DXC/0002/0000/0000/0009';
    const put = async (locationId: string) => {
      const reply = await wms.put('/v1/locations', { pKey: pk, locationId, locationGroupName: 'DX-CONV' });
      expect(reply.status, reply.text).toBe(200);
    };
    await put(renamed);
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: renamed });
    expect(await hopsOf('D-R1')).toContainEqual({ pos: 0, source: DIN, next: renamed });
    await put(DC2);
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC2 });
  });

  it('a renamed group keeps its default hops and routes working at once', async () => {
    const pk = await groupPk('DX-IN');
    const rename = async (name: string) => {
      const reply = await wms.patch(`/v1/location-groups/${pk}`, { name });
      expect(reply.status, reply.text).toBe(200);
    };
    expect(await decision(DIN)).toMatchObject({ result: 'NEXT', nextLocation: DC1, via: 'DEFAULT' });
    await rename('DX-IN-RENAMED');
    expect((await wms.get(DH)).body).toEqual([{ pos: 0, sourceGroup: 'DX-IN-RENAMED', next: DC1 }]);
    expect(await decision(DIN)).toMatchObject({ result: 'NEXT', nextLocation: DC1, via: 'DEFAULT' });
    await rename('DX-IN');
    expect(await decision(DIN)).toMatchObject({ result: 'NEXT', nextLocation: DC1, via: 'DEFAULT' });
  });

  it('at the target location, or anywhere in the target group: ARRIVED', async () => {
    expect(await decision(DS1, BC)).toEqual({ result: 'ARRIVED', reasonCode: '00000000', order: { pKey: orderKey, targetLocation: DS1 } });
    await redirect({ targetLocation: null, targetLocationGroup: 'DX-STOCK' });
    expect(await decision(DS1, BC)).toMatchObject({ result: 'ARRIVED', order: { pKey: orderKey, targetLocationGroup: 'DX-STOCK' } });
    expect(await decision(DIN, BC)).toMatchObject({ result: 'NEXT', nextLocation: DC2, route: { key: 'D-R1' } });
    await redirect({ targetLocation: DS1, targetLocationGroup: null });
  });

  it('refuses an unknown location (404 loc.notFoundByName) or unit (404 tu.notFoundByBK), missing or unknown parameters (400), nothing changed', async () => {
    await refused(() => wms.get(`${DECIDE}?location=${enc(UNKNOWN_LOC)}`), apiError(404, 'svc.common.common.loc.notFoundByName', UNKNOWN_LOC));
    await refused(
      () => wms.get(`${DECIDE}?location=${enc(DIN)}&barcode=NO-SUCH-TU`),
      apiError(404, 'svc.common.common.tu.notFoundByBK', 'NO-SUCH-TU', ['NO-SUCH-TU']),
    );
    await refused(
      () => wms.get(DECIDE),
      (r) => expectServerError(r, 400),
    );
    await refused(() => wms.get(`${DECIDE}?location=${enc(DIN)}&order=x`), validation('unknown parameter'));
    await refused(() => wms.get(`${DECIDE}?location=`), validation('location'));
  });
});

// ---- references from the common module's side ----------------------------

describe('deleting a location or group that routing names: 409 …inUse', () => {
  it('a location named by a route, a hop or a default hop cannot be deleted until the reference is gone', async () => {
    const mk = async (locationId: string) => {
      const reply = await wms.post('/v1/locations', { locationId, locationGroupName: 'RT-OTHER' });
      expect(reply.status, reply.text).toBe(201);
      return reply.body.pKey as string;
    };
    const bySource = await mk('RTD/0001/0000/0000/0000');
    const byHop = await mk('RTD/0002/0000/0000/0000');
    const byDefault = await mk('RTD/0003/0000/0000/0000');
    const r = await create({ sourceLocationName: 'RTD/0001/0000/0000/0000', targetLocationName: O1 });
    await putHops(r.key, [{ source: 'RTD/0001/0000/0000/0000', next: 'RTD/0002/0000/0000/0000' }]);
    await putDefaults([{ source: O1, next: 'RTD/0003/0000/0000/0000' }]);

    for (const [pk, locationId] of [
      [bySource, 'RTD/0001/0000/0000/0000'],
      [byHop, 'RTD/0002/0000/0000/0000'],
      [byDefault, 'RTD/0003/0000/0000/0000'],
    ] as const) {
      await refused(() => wms.del(`/v1/locations/${pk}`), apiError(409, 'svc.common.common.loc.inUse', locationId, [locationId]));
    }
    // The target O1 as well.
    const o1 = await locationPk(O1);
    await refused(() => wms.del(`/v1/locations/${o1}`), apiError(409, 'svc.common.common.loc.inUse', O1));

    await putHops(r.key, []);
    expect((await wms.del(`/v1/locations/${byHop}`)).status).toBe(204);
    await putDefaults([]);
    expect((await wms.del(`/v1/locations/${byDefault}`)).status).toBe(204);
    expect((await wms.del(`${R}/${r.key}`)).status).toBe(204);
    expect((await wms.del(`/v1/locations/${bySource}`)).status).toBe(204);
  });

  it('a group named by a route or a default hop cannot be deleted until the reference is gone', async () => {
    for (const name of ['RT-G1', 'RT-G2', 'RT-G3']) {
      expect((await wms.post('/v1/location-groups', { name, parentName: 'WAREHOUSE' })).status).toBe(201);
    }
    const r = await create({ sourceLocationGroupName: 'RT-G1', targetLocationGroupName: 'RT-G2' });
    await putDefaults([{ sourceGroup: 'RT-G3', next: O1 }]);
    for (const name of ['RT-G1', 'RT-G2', 'RT-G3']) {
      const pk = await groupPk(name);
      await refused(() => wms.del(`/v1/location-groups/${pk}`), apiError(409, 'svc.common.common.lg.inUse', name, [name]));
    }
    // A group with locations still answers notEmpty first.
    const conv = await groupPk('RT-CONV');
    await refused(() => wms.del(`/v1/location-groups/${conv}`), apiError(409, 'svc.common.common.lg.notEmpty'));

    await putDefaults([]);
    expect((await wms.del(`/v1/location-groups/${await groupPk('RT-G3')}`)).status).toBe(204);
    expect((await wms.del(`${R}/${r.key}`)).status).toBe(204);
    expect((await wms.del(`/v1/location-groups/${await groupPk('RT-G1')}`)).status).toBe(204);
    expect((await wms.del(`/v1/location-groups/${await groupPk('RT-G2')}`)).status).toBe(204);
  });

  it('a renamed group shows its new name in routes and default hops', async () => {
    expect((await wms.post('/v1/location-groups', { name: 'RT-OLD', parentName: 'WAREHOUSE' })).status).toBe(201);
    const r = await create({ sourceLocationGroupName: 'RT-OLD', targetLocationName: O1 });
    await putDefaults([{ sourceGroup: 'RT-OLD', next: O1 }]);
    const pk = await groupPk('RT-OLD');
    expect((await wms.patch(`/v1/location-groups/${pk}`, { name: 'RT-NEW' })).status).toBe(200);
    expect((await read(r.key)).sourceLocationGroupName).toBe('RT-NEW');
    expect((await wms.get(DH)).body).toEqual([{ pos: 0, sourceGroup: 'RT-NEW', next: O1 }]);
    await putDefaults([]);
  });
});

// ---- grants -----------------------------------------------------------------

describe('grants', () => {
  let readerToken: string;
  beforeAll(async () => {
    const role = await wms.post('/roles', { name: 'RT-READER', grants: ['routes:read'] });
    expect(role.status, role.text).toBe(201);
    const user = await wms.post('/users', { username: 'rt-reader', password: 'rt-reader-password', roleNames: ['RT-READER'] });
    expect(user.status, user.text).toBe(201);
    const login = await wms.post('/oauth/token', { grant_type: 'password', username: 'rt-reader', password: 'rt-reader-password' }, { anonymous: true });
    expect(login.status, login.text).toBe(200);
    readerToken = login.body.access_token;
  });

  it('reads with routes:read and needs routes:write to change', async () => {
    const token = readerToken;
    for (const path of [`${R}/index`, R, `${R}/IN-STOCK`, `${R}/IN-STOCK/hops`, DH, `${DECIDE}?location=${enc(DIN)}`]) {
      expect((await wms.get(path, { token })).status, path).toBe(200);
    }
    for (const send of [
      () => wms.post(R, { name: unique('forbidden'), targetLocationName: O1 }, { token }),
      () => wms.put(R, { key: 'IN-STOCK', name: 'x', targetLocationName: O1 }, { token }),
      () => wms.del(`${R}/IN-STOCK`, { token }),
      () => wms.post(`${R}/IN-STOCK/disable`, undefined, { token }),
      () => wms.post(`${R}/IN-STOCK/enable`, undefined, { token }),
      () => wms.put(`${R}/IN-STOCK/hops`, [], { token }),
      () => wms.put(DH, [], { token }),
    ]) {
      const reply = await refused(send, (r) => expectServerError(r, 403));
      expect(reply.body.message).toContain('routes:write');
    }
  });

  it('refuses a request without a token with 401', async () => {
    await refused(
      () => wms.get(R, { anonymous: true }),
      (r) => expectServerError(r, 401),
    );
  });
});
