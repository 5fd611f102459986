import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';

// Black-box tests of the common base module's transport units (`/v1/transport-units`):
// creation (JSON body or query parameters), lookups, moves, updates, state changes
// and deletion, over real HTTP against a real SQLite file.

let wms: TestAppliance;

const TU = '/v1/transport-units';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const LOC_A = 'TUA/0001/0001/0000/0000';
const LOC_B = 'TUA/0002/0001/0000/0000';
const LOC_C = 'TUA/0003/0001/0000/0000';
const LOC_EMPTY = 'TUA/0009/0001/0000/0000';
/** Well-formed, but no such location exists. */
const LOC_UNKNOWN = 'TUA/9999/9999/9999/9999';

beforeAll(async () => {
  wms = await startTestAppliance();
  for (const locationId of [LOC_A, LOC_B, LOC_C, LOC_EMPTY]) {
    const reply = await wms.post('/v1/locations', { locationId, locationGroupName: 'WAREHOUSE', type: 'RACK' });
    expect(reply.status, reply.text).toBe(201);
  }
});
afterAll(() => wms.close());

let counter = 0;
const uniqueBarcode = (prefix = 'TU') => `${prefix}-${String(++counter).padStart(4, '0')}`;
const q = encodeURIComponent;

async function createUnit(body: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await wms.post(TU, body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

const newUnit = (location = LOC_A, type = 'EURO') => createUnit({ barcode: uniqueBarcode(), actualLocation: location, transportUnitType: type });

async function byBarcode(barcode: string): Promise<Record<string, any>> {
  const reply = await wms.get(`${TU}?bk=${q(barcode)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function location(locationId: string): Promise<Record<string, any>> {
  const reply = await wms.get(`/v1/locations?locationId=${q(locationId)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function barcodesOn(locationId: string): Promise<string[]> {
  const reply = await wms.get(`${TU}?actualLocation=${q(locationId)}`);
  expect(reply.status, reply.text).toBe(200);
  return (reply.body as { barcode: string }[]).map((u) => u.barcode);
}

/** Every transport unit and every location as the API shows them, for "changes nothing" checks. */
async function snapshot(): Promise<{ units: unknown; locations: unknown }> {
  const units = await wms.get(TU);
  const locations = await wms.get('/v1/locations');
  expect(units.status).toBe(200);
  expect(locations.status).toBe(200);
  return { units: units.body, locations: locations.body };
}

/** Asserts a 400 validation error whose message names the field. */
function expectValidation(reply: Reply, field: string): void {
  expectApiError(reply, 400, 'core.validation.error');
  expect(reply.body.message).toContain(field);
}

/** Waits until the clock has passed an API timestamp, so a later write carries a later one. */
async function clockPast(iso: string): Promise<void> {
  const t = Date.parse(iso);
  while (Date.now() <= t) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('GET /v1/transport-units/index', () => {
  it('lists the link names of every transport unit operation', async () => {
    const reply = await wms.get(`${TU}/index`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    for (const name of [
      'transport-unit-createtuwithbody',
      'transport-unit-createtuwithparams',
      'transport-unit-findbypkey',
      'transport-unit-findbybarcode',
      'transport-unit-findbybarcodes',
      'transport-unit-findonlocation',
      'transport-unit-findall',
      'transport-unit-move',
      'transport-unit-update',
      'transport-unit-delete',
      'transport-unit-block',
      'transport-unit-unblock',
      'transport-unit-qc',
    ]) {
      expect(links[name], name).toBeDefined();
      expect(links[name]!.href.startsWith(`${wms.url}${TU}`), name).toBe(true);
    }
    expect(links['transport-unit-findbybarcode']!.href).toBe(`${wms.url}${TU}?bk={bk}`);
    expect(links['transport-unit-move']!.href).toBe(`${wms.url}${TU}?bk={bk}&newLocation={newLocation}`);
    expect(links['transport-unit-block']!.href).toBe(`${wms.url}${TU}/block?bk={bk}`);
  });

  it('is linked from the public entry index as transport-unit-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['transport-unit-index'].href).toBe(`${wms.url}${TU}/index`);
  });
});

describe('POST /v1/transport-units with a JSON body', () => {
  it('creates a unit: 201, Location header and the representation', async () => {
    const barcode = uniqueBarcode('NEW');
    const reply = await wms.post(TU, { barcode, actualLocation: LOC_A, transportUnitType: 'EURO' });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/json/);
    const pKey = reply.body.pKey as string;
    expect(pKey).toEqual(expect.any(String));
    expect(reply.headers.get('location')).toBe(`${wms.url}${TU}/${pKey}`);
    expect(reply.body).toMatchObject({
      pKey,
      ol: 0,
      barcode,
      actualLocation: LOC_A,
      transportUnitType: 'EURO',
      state: 'AVAILABLE',
    });
    expect(reply.body.actualLocationDate).toMatch(ISO_MS);
    expect(reply.body.createDt).toMatch(ISO_MS);
    expect(reply.body.lastModifiedDt).toMatch(ISO_MS);
    expect(reply.body).not.toHaveProperty('targetLocation');
    expect(reply.body).not.toHaveProperty('weight');
    expect(reply.body.links).toContainEqual({ rel: 'transport-unit-findbypkey', href: `${wms.url}${TU}/${pKey}` });

    // The Location header and the links lead to the unit, its location and its type.
    const read = await wms.get(new URL(reply.headers.get('location')!).pathname);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(reply.body);
    const links = new Map((reply.body.links as { rel: string; href: string }[]).map((l) => [l.rel, l.href]));
    const actual = await wms.get(links.get('actual-location')!.slice(wms.url.length));
    expect(actual.body.locationId).toBe(LOC_A);
    const type = await wms.get(links.get('transport-unit-type')!.slice(wms.url.length));
    expect(type.body.type).toBe('EURO');
  });

  it('sets the lastMovement of the location it is created on', async () => {
    const unit = await newUnit(LOC_C);
    expect((await location(LOC_C)).lastMovement).toBe(unit.actualLocationDate);
  });

  it('accepts actualLocation as {locationId} and transportUnitType as {type}', async () => {
    const barcode = uniqueBarcode('OBJ');
    const unit = await createUnit({
      barcode,
      actualLocation: { locationId: LOC_B, links: [] },
      transportUnitType: { type: 'TOTE' },
    });
    expect(unit).toMatchObject({ barcode, actualLocation: LOC_B, transportUnitType: 'TOTE', state: 'AVAILABLE' });
  });

  it('takes state, weight and targetLocation when given', async () => {
    const unit = await createUnit({
      barcode: uniqueBarcode('FULL'),
      actualLocation: LOC_A,
      transportUnitType: 'INDUSTRIAL',
      state: 'BLOCKED',
      weight: 412.5,
      targetLocation: LOC_B,
    });
    expect(unit).toMatchObject({ state: 'BLOCKED', weight: 412.5, targetLocation: LOC_B, transportUnitType: 'INDUSTRIAL' });
  });

  it('takes the barcode from ?bk= when the body has none', async () => {
    const barcode = uniqueBarcode('QBK');
    const reply = await wms.post(`${TU}?bk=${barcode}`, { actualLocation: LOC_A, transportUnitType: 'EURO' });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.barcode).toBe(barcode);
    expect((await byBarcode(barcode)).pKey).toBe(reply.body.pKey);
  });

  it('accepts ?bk= equal to the body barcode', async () => {
    const barcode = uniqueBarcode('SAME');
    const reply = await wms.post(`${TU}?bk=${barcode}`, { barcode, actualLocation: LOC_A, transportUnitType: 'EURO' });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.barcode).toBe(barcode);
  });

  it('assigns a barcode when neither body nor query carries one', async () => {
    const unit = await createUnit({ actualLocation: LOC_A, transportUnitType: 'EURO' });
    expect(unit.barcode).toMatch(/^\d{16}$/);
    expect((await byBarcode(unit.barcode)).pKey).toBe(unit.pKey);
  });

  it('refuses ?bk= and a body barcode that differ with 400 and changes nothing', async () => {
    const before = await snapshot();
    const reply = await wms.post(`${TU}?bk=${uniqueBarcode('Q')}`, {
      barcode: uniqueBarcode('B'),
      actualLocation: LOC_A,
      transportUnitType: 'EURO',
    });
    expectValidation(reply, 'bk');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an invalid ?bk= with 400 naming bk and changes nothing', async () => {
    const before = await snapshot();
    const reply = await wms.post(`${TU}?bk=${q('BAD CODE!')}`, { actualLocation: LOC_A, transportUnitType: 'EURO' });
    expectValidation(reply, 'bk');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a duplicate barcode with 409 already.exists and changes nothing', async () => {
    const existing = await newUnit(LOC_A);
    const before = await snapshot();
    const reply = await wms.post(TU, { barcode: existing.barcode, actualLocation: LOC_B, transportUnitType: 'TOTE' });
    expectApiError(reply, 409, 'already.exists');
    expect(reply.body.obj).toEqual([existing.barcode]);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an unknown location with 404 svc.common.common.loc.notFoundByName and changes nothing', async () => {
    const before = await snapshot();
    const reply = await wms.post(TU, { barcode: uniqueBarcode(), actualLocation: LOC_UNKNOWN, transportUnitType: 'EURO' });
    expectApiError(reply, 404, 'svc.common.common.loc.notFoundByName');
    expect(reply.body.obj).toEqual([LOC_UNKNOWN]);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an unknown target location with 404 svc.common.common.loc.notFoundByName and changes nothing', async () => {
    const before = await snapshot();
    const reply = await wms.post(TU, {
      barcode: uniqueBarcode(),
      actualLocation: LOC_A,
      transportUnitType: 'EURO',
      targetLocation: LOC_UNKNOWN,
    });
    expectApiError(reply, 404, 'svc.common.common.loc.notFoundByName');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an unknown type with 404 svc.common.common.tut.notFoundByName and changes nothing', async () => {
    const before = await snapshot();
    const reply = await wms.post(TU, { barcode: uniqueBarcode(), actualLocation: LOC_A, transportUnitType: 'NO_SUCH_TUT' });
    expectApiError(reply, 404, 'svc.common.common.tut.notFoundByName');
    expect(reply.body.obj).toEqual(['NO_SUCH_TUT']);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['a barcode with invalid characters', { barcode: 'AB CD', actualLocation: LOC_A, transportUnitType: 'EURO' }, 'barcode'],
    ['a barcode with a slash', { barcode: 'AB/CD', actualLocation: LOC_A, transportUnitType: 'EURO' }, 'barcode'],
    ['a barcode of 65 characters', { barcode: 'X'.repeat(65), actualLocation: LOC_A, transportUnitType: 'EURO' }, 'barcode'],
    ['an empty barcode', { barcode: '', actualLocation: LOC_A, transportUnitType: 'EURO' }, 'barcode'],
    ['a barcode as a number', { barcode: 4711, actualLocation: LOC_A, transportUnitType: 'EURO' }, 'barcode'],
    ['a missing actualLocation', { barcode: 'NO-LOC-1', transportUnitType: 'EURO' }, 'actualLocation'],
    ['an invalid coordinate', { barcode: 'BAD-COORD-1', actualLocation: 'TUA/0001', transportUnitType: 'EURO' }, 'actualLocation'],
    ['a coordinate with a wildcard', { barcode: 'BAD-COORD-2', actualLocation: 'TUA/%/0001/0000/0000', transportUnitType: 'EURO' }, 'actualLocation'],
    ['a missing transportUnitType', { barcode: 'NO-TYPE-1', actualLocation: LOC_A }, 'transportUnitType'],
    ['an unknown state value', { barcode: 'BAD-STATE-1', actualLocation: LOC_A, transportUnitType: 'EURO', state: 'LOST' }, 'state'],
    ['a negative weight', { barcode: 'NEG-WEIGHT-1', actualLocation: LOC_A, transportUnitType: 'EURO', weight: -1 }, 'weight'],
    ['a weight as a string', { barcode: 'STR-WEIGHT-1', actualLocation: LOC_A, transportUnitType: 'EURO', weight: '12' }, 'weight'],
  ])('refuses %s with 400 core.validation.error naming the field, changing nothing', async (_case, body, field) => {
    const before = await snapshot();
    expectValidation(await wms.post(TU, body), field);
    expect(await snapshot()).toEqual(before);
  });
});

describe('POST /v1/transport-units?actualLocation=&tut= (no body)', () => {
  it('creates a unit with the given barcode', async () => {
    const barcode = uniqueBarcode('PAR');
    const reply = await wms.post(`${TU}?bk=${barcode}&actualLocation=${q(LOC_B)}&tut=TOTE`);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('location')).toBe(`${wms.url}${TU}/${reply.body.pKey}`);
    expect(reply.body).toMatchObject({ barcode, actualLocation: LOC_B, transportUnitType: 'TOTE', state: 'AVAILABLE', ol: 0 });
    expect(reply.body.actualLocationDate).toMatch(ISO_MS);
    expect((await byBarcode(barcode)).pKey).toBe(reply.body.pKey);
  });

  it('assigns a barcode without bk', async () => {
    const reply = await wms.post(`${TU}?actualLocation=${q(LOC_B)}&tut=EURO`);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.barcode).toMatch(/^\d{16}$/);
    expect(await barcodesOn(LOC_B)).toContain(reply.body.barcode);
  });

  it('refuses a missing location with 404 svc.common.common.loc.notFoundByName and changes nothing', async () => {
    const before = await snapshot();
    const reply = await wms.post(`${TU}?bk=${uniqueBarcode()}&actualLocation=${q(LOC_UNKNOWN)}&tut=EURO`);
    expectApiError(reply, 404, 'svc.common.common.loc.notFoundByName');
    expect(reply.body.obj).toEqual([LOC_UNKNOWN]);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an unknown type with 404 svc.common.common.tut.notFoundByName and changes nothing', async () => {
    const before = await snapshot();
    const reply = await wms.post(`${TU}?bk=${uniqueBarcode()}&actualLocation=${q(LOC_A)}&tut=NO_SUCH_TUT`);
    expectApiError(reply, 404, 'svc.common.common.tut.notFoundByName');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a duplicate barcode with 409 already.exists and changes nothing', async () => {
    const existing = await newUnit(LOC_A);
    const before = await snapshot();
    expectApiError(await wms.post(`${TU}?bk=${existing.barcode}&actualLocation=${q(LOC_B)}&tut=EURO`), 409, 'already.exists');
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['an invalid coordinate', `bk=PAR-BAD-1&actualLocation=${q('A/B/C')}&tut=EURO`, 'actualLocation'],
    ['an invalid barcode', `bk=${q('PAR BAD')}&actualLocation=${q(LOC_A)}&tut=EURO`, 'bk'],
    ['a barcode of 65 characters', `bk=${'P'.repeat(65)}&actualLocation=${q(LOC_A)}&tut=EURO`, 'bk'],
  ])('refuses %s with 400 core.validation.error naming the parameter, changing nothing', async (_case, query, field) => {
    const before = await snapshot();
    expectValidation(await wms.post(`${TU}?${query}`), field);
    expect(await snapshot()).toEqual(before);
  });
});

describe('GET /v1/transport-units', () => {
  let first: Record<string, any>;
  let second: Record<string, any>;
  beforeAll(async () => {
    first = await newUnit(LOC_C, 'EURO');
    second = await newUnit(LOC_C, 'TOTE');
  });

  it('answers a unit by ?bk=', async () => {
    const reply = await wms.get(`${TU}?bk=${first.barcode}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(first);
  });

  it('answers a unit by ?barcode=', async () => {
    const reply = await wms.get(`${TU}?barcode=${first.barcode}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(first);
  });

  it('answers a unit by pKey', async () => {
    const reply = await wms.get(`${TU}/${second.pKey}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(second);
  });

  it('answers the units of several barcodes with ?bks=a&bks=b, skipping unknown ones', async () => {
    const reply = await wms.get(`${TU}?bks=${second.barcode}&bks=${first.barcode}&bks=NO-SUCH-TU`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/json/);
    expect(reply.body).toHaveLength(2);
    expect(reply.body).toContainEqual(first);
    expect(reply.body).toContainEqual(second);
  });

  it('answers the units standing on a location with ?actualLocation=', async () => {
    const reply = await wms.get(`${TU}?actualLocation=${q(LOC_C)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toContainEqual(first);
    expect(reply.body).toContainEqual(second);
    for (const unit of reply.body as { actualLocation: string }[]) expect(unit.actualLocation).toBe(LOC_C);
  });

  it('answers an empty list for a location without units', async () => {
    const reply = await wms.get(`${TU}?actualLocation=${q(LOC_EMPTY)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
  });

  it('answers an unknown location with 404 svc.common.common.loc.notFoundByName', async () => {
    expectApiError(await wms.get(`${TU}?actualLocation=${q(LOC_UNKNOWN)}`), 404, 'svc.common.common.loc.notFoundByName');
  });

  it('lists every unit', async () => {
    const reply = await wms.get(TU);
    expect(reply.status).toBe(200);
    expect(reply.body).toContainEqual(first);
    expect(reply.body).toContainEqual(second);
  });

  it('answers an unknown barcode with 404 svc.common.common.tu.notFoundByBK and obj [bk]', async () => {
    for (const param of ['bk', 'barcode']) {
      const reply = await wms.get(`${TU}?${param}=NO-SUCH-TU`);
      expectApiError(reply, 404, 'svc.common.common.tu.notFoundByBK');
      expect(reply.body.obj).toEqual(['NO-SUCH-TU']);
    }
  });

  it('answers an unknown pKey with 404 svc.common.common.tu.notFoundByPKey', async () => {
    const reply = await wms.get(`${TU}/no-such-pkey`);
    expectApiError(reply, 404, 'svc.common.common.tu.notFoundByPKey');
    expect(reply.body.obj).toEqual(['no-such-pkey']);
  });
});

describe('PATCH /v1/transport-units?bk=&newLocation= (move)', () => {
  it('moves the unit: 200 with the new actualLocation, a later actualLocationDate, ol + 1', async () => {
    const unit = await newUnit(LOC_A);
    await clockPast(unit.actualLocationDate);
    const reply = await wms.patch(`${TU}?bk=${unit.barcode}&newLocation=${q(LOC_B)}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ pKey: unit.pKey, barcode: unit.barcode, actualLocation: LOC_B, ol: unit.ol + 1 });
    expect(reply.body.actualLocationDate).toMatch(ISO_MS);
    expect(Date.parse(reply.body.actualLocationDate)).toBeGreaterThan(Date.parse(unit.actualLocationDate));

    expect(await barcodesOn(LOC_A)).not.toContain(unit.barcode);
    expect(await barcodesOn(LOC_B)).toContain(unit.barcode);
    expect(await byBarcode(unit.barcode)).toEqual(reply.body);
    expect((await location(LOC_B)).lastMovement).toBe(reply.body.actualLocationDate);
  });

  it('refuses an unknown location with 404 svc.common.common.loc.notFoundByName; the unit stays', async () => {
    const unit = await newUnit(LOC_A);
    const before = await snapshot();
    const reply = await wms.patch(`${TU}?bk=${unit.barcode}&newLocation=${q(LOC_UNKNOWN)}`);
    expectApiError(reply, 404, 'svc.common.common.loc.notFoundByName');
    expect(reply.body.obj).toEqual([LOC_UNKNOWN]);
    expect(await snapshot()).toEqual(before);
    expect((await byBarcode(unit.barcode)).actualLocation).toBe(LOC_A);
  });

  it('refuses an invalid coordinate with 400 naming newLocation and changes nothing', async () => {
    const unit = await newUnit(LOC_A);
    const before = await snapshot();
    expectValidation(await wms.patch(`${TU}?bk=${unit.barcode}&newLocation=${q('not-a-coordinate')}`), 'newLocation');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an unknown barcode with 404 svc.common.common.tu.notFoundByBK and changes nothing', async () => {
    const before = await snapshot();
    const reply = await wms.patch(`${TU}?bk=NO-SUCH-TU&newLocation=${q(LOC_B)}`);
    expectApiError(reply, 404, 'svc.common.common.tu.notFoundByBK');
    expect(reply.body.obj).toEqual(['NO-SUCH-TU']);
    expect(await snapshot()).toEqual(before);
  });
});

describe('a unit the conveyor thread read before (its cache of units)', () => {
  // Writes run on the conveyor thread, which keeps the units it read and revises one
  // that it books elsewhere. Moved or blocked, the unit it answers is the one SQLite holds
  // (the HTTP thread reads it anew); a location or a type edited since shows at once.
  const staying = (unit: Record<string, any>) => wms.patch(`${TU}?bk=${unit.barcode}&newLocation=${q(unit.actualLocation)}`);

  it('answers a unit moved, blocked and moved again as SQLite holds it', async () => {
    const unit = await newUnit(LOC_A);
    expect((await wms.patch(`${TU}?bk=${unit.barcode}&newLocation=${q(LOC_B)}`)).status).toBe(200);
    expect((await wms.post(`${TU}/block?bk=${unit.barcode}`, undefined)).status).toBe(204);
    const moved = await wms.patch(`${TU}?bk=${unit.barcode}&newLocation=${q(LOC_C)}`);
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ actualLocation: LOC_C, state: 'BLOCKED', ol: unit.ol + 3 });
    expect(await byBarcode(unit.barcode)).toEqual(moved.body);
    const stayed = await staying(moved.body);
    expect(stayed.body).toEqual(moved.body);
  });

  it("shows its location's new coordinate once the location is edited", async () => {
    const before = 'TUA/0010/0001/0000/0000';
    const after = 'TUA/0010/0002/0000/0000';
    const created = await wms.post('/v1/locations', { locationId: before, locationGroupName: 'WAREHOUSE', type: 'RACK' });
    expect(created.status, created.text).toBe(201);
    const unit = await newUnit(before);
    expect((await staying(unit)).body.actualLocation).toBe(before);
    const edited = await wms.put('/v1/locations', { ...created.body, locationId: after, locationGroupName: 'WAREHOUSE', type: 'RACK' });
    expect(edited.status, edited.text).toBe(200);
    const stayed = await staying({ ...unit, actualLocation: after });
    expect(stayed.status, stayed.text).toBe(200);
    expect(stayed.body.actualLocation).toBe(after);
    expect(await byBarcode(unit.barcode)).toEqual(stayed.body);
  });

  it("shows its type's new name once the type is edited", async () => {
    const type = await wms.post('/v1/transport-unit-types', { type: 'CACHED-BOX' });
    expect(type.status, type.text).toBe(201);
    const unit = await newUnit(LOC_A, 'CACHED-BOX');
    expect((await staying(unit)).body.transportUnitType).toBe('CACHED-BOX');
    const renamed = await wms.put('/v1/transport-unit-types', { pKey: type.body.pKey, type: 'CACHED-CRATE' });
    expect(renamed.status, renamed.text).toBe(200);
    const stayed = await staying(unit);
    expect(stayed.body.transportUnitType).toBe('CACHED-CRATE');
    expect(await byBarcode(unit.barcode)).toEqual(stayed.body);
  });
});

describe('PUT /v1/transport-units?bk=', () => {
  it('changes state, type, weight and targetLocation; ol + 1; the location stays', async () => {
    const unit = await newUnit(LOC_A, 'EURO');
    const reply = await wms.put(`${TU}?bk=${unit.barcode}`, {
      ol: 0,
      state: 'QUALITY_CHECK',
      transportUnitType: 'INDUSTRIAL',
      weight: 250,
      targetLocation: LOC_C,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      pKey: unit.pKey,
      barcode: unit.barcode,
      ol: 1,
      state: 'QUALITY_CHECK',
      transportUnitType: 'INDUSTRIAL',
      weight: 250,
      targetLocation: LOC_C,
      actualLocation: LOC_A,
      actualLocationDate: unit.actualLocationDate,
    });
    expect(await byBarcode(unit.barcode)).toEqual(reply.body);
  });

  it('accepts the type as {type} and clears the target with null', async () => {
    const unit = await createUnit({ barcode: uniqueBarcode(), actualLocation: LOC_A, transportUnitType: 'EURO', targetLocation: LOC_B });
    const reply = await wms.put(`${TU}?bk=${unit.barcode}`, { transportUnitType: { type: 'TOTE' }, targetLocation: null });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.transportUnitType).toBe('TOTE');
    expect(reply.body).not.toHaveProperty('targetLocation');
  });

  it('moves the unit when actualLocation changes; ol + 1 for the one request', async () => {
    const unit = await newUnit(LOC_A);
    await clockPast(unit.actualLocationDate);
    const reply = await wms.put(`${TU}?bk=${unit.barcode}`, { ol: 0, actualLocation: LOC_B, weight: 10 });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ actualLocation: LOC_B, weight: 10, ol: 1 });
    expect(Date.parse(reply.body.actualLocationDate)).toBeGreaterThan(Date.parse(unit.actualLocationDate));
    expect(await barcodesOn(LOC_A)).not.toContain(unit.barcode);
    expect(await barcodesOn(LOC_B)).toContain(unit.barcode);
    expect((await location(LOC_B)).lastMovement).toBe(reply.body.actualLocationDate);
  });

  it('refuses a stale ol with 409 and changes nothing', async () => {
    const unit = await newUnit(LOC_A);
    expect((await wms.put(`${TU}?bk=${unit.barcode}`, { ol: 0, weight: 1 })).status).toBe(200);
    const before = await snapshot();
    const reply = await wms.put(`${TU}?bk=${unit.barcode}`, { ol: 0, weight: 2, actualLocation: LOC_B });
    expectApiError(reply, 409, 'core.optimistic.lock');
    expect(await snapshot()).toEqual(before);
    expect(await byBarcode(unit.barcode)).toMatchObject({ ol: 1, weight: 1, actualLocation: LOC_A });
  });

  it('refuses an unknown barcode with 404 svc.common.common.tu.notFoundByBK and changes nothing', async () => {
    const before = await snapshot();
    expectApiError(await wms.put(`${TU}?bk=NO-SUCH-TU`, { weight: 5 }), 404, 'svc.common.common.tu.notFoundByBK');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an unknown actualLocation with 404 svc.common.common.loc.notFoundByName and changes nothing', async () => {
    const unit = await newUnit(LOC_A);
    const before = await snapshot();
    const reply = await wms.put(`${TU}?bk=${unit.barcode}`, { actualLocation: LOC_UNKNOWN, weight: 3 });
    expectApiError(reply, 404, 'svc.common.common.loc.notFoundByName');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an unknown type with 404 svc.common.common.tut.notFoundByName and changes nothing', async () => {
    const unit = await newUnit(LOC_A);
    const before = await snapshot();
    expectApiError(await wms.put(`${TU}?bk=${unit.barcode}`, { transportUnitType: 'NO_SUCH_TUT' }), 404, 'svc.common.common.tut.notFoundByName');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses renaming onto an existing barcode with 409 already.exists and changes nothing', async () => {
    const unit = await newUnit(LOC_A);
    const other = await newUnit(LOC_A);
    const before = await snapshot();
    expectApiError(await wms.put(`${TU}?bk=${unit.barcode}`, { barcode: other.barcode }), 409, 'already.exists');
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['an unknown state value', { state: 'MISPLACED' }, 'state'],
    ['a negative weight', { weight: -0.5 }, 'weight'],
    ['an invalid coordinate', { actualLocation: 'TUA/0001/0001' }, 'actualLocation'],
    ['an invalid target coordinate', { targetLocation: 'x' }, 'targetLocation'],
    ['an invalid barcode', { barcode: 'has space' }, 'barcode'],
    ['ol as a string', { ol: '0' }, 'ol'],
  ])('refuses %s with 400 core.validation.error naming the field, changing nothing', async (_case, body, field) => {
    const unit = await newUnit(LOC_A);
    const before = await snapshot();
    expectValidation(await wms.put(`${TU}?bk=${unit.barcode}`, body), field);
    expect(await snapshot()).toEqual(before);
  });
});

