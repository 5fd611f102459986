import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { refusal } from './support/expect.ts';

// Location groups of the common base module: a tree below the seeded root WAREHOUSE;
// states groupStateIn/groupStateOut (AVAILABLE, NOT_AVAILABLE) cascade to all groups
// below (docs/plc.md: a code addressed to a group uses position 0 = in,
// 1 = out).

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

interface Group {
  pKey: string;
  ol: number;
  name: string;
  description?: string;
  operationMode: string;
  parentName?: string;
  groupStateIn: string;
  groupStateOut: string;
  childLocationGroupNames: string[];
  links: { rel: string; href: string }[];
}

async function create(body: Record<string, unknown>): Promise<Group> {
  const reply = await wms.post('/v1/location-groups', body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function group(name: string): Promise<Group> {
  const reply = await wms.get(`/v1/location-groups?name=${encodeURIComponent(name)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function allGroups(): Promise<Group[]> {
  const reply = await wms.get('/v1/location-groups');
  expect(reply.status).toBe(200);
  return reply.body;
}

/** Runs a request that must be refused, and proves that no group changed. */
const refusedWithoutChange = refusal({ state: () => allGroups() });

/** A 3-level tree `<p>-TOP` > `<p>-MID` > `<p>-LEAF` below WAREHOUSE. */
async function tree(prefix: string) {
  const top = await create({ name: `${prefix}-TOP`, parentName: 'WAREHOUSE' });
  const mid = await create({ name: `${prefix}-MID`, parentName: top.name });
  const leaf = await create({ name: `${prefix}-LEAF`, parentName: mid.name });
  return { top, mid, leaf, names: [top.name, mid.name, leaf.name] };
}

const states = async (names: string[]) =>
  Promise.all(
    names.map(async (n) => {
      const g = await group(n);
      return [g.groupStateIn, g.groupStateOut];
    }),
  );

describe('GET /v1/location-groups/index', () => {
  it('lists the link names of the location group operations', async () => {
    const reply = await wms.get('/v1/location-groups/index');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    for (const name of [
      'location-groups-create',
      'location-groups-findbyname',
      'location-groups-findbynames',
      'location-groups-findall',
      'location-groups-findbypkey',
      'location-groups-modify',
      'location-groups-delete',
      'location-groups-changestate',
      'location-groups-changestate-with-bitmap',
    ]) {
      expect(links[name], name).toBeDefined();
      expect(links[name]!.href.startsWith(wms.url + '/v1/location-group')).toBe(true);
    }
  });
});

describe('seeded root group', () => {
  it('WAREHOUSE exists as a root, available in and out', async () => {
    const root = await group('WAREHOUSE');
    expect(root).toMatchObject({ name: 'WAREHOUSE', groupStateIn: 'AVAILABLE', groupStateOut: 'AVAILABLE' });
    expect(root.parentName).toBeUndefined();
    expect(Array.isArray(root.childLocationGroupNames)).toBe(true);
  });
});

describe('POST /v1/location-groups', () => {
  it('creates a group below a parent: 201, Location header, child listed by the parent', async () => {
    const reply = await wms.post('/v1/location-groups', { name: 'C-ZONE', description: 'Zone C', parentName: 'WAREHOUSE' });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/location-groups/${reply.body.pKey}`);
    expect(reply.body).toMatchObject({
      name: 'C-ZONE',
      description: 'Zone C',
      parentName: 'WAREHOUSE',
      ol: 0,
      operationMode: 'INFEED_AND_OUTFEED',
      groupStateIn: 'AVAILABLE',
      groupStateOut: 'AVAILABLE',
      childLocationGroupNames: [],
    });
    expect((await group('WAREHOUSE')).childLocationGroupNames).toContain('C-ZONE');
  });

  it('a child inherits the parent states when it names none, and keeps the ones it names', async () => {
    await create({ name: 'C-LOCKED', parentName: 'WAREHOUSE', groupStateIn: 'NOT_AVAILABLE', groupStateOut: 'NOT_AVAILABLE' });
    const inherits = await create({ name: 'C-LOCKED-CHILD', parentName: 'C-LOCKED' });
    expect(inherits).toMatchObject({ groupStateIn: 'NOT_AVAILABLE', groupStateOut: 'NOT_AVAILABLE' });
    const own = await create({ name: 'C-LOCKED-OPEN', parentName: 'C-LOCKED', groupStateIn: 'AVAILABLE' });
    expect(own).toMatchObject({ groupStateIn: 'AVAILABLE', groupStateOut: 'NOT_AVAILABLE' });
  });

  it('creates a root group without parent', async () => {
    const root = await create({ name: 'C-ROOT2', operationMode: 'INFEED' });
    expect(root.parentName).toBeUndefined();
    expect(root.operationMode).toBe('INFEED');
  });

  it('refuses a duplicate name with 409 already.exists and changes nothing', async () => {
    await create({ name: 'C-DUP', parentName: 'WAREHOUSE' });
    await refusedWithoutChange(
      () => wms.post('/v1/location-groups', { name: 'C-DUP', parentName: 'WAREHOUSE', description: 'second' }),
      (r) => expectApiError(r, 409, 'already.exists'),
    );
  });

  it('refuses an unknown parent with 404 svc.common.common.lg.notFoundByName and changes nothing', async () => {
    const reply = await refusedWithoutChange(
      () => wms.post('/v1/location-groups', { name: 'C-ORPHAN', parentName: 'NO-SUCH-PARENT' }),
      (r) => expectApiError(r, 404, 'svc.common.common.lg.notFoundByName'),
    );
    expect(reply.body.obj).toEqual(['NO-SUCH-PARENT']);
    expectApiError(await wms.get('/v1/location-groups?name=C-ORPHAN'), 404, 'svc.common.common.lg.notFoundByName');
  });

  it('refuses an invalid operationMode with 400 and changes nothing', async () => {
    await refusedWithoutChange(
      () => wms.post('/v1/location-groups', { name: 'C-BADMODE', operationMode: 'SOMETIMES' }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
  });

  it('refuses an invalid groupStateIn with 400 and changes nothing', async () => {
    await refusedWithoutChange(
      () => wms.post('/v1/location-groups', { name: 'C-BADSTATE', groupStateIn: 'LOCKED' }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
  });

  it('refuses a missing or empty name with 400 and changes nothing', async () => {
    await refusedWithoutChange(
      () => wms.post('/v1/location-groups', { description: 'nameless', parentName: 'WAREHOUSE' }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
    await refusedWithoutChange(
      () => wms.post('/v1/location-groups', { name: '   ', parentName: 'WAREHOUSE' }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
  });

  it('refuses a name of the wrong type with 400 and changes nothing', async () => {
    await refusedWithoutChange(
      () => wms.post('/v1/location-groups', { name: 42 }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
  });
});

describe('GET /v1/location-groups', () => {
  it('finds a group by name, by pKey, and in the list of all', async () => {
    const created = await create({ name: 'G-FIND', parentName: 'WAREHOUSE' });
    const byName = await group('G-FIND');
    expect(byName.pKey).toBe(created.pKey);
    const byPKey = await wms.get(`/v1/location-groups/${created.pKey}`);
    expect(byPKey.status).toBe(200);
    expect(byPKey.body).toEqual(byName);
    expect(byName.links).toContainEqual({ rel: 'location-groups-findbypkey', href: `${wms.url}/v1/location-groups/${created.pKey}` });
    const names = (await allGroups()).map((g) => g.name);
    expect(names).toContain('G-FIND');
    expect(names).toContain('WAREHOUSE');
  });

  it('finds several groups by names, repeated or comma separated; unknown names are skipped', async () => {
    await create({ name: 'G-N1', parentName: 'WAREHOUSE' });
    await create({ name: 'G-N2', parentName: 'WAREHOUSE' });
    const repeated = await wms.get('/v1/location-groups?names=G-N1&names=G-N2&names=G-NONE');
    expect(repeated.status).toBe(200);
    expect((repeated.body as Group[]).map((g) => g.name).sort()).toEqual(['G-N1', 'G-N2']);
    const comma = await wms.get('/v1/location-groups?names=G-N1,G-N2');
    expect((comma.body as Group[]).map((g) => g.name).sort()).toEqual(['G-N1', 'G-N2']);
    const none = await wms.get('/v1/location-groups?names=G-NONE');
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
  });

  it('answers 404 svc.common.common.lg.notFoundByName naming the unknown name', async () => {
    const reply = await wms.get('/v1/location-groups?name=G-MISSING');
    expectApiError(reply, 404, 'svc.common.common.lg.notFoundByName');
    expect(reply.body.obj).toEqual(['G-MISSING']);
  });

  it('answers 404 svc.common.common.lg.notFoundByPKey naming the unknown pKey', async () => {
    const reply = await wms.get('/v1/location-groups/NO-SUCH-PKEY');
    expectApiError(reply, 404, 'svc.common.common.lg.notFoundByPKey');
    expect(reply.body.obj).toEqual(['NO-SUCH-PKEY']);
  });
});

describe('PATCH /v1/location-groups/{pKey}', () => {
  it('changes the description and increments ol', async () => {
    const g = await create({ name: 'M-DESC', parentName: 'WAREHOUSE', description: 'old' });
    const reply = await wms.patch(`/v1/location-groups/${g.pKey}`, { description: 'new', ol: g.ol });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ name: 'M-DESC', description: 'new', ol: g.ol + 1, parentName: 'WAREHOUSE' });
    expect((await group('M-DESC')).description).toBe('new');
  });

  it('re-parents a group: the old parent loses the child, the new parent gains it', async () => {
    const a = await create({ name: 'M-A', parentName: 'WAREHOUSE' });
    await create({ name: 'M-B', parentName: 'WAREHOUSE' });
    const child = await create({ name: 'M-CHILD', parentName: a.name });
    const reply = await wms.patch(`/v1/location-groups/${child.pKey}`, { parentName: 'M-B' });
    expect(reply.status).toBe(200);
    expect(reply.body.parentName).toBe('M-B');
    expect((await group('M-A')).childLocationGroupNames).not.toContain('M-CHILD');
    expect((await group('M-B')).childLocationGroupNames).toContain('M-CHILD');
  });

  it('refuses a stale ol with 409 and changes nothing', async () => {
    const g = await create({ name: 'M-STALE', parentName: 'WAREHOUSE', description: 'v0' });
    const first = await wms.patch(`/v1/location-groups/${g.pKey}`, { description: 'v1', ol: 0 });
    expect(first.status).toBe(200);
    const reply = await refusedWithoutChange(
      () => wms.patch(`/v1/location-groups/${g.pKey}`, { description: 'v2', ol: 0 }),
      (r) => expectApiError(r, 409, 'core.optimistic.lock'),
    );
    expect(reply.body.obj).toEqual([g.pKey, '0', '1']);
    expect(await group('M-STALE')).toMatchObject({ description: 'v1', ol: 1 });
  });

  it('refuses to make a group its own ancestor (400) and changes nothing', async () => {
    const t = await tree('M-CYC');
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-groups/${t.top.pKey}`, { parentName: t.leaf.name }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-groups/${t.top.pKey}`, { parentName: t.top.name }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
    expect((await group(t.top.name)).parentName).toBe('WAREHOUSE');
  });

  it('refuses an unknown new parent with 404 lg.notFoundByName and changes nothing', async () => {
    const g = await create({ name: 'M-NOPARENT', parentName: 'WAREHOUSE' });
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-groups/${g.pKey}`, { parentName: 'M-NOWHERE' }),
      (r) => expectApiError(r, 404, 'svc.common.common.lg.notFoundByName'),
    );
  });

  it('refuses renaming to an existing name with 409 already.exists and changes nothing', async () => {
    const g = await create({ name: 'M-REN1', parentName: 'WAREHOUSE' });
    await create({ name: 'M-REN2', parentName: 'WAREHOUSE' });
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-groups/${g.pKey}`, { name: 'M-REN2' }),
      (r) => expectApiError(r, 409, 'already.exists'),
    );
  });

  it('answers 404 lg.notFoundByPKey for an unknown pKey', async () => {
    await refusedWithoutChange(
      () => wms.patch('/v1/location-groups/NO-SUCH-PKEY', { description: 'x' }),
      (r) => expectApiError(r, 404, 'svc.common.common.lg.notFoundByPKey'),
    );
  });
});

describe('DELETE /v1/location-groups/{pKey}', () => {
  it('refuses a group with child groups: 409 svc.common.common.lg.notEmpty, nothing changed', async () => {
    const parent = await create({ name: 'D-PARENT', parentName: 'WAREHOUSE' });
    await create({ name: 'D-KID', parentName: 'D-PARENT' });
    await refusedWithoutChange(
      () => wms.del(`/v1/location-groups/${parent.pKey}`),
      (r) => expectApiError(r, 409, 'svc.common.common.lg.notEmpty'),
    );
  });

  it('refuses a group that holds locations: 409 svc.common.common.lg.notEmpty, nothing changed', async () => {
    const g = await create({ name: 'D-WITHLOC', parentName: 'WAREHOUSE' });
    const loc = await wms.post('/v1/locations', { links: [], locationId: 'DLG/0001/0001/0001/0001', locationGroupName: 'D-WITHLOC' });
    expect(loc.status).toBe(201);
    await refusedWithoutChange(
      () => wms.del(`/v1/location-groups/${g.pKey}`),
      (r) => expectApiError(r, 409, 'svc.common.common.lg.notEmpty'),
    );
    expect((await wms.get(`/v1/locations/${loc.body.pKey}`)).status).toBe(200);
  });

  it('deletes an empty group: 204, then 404, and the parent no longer lists it', async () => {
    const g = await create({ name: 'D-EMPTY', parentName: 'WAREHOUSE' });
    const reply = await wms.del(`/v1/location-groups/${g.pKey}`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expectApiError(await wms.get(`/v1/location-groups/${g.pKey}`), 404, 'svc.common.common.lg.notFoundByPKey');
    expect((await group('WAREHOUSE')).childLocationGroupNames).not.toContain('D-EMPTY');
  });
});

describe('PATCH /v1/location-group/{pKey}?op=change-state', () => {
  it('statein=NOT_AVAILABLE cascades to all descendants (3 levels), stateout untouched', async () => {
    const t = await tree('S-IN');
    const reply = await wms.patch(`/v1/location-group/${t.top.pKey}?op=change-state&statein=NOT_AVAILABLE`);
    expect(reply.status).toBe(204);
    expect(await states(t.names)).toEqual(t.names.map(() => ['NOT_AVAILABLE', 'AVAILABLE']));
    expect((await group('WAREHOUSE')).groupStateIn).toBe('AVAILABLE');
  });

  it('stateout=NOT_AVAILABLE cascades likewise; AVAILABLE releases again', async () => {
    const t = await tree('S-OUT');
    expect((await wms.patch(`/v1/location-group/${t.top.pKey}?op=change-state&stateout=NOT_AVAILABLE`)).status).toBe(204);
    expect(await states(t.names)).toEqual(t.names.map(() => ['AVAILABLE', 'NOT_AVAILABLE']));
    expect((await wms.patch(`/v1/location-group/${t.top.pKey}?op=change-state&stateout=AVAILABLE`)).status).toBe(204);
    expect(await states(t.names)).toEqual(t.names.map(() => ['AVAILABLE', 'AVAILABLE']));
  });

  it('a change on a middle group leaves its parent alone', async () => {
    const t = await tree('S-MID');
    expect((await wms.patch(`/v1/location-group/${t.mid.pKey}?op=change-state&statein=NOT_AVAILABLE&stateout=NOT_AVAILABLE`)).status).toBe(204);
    expect(await states(t.names)).toEqual([
      ['AVAILABLE', 'AVAILABLE'],
      ['NOT_AVAILABLE', 'NOT_AVAILABLE'],
      ['NOT_AVAILABLE', 'NOT_AVAILABLE'],
    ]);
  });

  it('refuses an invalid state value with 400 and changes nothing', async () => {
    const t = await tree('S-BAD');
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-group/${t.top.pKey}?op=change-state&statein=LOCKED`),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
  });

  it('refuses a request naming neither statein nor stateout with 400 and changes nothing', async () => {
    const t = await tree('S-NONE');
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-group/${t.top.pKey}?op=change-state`),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
  });

  it('answers 404 lg.notFoundByPKey for an unknown pKey', async () => {
    await refusedWithoutChange(
      () => wms.patch('/v1/location-group/NO-SUCH-PKEY?op=change-state&statein=NOT_AVAILABLE'),
      (r) => expectApiError(r, 404, 'svc.common.common.lg.notFoundByPKey'),
    );
  });

  it('refuses a request without op with 400 and changes nothing', async () => {
    const t = await tree('S-NOOP');
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-group/${t.top.pKey}?statein=NOT_AVAILABLE`),
      (r) => expectServerError(r, 400),
    );
  });
});

describe('PATCH /v1/location-groups?name=&op=change-state (bitmap)', () => {
  it('errorCode ******10: position 0 (in) available, position 1 (out) not available, cascading', async () => {
    const t = await tree('B-10');
    await wms.patch(`/v1/location-group/${t.top.pKey}?op=change-state&statein=NOT_AVAILABLE`);
    const reply = await wms.patch(`/v1/location-groups?name=${t.top.name}&op=change-state`, { errorCode: '******10' });
    expect(reply.status).toBe(204);
    expect(await states(t.names)).toEqual(t.names.map(() => ['AVAILABLE', 'NOT_AVAILABLE']));
  });

  it('errorCode ******01 locks in only; ******** changes nothing', async () => {
    const t = await tree('B-01');
    expect((await wms.patch(`/v1/location-groups?name=${t.top.name}&op=change-state`, { errorCode: '******01' })).status).toBe(204);
    expect(await states(t.names)).toEqual(t.names.map(() => ['NOT_AVAILABLE', 'AVAILABLE']));
    const before = await allGroups();
    expect((await wms.patch(`/v1/location-groups?name=${t.top.name}&op=change-state`, { errorCode: '********' })).status).toBe(204);
    expect(await allGroups()).toEqual(before);
  });

  it('ignores positions 2 and up for a group', async () => {
    const t = await tree('B-HIGH');
    expect((await wms.patch(`/v1/location-groups?name=${t.top.name}&op=change-state`, { errorCode: '111111**' })).status).toBe(204);
    expect(await states(t.names)).toEqual(t.names.map(() => ['AVAILABLE', 'AVAILABLE']));
  });

  it.each([
    ['7 characters', '*****10'],
    ['9 characters', '*******10'],
    ['another character', '******1x'],
    ['empty', ''],
  ])('refuses an errorCode of %s with 400 and changes nothing', async (_what, errorCode) => {
    const t = await tree(`B-BAD${errorCode.length}${errorCode.includes('x') ? 'x' : ''}`);
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-groups?name=${t.top.name}&op=change-state`, { errorCode }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
  });

  it('refuses a missing or non-string errorCode with 400 and changes nothing', async () => {
    const t = await tree('B-MISSING');
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-groups?name=${t.top.name}&op=change-state`, {}),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
    await refusedWithoutChange(
      () => wms.patch(`/v1/location-groups?name=${t.top.name}&op=change-state`, { errorCode: 11 }),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
  });

  it('answers 404 lg.notFoundByName for an unknown group and changes nothing', async () => {
    const reply = await refusedWithoutChange(
      () => wms.patch('/v1/location-groups?name=B-NOWHERE&op=change-state', { errorCode: '******11' }),
      (r) => expectApiError(r, 404, 'svc.common.common.lg.notFoundByName'),
    );
    expect(reply.body.obj).toEqual(['B-NOWHERE']);
  });
});
