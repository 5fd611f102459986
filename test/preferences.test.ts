import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';
import { roleWith, userWith } from './support/users.ts';
import { refusal } from './support/expect.ts';

// Preferences module (docs/preferences.md; design in
// docs/preferences.md): four kinds told apart by `@class`, values checked against
// their `type` and returned as text, kind + owner + key unique, and user preferences
// visible to and editable by their owner only.

const APP = 'org.vendor.core.preferences.api.ApplicationPreferenceVO';
const MODULE = 'org.vendor.core.preferences.api.ModulePreferenceVO';
const ROLE = 'org.vendor.core.preferences.api.RolePreferenceVO';
const USER = 'org.vendor.core.preferences.api.UserPreferenceVO';
const PREFERENCE_TYPE = 'application/vnd.vendor.core.preference-v1+json';
const USER_PREFERENCE_TYPE = 'application/vnd.vendor.core.user-preference-v1+json';

const NOT_FOUND_BY_PKEY = 'svc.core.preferences.notFoundByPKey';
const NOT_ALLOWED = 'svc.core.preferences.notAllowedToFetchUserPrefs';
const ALREADY_EXISTS = 'svc.core.preferences.alreadyExistsWithOwnerAndScopeAndKey';

const OTHER = 'pref-other';
const OTHER_PASSWORD = 'pref-other-password';
const READER = 'pref-reader';
const READER_PASSWORD = 'pref-reader-password';

let wms: TestAppliance;
/** Token of the second user, who holds preferences:read and preferences:write. */
let otherToken: string;
/** Token of a user holding preferences:read only. */
let readerToken: string;

