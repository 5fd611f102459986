import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { allApiKeys, createRole, indexLinks, unchangedBy } from './support/users.ts';

// API keys (docs/users.md): a key acts in a role, is shown once, works as a bearer
// token with the role's grants as they are at each request, expires and is revoked.
// No reply shows a key or its hash.

let wms: TestAppliance;

beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

describe('indexes', () => {
  it('GET /api-keys/index links the API key operations', async () => {
    const links = await indexLinks(wms, '/api-keys/index');
    expect(Object.keys(links).sort()).toEqual(['api-keys-findbypkey', 'api-keys-findall', 'api-keys-create', 'api-keys-revoke'].sort());
    expect(links['api-keys-revoke']!.href).toBe(`${wms.url}/api-keys/{pKey}`);
  });
});

describe('API keys', () => {
  const KEY_FORMAT = /^wms_([0-9a-f]+)_([A-Za-z0-9_-]+)$/;
  let apiKey: any;
  let key: string;

  beforeAll(async () => {
    await createRole(wms, { name: 'KEY_READER', grants: ['locations:read'] });
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
    expectApiError(await unchangedBy(wms, () => wms.post('/api-keys', { name: 'no-role', roleName: 'NO_SUCH_ROLE' })), 404, 'not.found');
    expectApiError(await unchangedBy(wms, () => wms.post('/api-keys', { name: 'erp-gateway', roleName: 'KEY_READER' })), 409, 'already.exists');
    expectApiError(await unchangedBy(wms, () => wms.post('/api-keys', { name: 'no-role' })), 400, 'core.validation.error');
    expectApiError(
      await unchangedBy(wms, () => wms.post('/api-keys', { name: 'bad-date', roleName: 'KEY_READER', expiresAt: 'tomorrow' })),
      400,
      'core.validation.error',
    );
    expectApiError(await wms.get('/api-keys/no-such-key'), 404, 'not.found');
    expectApiError(await unchangedBy(wms, () => wms.del('/api-keys/no-such-key')), 404, 'not.found');
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
    const listed = (await allApiKeys(wms)).find((k) => k.pKey === apiKey.pKey);
    expect(typeof listed.revokedAt).toBe('string');
    const again = await unchangedBy(wms, () => wms.del(`/api-keys/${apiKey.pKey}`));
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
