import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { allRoles, allUsers, createRole, createUser, grantNames, GRANT_CLASS, indexLinks, roleByPk, ROLE_CLASS, unchangedBy } from './support/users.ts';

// Roles of the user administration (docs/users.md): a role holds grants and has users;
// the seeded ADMIN role and roles created immutable cannot change, and a role an
// active API key acts in cannot go. Every refusal leaves users, roles, grants and API
// keys as they were.

let wms: TestAppliance;
let adminRolePk: string;

beforeAll(async () => {
  wms = await startTestAppliance();
  adminRolePk = (await wms.get('/roles?name=ADMIN')).body.pKey as string;
});
afterAll(() => wms.close());

describe('indexes', () => {
  it('GET /roles/index links the role operations', async () => {
    const links = await indexLinks(wms, '/roles/index');
    expect(Object.keys(links).sort()).toEqual(['roles-findbypkey', 'roles-findbyname', 'roles-findall', 'roles-create', 'roles-save', 'roles-delete'].sort());
    expect(links['roles-findbyname']!.href).toBe(`${wms.url}/roles?name={name}`);
    expect(links['roles-findbypkey']!.href).toBe(`${wms.url}/roles/{pKey}`);
  });
});

describe('roles', () => {
  let role: any;

  it('POST /roles creates a role with grants and users: 201, Location, users as User objects', async () => {
    await createUser(wms, { username: 'picker-1' });
    await createUser(wms, { username: 'picker-2' });
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
    expect(await roleByPk(wms, role.pKey)).toEqual(role);
    const byName = await wms.get('/roles?name=PICKERS');
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual(role);
    const all = await allRoles(wms);
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
    const picker1 = (await allUsers(wms)).find((u) => u.username === 'picker-1');
    expect(picker1.roleNames).toEqual([]);
    role = reply.body;
  });

  it('refuses a stale ol with 409 core.optimistic.lock and changes nothing', async () => {
    const reply = await unchangedBy(wms, () => wms.put('/roles', { pKey: role.pKey, ol: role.ol - 1, name: 'PICKERS', grants: [] }));
    expectApiError(reply, 409, 'core.optimistic.lock');
  });

  it('the seeded ADMIN role is immutable: PUT and DELETE → 403 role.immutable', async () => {
    expectApiError(
      await unchangedBy(wms, () => wms.put('/roles', { pKey: adminRolePk, name: 'ADMIN', description: 'changed', grants: [] })),
      403,
      'role.immutable',
    );
    expectApiError(await unchangedBy(wms, () => wms.del(`/roles/${adminRolePk}`)), 403, 'role.immutable');
  });

  it('a role created immutable cannot be changed or deleted either', async () => {
    const fixed = await createRole(wms, { name: 'FIXED', immutable: true, grants: ['locations:read'] });
    expect(fixed.immutable).toBe(true);
    expectApiError(await unchangedBy(wms, () => wms.put('/roles', { pKey: fixed.pKey, name: 'FIXED', immutable: false })), 403, 'role.immutable');
    expectApiError(await unchangedBy(wms, () => wms.del(`/roles/${fixed.pKey}`)), 403, 'role.immutable');
  });

  it('refuses a duplicate name with 409 already.exists (create and rename)', async () => {
    expectApiError(await unchangedBy(wms, () => wms.post('/roles', { name: 'PICKERS' })), 409, 'already.exists');
    expectApiError(await unchangedBy(wms, () => wms.put('/roles', { pKey: role.pKey, name: 'FIXED' })), 409, 'already.exists');
  });

  it('refuses an unknown grant or user with 404 not.found (create and update)', async () => {
    expectApiError(await unchangedBy(wms, () => wms.post('/roles', { name: 'GHOSTLY', grants: ['no:such:grant'] })), 404, 'not.found');
    expectApiError(await unchangedBy(wms, () => wms.post('/roles', { name: 'GHOSTLY', users: ['no-such-user'] })), 404, 'not.found');
    expectApiError(
      await unchangedBy(wms, () => wms.put('/roles', { pKey: role.pKey, name: 'PICKERS', grants: ['locations:read', 'no:such:grant'] })),
      404,
      'not.found',
    );
    expectApiError(
      await unchangedBy(wms, () => wms.put('/roles', { pKey: role.pKey, name: 'PICKERS', users: ['picker-1', 'no-such-user'] })),
      404,
      'not.found',
    );
  });

  it('refuses invalid bodies with 400 core.validation.error', async () => {
    for (const body of [{}, { name: '' }, { name: 'X', grants: 'locations:read' }, { name: 'X', immutable: 'no' }]) {
      expectApiError(await unchangedBy(wms, () => wms.post('/roles', body)), 400, 'core.validation.error');
    }
  });

  it('an unknown pKey → 404 not.found on GET, PUT and DELETE', async () => {
    expectApiError(await wms.get('/roles/no-such-role'), 404, 'not.found');
    expectApiError(await unchangedBy(wms, () => wms.put('/roles', { pKey: 'no-such-role', name: 'NOPE' })), 404, 'not.found');
    expectApiError(await unchangedBy(wms, () => wms.del('/roles/no-such-role')), 404, 'not.found');
  });

  it('DELETE removes the role: 204, then 404; its members lose it', async () => {
    expect((await wms.del(`/roles/${role.pKey}`)).status).toBe(204);
    expectApiError(await wms.get(`/roles/${role.pKey}`), 404, 'not.found');
    const picker2 = (await allUsers(wms)).find((u) => u.username === 'picker-2');
    expect(picker2.roleNames).toEqual([]);
  });

  it('refuses to delete a role an active API key acts in with 409 role.inUse', async () => {
    const scoped = await createRole(wms, { name: 'KEY_SCOPE', grants: ['locations:read'] });
    const key = await wms.post('/api-keys', { name: 'scope-holder', roleName: 'KEY_SCOPE' });
    expect(key.status, key.text).toBe(201);
    const reply = await unchangedBy(wms, () => wms.del(`/roles/${scoped.pKey}`));
    expectApiError(reply, 409, 'role.inUse');
    expect(reply.body.obj).toEqual(['KEY_SCOPE']);
  });

  it('deletes a role whose keys are all revoked; the revoked keys stay listed with the role name', async () => {
    const scoped = await createRole(wms, { name: 'REVOKED_SCOPE', grants: ['locations:read'] });
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
