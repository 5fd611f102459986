import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';

// Black-box tests of the common base module's type catalogues: location types
// (`/v1/location-types`) and transport unit types (`/v1/transport-unit-types`).

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let counter = 0;
const unique = (prefix: string) => `${prefix}_${++counter}`;

/** The whole catalogue as the API shows it, for "changes nothing" checks. */
async function snapshot(base: string): Promise<unknown> {
  const reply = await wms.get(base);
  expect(reply.status).toBe(200);
  return reply.body;
}

/** Asserts a 400 validation error whose message names the field. */
function expectValidation(reply: Reply, field: string): void {
  expectApiError(reply, 400, 'core.validation.error');
  expect(reply.body.message).toContain(field);
}

// ---------------------------------------------------------------------------------
// Location types
// ---------------------------------------------------------------------------------

const LT = '/v1/location-types';

async function createLocationType(body: Record<string, unknown>): Promise<Reply> {
  const reply = await wms.post(LT, body);
  expect(reply.status, reply.text).toBe(201);
  return reply;
}

describe('GET /v1/location-types/index', () => {
  it('lists the link names of every location type operation', async () => {
    const reply = await wms.get(`${LT}/index`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    for (const name of [
      'location-types-findbypkey',
      'location-types-findbytypename',
      'location-types-findall',
      'location-types-create',
      'location-types-update',
      'location-types-delete',
    ]) {
      expect(links[name], name).toBeDefined();
      expect(links[name]!.href.startsWith(`${wms.url}${LT}`), name).toBe(true);
    }
    expect(links['location-types-findbytypename']!.href).toBe(`${wms.url}${LT}?typeName={typeName}`);
    expect(links['location-types-findbypkey']!.href).toBe(`${wms.url}${LT}/{pKey}`);
  });
});

describe('the seeded location type catalogue', () => {
  it('holds CONVEYOR, RACK, FLOOR, WORKPLACE and DOCK', async () => {
    const reply = await wms.get(LT);
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body)).toBe(true);
    const names = (reply.body as { type: string }[]).map((t) => t.type);
    expect(names).toEqual(expect.arrayContaining(['CONVEYOR', 'RACK', 'FLOOR', 'WORKPLACE', 'DOCK']));
    for (const t of reply.body as Record<string, unknown>[]) {
      expect(t).toMatchObject({ pKey: expect.any(String), ol: expect.any(Number), type: expect.any(String) });
    }
  });

  it('answers each seeded type by name with a description', async () => {
    for (const name of ['CONVEYOR', 'RACK', 'FLOOR', 'WORKPLACE', 'DOCK']) {
      const reply = await wms.get(`${LT}?typeName=${name}`);
      expect(reply.status, name).toBe(200);
      expect(reply.body).toMatchObject({ type: name, description: expect.any(String) });
    }
  });
});

describe('POST /v1/location-types', () => {
  it('creates a type: 201 with the Location header and the representation', async () => {
    const type = unique('SHELF');
    const reply = await createLocationType({ type, description: 'Small shelf', length: 1200, width: 400, height: 300 });
    const pKey = reply.body.pKey as string;
    expect(pKey).toEqual(expect.any(String));
    expect(reply.headers.get('location')).toBe(`${wms.url}${LT}/${pKey}`);
    expect(reply.body).toMatchObject({
      type,
      description: 'Small shelf',
      length: 1200,
      width: 400,
      height: 300,
      ol: 0,
      pKey,
    });
    expect(reply.body.createDt).toMatch(ISO_MS);
    expect(reply.body.lastModifiedDt).toMatch(ISO_MS);
    expect(reply.body.links).toContainEqual({ rel: 'location-types-findbypkey', href: `${wms.url}${LT}/${pKey}` });
  });

  it('creates a type with the name only; absent dimensions stay absent', async () => {
    const type = unique('BARE');
    const reply = await createLocationType({ type });
    expect(reply.body.type).toBe(type);
    expect(reply.body).not.toHaveProperty('length');
    expect(reply.body).not.toHaveProperty('description');
  });

  it('refuses a duplicate name with 409 already.exists and changes nothing', async () => {
    const before = await snapshot(LT);
    const reply = await wms.post(LT, { type: 'RACK', description: 'another rack' });
    expectApiError(reply, 409, 'already.exists');
    expect(await snapshot(LT)).toEqual(before);
  });

  it.each([
    ['missing type', { description: 'no name' }, 'type'],
    ['empty type', { type: '' }, 'type'],
    ['negative length', { type: 'NEG_LEN', length: -1 }, 'length'],
    ['non-integer length', { type: 'FRACTION_LEN', length: 1.5 }, 'length'],
    ['negative width', { type: 'NEG_WIDTH', width: -10 }, 'width'],
    ['type as a number', { type: 42 }, 'type'],
    ['height as a string', { type: 'STRING_HEIGHT', height: '300' }, 'height'],
    ['description as a number', { type: 'NUM_DESC', description: 5 }, 'description'],
  ])('refuses %s with 400 core.validation.error naming the field, changing nothing', async (_case, body, field) => {
    const before = await snapshot(LT);
    const reply = await wms.post(LT, body);
    expectValidation(reply, field);
    expect(await snapshot(LT)).toEqual(before);
  });
});

