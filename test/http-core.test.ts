import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/core/log.ts';
import { formatIso, nowIso, parseIso } from '../src/core/time.ts';
import { ServerDeclined } from '../src/http/errors.ts';
import { Router, type Route } from '../src/http/router.ts';
import { createHttpServer } from '../src/http/server.ts';
import { expectApiError, expectServerError, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';

// The HTTP core over real sockets: routing refusals, request ids, CORS, negotiation,
// body limits, URL hygiene, the error edge and the two message-key families.

const UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
const LOCATION_TYPE = 'application/vnd.vendor.common.location-v1+json';

interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Body sent in pieces without Content-Length (chunked transfer encoding). */
  chunks?: readonly string[];
}

/**
 * A request through node:http, for what fetch does not let a test control: no
 * `Accept` at all, a chosen `Host`, a URL sent byte for byte, a chunked body.
 */
function raw(baseUrl: string, path: string, options: RawOptions = {}): Promise<Reply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path, method: options.method ?? 'GET', headers: options.headers });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, String(v));
        resolve({ status: res.statusCode ?? 0, headers, text, body });
      });
    });
    // A server that refuses a body may close while the client still writes it.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

const count = (wms: TestAppliance, table: string) => wms.app.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

let wms: TestAppliance;
let locationPKey: string;

beforeAll(async () => {
  wms = await startTestAppliance();
  const created = await wms.post('/v1/locations', {
    locationId: 'CORE/0001/0001/0000/0000',
    plcCode: 'CORE-PLC-1',
    locationGroupName: 'WAREHOUSE',
  });
  expect(created.status).toBe(201);
  locationPKey = created.body.pKey;
});
afterAll(() => wms.close());

describe('routing refusals', () => {
  it('answers an unknown path with 404 server-declined, naming the path', async () => {
    const reply = await wms.get('/v1/no-such-thing');
    expectServerError(reply, 404);
    expect(reply.body.path).toBe('/v1/no-such-thing');
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers an unknown path with 404 even without a token', async () => {
    expectServerError(await wms.get('/v1/no-such-thing', { anonymous: true }), 404);
  });

  it('answers a wrong method with 405 and an Allow header, and changes nothing', async () => {
    const before = count(wms, 'locations');
    const reply = await wms.del('/v1/locations');
    expectServerError(reply, 405);
    const allow = (reply.headers.get('allow') ?? '')
      .split(',')
      .map((m) => m.trim())
      .sort();
    // HEAD (served wherever GET is) and OPTIONS (preflight) are served here too.
    expect(allow).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
    expect(count(wms, 'locations')).toBe(before);
  });

  it('answers a missing discriminating query with 400 naming the expected parameters, and changes nothing', async () => {
    const before = await wms.get('/v1/location-groups?name=WAREHOUSE');
    const reply = await wms.patch('/v1/location-groups', { errorCode: '00000011' });
    expectServerError(reply, 400);
    expect(reply.body.message).toContain('?name&op=change-state');
    const after = await wms.get('/v1/location-groups?name=WAREHOUSE');
    expect(after.body).toEqual(before.body);
  });

  it('lists no HEAD in Allow where no GET is served', async () => {
    const reply = await wms.get(`/v1/location/${locationPKey}?op=change-state`);
    expectServerError(reply, 405);
    const allow = (reply.headers.get('allow') ?? '')
      .split(',')
      .map((m) => m.trim())
      .sort();
    expect(allow).toEqual(['OPTIONS', 'PATCH']);
  });

  it('answers a wrong op= value like a missing one', async () => {
    const reply = await wms.request('PATCH', `/v1/location/${locationPKey}?op=explode`, { body: { errorCode: '11111111' } });
    expectServerError(reply, 400);
    const location = await wms.get(`/v1/locations/${locationPKey}`);
    expect(location.body).toMatchObject({ incomingActive: true, outgoingActive: true, ol: 0 });
  });

  it('tolerates a trailing slash (the Location header of a location ends in one)', async () => {
    const reply = await wms.get(`/v1/locations/${locationPKey}/`);
    expect(reply.status).toBe(200);
    expect(reply.body.pKey).toBe(locationPKey);
  });

  it('answers HEAD like GET without a body', async () => {
    const reply = await raw(wms.url, '/index', { method: 'HEAD' });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('');
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
  });
});

