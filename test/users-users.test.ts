import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, expectApiError, expectServerError, loginReply, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';
import {
  allUsers,
  createRole,
  createUser,
  expectLoginRefused,
  grantNames,
  GRANT_CLASS,
  indexLinks,
  login,
  ROLE_CLASS,
  sendImage,
  tinyPng,
  unchangedBy,
  userByPk,
} from './support/users.ts';

// Users of the user administration (docs/users.md): creating, reading, changing and
// deleting them, their passwords, the refusals that change nothing, the rule that the
// appliance keeps an administrator, and that no reply carries a password or its hash.
// Black-box over real HTTP against the real appliance. Roles, grants, API keys, logins
// and a user's image have files of their own (test/users-*.test.ts).

const USER_KEYS = ['pKey', 'ol', 'createDt', 'lastModifiedDt', 'links', 'username', 'externalUser', 'locked', 'enabled'];

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

function expectNoPassword(reply: Reply, what: string): void {
  expect(reply.status, `${what}: ${reply.text}`).toBeLessThan(300);
  expect(reply.text, what).not.toContain('scrypt$');
  expect(reply.text, what).not.toContain('"password"');
  expect(reply.text, what).not.toMatch(/passwordHash|password_hash/);
}

// ---- indexes ----------------------------------------------------------------

describe('indexes', () => {
  it('GET /users/index links every user operation of the spec and ours', async () => {
    const links = await indexLinks(wms, '/users/index');
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
    expect(await userByPk(wms, user.pKey)).toEqual(user);
  });

  it('lets a user created with a password log in', async () => {
    const user = await createUser(wms, { username: 'bob', password: 'bob-password-1' });
    expect(typeof user.lastPasswordChange).toBe('string');
    const reply = await loginReply(wms, 'bob', 'bob-password-1');
    expect(reply.status, reply.text).toBe(200);
    expect(typeof reply.body.access_token).toBe('string');
    await expectLoginRefused(wms, 'bob', 'not-bobs-password');
  });
});

describe('GET /users, /users/{pKey}, /users/{pKey}/roles, /users/{pKey}/grants', () => {
  let user: any;
  beforeAll(async () => {
    await createRole(wms, { name: 'EFFECTIVE_A', grants: ['locations:read', 'accounts:read'] });
    await createRole(wms, { name: 'EFFECTIVE_B', grants: ['locations:read', 'locations:write'] });
    user = await createUser(wms, { username: 'carol', roleNames: ['EFFECTIVE_A', 'EFFECTIVE_B'] });
  });

  it('lists all users as an array', async () => {
    const users = await allUsers(wms);
    expect(Array.isArray(users)).toBe(true);
    expect(users.map((u) => u.username)).toEqual(expect.arrayContaining(['admin', 'alice', 'bob', 'carol']));
  });

  it('reads one user by pKey', async () => {
    const read = await userByPk(wms, user.pKey);
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
    const alice = (await allUsers(wms)).find((u) => u.username === 'alice');
    expect((await wms.get(`/users/${alice.pKey}/roles`)).body).toEqual([]);
    expect((await wms.get(`/users/${alice.pKey}/grants`)).body).toEqual([]);
  });
});