describe('GET /v1/location-types', () => {
  let created: Record<string, unknown>;
  beforeAll(async () => {
    created = (await createLocationType({ type: unique('READ'), description: 'for reading', length: 10 })).body;
  });

  it('answers a type by pKey', async () => {
    const reply = await wms.get(`${LT}/${created.pKey}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/json/);
    expect(reply.body).toEqual(created);
  });

  it('answers a type by ?typeName=', async () => {
    const reply = await wms.get(`${LT}?typeName=${created.type}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(created);
  });

  it('answers a type by ?type=', async () => {
    const reply = await wms.get(`${LT}?type=${created.type}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(created);
  });

  it('lists the new type among all types', async () => {
    const reply = await wms.get(LT);
    expect(reply.status).toBe(200);
    expect(reply.body).toContainEqual(created);
  });

  it('answers an unknown pKey with 404 svc.common.common.lt.notFoundByPKey', async () => {
    const reply = await wms.get(`${LT}/no-such-pkey`);
    expectApiError(reply, 404, 'svc.common.common.lt.notFoundByPKey');
    expect(reply.body.obj).toEqual(['no-such-pkey']);
  });

  it('answers an unknown name with 404 svc.common.common.lt.notFoundByType', async () => {
    for (const param of ['typeName', 'type']) {
      const reply = await wms.get(`${LT}?${param}=NO_SUCH_TYPE`);
      expectApiError(reply, 404, 'svc.common.common.lt.notFoundByType');
      expect(reply.body.obj).toEqual(['NO_SUCH_TYPE']);
    }
  });
});

describe('PUT /v1/location-types', () => {
  it('replaces a type by the pKey in the body; ol increments', async () => {
    const original = (await createLocationType({ type: unique('UPD'), description: 'old', length: 100 })).body;
    const newName = unique('UPD_RENAMED');
    const reply = await wms.put(LT, { pKey: original.pKey, ol: 0, type: newName, description: 'new', width: 50 });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ pKey: original.pKey, ol: 1, type: newName, description: 'new', width: 50 });
    expect(reply.body).not.toHaveProperty('length');
    expect(reply.body.createDt).toBe(original.createDt);

    const read = await wms.get(`${LT}/${original.pKey}`);
    expect(read.body).toEqual(reply.body);
    expectApiError(await wms.get(`${LT}?typeName=${original.type}`), 404, 'svc.common.common.lt.notFoundByType');

    const again = await wms.put(LT, { pKey: original.pKey, ol: 1, type: newName, description: 'newer' });
    expect(again.status).toBe(200);
    expect(again.body.ol).toBe(2);
  });

  it('applies an update without ol (last writer wins) and still increments ol', async () => {
    const original = (await createLocationType({ type: unique('NO_OL') })).body;
    const reply = await wms.put(LT, { pKey: original.pKey, type: original.type, description: 'described' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ ol: 1, description: 'described' });
  });

  it('refuses a stale ol with 409 and changes nothing', async () => {
    const original = (await createLocationType({ type: unique('STALE'), description: 'v0' })).body;
    expect((await wms.put(LT, { pKey: original.pKey, ol: 0, type: original.type, description: 'v1' })).status).toBe(200);
    const before = await wms.get(`${LT}/${original.pKey}`);
    const reply = await wms.put(LT, { pKey: original.pKey, ol: 0, type: original.type, description: 'lost update' });
    expectApiError(reply, 409, 'core.optimistic.lock');
    const after = await wms.get(`${LT}/${original.pKey}`);
    expect(after.body).toEqual(before.body);
    expect(after.body).toMatchObject({ ol: 1, description: 'v1' });
  });

  it('refuses renaming onto an existing name with 409 already.exists and changes nothing', async () => {
    const original = (await createLocationType({ type: unique('CLASH') })).body;
    const before = await snapshot(LT);
    const reply = await wms.put(LT, { pKey: original.pKey, type: 'DOCK' });
    expectApiError(reply, 409, 'already.exists');
    expect(await snapshot(LT)).toEqual(before);
  });

  it('answers an unknown pKey with 404 svc.common.common.lt.notFoundByPKey and changes nothing', async () => {
    const before = await snapshot(LT);
    const reply = await wms.put(LT, { pKey: 'no-such-pkey', type: unique('GHOST') });
    expectApiError(reply, 404, 'svc.common.common.lt.notFoundByPKey');
    expect(await snapshot(LT)).toEqual(before);
  });

  it.each([
    ['missing pKey', (_pKey: string) => ({ type: 'X_NO_PKEY' }), 'pKey'],
    ['missing type', (pKey: string) => ({ pKey }), 'type'],
    ['negative length', (pKey: string) => ({ pKey, type: 'X_NEG', length: -5 }), 'length'],
    ['non-integer height', (pKey: string) => ({ pKey, type: 'X_FRAC', height: 2.25 }), 'height'],
    ['ol as a string', (pKey: string) => ({ pKey, type: 'X_OL', ol: '0' }), 'ol'],
  ])('refuses %s with 400 core.validation.error naming the field, changing nothing', async (_case, makeBody, field) => {
    const original = (await createLocationType({ type: unique('BAD_PUT'), length: 7 })).body;
    const before = await snapshot(LT);
    const reply = await wms.put(LT, makeBody(original.pKey as string));
    expectValidation(reply, field);
    expect(await snapshot(LT)).toEqual(before);
  });
});

describe('DELETE /v1/location-types/{pKey}', () => {
  it('deletes an unused type: 204, then 404', async () => {
    const original = (await createLocationType({ type: unique('GONE') })).body;
    const reply = await wms.del(`${LT}/${original.pKey}`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expectApiError(await wms.get(`${LT}/${original.pKey}`), 404, 'svc.common.common.lt.notFoundByPKey');
    expectApiError(await wms.get(`${LT}?typeName=${original.type}`), 404, 'svc.common.common.lt.notFoundByType');
  });

  it('refuses a type a location uses with 409 svc.common.common.lt.inUse and changes nothing', async () => {
    const original = (await createLocationType({ type: unique('USED') })).body;
    const location = await wms.post('/v1/locations', {
      locationId: 'LTUS/0001/0001/0000/0000',
      locationGroupName: 'WAREHOUSE',
      type: original.type,
    });
    expect(location.status, location.text).toBe(201);
    expect(location.body.type).toBe(original.type);

    const before = await snapshot(LT);
    const reply = await wms.del(`${LT}/${original.pKey}`);
    expectApiError(reply, 409, 'svc.common.common.lt.inUse');
    expect(reply.body.obj).toEqual([original.type]);
    expect(await snapshot(LT)).toEqual(before);
    const stillTyped = await wms.get(`/v1/locations?locationId=${encodeURIComponent('LTUS/0001/0001/0000/0000')}`);
    expect(stillTyped.body.type).toBe(original.type);
  });

  it('deletes a type once the last location using it is gone', async () => {
    const original = (await createLocationType({ type: unique('FREED') })).body;
    const location = await wms.post('/v1/locations', {
      locationId: 'LTFR/0001/0001/0000/0000',
      locationGroupName: 'WAREHOUSE',
      type: original.type,
    });
    expect(location.status, location.text).toBe(201);
    expectApiError(await wms.del(`${LT}/${original.pKey}`), 409, 'svc.common.common.lt.inUse');

    const removed = await wms.del(`/v1/locations/${location.body.pKey}`);
    expect(removed.status, removed.text).toBe(204);
    expect((await wms.del(`${LT}/${original.pKey}`)).status).toBe(204);
    expectApiError(await wms.get(`${LT}/${original.pKey}`), 404, 'svc.common.common.lt.notFoundByPKey');
  });

  it('answers an unknown pKey with 404 svc.common.common.lt.notFoundByPKey and changes nothing', async () => {
    const before = await snapshot(LT);
    expectApiError(await wms.del(`${LT}/no-such-pkey`), 404, 'svc.common.common.lt.notFoundByPKey');
    expect(await snapshot(LT)).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------
// Transport unit types
// ---------------------------------------------------------------------------------

const TUT = '/v1/transport-unit-types';

async function createTuType(body: Record<string, unknown>): Promise<Reply> {
  const reply = await wms.post(TUT, body);
  expect(reply.status, reply.text).toBe(201);
  return reply;
}

describe('GET /v1/transport-unit-types/index', () => {
  it('lists the link names of every transport unit type operation', async () => {
    const reply = await wms.get(`${TUT}/index`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    for (const name of [
      'transport-unit-types-findbypkey',
      'transport-unit-types-findtransportunittype',
      'transport-unit-types-findall',
      'transport-unit-types-create',
      'transport-unit-types-update',
      'transport-unit-types-delete',
    ]) {
      expect(links[name], name).toBeDefined();
      expect(links[name]!.href.startsWith(`${wms.url}${TUT}`), name).toBe(true);
    }
    expect(links['transport-unit-types-findtransportunittype']!.href).toBe(`${wms.url}${TUT}?type={type}`);
  });

  it('is linked from the public entry index as transport-unit-type-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['transport-unit-type-index'].href).toBe(`${wms.url}${TUT}/index`);
  });
});

describe('the seeded transport unit type catalogue', () => {
  it('holds EURO, INDUSTRIAL and TOTE with dimensions and weights', async () => {
    const reply = await wms.get(TUT);
    expect(reply.status).toBe(200);
    const byName = new Map((reply.body as { type: string }[]).map((t) => [t.type, t]));
    for (const name of ['EURO', 'INDUSTRIAL', 'TOTE']) expect(byName.has(name), name).toBe(true);
    expect(byName.get('EURO')).toMatchObject({ length: 1200, width: 800, weightTare: 25, weightMax: 1500 });
    expect(byName.get('TOTE')).toMatchObject({ length: 600, width: 400, weightMax: 50 });
  });
});

describe('POST /v1/transport-unit-types', () => {
  it('creates a type: 201 with the Location header and the representation', async () => {
    const type = unique('CAGE');
    const reply = await createTuType({
      type,
      description: 'Roll cage',
      length: 800,
      width: 700,
      height: 1700,
      weightTare: 35.5,
      weightMax: 500,
    });
    const pKey = reply.body.pKey as string;
    expect(reply.headers.get('location')).toBe(`${wms.url}${TUT}/${pKey}`);
    expect(reply.body).toMatchObject({
      pKey,
      ol: 0,
      type,
      description: 'Roll cage',
      length: 800,
      width: 700,
      height: 1700,
      weightTare: 35.5,
      weightMax: 500,
    });
    expect(reply.body.createDt).toMatch(ISO_MS);
    expect(reply.body.links).toContainEqual({ rel: 'transport-unit-types-findbypkey', href: `${wms.url}${TUT}/${pKey}` });
  });

  it('refuses a duplicate name with 409 already.exists and changes nothing', async () => {
    const before = await snapshot(TUT);
    expectApiError(await wms.post(TUT, { type: 'EURO' }), 409, 'already.exists');
    expect(await snapshot(TUT)).toEqual(before);
  });

  it.each([
    ['missing type', { weightMax: 10 }, 'type'],
    ['negative length', { type: 'T_NEG', length: -1 }, 'length'],
    ['non-integer width', { type: 'T_FRAC', width: 0.5 }, 'width'],
    ['negative weightTare', { type: 'T_TARE', weightTare: -1 }, 'weightTare'],
    ['negative weightMax', { type: 'T_MAX', weightMax: -0.1 }, 'weightMax'],
    ['weightMax as a string', { type: 'T_STR', weightMax: '100' }, 'weightMax'],
    ['type as an object', { type: { name: 'X' } }, 'type'],
  ])('refuses %s with 400 core.validation.error naming the field, changing nothing', async (_case, body, field) => {
    const before = await snapshot(TUT);
    expectValidation(await wms.post(TUT, body), field);
    expect(await snapshot(TUT)).toEqual(before);
  });
});

describe('GET /v1/transport-unit-types', () => {
  let created: Record<string, unknown>;
  beforeAll(async () => {
    created = (await createTuType({ type: unique('BIN'), weightTare: 1, weightMax: 20 })).body;
  });

  it('answers a type by pKey', async () => {
    const reply = await wms.get(`${TUT}/${created.pKey}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(created);
  });

  it('answers a type by ?type=', async () => {
    const reply = await wms.get(`${TUT}?type=${created.type}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(created);
  });

  it('lists the new type among all types', async () => {
    const reply = await wms.get(TUT);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/json/);
    expect(reply.body).toContainEqual(created);
  });

  it('answers an unknown name with 404 svc.common.common.tut.notFoundByName', async () => {
    const reply = await wms.get(`${TUT}?type=NO_SUCH_TUT`);
    expectApiError(reply, 404, 'svc.common.common.tut.notFoundByName');
    expect(reply.body.obj).toEqual(['NO_SUCH_TUT']);
  });

  it('answers an unknown pKey with 404 svc.common.common.tut.notFoundByPKey', async () => {
    const reply = await wms.get(`${TUT}/no-such-pkey`);
    expectApiError(reply, 404, 'svc.common.common.tut.notFoundByPKey');
    expect(reply.body.obj).toEqual(['no-such-pkey']);
  });
});

describe('PUT /v1/transport-unit-types', () => {
  it('replaces a type by the pKey in the body; ol increments', async () => {
    const original = (await createTuType({ type: unique('BOX'), weightTare: 3, weightMax: 30 })).body;
    const reply = await wms.put(TUT, { pKey: original.pKey, ol: 0, type: original.type, weightTare: 4, weightMax: 40 });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ pKey: original.pKey, ol: 1, type: original.type, weightTare: 4, weightMax: 40 });
    expect((await wms.get(`${TUT}/${original.pKey}`)).body).toEqual(reply.body);
  });

  it('refuses a stale ol with 409 and changes nothing', async () => {
    const original = (await createTuType({ type: unique('BOX_STALE'), weightMax: 10 })).body;
    expect((await wms.put(TUT, { pKey: original.pKey, ol: 0, type: original.type, weightMax: 11 })).status).toBe(200);
    const before = await wms.get(`${TUT}/${original.pKey}`);
    const reply = await wms.put(TUT, { pKey: original.pKey, ol: 0, type: original.type, weightMax: 99 });
    expectApiError(reply, 409, 'core.optimistic.lock');
    const after = await wms.get(`${TUT}/${original.pKey}`);
    expect(after.body).toEqual(before.body);
    expect(after.body).toMatchObject({ ol: 1, weightMax: 11 });
  });

  it('refuses renaming onto an existing name with 409 already.exists and changes nothing', async () => {
    const original = (await createTuType({ type: unique('BOX_CLASH') })).body;
    const before = await snapshot(TUT);
    expectApiError(await wms.put(TUT, { pKey: original.pKey, type: 'TOTE' }), 409, 'already.exists');
    expect(await snapshot(TUT)).toEqual(before);
  });

  it('answers an unknown pKey with 404 svc.common.common.tut.notFoundByPKey and changes nothing', async () => {
    const before = await snapshot(TUT);
    expectApiError(await wms.put(TUT, { pKey: 'no-such-pkey', type: unique('GHOST') }), 404, 'svc.common.common.tut.notFoundByPKey');
    expect(await snapshot(TUT)).toEqual(before);
  });

  it('refuses a negative weight with 400 naming the field and changes nothing', async () => {
    const original = (await createTuType({ type: unique('BOX_NEG'), weightMax: 10 })).body;
    const before = await snapshot(TUT);
    expectValidation(await wms.put(TUT, { pKey: original.pKey, type: original.type, weightMax: -10 }), 'weightMax');
    expect(await snapshot(TUT)).toEqual(before);
  });
});

describe('DELETE /v1/transport-unit-types/{pKey}', () => {
  it('deletes an unused type: 204, then 404', async () => {
    const original = (await createTuType({ type: unique('DROP') })).body;
    expect((await wms.del(`${TUT}/${original.pKey}`)).status).toBe(204);
    expectApiError(await wms.get(`${TUT}/${original.pKey}`), 404, 'svc.common.common.tut.notFoundByPKey');
    expectApiError(await wms.get(`${TUT}?type=${original.type}`), 404, 'svc.common.common.tut.notFoundByName');
  });

  it('refuses a type a transport unit uses with 409 svc.common.common.tut.inUse and changes nothing', async () => {
    const original = (await createTuType({ type: unique('IN_USE') })).body;
    const location = await wms.post('/v1/locations', { locationId: 'TUTU/0001/0001/0000/0000', locationGroupName: 'WAREHOUSE' });
    expect(location.status, location.text).toBe(201);
    const unit = await wms.post('/v1/transport-units', {
      barcode: 'TUT-IN-USE-1',
      actualLocation: 'TUTU/0001/0001/0000/0000',
      transportUnitType: original.type,
    });
    expect(unit.status, unit.text).toBe(201);

    const before = await snapshot(TUT);
    const reply = await wms.del(`${TUT}/${original.pKey}`);
    expectApiError(reply, 409, 'svc.common.common.tut.inUse');
    expect(reply.body.obj).toEqual([original.type]);
    expect(await snapshot(TUT)).toEqual(before);
    expect((await wms.get('/v1/transport-units?bk=TUT-IN-USE-1')).body.transportUnitType).toBe(original.type);

    expect((await wms.del(`/v1/transport-units/${unit.body.pKey}`)).status).toBe(204);
    expect((await wms.del(`${TUT}/${original.pKey}`)).status).toBe(204);
  });

  it('answers an unknown pKey with 404 svc.common.common.tut.notFoundByPKey and changes nothing', async () => {
    const before = await snapshot(TUT);
    expectApiError(await wms.del(`${TUT}/no-such-pkey`), 404, 'svc.common.common.tut.notFoundByPKey');
    expect(await snapshot(TUT)).toEqual(before);
  });
});

describe('earlier-revision message keys (api.messageKeys: upper-case)', () => {
  let legacy: TestAppliance;
  beforeAll(async () => {
    legacy = await startTestAppliance({ api: { messageKeys: 'upper-case' } });
  });
  afterAll(() => legacy.close());

  it('answers an unknown transport unit type name with COMMON.TRANSPORT_UNIT_TYPE_NOT_FOUND', async () => {
    const reply = await legacy.get(`${TUT}?type=NO_SUCH_TUT`);
    expectApiError(reply, 404, 'COMMON.TRANSPORT_UNIT_TYPE_NOT_FOUND');
    expect(reply.body.obj).toEqual(['NO_SUCH_TUT']);
  });

  it('keeps the dotted key where the spec lists no earlier one (pKey lookup)', async () => {
    expectApiError(await legacy.get(`${TUT}/no-such-pkey`), 404, 'svc.common.common.tut.notFoundByPKey');
  });
});