/** A generated request id: a per-process random prefix and a counter. */
const GENERATED_ID = /^[0-9a-f]{8}-[0-9a-z]+$/;

describe('request ids', () => {
  it('generates one per request and sends it back', async () => {
    const a = await wms.get('/index', { anonymous: true });
    const b = await wms.get('/index', { anonymous: true });
    const idA = a.headers.get('x-request-id');
    const idB = b.headers.get('x-request-id');
    expect(idA).toMatch(GENERATED_ID);
    expect(idB).toMatch(GENERATED_ID);
    expect(idA).not.toBe(idB);
  });

  it('puts the same id into a server-declined body', async () => {
    const reply = await wms.get('/v1/no-such-thing');
    expect(reply.body.requestId).toBe(reply.headers.get('x-request-id'));
  });

  it('reuses a sane id supplied by the client', async () => {
    const reply = await wms.get('/v1/no-such-thing', { headers: { 'X-Request-Id': 'client-trace_42.a' } });
    expect(reply.headers.get('x-request-id')).toBe('client-trace_42.a');
    expect(reply.body.requestId).toBe('client-trace_42.a');
  });

  it.each([
    ['with spaces', 'not a sane id'],
    ['with markup', '<script>'],
    ['too long', 'a'.repeat(65)],
  ])('replaces a supplied id %s', async (_why, id) => {
    const reply = await wms.get('/index', { anonymous: true, headers: { 'X-Request-Id': id } });
    expect(reply.headers.get('x-request-id')).toMatch(GENERATED_ID);
  });
});

describe('headers on every reply', () => {
  it('sends Vary and exposes Location on a success', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.headers.get('vary')).toBe(VARY);
    const exposed = (reply.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim());
    expect(exposed).toContain('Location');
    expect(exposed).toContain('X-Request-Id');
  });

  it('sends Vary and exposes Location on an error', async () => {
    const reply = await wms.get('/v1/no-such-thing');
    expect(reply.headers.get('vary')).toBe(VARY);
    expect(reply.headers.get('access-control-expose-headers')).toContain('Location');
  });

  it('answers a created resource with 201 and an absolute Location', async () => {
    const reply = await wms.post('/v1/location-groups', { name: 'CORE-LOCATION-HEADER', parentName: 'WAREHOUSE' });
    expect(reply.status).toBe(201);
    const location = reply.headers.get('location')!;
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(location).toBe(`${wms.url}/v1/location-groups/${reply.body.pKey}`);
    const read = await wms.get(new URL(location).pathname);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('CORE-LOCATION-HEADER');
  });
});