describe('POST /v1/transport-units/{block|available|quality-check}?bk=', () => {
  it('blocks, puts into quality check and releases a unit: 204 each, the state follows', async () => {
    const unit = await newUnit(LOC_A);

    const blocked = await wms.post(`${TU}/block?bk=${unit.barcode}`);
    expect(blocked.status, blocked.text).toBe(204);
    expect(blocked.text).toBe('');
    expect(await byBarcode(unit.barcode)).toMatchObject({ state: 'BLOCKED', ol: 1 });

    expect((await wms.post(`${TU}/quality-check?bk=${unit.barcode}`)).status).toBe(204);
    expect(await byBarcode(unit.barcode)).toMatchObject({ state: 'QUALITY_CHECK', ol: 2 });

    expect((await wms.post(`${TU}/available?bk=${unit.barcode}`)).status).toBe(204);
    expect(await byBarcode(unit.barcode)).toMatchObject({ state: 'AVAILABLE', ol: 3, actualLocation: LOC_A });
  });

  it('leaves a unit already in the wanted state unchanged', async () => {
    const unit = await newUnit(LOC_A);
    expect((await wms.post(`${TU}/available?bk=${unit.barcode}`)).status).toBe(204);
    expect(await byBarcode(unit.barcode)).toEqual(unit);
  });

  it.each(['block', 'available', 'quality-check'])(
    'refuses /%s of an unknown barcode with 404 svc.common.common.tu.notFoundByBK and changes nothing',
    async (op) => {
      const before = await snapshot();
      const reply = await wms.post(`${TU}/${op}?bk=NO-SUCH-TU`);
      expectApiError(reply, 404, 'svc.common.common.tu.notFoundByBK');
      expect(reply.body.obj).toEqual(['NO-SUCH-TU']);
      expect(await snapshot()).toEqual(before);
    },
  );
});