describe('PUT /users', () => {
  it('changes the fields sent, keeps the others and increments ol', async () => {
    const user = await createUser(wms, {
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
    expect(await userByPk(wms, user.pKey)).toEqual(reply.body);
  });

  it('refuses a stale ol with 409 core.optimistic.lock and changes nothing', async () => {
    const user = await createUser(wms, { username: 'erin' });
    const first = await wms.put('/users', { pKey: user.pKey, ol: user.ol, username: 'erin', fullname: 'Erin' });
    expect(first.status).toBe(200);
    const reply = await unchangedBy(wms, () => wms.put('/users', { pKey: user.pKey, ol: user.ol, username: 'erin', fullname: 'Stale' }));
    expectApiError(reply, 409, 'core.optimistic.lock');
    expect((await userByPk(wms, user.pKey)).fullname).toBe('Erin');
  });
});

describe('POST /users/{pKey}/password', () => {
  it('sets the password and lastPasswordChange; the new one works, the old one not', async () => {
    const user = await createUser(wms, { username: 'frank', password: 'frank-old-pass' });
    const before = user.lastPasswordChange as string;
    const reply = await wms.post(`/users/${user.pKey}/password`, { password: 'frank-new-pass' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.pKey).toBe(user.pKey);
    expect(typeof reply.body.lastPasswordChange).toBe('string');
    expect(Date.parse(reply.body.lastPasswordChange)).toBeGreaterThan(Date.parse(before));
    await login(wms, 'frank', 'frank-new-pass');
    await expectLoginRefused(wms, 'frank', 'frank-old-pass');
  });

  it('sets a first password on a user created without one', async () => {
    const user = await createUser(wms, { username: 'gina' });
    await expectLoginRefused(wms, 'gina', 'gina-password');
    const reply = await wms.post(`/users/${user.pKey}/password`, { password: 'gina-password' });
    expect(reply.status).toBe(200);
    expect(typeof reply.body.lastPasswordChange).toBe('string');
    await login(wms, 'gina', 'gina-password');
  });

  it('refuses a password shorter than 8 characters with 400 and changes nothing', async () => {
    const user = await createUser(wms, { username: 'hank', password: 'hank-password' });
    const reply = await unchangedBy(wms, () => wms.post(`/users/${user.pKey}/password`, { password: 'short' }));
    expectApiError(reply, 400, 'core.validation.error');
    await login(wms, 'hank', 'hank-password');
  });
});

describe('DELETE /users/{pKey}', () => {
  it('deletes a user: 204, then 404 not.found; its login stops working', async () => {
    const user = await createUser(wms, { username: 'jack', password: 'jack-password' });
    const token = await login(wms, 'jack', 'jack-password');
    expect((await wms.del(`/users/${user.pKey}`)).status).toBe(204);
    expectApiError(await wms.get(`/users/${user.pKey}`), 404, 'not.found');
    expect((await allUsers(wms)).some((u) => u.username === 'jack')).toBe(false);
    await expectLoginRefused(wms, 'jack', 'jack-password');
    expectServerError(await wms.get('/v1/locations', { token }), 401);
  });
});

describe('user errors change nothing', () => {
  it('duplicate username on create → 409 user.already.exists naming it', async () => {
    const reply = await unchangedBy(wms, () => wms.post('/users', { links: [], username: 'alice' }));
    expectApiError(reply, 409, 'user.already.exists');
    expect(reply.body.obj).toEqual(['alice']);
  });

  it('renaming onto an existing username → 409 user.already.exists', async () => {
    const bob = (await allUsers(wms)).find((u) => u.username === 'bob');
    const reply = await unchangedBy(wms, () => wms.put('/users', { pKey: bob.pKey, username: 'alice' }));
    expectApiError(reply, 409, 'user.already.exists');
    expect(reply.body.obj).toEqual(['alice']);
  });

  it('two primary e-mail addresses → 400 user.email.multiplePrimary (create and update)', async () => {
    const emails = [
      { emailAddress: 'one@example.com', primary: true },
      { emailAddress: 'two@example.com', primary: true },
    ];
    expectApiError(
      await unchangedBy(wms, () => wms.post('/users', { links: [], username: 'two-primaries', emailAddresses: emails })),
      400,
      'user.email.multiplePrimary',
    );
    const alice = (await allUsers(wms)).find((u) => u.username === 'alice');
    expectApiError(
      await unchangedBy(wms, () => wms.put('/users', { pKey: alice.pKey, username: 'alice', emailAddresses: emails })),
      400,
      'user.email.multiplePrimary',
    );
  });

  it('the same address twice → 400', async () => {
    const emails = [
      { emailAddress: 'same@example.com', primary: true },
      { emailAddress: 'SAME@example.com', primary: false },
    ];
    expectApiError(
      await unchangedBy(wms, () => wms.post('/users', { links: [], username: 'same-twice', emailAddresses: emails })),
      400,
      'core.validation.error',
    );
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
    const reply = await unchangedBy(wms, () => wms.post('/users', { links: [], ...body }));
    expectApiError(reply, 400, 'core.validation.error');
  });

  it('invalid fields on update → 400 core.validation.error', async () => {
    const alice = (await allUsers(wms)).find((u) => u.username === 'alice');
    for (const body of [{ pKey: alice.pKey, username: 'has space' }, { pKey: alice.pKey, username: 'alice', locked: 1 }, { username: 'alice' }]) {
      expectApiError(await unchangedBy(wms, () => wms.put('/users', body)), 400, 'core.validation.error');
    }
  });

  it('unknown roleNames → 404 not.found (create and update)', async () => {
    expectApiError(await unchangedBy(wms, () => wms.post('/users', { links: [], username: 'roleless', roleNames: ['NO_SUCH_ROLE'] })), 404, 'not.found');
    const alice = (await allUsers(wms)).find((u) => u.username === 'alice');
    expectApiError(
      await unchangedBy(wms, () => wms.put('/users', { pKey: alice.pKey, username: 'alice', roleNames: ['EFFECTIVE_A', 'NO_SUCH_ROLE'] })),
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
      ['POST image', () => sendImage(wms, pKey, tinyPng())],
      ['PATCH image', () => sendImage(wms, pKey, tinyPng(), 'PATCH')],
      ['GET image', () => wms.get(`/users/${pKey}/details/image`)],
      ['DELETE image', () => wms.del(`/users/${pKey}/details/image`)],
      ['DELETE user', () => wms.del(`/users/${pKey}`)],
    ];
    for (const [what, attempt] of attempts) {
      const reply = await unchangedBy(wms, attempt);
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
    const reply = await unchangedBy(wms, () => wms.del(`/users/${adminPk}`));
    expectApiError(reply, 409, 'user.lastAdministrator');
  });

  it('refuses to lock it', async () => {
    const reply = await unchangedBy(wms, () => wms.put('/users', { pKey: adminPk, username: 'admin', locked: true }));
    expectApiError(reply, 409, 'user.lastAdministrator');
  });

  it('refuses to disable it', async () => {
    const reply = await unchangedBy(wms, () => wms.put('/users', { pKey: adminPk, username: 'admin', enabled: false }));
    expectApiError(reply, 409, 'user.lastAdministrator');
  });

  it('refuses to take ADMIN from its roleNames', async () => {
    const reply = await unchangedBy(wms, () => wms.put('/users', { pKey: adminPk, username: 'admin', roleNames: ['EFFECTIVE_A'] }));
    expectApiError(reply, 409, 'user.lastAdministrator');
    expect((await userByPk(wms, adminPk)).roleNames).toEqual(['ADMIN']);
  });

  it('a locked or disabled second admin does not count', async () => {
    await createUser(wms, { username: 'locked-admin', roleNames: ['ADMIN'], locked: true });
    await createUser(wms, { username: 'disabled-admin', roleNames: ['ADMIN'], enabled: false });
    expectApiError(await unchangedBy(wms, () => wms.put('/users', { pKey: adminPk, username: 'admin', locked: true })), 409, 'user.lastAdministrator');
  });

  it('once a second active admin exists, locking the first works', async () => {
    await createUser(wms, { username: 'second-admin', roleNames: ['ADMIN'], password: 'second-admin-pw' });
    const second = await login(wms, 'second-admin', 'second-admin-pw');
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
      ['POST image', await sendImage(wms, pKey, tinyPng(10))],
      ['PATCH image', await sendImage(wms, pKey, tinyPng(11), 'PATCH')],
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