beforeAll(async () => {
  wms = await startTestAppliance();
  await roleWith(wms, 'PREF_EDITOR', ['preferences:read', 'preferences:write']);
  await roleWith(wms, 'PREF_READER', ['preferences:read']);
  await userWith(wms, { username: OTHER, password: OTHER_PASSWORD, roleNames: ['PREF_EDITOR'] });
  await userWith(wms, { username: READER, password: READER_PASSWORD, roleNames: ['PREF_READER'] });
  otherToken = await login(OTHER, OTHER_PASSWORD);
  readerToken = await login(READER, READER_PASSWORD);
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

interface Preference {
  '@class': string;
  pKey: string;
  ol: number;
  createDt: string;
  lastModifiedDt: string;
  links: { rel: string; href: string }[];
  key: string;
  owner?: string;
  description?: string;
  value: string;
  groupName?: string;
  type: string;
}

async function login(username: string, password: string): Promise<string> {
  const reply = await wms.request('POST', '/oauth/token', {
    anonymous: true,
    raw: new URLSearchParams({ grant_type: 'password', username, password }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.access_token as string;
}

async function create(body: Record<string, unknown>, token?: string): Promise<Preference> {
  const reply = await wms.post('/v1/preferences', body, token ? { token } : {});
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function read(pKey: string, token?: string): Promise<Preference> {
  const reply = await wms.get(`/v1/preferences/${pKey}`, token ? { token } : {});
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Every preference a user may see (admin unless told otherwise). */
async function all(token?: string): Promise<Preference[]> {
  const reply = await wms.get('/v1/preferences', token ? { token } : {});
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Runs a request that must be refused, and proves that no preference of either user changed. */
const refusedWithoutChange = refusal({ state: async () => ({ admin: await all(), other: await all(otherToken) }) });

const validationRefusal = (field: string) => (reply: Reply) => {
  expectApiError(reply, 400, 'core.validation.error');
  expect(reply.body.message).toContain(`${field}:`);
};

/** The 401 of the spec: message, messageKey and httpStatus only. */
function expectMinimal401(reply: Reply): void {
  expectApiError(reply, 401, NOT_ALLOWED);
  expect(Object.keys(reply.body).sort()).toEqual(['httpStatus', 'message', 'messageKey']);
}

const expectNotAllowed = (reply: Reply) => expectApiError(reply, 403, NOT_ALLOWED);

const keysOf = (reply: Reply) => (reply.body as Preference[]).map((p) => p.key);

// ---- index --------------------------------------------------------------------

describe('GET /v1/preferences/index', () => {
  it('lists exactly the link names of the spec', async () => {
    const reply = await wms.get('/v1/preferences/index');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    expect(Object.keys(links).sort()).toEqual(
      [
        'preferences-findall',
        'preferences-findbypkey',
        'preferences-findallofscope',
        'preferences-findbyownerscopekey',
        'preferences-create',
        'preferences-update',
        'preferences-delete',
        'user-preferences-findbyuser',
        'user-preferences-findbyuserandkey',
        'role-preferences-findbyrole',
        'role-preferences-findbyroleandkey',
        'module-preferences-findbymodule',
        'module-preferences-findbymoduleandkey',
      ].sort(),
    );
    for (const [name, { href }] of Object.entries(links)) {
      expect(href.startsWith(`${wms.url}/v1/preferences`) || href.startsWith(`${wms.url}/preferences/groups`), name).toBe(true);
    }
    expect(links['preferences-findbyownerscopekey']!.href).toBe(`${wms.url}/preferences/groups?owner={owner}&scope={scope}&name={name}`);
    expect(links['preferences-create']!.href).toBe(`${wms.url}/v1/preferences?strict={strict}`);
    expect(links['preferences-findallofscope']!.href).toBe(`${wms.url}/v1/preferences?scope={scope}`);
    expect(links['user-preferences-findbyuserandkey']!.href).toBe(`${wms.url}/v1/preferences?user={user}&key={key}`);
    expect(links['role-preferences-findbyrole']!.href).toBe(`${wms.url}/v1/preferences?role={role}`);
    expect(links['module-preferences-findbymoduleandkey']!.href).toBe(`${wms.url}/v1/preferences?module={module}&key={key}`);
    expect(links['preferences-update']!.href).toBe(`${wms.url}/v1/preferences/{pKey}`);
  });

  it('is linked from the entry index as preferences-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['preferences-index']).toEqual({ href: `${wms.url}/v1/preferences/index` });
  });

  it('answers XML when asked', async () => {
    const reply = await wms.get('/v1/preferences/index', { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('rel="preferences-findbyownerscopekey"');
  });
});

// ---- create -------------------------------------------------------------------

describe('POST /v1/preferences', () => {
  it('creates each of the four kinds: 201, Location, the fields, owner omitted for the application', async () => {
    const cases = [
      { '@class': APP, key: 'c.app', value: 'v1', type: 'STRING' },
      { '@class': MODULE, key: 'c.mod', owner: 'TMS', value: 'v2', type: 'STRING' },
      { '@class': ROLE, key: 'c.role', owner: 'OPERATORS', value: 'v3', type: 'STRING' },
      { '@class': USER, key: 'c.user', owner: 'admin', value: 'v4', type: 'STRING' },
    ];
    for (const body of cases) {
      const reply = await wms.post('/v1/preferences', { ...body, description: 'what it is for', groupName: 'C-GROUP' });
      expect(reply.status, reply.text).toBe(201);
      const p = reply.body as Preference;
      expect(reply.headers.get('location')).toBe(`${wms.url}/v1/preferences/${p.pKey}`);
      expect(p).toMatchObject({ ...body, description: 'what it is for', groupName: 'C-GROUP', ol: 0 });
      expect(p.createDt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(p.lastModifiedDt).toBe(p.createDt);
      expect(p.links).toEqual([{ rel: 'preferences-findbypkey', href: `${wms.url}/v1/preferences/${p.pKey}` }]);
      if (body['@class'] === APP) expect('owner' in p).toBe(false);
      expect(await read(p.pKey)).toEqual(p);
    }
  });

  it('leaves out description and groupName when not given', async () => {
    const p = await create({ '@class': APP, key: 'c.bare', value: 'x', type: 'STRING' });
    expect(Object.keys(p).sort()).toEqual(['@class', 'createDt', 'key', 'lastModifiedDt', 'links', 'ol', 'pKey', 'type', 'value']);
  });

  it('makes the caller the owner of a user preference created without owner', async () => {
    const p = await create({ '@class': USER, key: 'c.mine', value: 'x', type: 'STRING' });
    expect(p.owner).toBe('admin');
  });

  it('returns every value as text: BOOL, INT, FLOAT, STRING, OBJECT, JSON in JSON and text forms', async () => {
    const cases: [unknown, string, string][] = [
      [true, 'BOOL', 'true'],
      [false, 'BOOL', 'false'],
      ['true', 'BOOL', 'true'],
      ['FALSE', 'BOOL', 'false'],
      [42, 'INT', '42'],
      ['-17', 'INT', '-17'],
      [1.5, 'FLOAT', '1.5'],
      [3, 'FLOAT', '3'],
      ['2.250', 'FLOAT', '2.25'],
      ['1e3', 'FLOAT', '1000'],
      ['plain text', 'STRING', 'plain text'],
      ['', 'STRING', ''],
      [7, 'STRING', '7'],
      [{ a: 1, b: [true] }, 'OBJECT', '{"a":1,"b":[true]}'],
      ['{"a": 1}', 'OBJECT', '{"a": 1}'],
      [{ x: 'y' }, 'JSON', '{"x":"y"}'],
      [[1, 2], 'JSON', '[1,2]'],
      ['[1, "two"]', 'JSON', '[1, "two"]'],
      ['12', 'JSON', '12'],
    ];
    for (const [i, [value, type, text]] of cases.entries()) {
      const p = await create({ '@class': APP, key: `c.value.${i}`, value, type });
      expect(p.value, `${type} ${JSON.stringify(value)}`).toBe(text);
      expect(p.type).toBe(type);
      expect((await read(p.pKey)).value).toBe(text);
    }
  });

  it('takes the type from the JSON value when no type is sent', async () => {
    const cases: [unknown, string, string][] = [
      [true, 'BOOL', 'true'],
      [5, 'INT', '5'],
      [0.5, 'FLOAT', '0.5'],
      ['text', 'STRING', 'text'],
      [{ k: 'v' }, 'OBJECT', '{"k":"v"}'],
      [['a'], 'JSON', '["a"]'],
    ];
    for (const [i, [value, type, text]] of cases.entries()) {
      const p = await create({ '@class': MODULE, owner: 'INFER', key: `c.infer.${i}`, value });
      expect({ type: p.type, value: p.value }).toEqual({ type, value: text });
    }
  });

  it('answers the vendor media types when asked for them', async () => {
    for (const type of [PREFERENCE_TYPE, USER_PREFERENCE_TYPE]) {
      const reply = await wms.post(
        '/v1/preferences',
        { '@class': USER, key: `c.media.${type}`, value: 'x' },
        {
          headers: { Accept: type, 'Content-Type': type },
        },
      );
      expect(reply.status, reply.text).toBe(201);
      expect(reply.headers.get('content-type')).toMatch(new RegExp(`^${type.replace(/[.+]/g, '\\$&')}`));
      const got = await wms.get(`/v1/preferences/${reply.body.pKey}`, { headers: { Accept: type } });
      expect(got.headers.get('content-type')?.startsWith(type)).toBe(true);
    }
  });

  it('refuses a duplicate of kind, owner and key with 409 and [key, owner, scope], nothing changed', async () => {
    const first = await create({ '@class': ROLE, owner: 'DUP-ROLE', key: 'c.dup', value: 'first', type: 'STRING' });
    const reply = await refusedWithoutChange(
      () => wms.post('/v1/preferences', { '@class': ROLE, owner: 'DUP-ROLE', key: 'c.dup', value: 'second', type: 'STRING' }),
      (r) => expectApiError(r, 409, ALREADY_EXISTS),
    );
    expect(reply.body.obj).toEqual(['c.dup', 'DUP-ROLE', 'ROLE']);
    expect(await read(first.pKey)).toEqual(first);

    await create({ '@class': APP, key: 'c.dup.app', value: 'first' });
    const app = await refusedWithoutChange(
      () => wms.post('/v1/preferences?strict=true', { '@class': APP, key: 'c.dup.app', value: 'second' }),
      (r) => expectApiError(r, 409, ALREADY_EXISTS),
    );
    expect(app.body.obj).toEqual(['c.dup.app', null, 'APPLICATION']);

    await create({ '@class': USER, key: 'c.dup.user', value: 'first' });
    const user = await refusedWithoutChange(
      () => wms.post('/v1/preferences', { '@class': USER, key: 'c.dup.user', owner: 'admin', value: 'second' }),
      (r) => expectApiError(r, 409, ALREADY_EXISTS),
    );
    expect(user.body.obj).toEqual(['c.dup.user', 'admin', 'USER']);
  });

  it('keeps the same key apart in different kinds and owners', async () => {
    const bodies = [
      { '@class': APP, key: 'c.shared' },
      { '@class': MODULE, owner: 'A', key: 'c.shared' },
      { '@class': MODULE, owner: 'B', key: 'c.shared' },
      { '@class': ROLE, owner: 'A', key: 'c.shared' },
      { '@class': USER, owner: 'admin', key: 'c.shared' },
    ];
    const pKeys = new Set<string>();
    for (const body of bodies) pKeys.add((await create({ ...body, value: 'x' })).pKey);
    expect(pKeys.size).toBe(bodies.length);
  });

  it('strict=false updates the existing preference instead (200), and leaves an unchanged one alone', async () => {
    const first = await create({ '@class': MODULE, owner: 'INSTALL', key: 'c.provision', value: 1, type: 'INT', description: 'old' });
    const again = await wms.post('/v1/preferences?strict=false', {
      '@class': MODULE,
      owner: 'INSTALL',
      key: 'c.provision',
      value: '2',
      type: 'INT',
      groupName: 'G',
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ pKey: first.pKey, ol: 1, value: '2', type: 'INT', groupName: 'G' });
    expect('description' in again.body).toBe(false);
    expect(await read(first.pKey)).toEqual(again.body);

    const rerun = await wms.post('/v1/preferences?strict=false', {
      '@class': MODULE,
      owner: 'INSTALL',
      key: 'c.provision',
      value: 2,
      type: 'INT',
      groupName: 'G',
    });
    expect(rerun.status).toBe(200);
    expect(rerun.body).toEqual(again.body);
  });

  it('strict=false creates a missing preference (201)', async () => {
    const reply = await wms.post('/v1/preferences?strict=false', { '@class': APP, key: 'c.provision.new', value: 'x' });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/preferences/${reply.body.pKey}`);
  });

  it('refuses a strict value other than true or false, nothing changed', async () => {
    await refusedWithoutChange(() => wms.post('/v1/preferences?strict=maybe', { '@class': APP, key: 'c.strict.bad', value: 'x' }), validationRefusal('strict'));
  });

  describe('refuses bad input with 400 core.validation.error naming the field, nothing changed', () => {
    const bad: [string, string, Record<string, unknown>][] = [
      ['BOOL that is no boolean', 'value', { value: 'yes', type: 'BOOL' }],
      ['BOOL given as a number', 'value', { value: 1, type: 'BOOL' }],
      ['INT with a fraction', 'value', { value: 1.5, type: 'INT' }],
      ['INT as non-numeric text', 'value', { value: 'abc', type: 'INT' }],
      ['INT as decimal text', 'value', { value: '1.0', type: 'INT' }],
      ['INT beyond the safe range', 'value', { value: '99999999999999999999', type: 'INT' }],
      ['FLOAT as text', 'value', { value: 'abc', type: 'FLOAT' }],
      ['FLOAT given as a boolean', 'value', { value: true, type: 'FLOAT' }],
      ['JSON that does not parse', 'value', { value: '{"a": ', type: 'JSON' }],
      ['OBJECT given as an array', 'value', { value: [1, 2], type: 'OBJECT' }],
      ['OBJECT as the text of an array', 'value', { value: '[1]', type: 'OBJECT' }],
      ['OBJECT given as a number', 'value', { value: 5, type: 'OBJECT' }],
      ['OBJECT as text that does not parse', 'value', { value: '{oops}', type: 'OBJECT' }],
      ['STRING given as an object', 'value', { value: { a: 1 }, type: 'STRING' }],
      ['value missing', 'value', { value: undefined, type: 'STRING' }],
      ['value null', 'value', { value: null, type: 'STRING' }],
      ['value too long', 'value', { value: 'x'.repeat(65_537), type: 'STRING' }],
      ['unknown type', 'type', { value: 'x', type: 'DATE' }],
      ['unknown @class', '@class', { '@class': 'org.vendor.core.preferences.api.GroupPreferenceVO' }],
      ['@class missing', '@class', { '@class': undefined }],
      ['key missing', 'key', { key: undefined }],
      ['key empty', 'key', { key: '  ' }],
      ['key not a string', 'key', { key: 12 }],
      ['description not a string', 'description', { description: 5 }],
      ['groupName empty', 'groupName', { groupName: '' }],
      ['role preference without owner', 'owner', { '@class': ROLE, owner: undefined }],
      ['module preference with null owner', 'owner', { '@class': MODULE, owner: null }],
      ['application preference with an owner', 'owner', { '@class': APP, owner: 'someone' }],
      ['owner empty', 'owner', { '@class': MODULE, owner: '' }],
    ];
    for (const [what, field, change] of bad) {
      it(what, async () => {
        const body: Record<string, unknown> = { '@class': MODULE, owner: 'BAD', key: 'c.bad', value: 'x', type: 'STRING', ...change };
        await refusedWithoutChange(() => wms.post('/v1/preferences', body), validationRefusal(field));
      });
    }
  });

  it('refuses a body that is no JSON object, nothing changed', async () => {
    await refusedWithoutChange(
      () => wms.post('/v1/preferences', ['not', 'an', 'object']),
      (r) => expectApiError(r, 400, 'core.validation.error'),
    );
    await refusedWithoutChange(
      () => wms.request('POST', '/v1/preferences', { raw: '{"@class": ', headers: { 'Content-Type': 'application/json' } }),
      (r) => expectServerError(r, 400),
    );
  });

  it('refuses a user preference for another user with 403, nothing changed', async () => {
    await refusedWithoutChange(() => wms.post('/v1/preferences', { '@class': USER, owner: OTHER, key: 'c.foreign', value: 'x' }), expectNotAllowed);
    await refusedWithoutChange(
      () => wms.post('/v1/preferences?strict=false', { '@class': USER, owner: OTHER, key: 'c.foreign', value: 'x' }),
      expectNotAllowed,
    );
  });

  it('needs the grant preferences:write (403 server-declined), nothing changed', async () => {
    const reply = await refusedWithoutChange(
      () => wms.post('/v1/preferences', { '@class': APP, key: 'c.reader', value: 'x' }, { token: readerToken }),
      (r) => expectServerError(r, 403),
    );
    expect(reply.body.message).toContain('preferences:write');
    expect((await wms.get('/v1/preferences', { token: readerToken })).status).toBe(200);
  });
});

// ---- lookups ------------------------------------------------------------------

describe('lookups', () => {
  let app: Preference, mod: Preference, role: Preference, mine: Preference;
  beforeAll(async () => {
    app = await create({ '@class': APP, key: 'l.app', value: 'a', groupName: 'L-GROUP' });
    await create({ '@class': APP, key: 'l.app2', value: 'b', groupName: 'L-OTHER' });
    mod = await create({ '@class': MODULE, owner: 'L-MOD', key: 'l.mod', value: 'm', groupName: 'L-GROUP' });
    await create({ '@class': MODULE, owner: 'L-MOD', key: 'l.mod2', value: 'm2' });
    role = await create({ '@class': ROLE, owner: 'L-ROLE', key: 'l.role', value: 'r', groupName: 'L-GROUP' });
    mine = await create({ '@class': USER, key: 'l.user', value: 'u', groupName: 'L-GROUP' });
    await create({ '@class': USER, key: 'l.user2', value: 'u2' });
  });

  it('GET /v1/preferences/{pKey}', async () => {
    for (const p of [app, mod, role, mine]) expect(await read(p.pKey)).toEqual(p);
  });

  it('GET /v1/preferences/{pKey} of an unknown pKey: 404 notFoundByPKey with [pKey]', async () => {
    const reply = await wms.get('/v1/preferences/NO-SUCH-PKEY');
    expectApiError(reply, 404, NOT_FOUND_BY_PKEY);
    expect(reply.body.obj).toEqual(['NO-SUCH-PKEY']);
  });

  it('GET /v1/preferences: all, ordered by scope, owner and key, as a list', async () => {
    const reply = await wms.get('/v1/preferences');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    const list = reply.body as Preference[];
    for (const p of [app, mod, role, mine]) expect(list).toContainEqual(p);
    const order = list.map((p) => [p['@class'], p.owner ?? '', p.key].join('|'));
    const scopes = list.map((p) => [APP, MODULE, ROLE, USER].indexOf(p['@class']));
    expect(scopes).toEqual([...scopes].sort((a, b) => a - b));
    expect(order.length).toBe(new Set(order).size);
  });

  it('?scope= APPLICATION, MODULE, ROLE', async () => {
    for (const [scope, cls, p] of [
      ['APPLICATION', APP, app],
      ['MODULE', MODULE, mod],
      ['ROLE', ROLE, role],
    ] as const) {
      const reply = await wms.get(`/v1/preferences?scope=${scope}`);
      expect(reply.status).toBe(200);
      const list = reply.body as Preference[];
      expect(list).toContainEqual(p);
      expect(list.every((x) => x['@class'] === cls)).toBe(true);
    }
  });

  it('?scope=USER without a user: 401 with message, messageKey and httpStatus only', async () => {
    expectMinimal401(await wms.get('/v1/preferences?scope=USER'));
  });

  it('?scope=USER&user=<caller>: their user preferences', async () => {
    const reply = await wms.get('/v1/preferences?scope=USER&user=admin');
    expect(reply.status).toBe(200);
    expect(reply.body).toContainEqual(mine);
    expect((reply.body as Preference[]).every((p) => p['@class'] === USER && p.owner === 'admin')).toBe(true);
  });

  it('?scope=ROLE&user=: 400, a user belongs to scope USER only', async () => {
    validationRefusal('user')(await wms.get('/v1/preferences?scope=ROLE&user=admin'));
  });

  it('?scope= of an unknown scope: 400', async () => {
    validationRefusal('scope')(await wms.get('/v1/preferences?scope=GLOBAL'));
  });

  it('?user= and ?user=&key=', async () => {
    const reply = await wms.get('/v1/preferences?user=admin');
    expect(reply.status).toBe(200);
    expect(keysOf(reply)).toEqual(expect.arrayContaining(['l.user', 'l.user2']));
    expect((reply.body as Preference[]).every((p) => p['@class'] === USER && p.owner === 'admin')).toBe(true);
    expect((await wms.get('/v1/preferences?user=admin&key=l.user')).body).toEqual(mine);
  });

  it('?user=&key= of a missing key: 404 not.found', async () => {
    expectApiError(await wms.get('/v1/preferences?user=admin&key=l.none'), 404, 'not.found');
  });

  it('?user= empty: 400', async () => {
    validationRefusal('user')(await wms.get('/v1/preferences?user='));
  });

  it('?role=, ?role=&key=, ?module=, ?module=&key=', async () => {
    const roles = await wms.get('/v1/preferences?role=L-ROLE');
    expect(roles.body).toEqual([role]);
    expect((await wms.get('/v1/preferences?role=L-ROLE&key=l.role')).body).toEqual(role);
    const mods = await wms.get('/v1/preferences?module=L-MOD');
    expect(keysOf(mods)).toEqual(['l.mod', 'l.mod2']);
    expect((await wms.get('/v1/preferences?module=L-MOD&key=l.mod')).body).toEqual(mod);
    expect((await wms.get('/v1/preferences?role=NO-SUCH-ROLE')).body).toEqual([]);
  });

  it('?role=&key= and ?module=&key= of a missing one: 404 not.found', async () => {
    expectApiError(await wms.get('/v1/preferences?role=L-ROLE&key=l.none'), 404, 'not.found');
    expectApiError(await wms.get('/v1/preferences?module=L-MOD&key=l.none'), 404, 'not.found');
    expectApiError(await wms.get('/v1/preferences?module=L-NONE&key=l.mod'), 404, 'not.found');
  });

  it('GET /preferences/groups?owner=&scope=&name=: the group of a scope and owner', async () => {
    const appGroup = await wms.get('/preferences/groups?scope=APPLICATION&name=L-GROUP');
    expect(appGroup.status, appGroup.text).toBe(200);
    expect(appGroup.body).toEqual([app]);
    expect((await wms.get('/preferences/groups?owner=&scope=APPLICATION&name=L-GROUP')).body).toEqual([app]);
    expect((await wms.get('/preferences/groups?owner=L-MOD&scope=MODULE&name=L-GROUP')).body).toEqual([mod]);
    expect((await wms.get('/preferences/groups?owner=L-ROLE&scope=ROLE&name=L-GROUP')).body).toEqual([role]);
    expect((await wms.get('/preferences/groups?owner=admin&scope=USER&name=L-GROUP')).body).toEqual([mine]);
    expect((await wms.get('/preferences/groups?owner=L-MOD&scope=MODULE&name=NO-GROUP')).body).toEqual([]);
  });

  it('GET /preferences/groups refusals', async () => {
    expectMinimal401(await wms.get('/preferences/groups?scope=USER&name=L-GROUP'));
    expectNotAllowed(await wms.get(`/preferences/groups?owner=${OTHER}&scope=USER&name=L-GROUP`));
    validationRefusal('owner')(await wms.get('/preferences/groups?scope=ROLE&name=L-GROUP'));
    validationRefusal('owner')(await wms.get('/preferences/groups?owner=X&scope=APPLICATION&name=L-GROUP'));
    validationRefusal('scope')(await wms.get('/preferences/groups?owner=X&scope=TEAM&name=L-GROUP'));
    validationRefusal('name')(await wms.get('/preferences/groups?owner=X&scope=ROLE&name='));
  });
});

// ---- update -------------------------------------------------------------------

describe('PUT /v1/preferences/{pKey}', () => {
  it('replaces description, value, groupName and type: 200 with the updated preference', async () => {
    const p = await create({ '@class': MODULE, owner: 'U-MOD', key: 'u.put', value: 'old', description: 'd', groupName: 'G' });
    const reply = await wms.put(`/v1/preferences/${p.pKey}`, { ...p, value: 12, type: 'INT', description: 'new' });
    expect(reply.status, reply.text).toBe(200);
    const { groupName: _dropped, lastModifiedDt: _changed, ...expected } = { ...p, value: '12', type: 'INT', description: 'new', ol: 1 };
    expect(reply.body).toMatchObject(expected);
    expect(reply.body.lastModifiedDt >= p.lastModifiedDt).toBe(true);
    expect(await read(p.pKey)).toEqual(reply.body);
    // A preference read and sent back unchanged is accepted.
    const back = await wms.put(`/v1/preferences/${p.pKey}`, reply.body);
    expect(back.status, back.text).toBe(200);
    expect(back.body.ol).toBe(2);
  });

  it('keeps the type when none is sent, and checks the value against it', async () => {
    const p = await create({ '@class': APP, key: 'u.keep', value: true });
    const { type: _t, ...withoutType } = p;
    const reply = await wms.put(`/v1/preferences/${p.pKey}`, { ...withoutType, value: 'false' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ type: 'BOOL', value: 'false', ol: 1 });
    await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...withoutType, ol: 1, value: 'maybe' }), validationRefusal('value'));
  });

  it("updates the caller's own user preference without naming the owner", async () => {
    const p = await create({ '@class': USER, key: 'u.mine', value: 'a' });
    const { owner: _o, ...rest } = p;
    const reply = await wms.put(`/v1/preferences/${p.pKey}`, { ...rest, value: 'b' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ owner: 'admin', value: 'b' });
  });

  describe('refuses, nothing changed', () => {
    let p: Preference;
    let app: Preference;
    let mine: Preference;
    beforeAll(async () => {
      p = await create({ '@class': ROLE, owner: 'U-ROLE', key: 'u.refuse', value: 1, type: 'INT' });
      app = await create({ '@class': APP, key: 'u.refuse.app', value: 'x' });
      mine = await create({ '@class': USER, key: 'u.refuse.mine', value: 'x' });
    });

    it("a pKey in the body other than the path's: 400", async () => {
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...p, pKey: app.pKey }), validationRefusal('pKey'));
    });
    it('another key: 400', async () => {
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...p, key: 'u.renamed' }), validationRefusal('key'));
    });
    it('another owner: 400', async () => {
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...p, owner: 'U-OTHER' }), validationRefusal('owner'));
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...p, owner: undefined }), validationRefusal('owner'));
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${app.pKey}`, { ...app, owner: 'X' }), validationRefusal('owner'));
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${mine.pKey}`, { ...mine, owner: OTHER }), validationRefusal('owner'));
    });
    it('another kind: 400', async () => {
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...p, '@class': MODULE }), validationRefusal('@class'));
    });
    it('a value that does not fit the type: 400', async () => {
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...p, value: 'one' }), validationRefusal('value'));
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...p, type: 'OBJECT' }), validationRefusal('value'));
    });
    it('a stale ol: 409 core.optimistic.lock', async () => {
      const reply = await refusedWithoutChange(
        () => wms.put(`/v1/preferences/${p.pKey}`, { ...p, ol: p.ol + 5, value: 2 }),
        (r) => expectApiError(r, 409, 'core.optimistic.lock'),
      );
      expect(reply.body.obj).toEqual([p.pKey, String(p.ol + 5), String(p.ol)]);
    });
    it('an unknown pKey: 404 notFoundByPKey', async () => {
      const reply = await refusedWithoutChange(
        () => wms.put('/v1/preferences/NO-SUCH-PKEY', { ...p, pKey: 'NO-SUCH-PKEY' }),
        (r) => expectApiError(r, 404, NOT_FOUND_BY_PKEY),
      );
      expect(reply.body.obj).toEqual(['NO-SUCH-PKEY']);
    });
    it('a body without @class or value: 400', async () => {
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...p, '@class': undefined }), validationRefusal('@class'));
      await refusedWithoutChange(() => wms.put(`/v1/preferences/${p.pKey}`, { ...p, value: undefined }), validationRefusal('value'));
    });
  });
});

// ---- delete -------------------------------------------------------------------

describe('DELETE /v1/preferences/{pKey}', () => {
  it('deletes: 204, then 404', async () => {
    const p = await create({ '@class': APP, key: 'd.gone', value: 'x' });
    const reply = await wms.del(`/v1/preferences/${p.pKey}`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expectApiError(await wms.get(`/v1/preferences/${p.pKey}`), 404, NOT_FOUND_BY_PKEY);
    expect((await all()).map((x) => x.pKey)).not.toContain(p.pKey);
    // The key is free again.
    await create({ '@class': APP, key: 'd.gone', value: 'y' });
  });

  it('an unknown pKey: 404 notFoundByPKey, nothing changed', async () => {
    const reply = await refusedWithoutChange(
      () => wms.del('/v1/preferences/NO-SUCH-PKEY'),
      (r) => expectApiError(r, 404, NOT_FOUND_BY_PKEY),
    );
    expect(reply.body.obj).toEqual(['NO-SUCH-PKEY']);
  });
});

// ---- two users ----------------------------------------------------------------

describe('user preferences belong to their owner only', () => {
  let adminPref: Preference;
  let otherPref: Preference;
  let shared: Preference[];
  beforeAll(async () => {
    adminPref = await create({ '@class': USER, key: 'o.theme', value: 'dark', groupName: 'O-GROUP' });
    otherPref = await create({ '@class': USER, key: 'o.theme', value: 'light', groupName: 'O-GROUP' }, otherToken);
    shared = [
      await create({ '@class': APP, key: 'o.app', value: 'a' }),
      await create({ '@class': MODULE, owner: 'O-MOD', key: 'o.mod', value: 'm' }, otherToken),
      await create({ '@class': ROLE, owner: 'O-ROLE', key: 'o.role', value: 'r' }),
    ];
  });

  it("each user sees their own user preferences and the shared ones, never the other's", async () => {
    expect(otherPref.owner).toBe(OTHER);
    const adminList = await all();
    const otherList = await all(otherToken);
    expect(adminList).toContainEqual(adminPref);
    expect(adminList.map((p) => p.pKey)).not.toContain(otherPref.pKey);
    expect(otherList).toContainEqual(otherPref);
    expect(otherList.map((p) => p.pKey)).not.toContain(adminPref.pKey);
    expect(otherList.filter((p) => p['@class'] === USER).every((p) => p.owner === OTHER)).toBe(true);
    expect(adminList.filter((p) => p['@class'] === USER).every((p) => p.owner === 'admin')).toBe(true);
    for (const p of shared) {
      expect(adminList).toContainEqual(p);
      expect(otherList).toContainEqual(p);
      expect(await read(p.pKey, otherToken)).toEqual(p);
    }
    expect((await wms.get('/v1/preferences?module=O-MOD&key=o.mod')).body).toEqual(shared[1]);
    expect((await wms.get('/v1/preferences?role=O-ROLE', { token: otherToken })).body).toEqual([shared[2]]);
  });

  it('the other user reads their own by user and key', async () => {
    const reply = await wms.get(`/v1/preferences?user=${OTHER}&key=o.theme`, { token: otherToken });
    expect(reply.body).toEqual(otherPref);
    expect((await wms.get(`/v1/preferences?user=${OTHER}`, { token: otherToken })).body).toEqual([otherPref]);
  });

  it("addressing another user's preference directly: 403, nothing changed", async () => {
    const o = { token: otherToken };
    await refusedWithoutChange(() => wms.get(`/v1/preferences/${adminPref.pKey}`, o), expectNotAllowed);
    await refusedWithoutChange(() => wms.get(`/v1/preferences/${otherPref.pKey}`), expectNotAllowed);
    await refusedWithoutChange(() => wms.put(`/v1/preferences/${adminPref.pKey}`, { ...adminPref, value: 'hacked' }, o), expectNotAllowed);
    await refusedWithoutChange(() => wms.del(`/v1/preferences/${adminPref.pKey}`, o), expectNotAllowed);
    await refusedWithoutChange(() => wms.del(`/v1/preferences/${otherPref.pKey}`), expectNotAllowed);
  });

  it("asking for another user's preferences: 403, nothing changed", async () => {
    const o = { token: otherToken };
    await refusedWithoutChange(() => wms.get('/v1/preferences?user=admin', o), expectNotAllowed);
    await refusedWithoutChange(() => wms.get('/v1/preferences?user=admin&key=o.theme', o), expectNotAllowed);
    await refusedWithoutChange(() => wms.get('/v1/preferences?scope=USER&user=admin', o), expectNotAllowed);
    await refusedWithoutChange(() => wms.get('/preferences/groups?owner=admin&scope=USER&name=O-GROUP', o), expectNotAllowed);
    await refusedWithoutChange(() => wms.get(`/v1/preferences?user=${OTHER}`), expectNotAllowed);
    await refusedWithoutChange(() => wms.get('/v1/preferences?scope=USER', o), expectMinimal401);
  });

  it('creating a user preference for someone else: 403, nothing changed', async () => {
    await refusedWithoutChange(
      () => wms.post('/v1/preferences', { '@class': USER, owner: 'admin', key: 'o.theme', value: 'x' }, { token: otherToken }),
      expectNotAllowed,
    );
    await refusedWithoutChange(
      () => wms.post('/v1/preferences?strict=false', { '@class': USER, owner: 'admin', key: 'o.theme', value: 'x' }, { token: otherToken }),
      expectNotAllowed,
    );
  });

  it('the other user changes and deletes their own', async () => {
    const reply = await wms.put(`/v1/preferences/${otherPref.pKey}`, { ...otherPref, value: 'blue' }, { token: otherToken });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ owner: OTHER, value: 'blue', ol: 1 });
    expect(await read(adminPref.pKey)).toEqual(adminPref);
    expect((await wms.del(`/v1/preferences/${otherPref.pKey}`, { token: otherToken })).status).toBe(204);
    expect(await read(adminPref.pKey)).toEqual(adminPref);
  });
});

// ---- events -------------------------------------------------------------------

describe('user and role preferences follow their owner', () => {
  const ownedBy = (kind: string, owner: string) =>
    wms.app.db.prepare('SELECT key FROM preferences WHERE kind = ? AND owner = ? ORDER BY key').pluck().all(kind, owner);

  it('a renamed user keeps its preferences under the new name; a deleted user takes them along', async () => {
    const created = await wms.post('/users', { username: 'pref-mover', password: 'pref-mover-password', roleNames: ['PREF_EDITOR'] });
    expect(created.status, created.text).toBe(201);
    const token = await login('pref-mover', 'pref-mover-password');
    await create({ '@class': USER, key: 'moving.pref', value: 'x', type: 'STRING' }, token);

    const renamed = await wms.put('/users', { pKey: created.body.pKey, username: 'pref-moved' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(ownedBy('USER', 'pref-mover')).toEqual([]);
    const mine = await wms.get('/v1/preferences?user=pref-moved', { token: await login('pref-moved', 'pref-mover-password') });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body).toEqual([expect.objectContaining({ key: 'moving.pref', owner: 'pref-moved' })]);

    expect((await wms.del(`/users/${created.body.pKey}`)).status).toBe(204);
    expect(ownedBy('USER', 'pref-moved')).toEqual([]);
  });

  it('a renamed role keeps its preferences under the new name; a deleted role takes them along', async () => {
    const role = await wms.post('/roles', { name: 'PREF_ROLE_OLD' });
    expect(role.status, role.text).toBe(201);
    await create({ '@class': ROLE, owner: 'PREF_ROLE_OLD', key: 'role.pref', value: '1', type: 'INT' });
    expect((await wms.put('/roles', { pKey: role.body.pKey, name: 'PREF_ROLE_NEW' })).status).toBe(200);
    expect(ownedBy('ROLE', 'PREF_ROLE_OLD')).toEqual([]);
    expect(ownedBy('ROLE', 'PREF_ROLE_NEW')).toEqual(['role.pref']);
    expect((await wms.del(`/roles/${role.body.pKey}`)).status).toBe(204);
    expect(ownedBy('ROLE', 'PREF_ROLE_NEW')).toEqual([]);
  });
});

describe('events', () => {
  it('publishes preference.created, .changed and .deleted after the change, without the value', async () => {
    const seen: { type: string; data: Record<string, unknown> }[] = [];
    const off = wms.app.bus.onAny((event) => {
      if (event.type.startsWith('preference.')) seen.push({ type: event.type, data: event.data });
    });
    try {
      const p = await create({ '@class': MODULE, owner: 'E-MOD', key: 'e.key', value: 'secret' });
      expect((await wms.put(`/v1/preferences/${p.pKey}`, { ...p, value: 'other' })).status).toBe(200);
      // A provisioning rerun that changes nothing publishes nothing.
      expect((await wms.post('/v1/preferences?strict=false', { '@class': MODULE, owner: 'E-MOD', key: 'e.key', value: 'other' })).status).toBe(200);
      expect((await wms.post('/v1/preferences', { '@class': MODULE, owner: 'E-MOD', key: 'e.key', value: 'again' })).status).toBe(409);
      expect((await wms.del(`/v1/preferences/${p.pKey}`)).status).toBe(204);
      const data = { pKey: p.pKey, scope: 'MODULE', owner: 'E-MOD', key: 'e.key' };
      expect(seen).toEqual([
        { type: 'preference.created', data },
        { type: 'preference.changed', data },
        { type: 'preference.deleted', data },
      ]);
    } finally {
      off();
    }
  });
});