describe('DELETE /v1/transport-units/{pKey}', () => {
  it('deletes a unit: 204, then 404 by pKey and by barcode; the location no longer lists it', async () => {
    const unit = await newUnit(LOC_B);
    const reply = await wms.del(`${TU}/${unit.pKey}`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expectApiError(await wms.get(`${TU}/${unit.pKey}`), 404, 'svc.common.common.tu.notFoundByPKey');
    expectApiError(await wms.get(`${TU}?bk=${unit.barcode}`), 404, 'svc.common.common.tu.notFoundByBK');
    expect(await barcodesOn(LOC_B)).not.toContain(unit.barcode);
  });

  it('frees the barcode for a new unit', async () => {
    const unit = await newUnit(LOC_A);
    expect((await wms.del(`${TU}/${unit.pKey}`)).status).toBe(204);
    const again = await createUnit({ barcode: unit.barcode, actualLocation: LOC_B, transportUnitType: 'TOTE' });
    expect(again.pKey).not.toBe(unit.pKey);
  });

  it('answers an unknown pKey with 404 svc.common.common.tu.notFoundByPKey and changes nothing', async () => {
    const before = await snapshot();
    expectApiError(await wms.del(`${TU}/no-such-pkey`), 404, 'svc.common.common.tu.notFoundByPKey');
    expect(await snapshot()).toEqual(before);
  });
});

describe('earlier-revision message keys (api.messageKeys: upper-case)', () => {
  let legacy: TestAppliance;
  beforeAll(async () => {
    legacy = await startTestAppliance({ api: { messageKeys: 'upper-case' } });
  });
  afterAll(() => legacy.close());

  it('answers an unknown barcode with COMMON.BARCODE_NOT_FOUND and obj [bk]', async () => {
    const reply = await legacy.get(`${TU}?bk=NO-SUCH-TU`);
    expectApiError(reply, 404, 'COMMON.BARCODE_NOT_FOUND');
    expect(reply.body.obj).toEqual(['NO-SUCH-TU']);
  });

  it('answers a unit on an unknown location with COMMON.LOCATION_NOT_FOUND', async () => {
    const reply = await legacy.post(TU, { barcode: 'LEGACY-1', actualLocation: LOC_UNKNOWN, transportUnitType: 'EURO' });
    expectApiError(reply, 404, 'COMMON.LOCATION_NOT_FOUND');
    expect((await legacy.get(TU)).body).toEqual([]);
  });

  it('keeps the dotted key where the spec lists no earlier one (pKey lookup)', async () => {
    expectApiError(await legacy.get(`${TU}/no-such-pkey`), 404, 'svc.common.common.tu.notFoundByPKey');
  });
});
