import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startOnBroughtOverDatabase, startTestAppliance, type TestAppliance } from './support/appliance.ts';

// Accounts of the common base module (docs/common-module.md): read-only over the
// API; a fresh box has the seeded default account `D` / `Default`.

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

async function allAccounts(): Promise<{ identifier: string; name: string; pKey: string }[]> {
  const reply = await wms.get('/v1/accounts');
  expect(reply.status).toBe(200);
  return reply.body;
}

async function defaultAccount() {
  const accounts = await allAccounts();
  const account = accounts.find((a) => a.identifier === 'D');
  expect(account).toBeDefined();
  return account!;
}

describe('GET /v1/accounts/index', () => {
  it('lists the link names of the spec', async () => {
    const reply = await wms.get('/v1/accounts/index');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    for (const name of ['accounts-findbypkey', 'accounts-findbyidentifier', 'accounts-findbyname', 'accounts-finddefault', 'accounts-findall']) {
      expect(links[name], name).toBeDefined();
      expect(links[name]!.href.startsWith(wms.url + '/v1/accounts')).toBe(true);
    }
  });

  it('is linked from the entry index as account-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['account-index'].href).toBe(`${wms.url}/v1/accounts/index`);
  });
});

describe('GET /v1/accounts', () => {
  it('answers all accounts, among them the seeded default account', async () => {
    const accounts = await allAccounts();
    expect(accounts.length).toBeGreaterThanOrEqual(1);
    const account = accounts.find((a) => a.identifier === 'D');
    expect(account).toMatchObject({ identifier: 'D', name: 'Default' });
    expect(typeof account!.pKey).toBe('string');
    expect(account!.pKey.length).toBeGreaterThan(0);
  });
});

describe('GET /v1/accounts/{pKey}', () => {
  it('answers the account with its pKey, identifier, name and a findbypkey link', async () => {
    const account = await defaultAccount();
    const reply = await wms.get(`/v1/accounts/${account.pKey}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ pKey: account.pKey, identifier: 'D', name: 'Default' });
    expect(reply.body.links).toContainEqual({ rel: 'accounts-findbypkey', href: `${wms.url}/v1/accounts/${account.pKey}` });
  });

  it('answers 404 svc.common.common.account.notFoundByPKey naming the unknown pKey', async () => {
    const reply = await wms.get('/v1/accounts/NO-SUCH-PKEY');
    expectApiError(reply, 404, 'svc.common.common.account.notFoundByPKey');
    expect(reply.body.obj).toEqual(['NO-SUCH-PKEY']);
  });
});

describe('GET /v1/accounts?identifier= and ?name=', () => {
  it('finds the default account by its identifier', async () => {
    const reply = await wms.get('/v1/accounts?identifier=D');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ identifier: 'D', name: 'Default' });
  });

  it('finds the default account by its name', async () => {
    const reply = await wms.get('/v1/accounts?name=Default');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ identifier: 'D', name: 'Default' });
  });

  it('answers 404 svc.common.common.account.notFound naming an unknown identifier', async () => {
    const reply = await wms.get('/v1/accounts?identifier=NOPE');
    expectApiError(reply, 404, 'svc.common.common.account.notFound');
    expect(reply.body.obj).toEqual(['NOPE']);
  });

  it('answers 404 svc.common.common.account.notFound naming an unknown name', async () => {
    const reply = await wms.get(`/v1/accounts?name=${encodeURIComponent('No such account')}`);
    expectApiError(reply, 404, 'svc.common.common.account.notFound');
    expect(reply.body.obj).toEqual(['No such account']);
  });

  it('matches identifier and name exactly (no case folding, no wildcard)', async () => {
    expectApiError(await wms.get('/v1/accounts?identifier=d'), 404, 'svc.common.common.account.notFound');
    expectApiError(await wms.get('/v1/accounts?name=Def%25'), 404, 'svc.common.common.account.notFound');
  });
});

describe('GET /v1/accounts?default=true', () => {
  it('answers the default account', async () => {
    const reply = await wms.get('/v1/accounts?default=true');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ identifier: 'D', name: 'Default' });
  });

  it('answers 400 core.validation.error for default=false and changes nothing', async () => {
    const before = await allAccounts();
    const reply = await wms.get('/v1/accounts?default=false');
    expectApiError(reply, 400, 'core.validation.error');
    expect(await allAccounts()).toEqual(before);
  });
});

describe('accounts are read-only over the API', () => {
  it('refuses to create an account and the list stays the same', async () => {
    const before = await allAccounts();
    const reply = await wms.post('/v1/accounts', { identifier: 'X', name: 'Extra' });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expect(await allAccounts()).toEqual(before);
  });
});

describe('upper-case message keys (api.messageKeys = upper-case)', () => {
  let old: TestAppliance;
  beforeAll(async () => {
    old = await startTestAppliance({ api: { messageKeys: 'upper-case' } });
  });
  afterAll(() => old.close());

  it('names an unknown identifier with COMMON.ACCOUNT_NOT_FOUND', async () => {
    const reply = await old.get('/v1/accounts?identifier=NOPE');
    expectApiError(reply, 404, 'COMMON.ACCOUNT_NOT_FOUND');
    expect(reply.body.obj).toEqual(['NOPE']);
  });

  it('names an unknown name with COMMON.ACCOUNT_NOT_FOUND', async () => {
    const reply = await old.get('/v1/accounts?name=Nobody');
    expectApiError(reply, 404, 'COMMON.ACCOUNT_NOT_FOUND');
    expect(reply.body.obj).toEqual(['Nobody']);
  });

  it('still answers the default account', async () => {
    const reply = await old.get('/v1/accounts?default=true');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ identifier: 'D', name: 'Default' });
  });
});

// Accounts are not changed over the API; a database brought over from another system
// may still lack a default one. Every lookup that needs it then says so.
describe('a database without a default account', () => {
  for (const [family, key] of [
    ['dotted', 'svc.common.common.account.noDefaultAccount'],
    ['upper-case', 'COMMON.ACCOUNT_NO_DEFAULT'],
  ] as const) {
    it(`answers ?default=true and a location create that names no account with 404 ${key}`, async () => {
      const box = await startOnBroughtOverDatabase('UPDATE accounts SET is_default = 0', { api: { messageKeys: family } });
      try {
        const lookup = await box.get('/v1/accounts?default=true');
        expectApiError(lookup, 404, key);
        expect(lookup.body.obj).toBeUndefined();

        const before = (await box.get('/v1/locations')).body;
        const create = await box.post('/v1/locations', { locationId: 'NDEF/0001/0001/0001/0001', locationGroupName: 'WAREHOUSE' });
        expectApiError(create, 404, key);
        expect((await box.get('/v1/locations')).body).toEqual(before);
      } finally {
        await box.close();
      }
    });
  }
});