describe('CORS', () => {
  const preflight = (path: string, origin: string, method = 'POST', headers = 'authorization, content-type') =>
    raw(wms.url, path, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
    });

  it('answers a preflight with 204 and the allow headers, without a token', async () => {
    const reply = await preflight('/v1/locations', 'http://hmi.local');
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(reply.headers.get('access-control-allow-origin')).toBe('http://hmi.local');
    const methods = reply.headers
      .get('access-control-allow-methods')!
      .split(',')
      .map((m) => m.trim());
    expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'HEAD', 'OPTIONS']));
    const allowed = reply.headers
      .get('access-control-allow-headers')!
      .split(',')
      .map((h) => h.trim());
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']));
    expect(reply.headers.get('access-control-max-age')).toBe('600');
    expect(reply.headers.get('vary')).toBe(VARY);
  });

  it('answers a preflight of a parametrised path', async () => {
    const reply = await preflight(`/v1/locations/${locationPKey}`, 'http://hmi.local', 'DELETE');
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-methods')).toContain('DELETE');
  });

  it('answers a preflight of an unknown path with 404', async () => {
    const reply = await preflight('/v1/no-such-thing', 'http://hmi.local');
    expectServerError(reply, 404);
  });

  it('echoes the origin on an ordinary request', async () => {
    const reply = await wms.get('/index', { anonymous: true, headers: { Origin: 'http://hmi.local' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe('http://hmi.local');
  });

  describe('with server.corsOrigins restricted', () => {
    let strict: TestAppliance;
    beforeAll(async () => {
      strict = await startTestAppliance({ server: { corsOrigins: ['http://hmi.local'] } });
    });
    afterAll(() => strict.close());

    const preflightAt = (origin: string) =>
      raw(strict.url, '/v1/locations', {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
      });

    it('refuses the preflight of a foreign origin with 403', async () => {
      const reply = await preflightAt('http://evil.example');
      expectServerError(reply, 403);
      expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('allows the preflight of a listed origin', async () => {
      const reply = await preflightAt('http://hmi.local');
      expect(reply.status).toBe(204);
      expect(reply.headers.get('access-control-allow-origin')).toBe('http://hmi.local');
    });

    it('does not grant a foreign origin on an ordinary request', async () => {
      const reply = await strict.get('/index', { anonymous: true, headers: { Origin: 'http://evil.example' } });
      expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});

describe('content negotiation', () => {
  const one = (accept?: string) =>
    raw(wms.url, `/v1/locations/${locationPKey}`, {
      headers: { Authorization: `Bearer ${token}`, ...(accept ? { Accept: accept } : {}) },
    });
  const list = (accept?: string) => raw(wms.url, '/v1/locations', { headers: { Authorization: `Bearer ${token}`, ...(accept ? { Accept: accept } : {}) } });
  let token: string;
  beforeAll(async () => {
    token = await wms.token();
  });

  it('answers the vendor type when the client names it', async () => {
    const reply = await one(LOCATION_TYPE);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe(LOCATION_TYPE);
    expect(reply.body.pKey).toBe(locationPKey);
  });

  it('answers application/hal+json and application/json when named', async () => {
    expect((await one('application/hal+json')).headers.get('content-type')).toBe('application/hal+json');
    expect((await one('application/json')).headers.get('content-type')).toBe('application/json');
    expect((await list('application/hal+json')).headers.get('content-type')).toBe('application/hal+json');
  });

  it('answers hal+json for a single resource and application/json for a list without an Accept header', async () => {
    const single = await one();
    expect(single.status).toBe(200);
    expect(single.headers.get('content-type')).toBe('application/hal+json');
    const many = await list();
    expect(many.status).toBe(200);
    expect(Array.isArray(many.body)).toBe(true);
    expect(many.headers.get('content-type')).toBe('application/json');
  });

  it('treats Accept */* like no preference', async () => {
    expect((await one('*/*')).headers.get('content-type')).toBe('application/hal+json');
    expect((await list('*/*')).headers.get('content-type')).toBe('application/json');
  });

  it('honours q-values, and skips types with q=0', async () => {
    expect((await one('application/json;q=0.5, application/hal+json')).headers.get('content-type')).toBe('application/hal+json');
    expect((await one('application/xml;q=0, application/json')).headers.get('content-type')).toBe('application/json');
  });

  it('answers XML for the entry index when asked, with every link name', async () => {
    const reply = await raw(wms.url, '/index', { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(reply.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    for (const name of ['account-index', 'location-index', 'location-group-index', 'transport-unit-type-index', 'transport-unit-index']) {
      expect(reply.text).toContain(`rel="${name}"`);
    }
    expect(reply.text).toContain(`href="${wms.url}/v1/locations/index"`);
  });

  it('answers XML for a module index when asked, with escaped hrefs', async () => {
    const reply = await raw(wms.url, '/v1/locations/index', {
      headers: { Accept: 'application/xml', Authorization: `Bearer ${token}` },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/xml/);
    for (const name of ['location-create', 'location-findbypkey', 'location-findbycoordinate', 'location-changestate']) {
      expect(reply.text).toContain(`rel="${name}"`);
    }
    expect(reply.text).toContain('?area={area}&amp;aisle={aisle}');
    expect(reply.text).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/);
    // A URI template says so, as in JSON; a plain href does not.
    expect(reply.text).toContain(`<atom:link rel="location-findbypkey" href="${wms.url}/v1/locations/{pKey}" templated="true"/>`);
    expect(reply.text).toContain(`<atom:link rel="location-findall" href="${wms.url}/v1/locations"/>`);
  });

  it('marks every index href that is a URI template as templated, as HAL links do, and no other', async () => {
    const reply = await wms.get('/v1/locations/index');
    expect(reply.status).toBe(200);
    const links = reply.body._links as Record<string, { href: string; templated?: boolean }>;
    expect(links['location-findbypkey']).toEqual({ href: `${wms.url}/v1/locations/{pKey}`, templated: true });
    expect(links['location-findall']).toEqual({ href: `${wms.url}/v1/locations` });
    for (const [name, link] of Object.entries(links)) expect(link.templated === true, name).toBe(link.href.includes('{'));
    const entry = await wms.get('/index', { anonymous: true });
    for (const [name, link] of Object.entries(entry.body._links as Record<string, object>)) expect(link, name).not.toHaveProperty('templated');
  });

  it('answers JSON for an index by default', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.headers.get('content-type')).toBe('application/hal+json');
    expect(reply.body._links['location-index'].href).toBe(`${wms.url}/v1/locations/index`);
  });

  it('answers 406 when XML is asked of a resource that is not an index', async () => {
    const reply = await one('application/xml');
    expectServerError(reply, 406);
  });

  it('answers 406 for a media type nobody here speaks', async () => {
    expectServerError(await one('text/html'), 406);
  });

  it('answers with the type asked for where the route offers it, and 406 for a vendor type it does not offer', async () => {
    const index = (accept: string) => raw(wms.url, '/index', { headers: { Accept: accept } });
    for (const type of ['application/hal+json', 'application/json', 'application/xml']) {
      const reply = await index(type);
      expect(reply.status, type).toBe(200);
      expect(reply.headers.get('content-type'), type).toBe(type);
    }
    // Indexes have no vendor type; a resource answers its own, not another one's.
    expectServerError(await index(LOCATION_TYPE), 406);
    expectServerError(await index('text/html'), 406);
    expectServerError(await one('application/vnd.vendor.common.transport-unit-v1+json'), 406);
    // The first type in the client's order that the route offers.
    const fallback = await index(`${LOCATION_TYPE}, application/hal+json;q=0.5`);
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get('content-type')).toBe('application/hal+json');
  });
});

describe('request bodies', () => {
  it('refuses a text/plain body on a JSON route with 415, and creates nothing', async () => {
    const before = count(wms, 'location_groups');
    const reply = await wms.request('POST', '/v1/location-groups', {
      raw: JSON.stringify({ name: 'CORE-TEXT-PLAIN' }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expectServerError(reply, 415);
    expect(count(wms, 'location_groups')).toBe(before);
    expectApiError(await wms.get('/v1/location-groups?name=CORE-TEXT-PLAIN'), 404, 'svc.common.common.lg.notFoundByName');
  });

  it('accepts a JSON body with a charset parameter', async () => {
    const reply = await wms.request('POST', '/v1/location-groups', {
      raw: JSON.stringify({ name: 'CORE-CHARSET' }),
      headers: { 'Content-Type': 'application/json; charset=UTF-8' },
    });
    expect(reply.status).toBe(201);
  });

  it('refuses malformed JSON with 400, and creates nothing', async () => {
    const before = count(wms, 'location_groups');
    const reply = await wms.request('POST', '/v1/location-groups', {
      raw: '{"name": "CORE-MALFORMED",',
      headers: { 'Content-Type': 'application/json' },
    });
    expectServerError(reply, 400);
    expect(reply.body.message).toMatch(/JSON/);
    expect(count(wms, 'location_groups')).toBe(before);
  });

  describe('with server.bodyLimitBytes = 1024', () => {
    let small: TestAppliance;
    beforeAll(async () => {
      small = await startTestAppliance({ server: { bodyLimitBytes: 1024 } });
    });
    afterAll(() => small.close());

    it('refuses a declared body over the limit with 413, and creates nothing', async () => {
      const before = count(small, 'location_groups');
      const reply = await small.post('/v1/location-groups', { name: 'CORE-BIG', padding: 'x'.repeat(2000) });
      expectServerError(reply, 413);
      expect(count(small, 'location_groups')).toBe(before);
      expectApiError(await small.get('/v1/location-groups?name=CORE-BIG'), 404, 'svc.common.common.lg.notFoundByName');
    });

    it('refuses a chunked body that grows past the limit with 413, and creates nothing', async () => {
      const before = count(small, 'location_groups');
      const reply = await raw(small.url, '/v1/location-groups', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${await small.token()}` },
        chunks: [`{"name": "CORE-BIG-CHUNKED", "padding": "`, 'x'.repeat(700), 'x'.repeat(700), '"}'],
      });
      expectServerError(reply, 413);
      expect(count(small, 'location_groups')).toBe(before);
    });

    it('accepts a body under the limit', async () => {
      const reply = await small.post('/v1/location-groups', { name: 'CORE-SMALL', padding: 'x'.repeat(800) });
      expect(reply.status).toBe(201);
    });
  });
});

describe('URL hygiene', () => {
  let token: string;
  beforeAll(async () => {
    token = await wms.token();
  });
  const get = (path: string) => raw(wms.url, path, { headers: { Authorization: `Bearer ${token}` } });

  it.each([
    ['a % without hex digits in the path', '/v1/locations/%zz'],
    ['a truncated escape in the path', '/v1/locations/%E0%A4%A'],
    ['an incomplete UTF-8 sequence in the path', '/v1/locations/%E0%A4'],
    ['a % without hex digits in the query', '/v1/locations?locationId=%zz'],
    ['a truncated escape in the query', '/v1/locations?locationId=%E0%A4%A'],
    ['an incomplete UTF-8 sequence in the query', '/v1/locations?locationId=%E0%A4'],
  ])('refuses %s with 400', async (_why, path) => {
    const reply = await get(path);
    expectServerError(reply, 400);
  });

  it('decodes a well-encoded coordinate in the query', async () => {
    const reply = await get(`/v1/locations?locationId=${encodeURIComponent('CORE/0001/0001/0000/0000')}`);
    expect(reply.status).toBe(200);
    expect(reply.body.pKey).toBe(locationPKey);
  });
});

describe('dates in replies', () => {
  it('are UTC ISO-8601 with milliseconds and Z', async () => {
    const created = await wms.post('/v1/location-groups', { name: 'CORE-DATES' });
    expect(created.status).toBe(201);
    expect(created.body.createDt).toMatch(UTC_MILLIS);
    expect(created.body.lastModifiedDt).toMatch(UTC_MILLIS);
    const read = await wms.get(`/v1/locations/${locationPKey}`);
    expect(read.body.createDt).toMatch(UTC_MILLIS);
    expect(read.body.lastModifiedDt).toMatch(UTC_MILLIS);
  });
});

describe('message-key families', () => {
  it('answers the dotted key by default', async () => {
    expectApiError(await wms.get('/v1/location-groups?name=NOPE'), 404, 'svc.common.common.lg.notFoundByName');
  });

  describe("with api.messageKeys = 'upper-case'", () => {
    let upper: TestAppliance;
    beforeAll(async () => {
      upper = await startTestAppliance({ api: { messageKeys: 'upper-case' } });
    });
    afterAll(() => upper.close());

    it('answers the upper-case key of the earlier revision', async () => {
      const reply = await upper.get('/v1/location-groups?name=NOPE');
      expectApiError(reply, 404, 'COMMON.LOCATION_GROUP_NOT_FOUND');
      expect(reply.body.obj).toEqual(['NOPE']);
    });

    it('keeps keys that have no upper-case twin', async () => {
      const reply = await upper.post('/v1/location-groups', { name: '' });
      expectApiError(reply, 400, 'core.validation.error');
    });
  });
});

describe('the error edge of createHttpServer', () => {
  let server: http.Server;
  let url: string;
  const lines: string[] = [];

  beforeAll(async () => {
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const routes: Route[] = [
      {
        method: 'GET',
        path: '/boom',
        grant: 'public',
        summary: 'throws',
        handler: () => {
          throw new Error('kaboom: the secret internals');
        },
      },
      {
        method: 'GET',
        path: '/async-boom',
        grant: 'public',
        summary: 'rejects',
        handler: async () => {
          await Promise.resolve();
          throw new TypeError('async kaboom');
        },
      },
      {
        method: 'POST',
        path: '/created-without-location',
        grant: 'public',
        summary: 'forgets Location',
        handler: () => ({ status: 201, body: { ok: true } }),
      },
      {
        method: 'GET',
        path: '/guarded',
        grant: 'things:read',
        summary: 'needs a grant',
        handler: () => ({ status: 200, body: { ok: true } }),
      },
    ];
    server = createHttpServer({
      router: new Router(routes),
      authenticate: () => {
        throw new ServerDeclined(401, 'Authentication required');
      },
      log: createLogger({ level: 'debug', destination: sink }),
      bodyLimitBytes: 1024,
      corsOrigins: ['*'],
      publicUrl: undefined,
      messageKeys: 'dotted',
      requestTimeoutMs: 30_000,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** The log line of a request id, once the logger has written it. */
  async function logLineOf(requestId: string): Promise<Record<string, any>> {
    for (let i = 0; i < 100; i++) {
      const line = lines.find((l) => l.includes(requestId) && l.includes('"level":"error"'));
      if (line) return JSON.parse(line);
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`no error log line for ${requestId}: ${lines.join('\n')}`);
  }

  it('answers an unknown failure with 500 server-declined, the request id and no internals', async () => {
    const reply = await raw(url, '/boom');
    expectServerError(reply, 500);
    expect(reply.body.requestId).toBe(reply.headers.get('x-request-id'));
    expect(reply.body.message).toContain(reply.body.requestId);
    expect(reply.body.path).toBe('/boom');
    expect(reply.text).not.toContain('kaboom');
    expect(reply.text).not.toMatch(/\bat .*\.ts:\d+/);
    expect(reply.body).not.toHaveProperty('stack');
    expect(reply.body).not.toHaveProperty('exception');
  });

  it('logs the failure with its stack under the request id', async () => {
    const reply = await raw(url, '/boom', { headers: { 'X-Request-Id': 'trace-boom-1' } });
    expectServerError(reply, 500);
    const entry = await logLineOf('trace-boom-1');
    expect(entry.requestId).toBe('trace-boom-1');
    expect(entry.path).toBe('/boom');
    expect(entry.err.message).toBe('kaboom: the secret internals');
    expect(entry.err.stack).toMatch(/kaboom: the secret internals\n\s+at /);
  });

  it('treats a rejected async handler the same way', async () => {
    const reply = await raw(url, '/async-boom', { headers: { 'X-Request-Id': 'trace-boom-2' } });
    expectServerError(reply, 500);
    expect(reply.text).not.toContain('async kaboom');
    const entry = await logLineOf('trace-boom-2');
    expect(entry.err.stack).toContain('async kaboom');
  });

  it('answers 500 when a handler creates without a Location header', async () => {
    const reply = await raw(url, '/created-without-location', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expectServerError(reply, 500);
  });

  it('answers the refusal of authenticate (401) before the handler runs', async () => {
    const reply = await raw(url, '/guarded');
    expectServerError(reply, 401);
  });

  it('keeps serving after a failure', async () => {
    await raw(url, '/boom');
    const reply = await raw(url, '/nothing-here');
    expectServerError(reply, 404);
  });
});

describe('core/time', () => {
  describe('parseIso', () => {
    it.each([
      ['no fractional digits', '2025-03-12T08:15:00Z', '2025-03-12T08:15:00.000Z'],
      ['three fractional digits', '2025-03-12T08:15:00.123Z', '2025-03-12T08:15:00.123Z'],
      ['one fractional digit', '2025-03-12T08:15:00.5Z', '2025-03-12T08:15:00.500Z'],
      ['nine fractional digits, truncated', '2025-03-12T08:15:00.123456789Z', '2025-03-12T08:15:00.123Z'],
      ['digits that would round up, truncated', '2025-12-31T23:59:59.999999999Z', '2025-12-31T23:59:59.999Z'],
      ['a positive offset with colon', '2025-03-12T10:15:00.000+02:00', '2025-03-12T08:15:00.000Z'],
      ['a negative offset without colon', '2025-03-12T02:45:00-0530', '2025-03-12T08:15:00.000Z'],
      ['a zero offset', '2025-03-12T08:15:00+00:00', '2025-03-12T08:15:00.000Z'],
      ['an offset moving the date back', '2025-01-01T00:30:00.000+01:00', '2024-12-31T23:30:00.000Z'],
      ['the leap day of a leap year', '2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
    ])('accepts %s', (_why, input, expected) => {
      expect(parseIso(input)).toBe(expected);
    });

    it.each([
      ['30 February', '2025-02-30T00:00:00Z'],
      ['31 April', '2025-04-31T00:00:00Z'],
      ['29 February of a common year', '2023-02-29T00:00:00Z'],
      ['month 13', '2025-13-01T00:00:00Z'],
      ['month 0', '2025-00-10T00:00:00Z'],
      ['day 0', '2025-01-00T00:00:00Z'],
      ['hour 24', '2025-01-01T24:00:00Z'],
      ['minute 60', '2025-01-01T00:60:00Z'],
      ['second 60', '2025-01-01T00:00:60Z'],
      ['no zone', '2025-01-01T00:00:00.000'],
      ['ten fractional digits', '2025-01-01T00:00:00.1234567890Z'],
      ['a dot without digits', '2025-01-01T00:00:00.Z'],
      ['an offset hour of 24', '2025-01-01T00:00:00+24:00'],
      ['an offset minute of 60', '2025-01-01T00:00:00+01:60'],
      ['a date only', '2025-01-01'],
      ['a space instead of T', '2025-01-01 00:00:00Z'],
      ['a lower-case z', '2025-01-01T00:00:00z'],
      ['garbage', 'yesterday'],
      ['an empty string', ''],
    ])('refuses %s', (_why, input) => {
      expect(parseIso(input)).toBeUndefined();
    });
  });

  it('formatIso writes UTC with milliseconds and Z', () => {
    expect(formatIso(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(formatIso(Date.UTC(2025, 2, 12, 8, 15, 0, 7))).toBe('2025-03-12T08:15:00.007Z');
  });

  it('nowIso writes UTC with milliseconds and Z, and parses back to itself', () => {
    const now = nowIso();
    expect(now).toMatch(UTC_MILLIS);
    expect(parseIso(now)).toBe(now);
  });
});
