import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantCatalogue } from '../src/auth/grants.ts';
import { newPKey } from '../src/core/ids.ts';
import { namesGrant, type Route } from '../src/http/router.ts';
import { ADMIN_PASSWORD, expectApiError, expectServerError, loginReply, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';
import { roleWith, userWith } from './support/users.ts';

// Authentication (the token endpoint, bearer tokens) and authorisation (grants held
// through roles), over real HTTP against the real appliance.

const ISSUER = 'wms-appliance';
const MODULE_LINKS = ['account-index', 'location-index', 'location-group-index', 'transport-unit-type-index', 'transport-unit-index'];

let wms: TestAppliance;
let adminPk: string;
let kid: string;
let applianceKey: CryptoKey;

beforeAll(async () => {
  wms = await startTestAppliance();
  adminPk = wms.app.db.prepare("SELECT pk FROM users WHERE username = 'admin'").pluck().get() as string;
  const row = wms.app.db.prepare('SELECT kid, private_jwk FROM signing_keys').get() as { kid: string; private_jwk: string };
  kid = row.kid;
  applianceKey = (await importJWK(JSON.parse(row.private_jwk) as JWK, 'EdDSA')) as CryptoKey;
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface Claims {
  sub?: string;
  username?: string;
  iss?: string;
  exp?: number;
  iat?: number;
}

/** A token signed with the given key (the appliance's own unless told otherwise). */
async function sign(claims: Claims = {}, key: CryptoKey = applianceKey): Promise<string> {
  const jwt = new SignJWT({ username: claims.username ?? 'admin', kind: 'user' })
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
    .setIssuer(claims.iss ?? ISSUER)
    .setSubject(claims.sub ?? adminPk)
    .setIssuedAt(claims.iat ?? nowSeconds());
  if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
  return jwt.sign(key);
}

function tokenRequest(fields: Record<string, string>, as: 'form' | 'json'): Promise<Reply> {
  return as === 'form'
    ? wms.request('POST', '/oauth/token', {
        anonymous: true,
        raw: new URLSearchParams(fields).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      })
    : wms.post('/oauth/token', fields, { anonymous: true });
}

async function login(username: string, password: string): Promise<string> {
  const reply = await tokenRequest({ grant_type: 'password', username, password }, 'form');
  expect(reply.status, reply.text).toBe(200);
  return reply.body.access_token as string;
}

const failedLogins = (username: string) => wms.app.db.prepare('SELECT failed_logins FROM users WHERE username = ?').pluck().get(username) as number;

/** Row counts of every table, to prove a refused call wrote nothing. */
function tableCounts(): Record<string, number> {
  const tables = wms.app.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  return Object.fromEntries(tables.map((t) => [t, wms.app.db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]));
}

/** A concrete request path for a route: parameters filled in, required query parameters present. */
function concretePath(route: Route): string {
  const path = route.path.replace(/\{[A-Za-z0-9]+\}/g, 'SOMEKEY');
  const query = (route.query ?? []).map((q) => (q.includes('=') ? q : `${q}=X`)).join('&');
  return query ? `${path}?${query}` : path;
}

const protectedRoutes = () => wms.app.routes.filter((r) => r.grant !== 'public');

const groupCount = () => wms.app.db.prepare('SELECT count(*) FROM location_groups').pluck().get() as number;

/** A GET through node:http with a Host header of the test's choosing. */
function getWithHost(path: string, host: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(wms.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path, headers: { Host: host } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Replaces the character at `index` of a base64url text with a different one. */
function flipAt(text: string, index: number): string {
  const c = text[index]!;
  return text.slice(0, index) + (c === 'A' ? 'B' : 'A') + text.slice(index + 1);
}

// ---- tests ------------------------------------------------------------------

describe('GET /index', () => {
  it('needs no token and links every module index with absolute hrefs', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/hal+json');
    for (const name of MODULE_LINKS) {
      expect(reply.body._links[name].href).toMatch(new RegExp(`^${wms.url}/v1/`));
    }
    expect(reply.body._links['location-index'].href).toBe(`${wms.url}/v1/locations/index`);
  });

  it('builds the hrefs from the Host header the client used', async () => {
    const reply = await getWithHost('/index', 'wms.example:9000');
    expect(reply.status).toBe(200);
    expect(reply.body._links['location-group-index'].href).toBe('http://wms.example:9000/v1/location-groups/index');
    const v6 = await getWithHost('/index', '[::1]:8080');
    expect(v6.body._links['account-index'].href).toBe('http://[::1]:8080/v1/accounts/index');
  });

  it('does not copy a Host header that is not a host name into links', async () => {
    const reply = await getWithHost('/index', 'evil_host"><x');
    expect(reply.status).toBe(200);
    expect(reply.body._links['location-index'].href).toBe('http://localhost/v1/locations/index');
  });

  it('still answers with a token', async () => {
    expect((await wms.get('/index')).status).toBe(200);
  });

  describe('with server.publicUrl set', () => {
    let proxied: TestAppliance;
    beforeAll(async () => {
      proxied = await startTestAppliance({ server: { publicUrl: 'https://wms.example.com/api/' } });
    });
    afterAll(() => proxied.close());

    it('builds the hrefs from the public URL', async () => {
      const reply = await proxied.get('/index', { anonymous: true });
      expect(reply.body._links['location-index'].href).toBe('https://wms.example.com/api/v1/locations/index');
    });
  });
});

describe('POST /oauth/token', () => {
  it.each(['form', 'json'] as const)('answers a %s password grant with a bearer token', async (as) => {
    const reply = await tokenRequest({ grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }, as);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(reply.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(reply.body.token_type).toBe('Bearer');
    expect(reply.body.expires_in).toBe(3600);
    expect(reply.body.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const works = await wms.get('/v1/locations', { token: reply.body.access_token });
    expect(works.status).toBe(200);
  });

  it('issues an EdDSA JWT naming the user, the issuer and an expiry', async () => {
    const token = await login('admin', ADMIN_PASSWORD);
    const header = decodeProtectedHeader(token);
    expect(header.alg).toBe('EdDSA');
    expect(header.kid).toBe(kid);
    const claims = decodeJwt(token);
    expect(claims.iss).toBe(ISSUER);
    expect(claims.sub).toBe(adminPk);
    expect(claims.username).toBe('admin');
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('accepts a form body whose content type carries a charset', async () => {
    const reply = await wms.request('POST', '/oauth/token', {
      anonymous: true,
      raw: new URLSearchParams({ grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.token_type).toBe('Bearer');
  });

  it('never returns the password hash', async () => {
    const hash = wms.app.db.prepare("SELECT password_hash FROM users WHERE username = 'admin'").pluck().get() as string;
    const reply = await tokenRequest({ grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }, 'json');
    expect(reply.status).toBe(200);
    expect(reply.text).not.toContain('scrypt');
    expect(reply.text).not.toContain(hash.split('$').pop()!);
    expect(reply.text).not.toMatch(/password/i);
  });

  it('refuses a wrong password with 401 and counts the failure', async () => {
    // From an address admin never signed in from: the account counts it (login-defence.test.ts has the rest).
    const before = failedLogins('admin');
    const reply = await loginReply(wms, 'admin', 'not-the-password', '127.0.0.2');
    expectServerError(reply, 401);
    expect(reply.body.message).toBe('Bad credentials');
    expect(failedLogins('admin')).toBe(before + 1);
    expect((await loginReply(wms, 'admin', ADMIN_PASSWORD, '127.0.0.2')).status).toBe(200);
    expect(failedLogins('admin')).toBe(0);
  });

  it('refuses an unknown user with the same 401 as a wrong password', async () => {
    const reply = await tokenRequest({ grant_type: 'password', username: 'nobody-here', password: 'whatever-1' }, 'json');
    expectServerError(reply, 401);
    expect(reply.body.message).toBe('Bad credentials');
  });

  it.each([
    ['no username', { grant_type: 'password', password: ADMIN_PASSWORD }],
    ['no password', { grant_type: 'password', username: 'admin' }],
    ['an empty password', { grant_type: 'password', username: 'admin', password: '' }],
    ['no grant_type', { username: 'admin', password: ADMIN_PASSWORD }],
    ['grant_type client_credentials', { grant_type: 'client_credentials', username: 'admin', password: ADMIN_PASSWORD }],
  ])('refuses %s with 400 core.validation.error, and changes nothing', async (_why, fields) => {
    const before = failedLogins('admin');
    for (const as of ['form', 'json'] as const) {
      const reply = await tokenRequest(fields as Record<string, string>, as);
      expectApiError(reply, 400, 'core.validation.error');
    }
    expect(failedLogins('admin')).toBe(before);
  });

  it('refuses an empty body with 400 core.validation.error', async () => {
    const reply = await wms.request('POST', '/oauth/token', { anonymous: true });
    expectApiError(reply, 400, 'core.validation.error');
  });

  it('refuses a body that is neither form nor JSON with 415', async () => {
    const reply = await wms.request('POST', '/oauth/token', {
      anonymous: true,
      raw: 'grant_type=password&username=admin',
      headers: { 'Content-Type': 'text/plain' },
    });
    expectServerError(reply, 415);
  });

  it('refuses a locked user even with the right password', async () => {
    await userWith(wms, { username: 'locked-user', password: 'locked-password', locked: true });
    const reply = await tokenRequest({ grant_type: 'password', username: 'locked-user', password: 'locked-password' }, 'form');
    expectServerError(reply, 401);
    // Alike for every refusal: a locked account must not confirm a right password.
    expect(reply.body.message).toBe('Bad credentials');
    expect(failedLogins('locked-user')).toBe(0);
  });

  it('refuses a disabled user and a user whose account has expired', async () => {
    await userWith(wms, { username: 'disabled-user', password: 'disabled-password', enabled: false });
    await userWith(wms, { username: 'expired-user', password: 'expired-password', expirationDate: '2020-01-01T00:00:00.000Z' });
    const disabled = await tokenRequest({ grant_type: 'password', username: 'disabled-user', password: 'disabled-password' }, 'json');
    expectServerError(disabled, 401);
    expect(disabled.body.message).toBe('Bad credentials');
    const expired = await tokenRequest({ grant_type: 'password', username: 'expired-user', password: 'expired-password' }, 'json');
    expectServerError(expired, 401);
    expect(expired.body.message).toBe('Bad credentials');
  });
});

describe('bearer tokens on protected routes', () => {
  it('refuses every route that is not public without a token with 401, and writes nothing', async () => {
    const before = tableCounts();
    const routes = protectedRoutes();
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const reply = await wms.request(route.method, concretePath(route), {
        anonymous: true,
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }),
      });
      expect(reply.status, `${route.method} ${concretePath(route)}: ${reply.text}`).toBe(401);
      expectServerError(reply, 401);
    }
    expect(tableCounts()).toEqual(before);
  });

  it('refuses a call without Authorization with 401, and changes nothing', async () => {
    const before = groupCount();
    expectServerError(await wms.get('/v1/locations', { anonymous: true }), 401);
    expectServerError(await wms.post('/v1/location-groups', { name: 'AUTH-NO-TOKEN' }, { anonymous: true }), 401);
    expect(groupCount()).toBe(before);
  });

  it.each([
    ['Basic credentials', `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`],
    ['Bearer without a token', 'Bearer'],
    ['Bearer with junk', 'Bearer !!not-a-token!!'],
    ['Bearer with a three-part junk token', 'Bearer abc.def.ghi'],
    ['a token without the Bearer scheme', 'eyJhbGciOiJFZERTQSJ9.e30.AAAA'],
  ])('refuses %s with 401', async (_why, authorization) => {
    const reply = await wms.get('/v1/locations', { headers: { Authorization: authorization } });
    expectServerError(reply, 401);
  });

  it('accepts the scheme name in any case', async () => {
    const token = await wms.token();
    expect((await wms.get('/v1/locations', { headers: { Authorization: `bearer ${token}` } })).status).toBe(200);
  });

  it('refuses a token whose signature was changed', async () => {
    const token = await wms.token();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const tampered = `${header}.${payload}.${flipAt(signature, 20)}`;
    expectServerError(await wms.get('/v1/locations', { token: tampered }), 401);
  });

  it('refuses a token whose payload was changed', async () => {
    const token = await wms.token();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expectServerError(await wms.get('/v1/locations', { token: `${header}.${flipAt(payload, 20)}.${signature}` }), 401);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: (claims.exp as number) + 86_400 })).toString('base64url');
    expectServerError(await wms.get('/v1/locations', { token: `${header}.${forged}.${signature}` }), 401);
  });

  it('refuses a token signed by another key', async () => {
    const other = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const token = await sign({ exp: nowSeconds() + 600 }, other.privateKey);
    const reply = await wms.get('/v1/locations', { token });
    expectServerError(reply, 401);
    expect(reply.body.message).toMatch(/signature/);
  });

  it('refuses an expired token, naming the expiry', async () => {
    const exp = nowSeconds() - 3600;
    const token = await sign({ exp, iat: exp - 3600 });
    const reply = await wms.get('/v1/locations', { token });
    expectServerError(reply, 401);
    expect(reply.body.message).toContain('expired');
    expect(reply.body.message).toContain(new Date(exp * 1000).toISOString());
  });

  it('accepts a well-formed token signed with its own key (the control for the refusals around it)', async () => {
    const token = await sign({ exp: nowSeconds() + 600 });
    expect((await wms.get('/v1/locations', { token })).status).toBe(200);
  });

  it('refuses a token with the wrong issuer', async () => {
    const reply = await wms.get('/v1/locations', { token: await sign({ exp: nowSeconds() + 600, iss: 'someone-else' }) });
    expectServerError(reply, 401);
    expect(reply.body.message).toMatch(/iss/);
  });

  it('refuses a token without an expiry', async () => {
    expectServerError(await wms.get('/v1/locations', { token: await sign({}) }), 401);
  });

  it('refuses a token without a username claim', async () => {
    const token = await new SignJWT({ kind: 'user' })
      .setProtectedHeader({ alg: 'EdDSA', kid })
      .setIssuer(ISSUER)
      .setSubject(adminPk)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(applianceKey);
    expectServerError(await wms.get('/v1/locations', { token }), 401);
  });

  it('refuses a token of a user that does not exist', async () => {
    const token = await sign({ sub: newPKey(), username: 'ghost', exp: nowSeconds() + 600 });
    expectServerError(await wms.get('/v1/locations', { token }), 401);
  });

  it('refuses an unsigned token (alg none)', async () => {
    const token = new UnsecuredJWT({ username: 'admin', kind: 'user' }).setIssuer(ISSUER).setSubject(adminPk).setIssuedAt().setExpirationTime('10m').encode();
    expectServerError(await wms.get('/v1/locations', { token }), 401);
  });

  it('refuses a token signed with HS256', async () => {
    const token = await new SignJWT({ username: 'admin', kind: 'user' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setSubject(adminPk)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(randomBytes(32));
    expectServerError(await wms.get('/v1/locations', { token }), 401);
  });
});

describe('grants', () => {
  let userPk: string;
  let token: string;

  beforeAll(async () => {
    userPk = await userWith(wms, { username: 'no-grant-user', password: 'no-grant-password' });
    token = await login('no-grant-user', 'no-grant-password');
  });

  it('refuses every protected route to a user without grants with 403, and writes nothing', async () => {
    const before = tableCounts();
    for (const route of protectedRoutes().filter((r) => namesGrant(r.grant))) {
      const reply = await wms.request(route.method, concretePath(route), {
        token,
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }),
      });
      expect(reply.status, `${route.method} ${concretePath(route)}: ${reply.text}`).toBe(403);
      expect(reply.body.message).toContain(route.grant);
    }
    expect(tableCounts()).toEqual(before);
  });

  it('refuses a user without the grant with 403, and changes nothing', async () => {
    const reply = await wms.get('/v1/locations', { token });
    expectServerError(reply, 403);
    expect(reply.body.message).toContain('locations:read');
    const before = groupCount();
    expectServerError(await wms.post('/v1/location-groups', { name: 'AUTH-FORBIDDEN' }, { token }), 403);
    expect(groupCount()).toBe(before);
  });

  it('allows the call once the user holds a role with the grant', async () => {
    // An administrator gives the user a role with the grant: the token already issued carries it from now on.
    await roleWith(wms, 'LOCATION_READER', ['locations:read'], 'reads locations');
    const given = await wms.put('/users', { pKey: userPk, roleNames: ['LOCATION_READER'] });
    expect(given.status, given.text).toBe(200);

    const reply = await wms.get('/v1/locations', { token });
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body)).toBe(true);

    // The role holds nothing else: writing is still refused, and nothing is written.
    const before = groupCount();
    expectServerError(await wms.post('/v1/location-groups', { name: 'AUTH-STILL-FORBIDDEN' }, { token }), 403);
    expectServerError(await wms.get('/v1/location-groups', { token }), 403);
    expect(groupCount()).toBe(before);
  });

  it('stops accepting the token of a user who was locked since it was issued', async () => {
    const pk = await userWith(wms, { username: 'later-locked-user', password: 'later-locked-password', roleNames: ['ADMIN'] });
    const lockedToken = await login('later-locked-user', 'later-locked-password');
    expect((await wms.get('/v1/locations', { token: lockedToken })).status).toBe(200);

    const locked = await wms.put('/users', { pKey: pk, locked: true });
    expect(locked.status, locked.text).toBe(200);
    const reply = await wms.get('/v1/locations', { token: lockedToken });
    expectServerError(reply, 401);
    expect(reply.body.message).toMatch(/locked/);
  });
});

describe('seeded administration data', () => {
  it('gives role ADMIN every grant the route table names', () => {
    const expected = grantCatalogue(wms.app.routes).map((g) => g.name);
    const held = wms.app.db
      .prepare(
        `SELECT g.name FROM roles r
           JOIN role_grants rg ON rg.role_pk = r.pk
           JOIN grants g ON g.pk = rg.grant_pk
         WHERE r.name = 'ADMIN' ORDER BY g.name`,
      )
      .pluck()
      .all() as string[];
    expect(expected.length).toBeGreaterThan(0);
    expect(expected).toContain('locations:read');
    expect(held).toEqual([...expected].sort());
  });

  it('names no grant that is not in the catalogue', () => {
    const catalogue = new Set(grantCatalogue(wms.app.routes).map((g) => g.name));
    for (const route of wms.app.routes) {
      expect(!namesGrant(route.grant) || catalogue.has(route.grant), `${route.method} ${route.path}`).toBe(true);
    }
  });

  it('keeps the admin password as an scrypt hash', () => {
    const hash = wms.app.db.prepare("SELECT password_hash FROM users WHERE username = 'admin'").pluck().get() as string;
    expect(hash.startsWith('scrypt$')).toBe(true);
    expect(hash).not.toContain(ADMIN_PASSWORD);
  });

  it('makes the admin a holder of role ADMIN', () => {
    const roles = wms.app.db.prepare('SELECT r.name FROM user_roles ur JOIN roles r ON r.pk = ur.role_pk WHERE ur.user_pk = ?').pluck().all(adminPk);
    expect(roles).toEqual(['ADMIN']);
  });
});
