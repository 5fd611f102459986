import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, expectApiError, expectServerError, loginReply, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';

// The user administration module (docs/users.md) plus
// what the appliance adds: roles, grants, API keys, account lockout. Black-box over
// real HTTP against the real appliance.

const USER_KEYS = ['pKey', 'ol', 'createDt', 'lastModifiedDt', 'links', 'username', 'externalUser', 'locked', 'enabled'];
const ROLE_CLASS = 'org.vendor.core.uaa.api.RoleVO';
const GRANT_CLASS = 'org.vendor.core.uaa.api.SecurityObjectVO';

let wms: TestAppliance;
let adminPk: string;
let adminRolePk: string;

beforeAll(async () => {
  wms = await startTestAppliance();
  const users = await wms.get('/users');
  adminPk = (users.body as { pKey: string; username: string }[]).find((u) => u.username === 'admin')!.pKey;
  adminRolePk = (await wms.get('/roles?name=ADMIN')).body.pKey as string;
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid 1×1 RGB PNG; `comment` adds a tEXt chunk (to make the file as large as needed). */
function tinyPng(red = 255, comment = ''): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header[8] = 8; // bit depth
  header[9] = 2; // colour type RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    ...(comment ? [pngChunk('tEXt', Buffer.from(`Comment\0${comment}`, 'latin1'))] : []),
    pngChunk('IDAT', deflateSync(Buffer.from([0, red, 0, 0]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function tokenReply(username: string, password: string): Promise<Reply> {
  return loginReply(wms, username, password);
}

async function login(username: string, password: string): Promise<string> {
  const reply = await tokenReply(username, password);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.access_token as string;
}

async function expectLoginRefused(username: string, password: string): Promise<Reply> {
  const reply = await tokenReply(username, password);
  expectServerError(reply, 401);
  return reply;
}

async function createUser(body: Record<string, unknown>): Promise<any> {
  const reply = await wms.post('/users', { links: [], ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function createRole(body: Record<string, unknown>): Promise<any> {
  const reply = await wms.post('/roles', body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

function sendImage(pKey: string, bytes: Buffer | string, method = 'POST', contentType = 'application/octet-stream', on = wms) {
  return on.request(method, `/users/${pKey}/details/image`, { raw: bytes, headers: { 'Content-Type': contentType } });
}

/** The raw bytes of a reply (the JSON helper would decode them as text). */
async function getBytes(path: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(wms.url + path, { headers: { Authorization: `Bearer ${await wms.token()}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

const allUsers = async () => {
  const reply = await wms.get('/users');
  expect(reply.status).toBe(200);
  return reply.body as any[];
};
const allRoles = async () => {
  const reply = await wms.get('/roles');
  expect(reply.status).toBe(200);
  return reply.body as any[];
};
const allGrants = async () => {
  const reply = await wms.get('/grants');
  expect(reply.status).toBe(200);
  return reply.body as any[];
};
const allApiKeys = async () => {
  const reply = await wms.get('/api-keys');
  expect(reply.status).toBe(200);
  return reply.body as any[];
};
const userByPk = async (pKey: string) => {
  const reply = await wms.get(`/users/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
};
const roleByPk = async (pKey: string) => {
  const reply = await wms.get(`/roles/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
};
const grantNames = (grants: { name: string }[]) => grants.map((g) => g.name).sort();

/** Runs a refused request and proves the users, roles, grants and API keys read the same before and after. */
async function unchangedBy(action: () => Promise<Reply>): Promise<Reply> {
  const before = [await allUsers(), await allRoles(), await allGrants(), await allApiKeys()];
  const reply = await action();
  const after = [await allUsers(), await allRoles(), await allGrants(), await allApiKeys()];
  expect(after).toEqual(before);
  return reply;
}

function expectNoPassword(reply: Reply, what: string): void {
  expect(reply.status, `${what}: ${reply.text}`).toBeLessThan(300);
  expect(reply.text, what).not.toContain('scrypt$');
  expect(reply.text, what).not.toContain('"password"');
  expect(reply.text, what).not.toMatch(/passwordHash|password_hash/);
}

// ---- indexes ----------------------------------------------------------------

describe('indexes', () => {
  const indexLinks = async (path: string) => {
    const reply = await wms.get(path);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/hal+json');
    return reply.body._links as Record<string, { href: string }>;
  };

  it('GET /users/index links every user operation of the spec and ours', async () => {
    const links = await indexLinks('/users/index');
    expect(Object.keys(links).sort()).toEqual(
      [
        'users-findbypkey',
        'users-findall',
        'users-findgrants',
        'users-create',
        'users-save',
        'users-saveimage',
        'users-change-password',
        'users-delete',
        'users-findroles',
        'users-findimage',
        'users-deleteimage',
      ].sort(),
    );
    expect(links['users-findbypkey']!.href).toBe(`${wms.url}/users/{pKey}`);
    expect(links['users-findall']!.href).toBe(`${wms.url}/users`);
    expect(links['users-findgrants']!.href).toBe(`${wms.url}/users/{pKey}/grants`);
    expect(links['users-findroles']!.href).toBe(`${wms.url}/users/{pKey}/roles`);
    expect(links['users-change-password']!.href).toBe(`${wms.url}/users/{pKey}/password`);
    expect(links['users-saveimage']!.href).toBe(`${wms.url}/users/{pKey}/details/image`);
  });

  it('GET /roles/index links the role operations', async () => {
    const links = await indexLinks('/roles/index');
    expect(Object.keys(links).sort()).toEqual(['roles-findbypkey', 'roles-findbyname', 'roles-findall', 'roles-create', 'roles-save', 'roles-delete'].sort());
    expect(links['roles-findbyname']!.href).toBe(`${wms.url}/roles?name={name}`);
    expect(links['roles-findbypkey']!.href).toBe(`${wms.url}/roles/{pKey}`);
  });

  it('GET /grants/index links the grant operations', async () => {
    const links = await indexLinks('/grants/index');
    expect(Object.keys(links).sort()).toEqual(
      ['grants-findbypkey', 'grants-findbyname', 'grants-findall', 'grants-create', 'grants-save', 'grants-delete'].sort(),
    );
    expect(links['grants-findbyname']!.href).toBe(`${wms.url}/grants?name={name}`);
  });

  it('GET /api-keys/index links the API key operations', async () => {
    const links = await indexLinks('/api-keys/index');
    expect(Object.keys(links).sort()).toEqual(['api-keys-findbypkey', 'api-keys-findall', 'api-keys-create', 'api-keys-revoke'].sort());
    expect(links['api-keys-revoke']!.href).toBe(`${wms.url}/api-keys/{pKey}`);
  });

  it('the entry index links the four administration indexes', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    const links = reply.body._links as Record<string, { href: string }>;
    expect(links['user-index']!.href).toBe(`${wms.url}/users/index`);
    expect(links['role-index']!.href).toBe(`${wms.url}/roles/index`);
    expect(links['grant-index']!.href).toBe(`${wms.url}/grants/index`);
    expect(links['api-key-index']!.href).toBe(`${wms.url}/api-keys/index`);
  });
});

// ---- users ------------------------------------------------------------------

describe('POST /users', () => {
  it('creates a user with the spec defaults, 201 and a Location ending in a slash', async () => {
    const reply = await wms.post('/users', {
      links: [],
      username: 'alice',
      emailAddresses: [{ emailAddress: 'alice@example.com', primary: true }],
    });
    expect(reply.status, reply.text).toBe(201);
    const user = reply.body;
    expect(reply.headers.get('location')).toBe(`${wms.url}/users/${user.pKey}/`);
    expect(user).toMatchObject({
      username: 'alice',
      externalUser: false,
      locked: false,
      enabled: true,
      roleNames: [],
      ol: 0,
      emailAddresses: [{ emailAddress: 'alice@example.com', primary: true }],
    });
    for (const key of USER_KEYS) expect(user).toHaveProperty(key);
    expect(user.links).toContainEqual({ rel: 'user-findbypkey', href: `${wms.url}/users/${user.pKey}` });
    expect(user.lastPasswordChange).toBeUndefined();
    expect(await userByPk(user.pKey)).toEqual(user);
  });

  it('lets a user created with a password log in', async () => {
    const user = await createUser({ username: 'bob', password: 'bob-password-1' });
    expect(typeof user.lastPasswordChange).toBe('string');
    const reply = await tokenReply('bob', 'bob-password-1');
    expect(reply.status, reply.text).toBe(200);
    expect(typeof reply.body.access_token).toBe('string');
    await expectLoginRefused('bob', 'not-bobs-password');
  });
});

describe('GET /users, /users/{pKey}, /users/{pKey}/roles, /users/{pKey}/grants', () => {
  let user: any;
  beforeAll(async () => {
    await createRole({ name: 'EFFECTIVE_A', grants: ['locations:read', 'accounts:read'] });
    await createRole({ name: 'EFFECTIVE_B', grants: ['locations:read', 'locations:write'] });
    user = await createUser({ username: 'carol', roleNames: ['EFFECTIVE_A', 'EFFECTIVE_B'] });
  });

  it('lists all users as an array', async () => {
    const users = await allUsers();
    expect(Array.isArray(users)).toBe(true);
    expect(users.map((u) => u.username)).toEqual(expect.arrayContaining(['admin', 'alice', 'bob', 'carol']));
  });

  it('reads one user by pKey', async () => {
    const read = await userByPk(user.pKey);
    expect(read).toMatchObject({ pKey: user.pKey, username: 'carol', roleNames: ['EFFECTIVE_A', 'EFFECTIVE_B'] });
  });

  it('lists the roles of a user as RoleVO objects', async () => {
    const reply = await wms.get(`/users/${user.pKey}/roles`);
    expect(reply.status).toBe(200);
    expect(reply.body.map((r: any) => r.name)).toEqual(['EFFECTIVE_A', 'EFFECTIVE_B']);
    for (const role of reply.body) {
      expect(role['@class']).toBe(ROLE_CLASS);
      expect(role.users.map((u: any) => u.username)).toContain('carol');
    }
  });

  it("lists the effective grants: the union of the roles' grants, each once, as SecurityObjectVO", async () => {
    const reply = await wms.get(`/users/${user.pKey}/grants`);
    expect(reply.status).toBe(200);
    expect(grantNames(reply.body)).toEqual(['accounts:read', 'locations:read', 'locations:write']);
    for (const grant of reply.body) expect(grant['@class']).toBe(GRANT_CLASS);
  });

  it('answers an empty array for a user without roles', async () => {
    const alice = (await allUsers()).find((u) => u.username === 'alice');
    expect((await wms.get(`/users/${alice.pKey}/roles`)).body).toEqual([]);
    expect((await wms.get(`/users/${alice.pKey}/grants`)).body).toEqual([]);
  });
});

describe('PUT /users', () => {
  it('changes the fields sent, keeps the others and increments ol', async () => {
    const user = await createUser({
      username: 'dave',
      fullname: 'Dave D.',
      details: { shift: 'early' },
      emailAddresses: [{ emailAddress: 'dave@example.com', primary: true }],
    });
    const reply = await wms.put('/users', {
      pKey: user.pKey,
      ol: user.ol,
      username: 'david',
      locked: true,
      enabled: false,
      emailAddresses: [
        { emailAddress: 'david@example.com', primary: true },
        { emailAddress: 'd@example.org', primary: false, fullname: 'D.' },
      ],
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({
      pKey: user.pKey,
      ol: user.ol + 1,
      username: 'david',
      locked: true,
      enabled: false,
      fullname: 'Dave D.',
      details: { shift: 'early' },
      externalUser: false,
      roleNames: [],
      emailAddresses: [
        { emailAddress: 'david@example.com', primary: true },
        { emailAddress: 'd@example.org', primary: false, fullname: 'D.' },
      ],
    });
    expect(await userByPk(user.pKey)).toEqual(reply.body);
  });

  it('refuses a stale ol with 409 core.optimistic.lock and changes nothing', async () => {
    const user = await createUser({ username: 'erin' });
    const first = await wms.put('/users', { pKey: user.pKey, ol: user.ol, username: 'erin', fullname: 'Erin' });
    expect(first.status).toBe(200);
    const reply = await unchangedBy(() => wms.put('/users', { pKey: user.pKey, ol: user.ol, username: 'erin', fullname: 'Stale' }));
    expectApiError(reply, 409, 'core.optimistic.lock');
    expect((await userByPk(user.pKey)).fullname).toBe('Erin');
  });
});

describe('POST /users/{pKey}/password', () => {
  it('sets the password and lastPasswordChange; the new one works, the old one not', async () => {
    const user = await createUser({ username: 'frank', password: 'frank-old-pass' });
    const before = user.lastPasswordChange as string;
    const reply = await wms.post(`/users/${user.pKey}/password`, { password: 'frank-new-pass' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.pKey).toBe(user.pKey);
    expect(typeof reply.body.lastPasswordChange).toBe('string');
    expect(Date.parse(reply.body.lastPasswordChange)).toBeGreaterThan(Date.parse(before));
    await login('frank', 'frank-new-pass');
    await expectLoginRefused('frank', 'frank-old-pass');
  });

  it('sets a first password on a user created without one', async () => {
    const user = await createUser({ username: 'gina' });
    await expectLoginRefused('gina', 'gina-password');
    const reply = await wms.post(`/users/${user.pKey}/password`, { password: 'gina-password' });
    expect(reply.status).toBe(200);
    expect(typeof reply.body.lastPasswordChange).toBe('string');
    await login('gina', 'gina-password');
  });

  it('refuses a password shorter than 8 characters with 400 and changes nothing', async () => {
    const user = await createUser({ username: 'hank', password: 'hank-password' });
    const reply = await unchangedBy(() => wms.post(`/users/${user.pKey}/password`, { password: 'short' }));
    expectApiError(reply, 400, 'core.validation.error');
    await login('hank', 'hank-password');
  });
});

describe('user image', () => {
  let user: any;
  beforeAll(async () => {
    user = await createUser({ username: 'ivy', details: { badge: 'B-17' } });
  });

  it('POST stores PNG bytes and answers the user with details.image', async () => {
    const png = tinyPng(255);
    const reply = await sendImage(user.pKey, png);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.details).toEqual({
      badge: 'B-17',
      image: { contentType: 'image/png', size: png.length, href: `${wms.url}/users/${user.pKey}/details/image` },
    });
    const read = await getBytes(`/users/${user.pKey}/details/image`);
    expect(read.status).toBe(200);
    expect(read.type).toBe('image/png');
    expect(read.bytes.equals(png)).toBe(true);
    expect((await userByPk(user.pKey)).details.image.size).toBe(png.length);
  });

  it('PATCH replaces the image', async () => {
    const png = tinyPng(7, 'second image');
    const reply = await sendImage(user.pKey, png, 'PATCH');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.details.image).toEqual({
      contentType: 'image/png',
      size: png.length,
      href: `${wms.url}/users/${user.pKey}/details/image`,
    });
    const read = await getBytes(`/users/${user.pKey}/details/image`);
    expect(read.type).toBe('image/png');
    expect(read.bytes.equals(png)).toBe(true);
  });

  it('refuses bytes that are no image with 400 user.image.notAnImage and keeps the stored image', async () => {
    const stored = await getBytes(`/users/${user.pKey}/details/image`);
    const reply = await unchangedBy(() => sendImage(user.pKey, Buffer.from('this is plain text, not a picture')));
    expectApiError(reply, 400, 'user.image.notAnImage');
    expect((await getBytes(`/users/${user.pKey}/details/image`)).bytes.equals(stored.bytes)).toBe(true);
  });

  it('refuses a JSON content type with 415 (server-declined) and keeps the stored image', async () => {
    const stored = await getBytes(`/users/${user.pKey}/details/image`);
    const reply = await unchangedBy(() => sendImage(user.pKey, JSON.stringify({ image: 'x' }), 'POST', 'application/json'));
    expectServerError(reply, 415);
    expect((await getBytes(`/users/${user.pKey}/details/image`)).bytes.equals(stored.bytes)).toBe(true);
  });

  it('an image field in details sent with PUT does not replace the image', async () => {
    const stored = await getBytes(`/users/${user.pKey}/details/image`);
    const reply = await wms.put('/users', { pKey: user.pKey, username: 'ivy', details: { badge: 'B-18', image: 'junk' } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.details.badge).toBe('B-18');
    expect(reply.body.details.image).toMatchObject({ contentType: 'image/png', size: stored.bytes.length });
    expect((await getBytes(`/users/${user.pKey}/details/image`)).bytes.equals(stored.bytes)).toBe(true);
  });

  it('DELETE removes the image: 204, then GET answers 404', async () => {
    const reply = await wms.del(`/users/${user.pKey}/details/image`);
    expect(reply.status).toBe(204);
    expectApiError(await wms.get(`/users/${user.pKey}/details/image`), 404, 'not.found');
    const read = await userByPk(user.pKey);
    expect(read.details).toEqual({ badge: 'B-18' });
  });

  describe('with users.imageMaxBytes 1024', () => {
    let small: TestAppliance;
    beforeAll(async () => {
      small = await startTestAppliance({ users: { imageMaxBytes: 1024 } });
    });
    afterAll(() => small.close());

    it('refuses a larger image with 413 user.image.tooLarge and stores nothing', async () => {
      const created = await small.post('/users', { links: [], username: 'big-picture' });
      expect(created.status).toBe(201);
      const pKey = created.body.pKey as string;
      const large = tinyPng(1, 'x'.repeat(2000));
      expect(large.length).toBeGreaterThan(1024);
      const reply = await sendImage(pKey, large, 'POST', 'application/octet-stream', small);
      expectApiError(reply, 413, 'user.image.tooLarge');
      const after = await small.get(`/users/${pKey}`);
      expect(after.body).toEqual(created.body);
      expectApiError(await small.get(`/users/${pKey}/details/image`), 404, 'not.found');

      // The control: an image within the limit is stored.
      const fits = tinyPng(2);
      const ok = await sendImage(pKey, fits, 'POST', 'application/octet-stream', small);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.details.image.size).toBe(fits.length);
    });
  });
});

describe('DELETE /users/{pKey}', () => {
  it('deletes a user: 204, then 404 not.found; its login stops working', async () => {
    const user = await createUser({ username: 'jack', password: 'jack-password' });
    const token = await login('jack', 'jack-password');
    expect((await wms.del(`/users/${user.pKey}`)).status).toBe(204);
    expectApiError(await wms.get(`/users/${user.pKey}`), 404, 'not.found');
    expect((await allUsers()).some((u) => u.username === 'jack')).toBe(false);
    await expectLoginRefused('jack', 'jack-password');
    expectServerError(await wms.get('/v1/locations', { token }), 401);
  });
});

describe('user errors change nothing', () => {
  it('duplicate username on create → 409 user.already.exists naming it', async () => {
    const reply = await unchangedBy(() => wms.post('/users', { links: [], username: 'alice' }));
    expectApiError(reply, 409, 'user.already.exists');
    expect(reply.body.obj).toEqual(['alice']);
  });

  it('renaming onto an existing username → 409 user.already.exists', async () => {
    const bob = (await allUsers()).find((u) => u.username === 'bob');
    const reply = await unchangedBy(() => wms.put('/users', { pKey: bob.pKey, username: 'alice' }));
    expectApiError(reply, 409, 'user.already.exists');
    expect(reply.body.obj).toEqual(['alice']);
  });

  it('two primary e-mail addresses → 400 user.email.multiplePrimary (create and update)', async () => {
    const emails = [
      { emailAddress: 'one@example.com', primary: true },
      { emailAddress: 'two@example.com', primary: true },
    ];
    expectApiError(
      await unchangedBy(() => wms.post('/users', { links: [], username: 'two-primaries', emailAddresses: emails })),
      400,
      'user.email.multiplePrimary',
    );
    const alice = (await allUsers()).find((u) => u.username === 'alice');
    expectApiError(
      await unchangedBy(() => wms.put('/users', { pKey: alice.pKey, username: 'alice', emailAddresses: emails })),
      400,
      'user.email.multiplePrimary',
    );
  });

  it('the same address twice → 400', async () => {
    const emails = [
      { emailAddress: 'same@example.com', primary: true },
      { emailAddress: 'SAME@example.com', primary: false },
    ];
    expectApiError(await unchangedBy(() => wms.post('/users', { links: [], username: 'same-twice', emailAddresses: emails })), 400, 'core.validation.error');
  });

  it.each([
    ['an invalid e-mail address', { username: 'bad-mail', emailAddresses: [{ emailAddress: 'not-an-address', primary: true }] }],
    ['a username with a space', { username: 'has space' }],
    ['a username with a slash', { username: 'a/b' }],
    ['an empty username', { username: '' }],
    ['a username of 65 characters', { username: 'u'.repeat(65) }],
    ['a number as username', { username: 42 }],
    ['a string as locked', { username: 'typed', locked: 'yes' }],
    ['a string as enabled', { username: 'typed', enabled: 'true' }],
    ['a string as emailAddresses', { username: 'typed', emailAddresses: 'a@example.com' }],
    ['a string as roleNames', { username: 'typed', roleNames: 'ADMIN' }],
    ['a date without zone as expirationDate', { username: 'typed', expirationDate: '2030-01-01T00:00:00' }],
    ['a missing username', { emailAddresses: [] }],
    ['a password of 7 characters', { username: 'short-pass', password: '1234567' }],
  ])('%s → 400 core.validation.error', async (_what, body) => {
    const reply = await unchangedBy(() => wms.post('/users', { links: [], ...body }));
    expectApiError(reply, 400, 'core.validation.error');
  });

  it('invalid fields on update → 400 core.validation.error', async () => {
    const alice = (await allUsers()).find((u) => u.username === 'alice');
    for (const body of [{ pKey: alice.pKey, username: 'has space' }, { pKey: alice.pKey, username: 'alice', locked: 1 }, { username: 'alice' }]) {
      expectApiError(await unchangedBy(() => wms.put('/users', body)), 400, 'core.validation.error');
    }
  });

  it('unknown roleNames → 404 not.found (create and update)', async () => {
    expectApiError(await unchangedBy(() => wms.post('/users', { links: [], username: 'roleless', roleNames: ['NO_SUCH_ROLE'] })), 404, 'not.found');
    const alice = (await allUsers()).find((u) => u.username === 'alice');
    expectApiError(
      await unchangedBy(() => wms.put('/users', { pKey: alice.pKey, username: 'alice', roleNames: ['EFFECTIVE_A', 'NO_SUCH_ROLE'] })),
      404,
      'not.found',
    );
  });

  it('an unknown pKey → 404 not.found on every user route', async () => {
    const pKey = 'no-such-user-pkey';
    const attempts: [string, () => Promise<Reply>][] = [
      ['GET user', () => wms.get(`/users/${pKey}`)],
      ['GET roles', () => wms.get(`/users/${pKey}/roles`)],
      ['GET grants', () => wms.get(`/users/${pKey}/grants`)],
      ['PUT user', () => wms.put('/users', { pKey, username: 'ghost' })],
      ['POST password', () => wms.post(`/users/${pKey}/password`, { password: 'ghost-password' })],
      ['POST image', () => sendImage(pKey, tinyPng())],
      ['PATCH image', () => sendImage(pKey, tinyPng(), 'PATCH')],
      ['GET image', () => wms.get(`/users/${pKey}/details/image`)],
      ['DELETE image', () => wms.del(`/users/${pKey}/details/image`)],
      ['DELETE user', () => wms.del(`/users/${pKey}`)],
    ];
    for (const [what, attempt] of attempts) {
      const reply = await unchangedBy(attempt);
      try {
        expectApiError(reply, 404, 'not.found');
      } catch (err) {
        throw new Error(`${what}: ${(err as Error).message}`);
      }
    }
  });
});

describe('the last administrator', () => {
  it('refuses to delete the only enabled, unlocked admin with 409 user.lastAdministrator', async () => {
    const reply = await unchangedBy(() => wms.del(`/users/${adminPk}`));
    expectApiError(reply, 409, 'user.lastAdministrator');
  });

  it('refuses to lock it', async () => {
    const reply = await unchangedBy(() => wms.put('/users', { pKey: adminPk, username: 'admin', locked: true }));
    expectApiError(reply, 409, 'user.lastAdministrator');
  });

  it('refuses to disable it', async () => {
    const reply = await unchangedBy(() => wms.put('/users', { pKey: adminPk, username: 'admin', enabled: false }));
    expectApiError(reply, 409, 'user.lastAdministrator');
  });

  it('refuses to take ADMIN from its roleNames', async () => {
    const reply = await unchangedBy(() => wms.put('/users', { pKey: adminPk, username: 'admin', roleNames: ['EFFECTIVE_A'] }));
    expectApiError(reply, 409, 'user.lastAdministrator');
    expect((await userByPk(adminPk)).roleNames).toEqual(['ADMIN']);
  });

  it('a locked or disabled second admin does not count', async () => {
    await createUser({ username: 'locked-admin', roleNames: ['ADMIN'], locked: true });
    await createUser({ username: 'disabled-admin', roleNames: ['ADMIN'], enabled: false });
    expectApiError(await unchangedBy(() => wms.put('/users', { pKey: adminPk, username: 'admin', locked: true })), 409, 'user.lastAdministrator');
  });

  it('once a second active admin exists, locking the first works', async () => {
    await createUser({ username: 'second-admin', roleNames: ['ADMIN'], password: 'second-admin-pw' });
    const second = await login('second-admin', 'second-admin-pw');
    const locked = await wms.put('/users', { pKey: adminPk, username: 'admin', locked: true });
    expect(locked.status, locked.text).toBe(200);
    expect(locked.body.locked).toBe(true);
    // The admin's own token stops working; the second admin unlocks it.
    expectServerError(await wms.get('/users'), 401);
    const unlocked = await wms.put('/users', { pKey: adminPk, username: 'admin', locked: false }, { token: second });
    expect(unlocked.status, unlocked.text).toBe(200);
    expect((await wms.get('/users')).status).toBe(200);
  });
});

describe('when no administrator is active (the only one locked itself out)', () => {
  let alone: TestAppliance;
  let adminKey: string;
  beforeAll(async () => {
    alone = await startTestAppliance();
    const key = await alone.post('/api-keys', { name: 'rescue', roleName: 'ADMIN' });
    expect(key.status, key.text).toBe(201);
    adminKey = key.body.key as string;
    // Guessed from an address admin never signed in from, which locks it against every such address.
    const stranger = '127.0.0.2';
    for (let i = 0; i < 5; i++) expectServerError(await loginReply(alone, 'admin', `wrong-password-${i}`, stranger), 401);
    const refused = await loginReply(alone, 'admin', ADMIN_PASSWORD, stranger);
    expectServerError(refused, 401);
    expect(refused.body.message).toBe('Bad credentials');
  });
  afterAll(() => alone.close());

  it('changes to users that are no administrators are not refused as user.lastAdministrator', async () => {
    const created = await alone.post('/users', { links: [], username: 'operator' }, { token: adminKey });
    expect(created.status, created.text).toBe(201);
    const changed = await alone.put('/users', { pKey: created.body.pKey, username: 'operator', fullname: 'Op' }, { token: adminKey });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.fullname).toBe('Op');
    const deleted = await alone.del(`/users/${created.body.pKey}`, { token: adminKey });
    expect(deleted.status, deleted.text).toBe(204);
  });

  it('an ADMIN API key unlocks the admin, whose login then works again', async () => {
    const users = (await alone.get('/users', { token: adminKey })).body as any[];
    const admin = users.find((u) => u.username === 'admin');
    expect(admin.locked).toBe(true);
    const unlocked = await alone.put('/users', { pKey: admin.pKey, username: 'admin', locked: false }, { token: adminKey });
    expect(unlocked.status, unlocked.text).toBe(200);
    expect((await loginReply(alone, 'admin', ADMIN_PASSWORD, '127.0.0.2')).status).toBe(200);
  });
});

// ---- roles ------------------------------------------------------------------

describe('roles', () => {
  let role: any;

  it('POST /roles creates a role with grants and users: 201, Location, users as User objects', async () => {
    await createUser({ username: 'picker-1' });
    await createUser({ username: 'picker-2' });
    const reply = await wms.post('/roles', {
      name: 'PICKERS',
      description: 'pick goods',
      grants: ['locations:read', { name: 'accounts:read' }],
      users: ['picker-1', { username: 'picker-2' }],
    });
    expect(reply.status, reply.text).toBe(201);
    role = reply.body;
    expect(reply.headers.get('location')).toBe(`${wms.url}/roles/${role.pKey}`);
    expect(role).toMatchObject({ '@class': ROLE_CLASS, name: 'PICKERS', description: 'pick goods', immutable: false, ol: 0 });
    expect(role.users.map((u: any) => u.username)).toEqual(['picker-1', 'picker-2']);
    expect(role.users[0]).toMatchObject({ externalUser: false, roleNames: ['PICKERS'] });
    expect(grantNames(role.grants)).toEqual(['accounts:read', 'locations:read']);
    for (const grant of role.grants) expect(grant['@class']).toBe(GRANT_CLASS);
  });

  it('reads the role by pKey, by ?name= and in the list of all', async () => {
    expect(await roleByPk(role.pKey)).toEqual(role);
    const byName = await wms.get('/roles?name=PICKERS');
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual(role);
    const all = await allRoles();
    expect(all.map((r) => r.name)).toEqual(expect.arrayContaining(['ADMIN', 'PICKERS']));
    expectApiError(await wms.get('/roles?name=NO_SUCH_ROLE'), 404, 'not.found');
  });

  it('PUT /roles replaces the grants when given and keeps users and description when not', async () => {
    const reply = await wms.put('/roles', { pKey: role.pKey, ol: role.ol, name: 'PICKERS', grants: ['locations:write'] });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.ol).toBe(role.ol + 1);
    expect(reply.body.description).toBe('pick goods');
    expect(grantNames(reply.body.grants)).toEqual(['locations:write']);
    expect(reply.body.users.map((u: any) => u.username)).toEqual(['picker-1', 'picker-2']);
    role = reply.body;
  });

  it('PUT /roles replaces the users when given and keeps the grants when not', async () => {
    const reply = await wms.put('/roles', { pKey: role.pKey, name: 'PICKERS', users: ['picker-2'] });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.users.map((u: any) => u.username)).toEqual(['picker-2']);
    expect(grantNames(reply.body.grants)).toEqual(['locations:write']);
    const picker1 = (await allUsers()).find((u) => u.username === 'picker-1');
    expect(picker1.roleNames).toEqual([]);
    role = reply.body;
  });

  it('refuses a stale ol with 409 core.optimistic.lock and changes nothing', async () => {
    const reply = await unchangedBy(() => wms.put('/roles', { pKey: role.pKey, ol: role.ol - 1, name: 'PICKERS', grants: [] }));
    expectApiError(reply, 409, 'core.optimistic.lock');
  });

  it('the seeded ADMIN role is immutable: PUT and DELETE → 403 role.immutable', async () => {
    expectApiError(await unchangedBy(() => wms.put('/roles', { pKey: adminRolePk, name: 'ADMIN', description: 'changed', grants: [] })), 403, 'role.immutable');
    expectApiError(await unchangedBy(() => wms.del(`/roles/${adminRolePk}`)), 403, 'role.immutable');
  });

  it('a role created immutable cannot be changed or deleted either', async () => {
    const fixed = await createRole({ name: 'FIXED', immutable: true, grants: ['locations:read'] });
    expect(fixed.immutable).toBe(true);
    expectApiError(await unchangedBy(() => wms.put('/roles', { pKey: fixed.pKey, name: 'FIXED', immutable: false })), 403, 'role.immutable');
    expectApiError(await unchangedBy(() => wms.del(`/roles/${fixed.pKey}`)), 403, 'role.immutable');
  });

  it('refuses a duplicate name with 409 already.exists (create and rename)', async () => {
    expectApiError(await unchangedBy(() => wms.post('/roles', { name: 'PICKERS' })), 409, 'already.exists');
    expectApiError(await unchangedBy(() => wms.put('/roles', { pKey: role.pKey, name: 'FIXED' })), 409, 'already.exists');
  });

  it('refuses an unknown grant or user with 404 not.found (create and update)', async () => {
    expectApiError(await unchangedBy(() => wms.post('/roles', { name: 'GHOSTLY', grants: ['no:such:grant'] })), 404, 'not.found');
    expectApiError(await unchangedBy(() => wms.post('/roles', { name: 'GHOSTLY', users: ['no-such-user'] })), 404, 'not.found');
    expectApiError(
      await unchangedBy(() => wms.put('/roles', { pKey: role.pKey, name: 'PICKERS', grants: ['locations:read', 'no:such:grant'] })),
      404,
      'not.found',
    );
    expectApiError(await unchangedBy(() => wms.put('/roles', { pKey: role.pKey, name: 'PICKERS', users: ['picker-1', 'no-such-user'] })), 404, 'not.found');
  });

  it('refuses invalid bodies with 400 core.validation.error', async () => {
    for (const body of [{}, { name: '' }, { name: 'X', grants: 'locations:read' }, { name: 'X', immutable: 'no' }]) {
      expectApiError(await unchangedBy(() => wms.post('/roles', body)), 400, 'core.validation.error');
    }
  });

  it('an unknown pKey → 404 not.found on GET, PUT and DELETE', async () => {
    expectApiError(await wms.get('/roles/no-such-role'), 404, 'not.found');
    expectApiError(await unchangedBy(() => wms.put('/roles', { pKey: 'no-such-role', name: 'NOPE' })), 404, 'not.found');
    expectApiError(await unchangedBy(() => wms.del('/roles/no-such-role')), 404, 'not.found');
  });

  it('DELETE removes the role: 204, then 404; its members lose it', async () => {
    expect((await wms.del(`/roles/${role.pKey}`)).status).toBe(204);
    expectApiError(await wms.get(`/roles/${role.pKey}`), 404, 'not.found');
    const picker2 = (await allUsers()).find((u) => u.username === 'picker-2');
    expect(picker2.roleNames).toEqual([]);
  });

  it('refuses to delete a role an active API key acts in with 409 role.inUse', async () => {
    const scoped = await createRole({ name: 'KEY_SCOPE', grants: ['locations:read'] });
    const key = await wms.post('/api-keys', { name: 'scope-holder', roleName: 'KEY_SCOPE' });
    expect(key.status, key.text).toBe(201);
    const reply = await unchangedBy(() => wms.del(`/roles/${scoped.pKey}`));
    expectApiError(reply, 409, 'role.inUse');
    expect(reply.body.obj).toEqual(['KEY_SCOPE']);
  });

  it('deletes a role whose keys are all revoked; the revoked keys stay listed with the role name', async () => {
    const scoped = await createRole({ name: 'REVOKED_SCOPE', grants: ['locations:read'] });
    const key = await wms.post('/api-keys', { name: 'revoked-scope-holder', roleName: 'REVOKED_SCOPE' });
    expect(key.status, key.text).toBe(201);
    expect((await wms.del(`/api-keys/${key.body.pKey}`)).status).toBe(204);
    expect((await wms.del(`/roles/${scoped.pKey}`)).status).toBe(204);
    expectApiError(await wms.get(`/roles/${scoped.pKey}`), 404, 'not.found');
    const listed = await wms.get(`/api-keys/${key.body.pKey}`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toMatchObject({ roleName: 'REVOKED_SCOPE', revokedAt: expect.any(String) });
  });
});

// ---- grants -----------------------------------------------------------------

describe('grants', () => {
  it('GET /grants lists the grants the routes need, as SecurityObjectVO', async () => {
    const grants = await allGrants();
    expect(grantNames(grants)).toEqual(
      expect.arrayContaining(['locations:read', 'locations:write', 'users:read', 'users:write', 'roles:write', 'api-keys:write']),
    );
    for (const grant of grants) expect(grant['@class']).toBe(GRANT_CLASS);
    const one = grants.find((g) => g.name === 'locations:read');
    expect((await wms.get(`/grants/${one.pKey}`)).body).toEqual(one);
    expect((await wms.get('/grants?name=locations%3Aread')).body).toEqual(one);
  });

  it('a route grant cannot be renamed or deleted (403 grant.immutable), but its description may change', async () => {
    const grant = (await allGrants()).find((g) => g.name === 'locations:read');
    expectApiError(await unchangedBy(() => wms.put('/grants', { pKey: grant.pKey, name: 'locations:peek' })), 403, 'grant.immutable');
    expectApiError(await unchangedBy(() => wms.del(`/grants/${grant.pKey}`)), 403, 'grant.immutable');
    const reply = await wms.put('/grants', { pKey: grant.pKey, ol: grant.ol, name: 'locations:read', description: 'read locations' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ name: 'locations:read', description: 'read locations', ol: grant.ol + 1 });
  });

  it('custom grants: POST 201 with Location, PUT renames, DELETE 204', async () => {
    const created = await wms.post('/grants', { name: 'hmi:dashboard', description: 'see the dashboard' });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('location')).toBe(`${wms.url}/grants/${created.body.pKey}`);
    expect(created.body).toMatchObject({ '@class': GRANT_CLASS, name: 'hmi:dashboard', description: 'see the dashboard', ol: 0 });

    const renamed = await wms.put('/grants', { pKey: created.body.pKey, ol: 0, name: 'hmi:overview' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'hmi:overview', description: 'see the dashboard', ol: 1 });

    expectApiError(await unchangedBy(() => wms.put('/grants', { pKey: created.body.pKey, ol: 0, name: 'hmi:stale' })), 409, 'core.optimistic.lock');

    expect((await wms.del(`/grants/${created.body.pKey}`)).status).toBe(204);
    expectApiError(await wms.get(`/grants/${created.body.pKey}`), 404, 'not.found');
  });

  it('refuses a duplicate name with 409 already.exists (create and rename)', async () => {
    expectApiError(await unchangedBy(() => wms.post('/grants', { name: 'locations:read' })), 409, 'already.exists');
    const custom = await wms.post('/grants', { name: 'hmi:custom-1' });
    expect(custom.status).toBe(201);
    expectApiError(await unchangedBy(() => wms.post('/grants', { name: 'hmi:custom-1' })), 409, 'already.exists');
    expectApiError(await unchangedBy(() => wms.put('/grants', { pKey: custom.body.pKey, name: 'locations:write' })), 409, 'already.exists');
  });

  it('refuses invalid bodies and unknown pKeys', async () => {
    expectApiError(await unchangedBy(() => wms.post('/grants', { name: '' })), 400, 'core.validation.error');
    expectApiError(await unchangedBy(() => wms.post('/grants', { name: 7 })), 400, 'core.validation.error');
    expectApiError(await unchangedBy(() => wms.put('/grants', { pKey: 'no-such-grant', name: 'x' })), 404, 'not.found');
    expectApiError(await unchangedBy(() => wms.del('/grants/no-such-grant')), 404, 'not.found');
  });

  it('deleting a custom grant removes it from the roles holding it', async () => {
    const grant = await wms.post('/grants', { name: 'hmi:temporary' });
    expect(grant.status).toBe(201);
    const role = await createRole({ name: 'TEMP_HOLDER', grants: ['hmi:temporary', 'locations:read'] });
    expect(grantNames(role.grants)).toEqual(['hmi:temporary', 'locations:read']);
    expect((await wms.del(`/grants/${grant.body.pKey}`)).status).toBe(204);
    expect(grantNames((await roleByPk(role.pKey)).grants)).toEqual(['locations:read']);
  });
});

// ---- authorisation ----------------------------------------------------------

describe('authorisation through roles and grants', () => {
  const LOCATION = {
    links: [],
    locationId: 'USRS/0001/0001/0000/0000',
    plcCode: 'USRS-PLC-1',
    erpCode: 'USRS-ERP-1',
    type: 'CONVEYOR',
    locationGroupName: 'WAREHOUSE',
  };
  const locationCount = () => wms.app.db.prepare('SELECT count(*) FROM locations').pluck().get() as number;
  let role: any;
  let user: any;
  let token: string;

  beforeAll(async () => {
    role = await createRole({ name: 'LOC_READER', grants: ['locations:read'] });
    user = await createUser({ username: 'reader', password: 'reader-password', roleNames: ['LOC_READER'] });
    token = await login('reader', 'reader-password');
  });

  it('a user holding only locations:read may read locations but not create one', async () => {
    expect((await wms.get('/v1/locations', { token })).status).toBe(200);
    const before = locationCount();
    const reply = await wms.post('/v1/locations', LOCATION, { token });
    expectServerError(reply, 403);
    expect(reply.body.message).toContain('locations:write');
    expect(locationCount()).toBe(before);
    expectServerError(await wms.get('/users', { token }), 403);
  });

  it('after the grant is taken from the role, the same token gets 403 at the next request', async () => {
    const reply = await wms.put('/roles', { pKey: role.pKey, name: 'LOC_READER', grants: [] });
    expect(reply.status, reply.text).toBe(200);
    expectServerError(await wms.get('/v1/locations', { token }), 403);
    const back = await wms.put('/roles', { pKey: role.pKey, name: 'LOC_READER', grants: ['locations:read'] });
    expect(back.status).toBe(200);
    expect((await wms.get('/v1/locations', { token })).status).toBe(200);
  });

  it('after the user is locked, its token gets 401 at the next request', async () => {
    const reply = await wms.put('/users', { pKey: user.pKey, username: 'reader', locked: true });
    expect(reply.status, reply.text).toBe(200);
    const refused = await wms.get('/v1/locations', { token });
    expectServerError(refused, 401);
    expect(refused.body.message).toMatch(/locked/);
  });

  it('a disabled user cannot log in', async () => {
    await createUser({ username: 'disabled-user', password: 'disabled-password', enabled: false, roleNames: ['LOC_READER'] });
    const reply = await expectLoginRefused('disabled-user', 'disabled-password');
    expect(reply.body.message).toBe('Bad credentials');
  });

  it('an expired user cannot log in', async () => {
    await createUser({
      username: 'expired-user',
      password: 'expired-password',
      expirationDate: '2020-01-01T00:00:00.000Z',
      roleNames: ['LOC_READER'],
    });
    const reply = await expectLoginRefused('expired-user', 'expired-password');
    expect(reply.body.message).toBe('Bad credentials');
  });
});

describe('a password change', () => {
  it('ends the tokens issued before it; a new login works', async () => {
    await createRole({ name: 'LOC_READER_2', grants: ['locations:read'] });
    const user = await createUser({ username: 'changer', password: 'changer-password-1', roleNames: ['LOC_READER_2'] });
    const old = await login('changer', 'changer-password-1');
    expect((await wms.get('/v1/locations', { token: old })).status).toBe(200);
    // iat has whole seconds: a token of the very second of the change still counts, so wait for the next one.
    await new Promise((resolve) => setTimeout(resolve, 1100 - (Date.now() % 1000)));
    const changed = await wms.post(`/users/${user.pKey}/password`, { password: 'changer-password-2' });
    expect(changed.status, changed.text).toBe(200);
    const refused = await wms.get('/v1/locations', { token: old });
    expectServerError(refused, 401);
    expect(refused.body.message).toMatch(/password was changed/);
    const fresh = await login('changer', 'changer-password-2');
    expect((await wms.get('/v1/locations', { token: fresh })).status).toBe(200);
  });
});

describe('account lockout after failed logins', () => {
  it('five failed logins in a row lock the account; an admin unlocks it', async () => {
    const user = await createUser({ username: 'fumbler', password: 'fumbler-password' });
    for (let i = 0; i < 5; i++) await expectLoginRefused('fumbler', `wrong-password-${i}`);
    const sixth = await expectLoginRefused('fumbler', 'fumbler-password');
    expect(sixth.body.message).toBe('Bad credentials');
    const locked = await userByPk(user.pKey);
    expect(locked.locked).toBe(true);

    const unlocked = await wms.put('/users', { pKey: user.pKey, ol: locked.ol, username: 'fumbler', locked: false });
    expect(unlocked.status, unlocked.text).toBe(200);
    expect(unlocked.body.locked).toBe(false);
    await login('fumbler', 'fumbler-password');
  });

  it('a successful login resets the count of failures', async () => {
    const user = await createUser({ username: 'recoverer', password: 'recoverer-password' });
    for (let i = 0; i < 4; i++) await expectLoginRefused('recoverer', `wrong-password-${i}`);
    await login('recoverer', 'recoverer-password');
    for (let i = 0; i < 4; i++) await expectLoginRefused('recoverer', `wrong-password-${i}`);
    expect((await userByPk(user.pKey)).locked).toBe(false);
    await login('recoverer', 'recoverer-password');
  });

  it('a change of other fields does not forget the failures; only unlocking does', async () => {
    const user = await createUser({ username: 'counted', password: 'counted-password' });
    for (let i = 0; i < 4; i++) await expectLoginRefused('counted', `wrong-password-${i}`);
    const changed = await wms.put('/users', { pKey: user.pKey, username: 'counted', fullname: 'Still Counted' });
    expect(changed.status, changed.text).toBe(200);
    await expectLoginRefused('counted', 'wrong-password-4');
    expect((await userByPk(user.pKey)).locked).toBe(true);
  });

  it('an unknown username locks nothing and gets the same 401 as a wrong password', async () => {
    const before = await allUsers();
    for (let i = 0; i < 6; i++) {
      const reply = await expectLoginRefused('nobody-by-this-name', 'whatever-password');
      expect(reply.body.message).toBe('Bad credentials');
    }
    expect(await allUsers()).toEqual(before);
  });
});

// ---- API keys ---------------------------------------------------------------

describe('API keys', () => {
  const KEY_FORMAT = /^wms_([0-9a-f]+)_([A-Za-z0-9_-]+)$/;
  let apiKey: any;
  let key: string;

  beforeAll(async () => {
    await createRole({ name: 'KEY_READER', grants: ['locations:read'] });
  });

  it('POST /api-keys answers 201 with the key, shown this once', async () => {
    const reply = await wms.post('/api-keys', { name: 'erp-gateway', roleName: 'KEY_READER' });
    expect(reply.status, reply.text).toBe(201);
    apiKey = reply.body;
    key = apiKey.key as string;
    expect(key).toMatch(KEY_FORMAT);
    expect(reply.headers.get('location')).toBe(`${wms.url}/api-keys/${apiKey.pKey}`);
    expect(apiKey).toMatchObject({ name: 'erp-gateway', roleName: 'KEY_READER', createdBy: 'admin', keyId: KEY_FORMAT.exec(key)![1] });
    expect(apiKey.revokedAt).toBeUndefined();
  });

  it('GET /api-keys and /api-keys/{pKey} never show the key or its hash', async () => {
    const secret = KEY_FORMAT.exec(key)![2]!;
    const hash = createHash('sha256').update(secret).digest('hex');
    const list = await wms.get('/api-keys');
    const one = await wms.get(`/api-keys/${apiKey.pKey}`);
    for (const reply of [list, one]) {
      expect(reply.status).toBe(200);
      expect(reply.text).not.toContain(secret);
      expect(reply.text).not.toContain(hash);
      expect(reply.text).not.toMatch(/"key"|secret|hash/i);
    }
    const { key: _shown, ...withoutKey } = apiKey;
    expect(one.body).toEqual(withoutKey);
    expect(list.body.map((k: any) => k.name)).toContain('erp-gateway');
  });

  it('the key works as a bearer token with exactly the grants of its role', async () => {
    const token = key;
    const read = await wms.get('/v1/locations', { token });
    expect(read.status, read.text).toBe(200);
    expectServerError(await wms.post('/v1/locations', { links: [] }, { token }), 403);
    expectServerError(await wms.get('/users', { token }), 403);
    expectServerError(await wms.get('/api-keys', { token }), 403);
  });

  it('a wrong secret or an unknown key id → 401', async () => {
    const [, keyId, secret] = KEY_FORMAT.exec(key)!;
    const wrongSecret = `wms_${keyId}_${secret!.slice(0, -2)}${secret!.endsWith('AA') ? 'BB' : 'AA'}`;
    expectServerError(await wms.get('/v1/locations', { token: wrongSecret }), 401);
    expectServerError(await wms.get('/v1/locations', { token: `wms_0000000000000000_${secret}` }), 401);
    expectServerError(await wms.get('/v1/locations', { token: 'wms_garbage' }), 401);
  });

  it('an unknown role → 404 not.found; a duplicate name → 409 already.exists; bad bodies → 400', async () => {
    expectApiError(await unchangedBy(() => wms.post('/api-keys', { name: 'no-role', roleName: 'NO_SUCH_ROLE' })), 404, 'not.found');
    expectApiError(await unchangedBy(() => wms.post('/api-keys', { name: 'erp-gateway', roleName: 'KEY_READER' })), 409, 'already.exists');
    expectApiError(await unchangedBy(() => wms.post('/api-keys', { name: 'no-role' })), 400, 'core.validation.error');
    expectApiError(
      await unchangedBy(() => wms.post('/api-keys', { name: 'bad-date', roleName: 'KEY_READER', expiresAt: 'tomorrow' })),
      400,
      'core.validation.error',
    );
    expectApiError(await wms.get('/api-keys/no-such-key'), 404, 'not.found');
    expectApiError(await unchangedBy(() => wms.del('/api-keys/no-such-key')), 404, 'not.found');
  });

  it('a key whose expiresAt has passed → 401; one expiring later works', async () => {
    const past = await wms.post('/api-keys', { name: 'expired-key', roleName: 'KEY_READER', expiresAt: '2020-01-01T00:00:00.000Z' });
    expect(past.status, past.text).toBe(201);
    expect(past.body.expiresAt).toBe('2020-01-01T00:00:00.000Z');
    const refused = await wms.get('/v1/locations', { token: past.body.key });
    expectServerError(refused, 401);
    expect(refused.body.message).toMatch(/expired/);

    const future = await wms.post('/api-keys', { name: 'future-key', roleName: 'KEY_READER', expiresAt: '2999-01-01T00:00:00.000Z' });
    expect(future.status).toBe(201);
    expect((await wms.get('/v1/locations', { token: future.body.key })).status).toBe(200);
  });

  it('DELETE revokes: 204, the key gets 401, the list shows revokedAt, a second DELETE → 409 apiKey.alreadyRevoked', async () => {
    expect((await wms.del(`/api-keys/${apiKey.pKey}`)).status).toBe(204);
    const refused = await wms.get('/v1/locations', { token: key });
    expectServerError(refused, 401);
    expect(refused.body.message).toMatch(/revoked/);
    const listed = (await allApiKeys()).find((k) => k.pKey === apiKey.pKey);
    expect(typeof listed.revokedAt).toBe('string');
    const again = await unchangedBy(() => wms.del(`/api-keys/${apiKey.pKey}`));
    expectApiError(again, 409, 'apiKey.alreadyRevoked');
  });

  it('a key follows its role: when the role loses the grant, the key loses it too', async () => {
    const created = await wms.post('/api-keys', { name: 'follower', roleName: 'KEY_READER' });
    expect(created.status).toBe(201);
    const token = created.body.key as string;
    expect((await wms.get('/v1/locations', { token })).status).toBe(200);
    const role = (await wms.get('/roles?name=KEY_READER')).body;
    expect((await wms.put('/roles', { pKey: role.pKey, name: 'KEY_READER', grants: [] })).status).toBe(200);
    expectServerError(await wms.get('/v1/locations', { token }), 403);
  });
});

// ---- no reply carries a password --------------------------------------------

describe('no reply carries a password or its hash', () => {
  it('walks every user-returning endpoint', async () => {
    const created = await wms.post('/users', {
      links: [],
      username: 'walker',
      password: 'walker-password',
      emailAddresses: [{ emailAddress: 'walker@example.com', primary: true }],
    });
    expectNoPassword(created, 'POST /users');
    const pKey = created.body.pKey as string;
    const role = await wms.post('/roles', { name: 'WALKERS', users: ['walker', 'admin'], grants: ['locations:read'] });
    expectNoPassword(role, 'POST /roles');

    const replies: [string, Reply][] = [
      ['GET /users', await wms.get('/users')],
      ['GET /users/{pKey}', await wms.get(`/users/${pKey}`)],
      ['GET /users/{pKey}/roles', await wms.get(`/users/${pKey}/roles`)],
      ['GET /users/{admin}/roles', await wms.get(`/users/${adminPk}/roles`)],
      ['GET /roles', await wms.get('/roles')],
      ['GET /roles/{pKey}', await wms.get(`/roles/${role.body.pKey}`)],
      ['GET /roles/{ADMIN}', await wms.get(`/roles/${adminRolePk}`)],
      ['GET /roles?name=', await wms.get('/roles?name=WALKERS')],
      ['PUT /users', await wms.put('/users', { pKey, username: 'walker', fullname: 'Walker' })],
      ['POST password', await wms.post(`/users/${pKey}/password`, { password: 'walker-password-2' })],
      ['POST image', await sendImage(pKey, tinyPng(10))],
      ['PATCH image', await sendImage(pKey, tinyPng(11), 'PATCH')],
      ['PUT /roles', await wms.put('/roles', { pKey: role.body.pKey, name: 'WALKERS', users: ['walker', 'admin'] })],
    ];
    for (const [what, reply] of replies) expectNoPassword(reply, what);
    // The walk did meet users that have a password: the replies above are not vacuous.
    expect(replies[1]![1].body.lastPasswordChange).toBeDefined();
    expect(replies[5]![1].body.users.map((u: any) => u.username)).toEqual(['admin', 'walker']);
  });

  it('the admin password itself appears in no reply', async () => {
    const replies = [await wms.get('/users'), await wms.get('/roles'), await wms.get(`/users/${adminPk}`)];
    for (const reply of replies) expect(reply.text).not.toContain(ADMIN_PASSWORD);
  });
});
