import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';
import { refusal } from './support/expect.ts';

// Locations of the common base module (docs/common-module.md), and the state
// change by the 8-character bitmap (docs/plc.md ("Telegram catalogue")): position 0 from the
// right = incomingActive, 1 = outgoingActive, 2 = groupStateIn, 3 = groupStateOut of
// the location's group (cascading to the groups below it); '0' = active, '1' = locked,
// '*' = unchanged.

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

interface Location {
  pKey: string;
  ol: number;
  locationId: string;
  accountId: string;
  locationGroupName: string;
  plcCode: string | null;
  erpCode?: string;
  type?: string;
  incomingActive: boolean;
  outgoingActive: boolean;
  plcState: number;
  links: { rel: string; href: string }[];
}

const enc = encodeURIComponent;

async function createGroup(name: string, parentName = 'WAREHOUSE'): Promise<{ pKey: string; name: string }> {
  const reply = await wms.post('/v1/location-groups', { name, parentName });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function group(name: string): Promise<{ groupStateIn: string; groupStateOut: string; ol: number }> {
  const reply = await wms.get(`/v1/location-groups?name=${enc(name)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function create(locationId: string, fields: Record<string, unknown> = {}): Promise<Location> {
  const reply = await wms.post('/v1/locations', { links: [], locationId, locationGroupName: 'WAREHOUSE', ...fields });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function read(pKey: string): Promise<Location> {
  const reply = await wms.get(`/v1/locations/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function allLocations(): Promise<Location[]> {
  const reply = await wms.get('/v1/locations');
  expect(reply.status).toBe(200);
  return reply.body;
}

async function allGroups(): Promise<unknown[]> {
  const reply = await wms.get('/v1/location-groups');
  expect(reply.status).toBe(200);
  return reply.body;
}

/** Runs a request that must be refused, and proves that no location and no group changed. */
const refusedWithoutChange = refusal({ state: async () => ({ locations: await allLocations(), groups: await allGroups() }) });

const sortedIds = (reply: Reply) => (reply.body as Location[]).map((l) => l.locationId).sort();

const changeState = (pKey: string, body: unknown) => wms.patch(`/v1/location/${pKey}?op=change-state`, body);

describe('GET /v1/locations/index', () => {
  it('lists the ten link names of the spec', async () => {
    const reply = await wms.get('/v1/locations/index');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    for (const name of [
      'location-create',
      'location-updatelocation',
      'location-deletelocation',
      'location-findbypkey',
      'location-findbycoordinate',
      'location-findbycoordinate-wc',
      'location-findbyerpcode',
      'location-findbyplccode',
      'location-forlocationgroup',
      'location-changestate',
    ]) {
      expect(links[name], name).toBeDefined();
      expect(links[name]!.href.startsWith(`${wms.url}/v1/location`)).toBe(true);
    }
    expect(links['location-changestate']!.href).toContain('/v1/location/');
    expect(links['location-changestate']!.href).toContain('op=change-state');
  });
});

describe('POST /v1/locations', () => {
  it('creates a location: 201, Location header, the spec defaults', async () => {
    await createGroup('P-GROUP');
    const reply = await wms.post('/v1/locations', {
      links: [],
      locationId: 'PCRE/0001/0002/0003/0004',
      plcCode: 'P-PLC-1',
      erpCode: 'P-ERP-1',
      type: 'CONVEYOR',
      locationGroupName: 'P-GROUP',
    });
    expect(reply.status).toBe(201);
    const pKey = reply.body.pKey as string;
    expect(typeof pKey).toBe('string');
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/locations/${pKey}/`);
    expect(reply.body).toMatchObject({
      ol: 0,
      locationId: 'PCRE/0001/0002/0003/0004',
      plcCode: 'P-PLC-1',
      erpCode: 'P-ERP-1',
      type: 'CONVEYOR',
      locationGroupName: 'P-GROUP',
      accountId: 'D',
      incomingActive: true,
      outgoingActive: true,
      plcState: 0,
    });
    expect(reply.body.links).toContainEqual({ rel: 'location-findbypkey', href: `${wms.url}/v1/locations/${pKey}` });
  });

  it('takes an explicit accountId that exists', async () => {
    const l = await create('PCRE/0001/0002/0003/0005', { accountId: 'D' });
    expect(l.accountId).toBe('D');
  });

  describe('bad input changes nothing', () => {
    const base = { links: [], locationGroupName: 'WAREHOUSE' };
    it.each([
      ['locationId is missing', { ...base }],
      ['locationGroupName is missing', { links: [], locationId: 'PBAD/0001/0001/0001/0001' }],
      ['locationId is a number', { ...base, locationId: 5 }],
      ['locationGroupName is a number', { links: [], locationId: 'PBAD/0001/0001/0001/0002', locationGroupName: 7 }],
      ['the coordinate has 4 parts', { ...base, locationId: 'PBAD/0001/0001/0001' }],
      ['the coordinate has 6 parts', { ...base, locationId: 'PBAD/0001/0001/0001/0001/0001' }],
      ['a coordinate part is empty', { ...base, locationId: 'PBAD//0001/0001/0001' }],
      ['a coordinate part holds %', { ...base, locationId: 'PBAD/00%1/0001/0001/0001' }],
      ['a coordinate part is longer than 20', { ...base, locationId: `PBAD/${'A'.repeat(21)}/0001/0001/0001` }],
      ['the body is empty JSON', {}],
    ])('400 core.validation.error when %s', async (_what, body) => {
      await refusedWithoutChange(
        () => wms.post('/v1/locations', body),
        (r) => expectApiError(r, 400, 'core.validation.error'),
      );
    });

    it('accepts a part of exactly 20 characters', async () => {
      const l = await create(`PLEN/${'A'.repeat(20)}/0001/0001/0001`);
      expect(l.locationId).toBe(`PLEN/${'A'.repeat(20)}/0001/0001/0001`);
    });

    it('404 svc.common.common.lg.notFoundByName for an unknown group', async () => {
      const reply = await refusedWithoutChange(
        () => wms.post('/v1/locations', { ...base, locationId: 'PBAD/0002/0001/0001/0001', locationGroupName: 'NO-SUCH-GROUP' }),
        (r) => expectApiError(r, 404, 'svc.common.common.lg.notFoundByName'),
      );
      expect(reply.body.obj).toEqual(['NO-SUCH-GROUP']);
    });

    it('404 svc.common.common.lt.notFoundByType for an unknown type', async () => {
      const reply = await refusedWithoutChange(
        () => wms.post('/v1/locations', { ...base, locationId: 'PBAD/0003/0001/0001/0001', type: 'HOVERCRAFT' }),
        (r) => expectApiError(r, 404, 'svc.common.common.lt.notFoundByType'),
      );
      expect(reply.body.obj).toEqual(['HOVERCRAFT']);
    });

    it('404 svc.common.common.account.notFound for an unknown account', async () => {
      const reply = await refusedWithoutChange(
        () => wms.post('/v1/locations', { ...base, locationId: 'PBAD/0004/0001/0001/0001', accountId: 'NOACC' }),
        (r) => expectApiError(r, 404, 'svc.common.common.account.notFound'),
      );
      expect(reply.body.obj).toEqual(['NOACC']);
    });

    it('409 already.exists for a duplicate locationId, plcCode or erpCode', async () => {
      await create('PDUP/0001/0001/0001/0001', { plcCode: 'PDUP-PLC', erpCode: 'PDUP-ERP' });
      for (const body of [
        { ...base, locationId: 'PDUP/0001/0001/0001/0001' },
        { ...base, locationId: 'PDUP/0002/0001/0001/0001', plcCode: 'PDUP-PLC' },
        { ...base, locationId: 'PDUP/0003/0001/0001/0001', erpCode: 'PDUP-ERP' },
      ]) {
        await refusedWithoutChange(
          () => wms.post('/v1/locations', body),
          (r) => expectApiError(r, 409, 'already.exists'),
        );
      }
    });

    it('malformed JSON is refused with 400 and changes nothing', async () => {
      await refusedWithoutChange(
        () => wms.request('POST', '/v1/locations', { raw: '{"locationId": ', headers: { 'Content-Type': 'application/json' } }),
        (r) => expect(r.status).toBe(400),
      );
    });
  });
});

describe('GET /v1/locations/{pKey}, ?locationId=, ?locationPK=', () => {
  let loc: Location;
  beforeAll(async () => {
    loc = await create('FIND/0001/0002/0003/0004', { plcCode: 'F-PLC', erpCode: 'F-ERP' });
  });

  it('finds by pKey', async () => {
    expect(await read(loc.pKey)).toEqual(loc);
  });

  it('finds by the URL-encoded coordinate ?locationId=', async () => {
    const reply = await wms.get(`/v1/locations?locationId=${enc(loc.locationId)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(loc);
  });

  it('finds by the earlier parameter name ?locationPK=', async () => {
    const reply = await wms.get(`/v1/locations?locationPK=${enc(loc.locationId)}`);
    expect(reply.status).toBe(200);
    expect(reply.body.pKey).toBe(loc.pKey);
  });

  it('answers 404 not.found naming the coordinate when no location has it', async () => {
    const reply = await wms.get(`/v1/locations?locationId=${enc('FIND/9999/0002/0003/0004')}`);
    expectApiError(reply, 404, 'not.found');
    expect(reply.body.message).toContain('FIND/9999/0002/0003/0004');
  });

  it.each(['A/B/C', 'A/B/C/D/E/F', 'A//C/D/E', 'A/B/C/D/%'])(
    'answers 404 not.found with "Invalid location" for the malformed coordinate %s',
    async (coordinate) => {
      for (const param of ['locationId', 'locationPK']) {
        const reply = await wms.get(`/v1/locations?${param}=${enc(coordinate)}`);
        expectApiError(reply, 404, 'not.found');
        expect(reply.body.message).toContain('Invalid location');
      }
    },
  );

  it('answers 404 not.found naming an unknown pKey', async () => {
    const reply = await wms.get('/v1/locations/NO-SUCH-PKEY');
    expectApiError(reply, 404, 'not.found');
    expect(reply.body.message).toContain('NO-SUCH-PKEY');
  });
});

describe('GET /v1/locations?plcCode= and ?erpCode=', () => {
  let loc: Location;
  beforeAll(async () => {
    loc = await create('CODE/0001/0001/0001/0001', { plcCode: 'C-PLC-7', erpCode: 'C-ERP-7' });
  });

  it('finds by PLC code', async () => {
    const reply = await wms.get('/v1/locations?plcCode=C-PLC-7');
    expect(reply.status).toBe(200);
    expect(reply.body.pKey).toBe(loc.pKey);
  });

  it('finds by ERP code', async () => {
    const reply = await wms.get('/v1/locations?erpCode=C-ERP-7');
    expect(reply.status).toBe(200);
    expect(reply.body.pKey).toBe(loc.pKey);
  });

  it('answers 404 not.found naming an unknown PLC code', async () => {
    const reply = await wms.get('/v1/locations?plcCode=C-PLC-404');
    expectApiError(reply, 404, 'not.found');
    expect(reply.body.message).toContain('C-PLC-404');
  });

  it('answers 404 not.found naming an unknown ERP code', async () => {
    const reply = await wms.get('/v1/locations?erpCode=C-ERP-404');
    expectApiError(reply, 404, 'not.found');
    expect(reply.body.message).toContain('C-ERP-404');
  });
});

describe('GET /v1/locations?area=&aisle=&x=&y=&z= (wildcard search)', () => {
  beforeAll(async () => {
    for (const id of ['WCS/A1/0001/0001/0001', 'WCS/A2/0001/0001/0002', 'WCS/A10/0001/0001/0001', 'WCS/B1/0002/0001/0001', 'WCT/A1/0001/0001/0001']) {
      await create(id);
    }
  });

  const search = (q: Record<string, string>) => wms.get(`/v1/locations?${new URLSearchParams(q).toString()}`);

  it('an exact coordinate matches exactly one location', async () => {
    const reply = await search({ area: 'WCS', aisle: 'B1', x: '0002', y: '0001', z: '0001' });
    expect(reply.status).toBe(200);
    expect(sortedIds(reply)).toEqual(['WCS/B1/0002/0001/0001']);
  });

  it('% matches any number of characters', async () => {
    const reply = await search({ area: 'WCS', aisle: 'A%', x: '%', y: '%', z: '%' });
    expect(reply.status).toBe(200);
    expect(sortedIds(reply)).toEqual(['WCS/A1/0001/0001/0001', 'WCS/A10/0001/0001/0001', 'WCS/A2/0001/0001/0002']);
  });

  it('_ matches exactly one character', async () => {
    const reply = await search({ area: 'WCS', aisle: 'A_', x: '%', y: '%', z: '%' });
    expect(reply.status).toBe(200);
    expect(sortedIds(reply)).toEqual(['WCS/A1/0001/0001/0001', 'WCS/A2/0001/0001/0002']);
    const area = await search({ area: 'WC_', aisle: 'A1', x: '0001', y: '0001', z: '0001' });
    expect(sortedIds(area)).toEqual(['WCS/A1/0001/0001/0001', 'WCT/A1/0001/0001/0001']);
  });

  it('combines wildcards across parts', async () => {
    const reply = await search({ area: 'WC%', aisle: '%', x: '0001', y: '0001', z: '000_' });
    expect(sortedIds(reply)).toEqual(['WCS/A1/0001/0001/0001', 'WCS/A10/0001/0001/0001', 'WCS/A2/0001/0001/0002', 'WCT/A1/0001/0001/0001']);
    const z2 = await search({ area: 'WC%', aisle: '%', x: '%', y: '%', z: '0002' });
    expect(sortedIds(z2)).toEqual(['WCS/A2/0001/0001/0002']);
  });

  it('a part not given matches anything', async () => {
    const reply = await wms.get('/v1/locations?area=WCT');
    expect(reply.status).toBe(200);
    expect(sortedIds(reply)).toEqual(['WCT/A1/0001/0001/0001']);
    const noArea = await wms.get('/v1/locations?aisle=B_&x=0002');
    expect(noArea.status).toBe(200);
    expect(sortedIds(noArea)).toEqual(['WCS/B1/0002/0001/0001']);
  });

  it('no match answers 404 with an empty body', async () => {
    const reply = await search({ area: 'WCS', aisle: 'ZZ%', x: '%', y: '%', z: '%' });
    expect(reply.status).toBe(404);
    expect(reply.text).toBe('');
  });
});

describe('GET /v1/locations?locationGroupNames=', () => {
  beforeAll(async () => {
    await createGroup('ZONE-A');
    await createGroup('ZONE-B');
    await create('GRP/0001/0001/0001/0001', { locationGroupName: 'ZONE-A' });
    await create('GRP/0001/0001/0001/0002', { locationGroupName: 'ZONE-A' });
    await create('GRP/0002/0001/0001/0001', { locationGroupName: 'ZONE-B' });
  });

  const byGroups = (...names: string[]) => wms.get(`/v1/locations?${names.map((n) => `locationGroupNames=${enc(n)}`).join('&')}`);

  it('one name: the locations of that group', async () => {
    const reply = await byGroups('ZONE-A');
    expect(reply.status).toBe(200);
    expect(sortedIds(reply)).toEqual(['GRP/0001/0001/0001/0001', 'GRP/0001/0001/0001/0002']);
  });

  it('two names: the combined list', async () => {
    const reply = await byGroups('ZONE-A', 'ZONE-B');
    expect(reply.status).toBe(200);
    expect(sortedIds(reply)).toEqual(['GRP/0001/0001/0001/0001', 'GRP/0001/0001/0001/0002', 'GRP/0002/0001/0001/0001']);
  });

  it('unknown names are not validated: 200 with an empty list', async () => {
    const reply = await byGroups('NO-SUCH-ZONE', 'NOR-THIS');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
  });

  it('a wildcard works with a single name', async () => {
    const reply = await byGroups('ZONE%');
    expect(reply.status).toBe(200);
    expect(sortedIds(reply)).toEqual(['GRP/0001/0001/0001/0001', 'GRP/0001/0001/0001/0002', 'GRP/0002/0001/0001/0001']);
    const one = await byGroups('ZONE-_');
    expect(sortedIds(one)).toEqual(sortedIds(reply));
  });

  it('with two names the wildcard is not applied', async () => {
    const reply = await byGroups('ZONE%', 'ZONE-B');
    expect(reply.status).toBe(200);
    expect(sortedIds(reply)).toEqual(['GRP/0002/0001/0001/0001']);
  });
});

describe('PUT /v1/locations', () => {
  it('updates the location named by pKey and increments ol', async () => {
    await createGroup('U-GROUP');
    const l = await create('UPD/0001/0001/0001/0001', { plcCode: 'U-PLC', erpCode: 'U-ERP' });
    const reply = await wms.put('/v1/locations', {
      ...l,
      erpCode: 'U-ERP-2',
      locationGroupName: 'U-GROUP',
      type: 'RACK',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ pKey: l.pKey, ol: l.ol + 1, erpCode: 'U-ERP-2', locationGroupName: 'U-GROUP', type: 'RACK' });
    expect(await read(l.pKey)).toMatchObject({ ol: l.ol + 1, erpCode: 'U-ERP-2', locationGroupName: 'U-GROUP', type: 'RACK' });
    expect((await wms.get('/v1/locations?erpCode=U-ERP-2')).body.pKey).toBe(l.pKey);
    expectApiError(await wms.get('/v1/locations?erpCode=U-ERP'), 404, 'not.found');
  });

  it('does not change incomingActive, outgoingActive or plcState', async () => {
    const l = await create('UPD/0002/0001/0001/0001');
    const reply = await wms.put('/v1/locations', { ...l, incomingActive: false, outgoingActive: false, plcState: 7, description: 'flags?' });
    expect(reply.status).toBe(200);
    expect(await read(l.pKey)).toMatchObject({ incomingActive: true, outgoingActive: true, plcState: 0, ol: l.ol + 1 });
  });

  it('refuses a stale ol with 409 and changes nothing', async () => {
    const l = await create('UPD/0003/0001/0001/0001', { erpCode: 'U-STALE' });
    expect((await wms.put('/v1/locations', { ...l, erpCode: 'U-STALE-1' })).status).toBe(200);
    const reply = await refusedWithoutChange(
      () => wms.put('/v1/locations', { ...l, erpCode: 'U-STALE-2' }),
      (r) => expectApiError(r, 409, 'core.optimistic.lock'),
    );
    expect(reply.body.obj).toEqual([l.pKey, '0', '1']);
    expect(await read(l.pKey)).toMatchObject({ ol: 1, erpCode: 'U-STALE-1' });
  });

  it('refuses an unknown pKey with 404 not.found and changes nothing', async () => {
    const l = await create('UPD/0004/0001/0001/0001');
    await refusedWithoutChange(
      () => wms.put('/v1/locations', { ...l, pKey: 'NO-SUCH-PKEY', locationId: 'UPD/0004/0001/0001/0009' }),
      (r) => expectApiError(r, 404, 'not.found'),
    );
  });

  it('refuses a missing pKey, an invalid coordinate, or a coordinate taken by another location; nothing changed', async () => {
    const l = await create('UPD/0005/0001/0001/0001');
    await create('UPD/0005/0001/0001/0002');
    const { pKey: _pKey, ...withoutPKey } = l;
    await refusedWithoutChange(
      () => wms.put('/v1/locations', withoutPKey),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
    await refusedWithoutChange(
      () => wms.put('/v1/locations', { ...l, locationId: 'UPD/0005/0001' }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
    await refusedWithoutChange(
      () => wms.put('/v1/locations', { ...l, locationId: 'UPD/0005/0001/0001/0002' }),
      (r) => expectApiError(r, 409, 'already.exists'),
    );
    await refusedWithoutChange(
      () => wms.put('/v1/locations', { ...l, locationGroupName: 'NO-SUCH-GROUP' }),
      (r) => expectApiError(r, 404, 'svc.common.common.lg.notFoundByName'),
    );
  });
});

describe('DELETE /v1/locations/{pKey}', () => {
  it('deletes a free location: 204, then 404', async () => {
    const l = await create('DEL/0001/0001/0001/0001');
    const reply = await wms.del(`/v1/locations/${l.pKey}`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expectApiError(await wms.get(`/v1/locations/${l.pKey}`), 404, 'not.found');
    expectApiError(await wms.get(`/v1/locations?locationId=${enc(l.locationId)}`), 404, 'not.found');
    expectApiError(await wms.del(`/v1/locations/${l.pKey}`), 404, 'not.found');
  });

  it('refuses a location a transport unit stands on: 409, nothing changed', async () => {
    const l = await create('DEL/0002/0001/0001/0001');
    const tu = await wms.post('/v1/transport-units', { barcode: 'DEL-TU-1', actualLocation: l.locationId, transportUnitType: 'EURO' });
    expect(tu.status, tu.text).toBe(201);
    const reply = await refusedWithoutChange(
      () => wms.del(`/v1/locations/${l.pKey}`),
      (r) => expectApiError(r, 409, 'svc.common.common.loc.notEmpty'),
    );
    expect(reply.body.obj).toEqual([l.locationId]);
    expect((await wms.get('/v1/transport-units?bk=DEL-TU-1')).status).toBe(200);
  });
});

describe('PATCH /v1/location/{pKey}?op=change-state', () => {
  it('******01 locks the location for inbound only; 204 without body', async () => {
    const l = await create('CHS/0001/0001/0001/0001');
    const reply = await changeState(l.pKey, { errorCode: '******01' });
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(await read(l.pKey)).toMatchObject({ incomingActive: false, outgoingActive: true, ol: l.ol + 1 });
  });

  it('******10 locks outbound only; ******00 releases both', async () => {
    const l = await create('CHS/0002/0001/0001/0001');
    expect((await changeState(l.pKey, { errorCode: '******10' })).status).toBe(204);
    expect(await read(l.pKey)).toMatchObject({ incomingActive: true, outgoingActive: false });
    expect((await changeState(l.pKey, { errorCode: '******11' })).status).toBe(204);
    expect(await read(l.pKey)).toMatchObject({ incomingActive: false, outgoingActive: false });
    expect((await changeState(l.pKey, { errorCode: '******00' })).status).toBe(204);
    expect(await read(l.pKey)).toMatchObject({ incomingActive: true, outgoingActive: true });
  });

  it('* leaves a position unchanged', async () => {
    const l = await create('CHS/0003/0001/0001/0001');
    await changeState(l.pKey, { errorCode: '******11' });
    expect((await changeState(l.pKey, { errorCode: '*******0' })).status).toBe(204);
    expect(await read(l.pKey)).toMatchObject({ incomingActive: true, outgoingActive: false });
  });

  it('******** changes nothing, not even ol', async () => {
    const l = await create('CHS/0004/0001/0001/0001');
    const groupsBefore = await allGroups();
    expect((await changeState(l.pKey, { errorCode: '********' })).status).toBe(204);
    expect(await read(l.pKey)).toEqual(l);
    expect(await allGroups()).toEqual(groupsBefore);
  });

  it('****1*** sets groupStateOut of the location group NOT_AVAILABLE, cascading to child groups', async () => {
    await createGroup('CHS-OUT');
    await createGroup('CHS-OUT-KID', 'CHS-OUT');
    await createGroup('CHS-OUT-SIB');
    const l = await create('CHS/0005/0001/0001/0001', { locationGroupName: 'CHS-OUT' });
    expect((await changeState(l.pKey, { errorCode: '****1***' })).status).toBe(204);
    expect(await group('CHS-OUT')).toMatchObject({ groupStateIn: 'AVAILABLE', groupStateOut: 'NOT_AVAILABLE' });
    expect(await group('CHS-OUT-KID')).toMatchObject({ groupStateIn: 'AVAILABLE', groupStateOut: 'NOT_AVAILABLE' });
    expect(await group('CHS-OUT-SIB')).toMatchObject({ groupStateIn: 'AVAILABLE', groupStateOut: 'AVAILABLE' });
    expect(await group('WAREHOUSE')).toMatchObject({ groupStateIn: 'AVAILABLE', groupStateOut: 'AVAILABLE' });
    expect(await read(l.pKey)).toMatchObject({ incomingActive: true, outgoingActive: true });
    // and 0 at that position releases them again
    expect((await changeState(l.pKey, { errorCode: '****0***' })).status).toBe(204);
    expect(await group('CHS-OUT-KID')).toMatchObject({ groupStateOut: 'AVAILABLE' });
  });

  it('*****1** sets groupStateIn of the location group NOT_AVAILABLE, cascading to child groups', async () => {
    await createGroup('CHS-IN');
    await createGroup('CHS-IN-KID', 'CHS-IN');
    await createGroup('CHS-IN-GRANDKID', 'CHS-IN-KID');
    const l = await create('CHS/0006/0001/0001/0001', { locationGroupName: 'CHS-IN' });
    expect((await changeState(l.pKey, { errorCode: '*****1**' })).status).toBe(204);
    for (const name of ['CHS-IN', 'CHS-IN-KID', 'CHS-IN-GRANDKID']) {
      expect(await group(name), name).toMatchObject({ groupStateIn: 'NOT_AVAILABLE', groupStateOut: 'AVAILABLE' });
    }
    expect(await read(l.pKey)).toMatchObject({ incomingActive: true, outgoingActive: true });
  });

  it('stores and shows an optional integer plcState', async () => {
    const l = await create('CHS/0007/0001/0001/0001');
    expect((await changeState(l.pKey, { errorCode: '********', plcState: 3 })).status).toBe(204);
    expect(await read(l.pKey)).toMatchObject({ plcState: 3, incomingActive: true, outgoingActive: true });
    expect((await changeState(l.pKey, { errorCode: '*******1', plcState: 0 })).status).toBe(204);
    expect(await read(l.pKey)).toMatchObject({ plcState: 0, incomingActive: false });
  });

  it('answers 404 not.found naming an unknown pKey', async () => {
    const reply = await refusedWithoutChange(
      () => changeState('NO-SUCH-PKEY', { errorCode: '******01' }),
      (r) => expectApiError(r, 404, 'not.found'),
    );
    expect(reply.body.message).toContain('NO-SUCH-PKEY');
  });

  describe('bad input changes nothing', () => {
    let l: Location;
    beforeAll(async () => {
      await createGroup('CHS-BAD');
      l = await create('CHS/0008/0001/0001/0001', { locationGroupName: 'CHS-BAD' });
    });

    it.each([
      ['7 characters', { errorCode: '*****01' }],
      ['9 characters', { errorCode: '*******01' }],
      ['another character', { errorCode: '******0x' }],
      ['lower positions valid, another character up front', { errorCode: 'a*****11' }],
      ['empty', { errorCode: '' }],
      ['a number', { errorCode: 11111111 }],
      ['missing', {}],
      ['plcState not an integer', { errorCode: '******11', plcState: 1.5 }],
      ['plcState a string', { errorCode: '******11', plcState: '3' }],
    ])('400 core.validation.error when errorCode/plcState is %s', async (_what, body) => {
      await refusedWithoutChange(
        () => changeState(l.pKey, body),
        (r) => expectApiError(r, 400, 'core.validation.error'),
      );
      expect(await read(l.pKey)).toEqual(l);
    });

    it('400 when op is missing', async () => {
      await refusedWithoutChange(
        () => wms.patch(`/v1/location/${l.pKey}`, { errorCode: '******11' }),
        (r) => expectServerError(r, 400),
      );
      expect(await read(l.pKey)).toEqual(l);
    });

    it('400 when op names another operation', async () => {
      await refusedWithoutChange(
        () => wms.patch(`/v1/location/${l.pKey}?op=explode`, { errorCode: '******11' }),
        (r) => expect(r.status).toBe(400),
      );
    });
  });
});

describe('PATCH /v1/location?locationId=&op=change-state', () => {
  it('changes the state of the location named by its coordinate', async () => {
    const l = await create('CHC/0001/0001/0001/0001');
    const reply = await wms.patch(`/v1/location?locationId=${enc(l.locationId)}&op=change-state`, { errorCode: '******10', plcState: 12 });
    expect(reply.status).toBe(204);
    expect(await read(l.pKey)).toMatchObject({ incomingActive: true, outgoingActive: false, plcState: 12 });
  });

  it('answers 404 not.found naming an unknown coordinate and changes nothing', async () => {
    const reply = await refusedWithoutChange(
      () => wms.patch(`/v1/location?locationId=${enc('CHC/0404/0001/0001/0001')}&op=change-state`, { errorCode: '******11' }),
      (r) => expectApiError(r, 404, 'not.found'),
    );
    expect(reply.body.message).toContain('CHC/0404/0001/0001/0001');
  });

  it('answers 404 not.found "Invalid location" for a malformed coordinate and changes nothing', async () => {
    const reply = await refusedWithoutChange(
      () => wms.patch(`/v1/location?locationId=${enc('A/B/C')}&op=change-state`, { errorCode: '******11' }),
      (r) => expectApiError(r, 404, 'not.found'),
    );
    expect(reply.body.message).toContain('Invalid location');
  });

  it('refuses a bad errorCode with 400 and changes nothing', async () => {
    const l = await create('CHC/0002/0001/0001/0001');
    await refusedWithoutChange(
      () => wms.patch(`/v1/location?locationId=${enc(l.locationId)}&op=change-state`, { errorCode: '******2' }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
  });
});

// Single-location lookups are served from a cache; what a location shows of its group
// and type must follow their changes at once.
describe('lookups follow changes of the group and type a location shows', () => {
  it('shows a renamed group and a renamed type on the next read by every key', async () => {
    const g = await createGroup('CACHE-G1');
    const typeReply = await wms.post('/v1/location-types', { type: 'CACHE-T1' });
    expect(typeReply.status, typeReply.text).toBe(201);
    const location = await create('CACH/0001/0001/0001/0001', {
      locationGroupName: 'CACHE-G1',
      type: 'CACHE-T1',
      plcCode: 'CACHE-PLC',
      erpCode: 'CACHE-ERP',
    });
    const readAll = async () =>
      [
        (await wms.get(`/v1/locations/${location.pKey}`)).body,
        (await wms.get(`/v1/locations?locationId=${enc(location.locationId)}`)).body,
        (await wms.get('/v1/locations?plcCode=CACHE-PLC')).body,
        (await wms.get('/v1/locations?erpCode=CACHE-ERP')).body,
      ] as Location[];
    for (const l of await readAll()) expect(l).toMatchObject({ locationGroupName: 'CACHE-G1', type: 'CACHE-T1' });

    expect((await wms.patch(`/v1/location-groups/${g.pKey}`, { name: 'CACHE-G2' })).status).toBe(200);
    const t = typeReply.body as { pKey: string };
    expect((await wms.put('/v1/location-types', { pKey: t.pKey, type: 'CACHE-T2' })).status).toBe(200);
    for (const l of await readAll()) expect(l).toMatchObject({ locationGroupName: 'CACHE-G2', type: 'CACHE-T2' });
  });

  it('shows new codes and forgets the old ones after an update', async () => {
    const location = await create('CACH/0002/0001/0001/0001', { plcCode: 'OLD-PLC' });
    expect((await wms.get('/v1/locations?plcCode=OLD-PLC')).status).toBe(200);
    const updated = await wms.put('/v1/locations', {
      pKey: location.pKey,
      locationId: location.locationId,
      locationGroupName: 'WAREHOUSE',
      plcCode: 'NEW-PLC',
    });
    expect(updated.status, updated.text).toBe(200);
    expectApiError(await wms.get('/v1/locations?plcCode=OLD-PLC'), 404, 'not.found');
    expect((await wms.get('/v1/locations?plcCode=NEW-PLC')).body.pKey).toBe(location.pKey);
  });
});
