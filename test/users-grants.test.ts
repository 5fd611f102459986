import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { allGrants, createRole, grantNames, GRANT_CLASS, indexLinks, roleByPk, unchangedBy } from './support/users.ts';

// Grants of the user administration (docs/users.md): the appliance's own grants, one
// per route's resource and action, which keep their names; custom grants for HMI pages
// and other systems, which come and go and leave the roles holding them.

let wms: TestAppliance;

beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

describe('indexes', () => {
  it('GET /grants/index links the grant operations', async () => {
    const links = await indexLinks(wms, '/grants/index');
    expect(Object.keys(links).sort()).toEqual(
      ['grants-findbypkey', 'grants-findbyname', 'grants-findall', 'grants-create', 'grants-save', 'grants-delete'].sort(),
    );
    expect(links['grants-findbyname']!.href).toBe(`${wms.url}/grants?name={name}`);
  });
});

describe('grants', () => {
  it('GET /grants lists the grants the routes need, as SecurityObjectVO', async () => {
    const grants = await allGrants(wms);
    expect(grantNames(grants)).toEqual(
      expect.arrayContaining(['locations:read', 'locations:write', 'users:read', 'users:write', 'roles:write', 'api-keys:write']),
    );
    for (const grant of grants) expect(grant['@class']).toBe(GRANT_CLASS);
    const one = grants.find((g) => g.name === 'locations:read');
    expect((await wms.get(`/grants/${one.pKey}`)).body).toEqual(one);
    expect((await wms.get('/grants?name=locations%3Aread')).body).toEqual(one);
  });

  it('a route grant cannot be renamed or deleted (403 grant.immutable), but its description may change', async () => {
    const grant = (await allGrants(wms)).find((g) => g.name === 'locations:read');
    expectApiError(await unchangedBy(wms, () => wms.put('/grants', { pKey: grant.pKey, name: 'locations:peek' })), 403, 'grant.immutable');
    expectApiError(await unchangedBy(wms, () => wms.del(`/grants/${grant.pKey}`)), 403, 'grant.immutable');
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

    expectApiError(await unchangedBy(wms, () => wms.put('/grants', { pKey: created.body.pKey, ol: 0, name: 'hmi:stale' })), 409, 'core.optimistic.lock');

    expect((await wms.del(`/grants/${created.body.pKey}`)).status).toBe(204);
    expectApiError(await wms.get(`/grants/${created.body.pKey}`), 404, 'not.found');
  });

  it('refuses a duplicate name with 409 already.exists (create and rename)', async () => {
    expectApiError(await unchangedBy(wms, () => wms.post('/grants', { name: 'locations:read' })), 409, 'already.exists');
    const custom = await wms.post('/grants', { name: 'hmi:custom-1' });
    expect(custom.status).toBe(201);
    expectApiError(await unchangedBy(wms, () => wms.post('/grants', { name: 'hmi:custom-1' })), 409, 'already.exists');
    expectApiError(await unchangedBy(wms, () => wms.put('/grants', { pKey: custom.body.pKey, name: 'locations:write' })), 409, 'already.exists');
  });

  it('refuses invalid bodies and unknown pKeys', async () => {
    expectApiError(await unchangedBy(wms, () => wms.post('/grants', { name: '' })), 400, 'core.validation.error');
    expectApiError(await unchangedBy(wms, () => wms.post('/grants', { name: 7 })), 400, 'core.validation.error');
    expectApiError(await unchangedBy(wms, () => wms.put('/grants', { pKey: 'no-such-grant', name: 'x' })), 404, 'not.found');
    expectApiError(await unchangedBy(wms, () => wms.del('/grants/no-such-grant')), 404, 'not.found');
  });

  it('deleting a custom grant removes it from the roles holding it', async () => {
    const grant = await wms.post('/grants', { name: 'hmi:temporary' });
    expect(grant.status).toBe(201);
    const role = await createRole(wms, { name: 'TEMP_HOLDER', grants: ['hmi:temporary', 'locations:read'] });
    expect(grantNames(role.grants)).toEqual(['hmi:temporary', 'locations:read']);
    expect((await wms.del(`/grants/${grant.body.pKey}`)).status).toBe(204);
    expect(grantNames((await roleByPk(wms, role.pKey)).grants)).toEqual(['locations:read']);
  });
});
