import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';
import { until } from './support/warehouse.ts';

// Hostile and broken requests at the edge: names that show one thing and are another,
// bodies that are not UTF-8, requests Node's own HTTP parser refuses, clients that go
// away mid-upload, and the headers every reply carries. Over real HTTP and raw sockets.

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance({ server: { requestTimeoutMs: 1000 } });
});
afterAll(() => wms.close());

/** Runs a refused request and proves it committed no change (no event at all). */
async function changesNothing(action: () => Promise<Reply>): Promise<Reply> {
  const events: string[] = [];
  const off = wms.app.bus.onAny((event) => events.push(event.type));
  try {
    const reply = await action();
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([]);
    return reply;
  } finally {
    off();
  }
}

/** A JSON body as raw text, so escapes such as a lone `\ud800` reach the server as a client wrote them. */
const rawJson = (path: string, text: string, method = 'POST') => wms.request(method, path, { raw: text, headers: { 'Content-Type': 'application/json' } });

/** Raw bytes over a fresh TCP connection; resolves with everything the server sent until it closed. */
function rawExchange(bytes: string | Buffer, { endAfterWrite = false } = {}): Promise<string> {
  const { port } = new URL(wms.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(bytes);
      if (endAfterWrite) socket.end();
    });
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
  });
}

function parseRaw(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('one rule for every name', () => {
  const NAMED = [
    { path: '/roles', field: 'name', body: (n: string) => ({ name: n }) },
    { path: '/grants', field: 'name', body: (n: string) => ({ name: n }) },
    { path: '/v1/location-groups', field: 'name', body: (n: string) => ({ name: n }) },
    { path: '/v1/location-types', field: 'type', body: (n: string) => ({ type: n }) },
    { path: '/v1/transport-unit-types', field: 'type', body: (n: string) => ({ type: n }) },
  ];
  // As JSON text: a NUL, a right-to-left override, a zero-width space, a line break, a lone surrogate.
  const HOSTILE = ['BAD\\u0000NAME', 'ZONE\\u202eA', 'ZERO\\u200bWIDTH', 'TWO\\nLINES', 'HALF\\ud800'];

  for (const { path, field, body } of NAMED) {
    it(`${path}: refuses control and format characters and lone surrogates in ${field}, naming the field`, async () => {
      for (const hostile of HOSTILE) {
        const text = JSON.stringify(body('PLACEHOLDER')).replace('PLACEHOLDER', hostile);
        const reply = await changesNothing(() => rawJson(path, text));
        expectApiError(reply, 400, 'core.validation.error');
        expect(reply.body.message, hostile).toContain(`${field}:`);
      }
    });
  }

  it('stores names in NFC: the name typed with a combining accent is the same name as the composed one', async () => {
    const decomposed = 'CAFE\u0301-ZONE';
    const created = await wms.post('/v1/location-groups', { name: decomposed });
    expect(created.status, created.text).toBe(201);
    expect(created.body.name).toBe('CAF\u00c9-ZONE');
    const found = await wms.get(`/v1/location-groups?name=${encodeURIComponent('CAF\u00c9-ZONE')}`);
    expect(found.status).toBe(200);
    expectApiError(await changesNothing(() => wms.post('/v1/location-groups', { name: 'CAF\u00c9-ZONE' })), 409, 'already.exists');
  });

  it('a body whose bytes are not UTF-8 is refused, not stored with U+FFFD in place of what was sent', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"LATIN1-'), Buffer.from([0xc4, 0x58]), Buffer.from('"}')]);
    const reply = await changesNothing(() => wms.request('POST', '/v1/location-groups', { raw: bytes, headers: { 'Content-Type': 'application/json' } }));
    expectServerError(reply, 400);
    expect(reply.body.message).toMatch(/not valid UTF-8/);
    const form = await changesNothing(() =>
      wms.request('POST', '/oauth/token', {
        anonymous: true,
        raw: 'grant_type=password&username=%C4X&password=whatever',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
    );
    expectServerError(form, 400);
  });
});

describe("requests Node's HTTP parser refuses", () => {
  it('an unknown method gets 501 in the server-declined format with a request id', async () => {
    const reply = parseRaw(await rawExchange('BREW /v1/locations HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(reply.status).toBe(501);
    expect(reply.headers['x-request-id']).toMatch(/\S/);
    expect(reply.body).toMatchObject({ status: 501, error: 'Not Implemented', requestId: reply.headers['x-request-id'] });
    expect(reply.body.message).toMatch(/method/);
  });

  it('a duplicate Content-Length gets 400 with a body that says so', async () => {
    const reply = parseRaw(await rawExchange('POST /v1/location-groups HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'));
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ status: 400, error: 'Bad Request' });
    expect(reply.body.message).toMatch(/Content-Length/);
    expect(reply.body.requestId).toBe(reply.headers['x-request-id']);
  });

  it('a header section over 16 KiB gets 431', async () => {
    const reply = parseRaw(await rawExchange(`GET /index HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(reply.status).toBe(431);
    expect(reply.body).toMatchObject({ status: 431 });
    expect(reply.body.message).toMatch(/16 KiB/);
  });

  it('an Expect other than 100-continue gets 417, a request without Host 400, CONNECT 405, all with the body', async () => {
    const token = await wms.token();
    const expect417 = parseRaw(
      await rawExchange(`GET /v1/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nExpect: odd\r\nConnection: close\r\n\r\n`),
    );
    expect(expect417.status).toBe(417);
    expect(expect417.body).toMatchObject({ status: 417, requestId: expect417.headers['x-request-id'] });
    const noHost = parseRaw(await rawExchange('GET /index HTTP/1.1\r\nConnection: close\r\n\r\n'));
    expect(noHost.status).toBe(400);
    expect(noHost.body.message).toMatch(/Host/);
    const connect = parseRaw(await rawExchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
    expect(connect.status).toBe(405);
    expect(connect.body).toMatchObject({ status: 405, error: 'Method Not Allowed' });
  });

  it('a request that does not arrive within the request timeout gets 408', async () => {
    const token = await wms.token();
    const reply = parseRaw(
      await rawExchange(
        `POST /v1/location-groups HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
      ),
    );
    expect(reply.status).toBe(408);
    expect(reply.body).toMatchObject({ status: 408, error: 'Request Timeout' });
  }, 15_000);
});

describe('a client that goes away mid-upload', () => {
  it('is a debug line, not an error with a stack; nothing is stored', async () => {
    const before = wms.logs().length;
    await changesNothing(async () => {
      await rawExchange(
        `POST /v1/location-groups HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${await wms.token()}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"GONE`,
        { endAfterWrite: true },
      );
      // The server notices the closed connection on a later turn.
      await until(
        () =>
          wms
            .logs()
            .slice(before)
            .some((l) => /went away/.test(l)),
        'the server noticed the client went away',
      );
      return { status: 0, headers: new Headers(), text: '', body: undefined };
    });
    const lines = wms
      .logs()
      .slice(before)
      .map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(lines.filter((l) => l.level !== 'debug')).toEqual([]);
    expect(lines.some((l) => /went away/.test(l.msg))).toBe(true);
  });
});

describe('found by the fuzz suite', () => {
  it('a body nested deeper than 32 levels is refused with 400 (it reached code that walks it recursively: 500)', async () => {
    // As text: the test's own JSON.stringify would exhaust its stack on it.
    const priority = `${'{"a":'.repeat(10_000)}"HIGH"${'}'.repeat(10_000)}`;
    const reply = await changesNothing(() => rawJson('/v1/transport-orders', `{"barcode":"NOPE","targetLocation":"A/B/C/D/E","priority":${priority}}`));
    expectServerError(reply, 400);
    expect(reply.body.message).toMatch(/nests deeper than 32 levels/);
    // A shallow object still gets the rule's own answer, which names its kind, not its text.
    const shallow = await changesNothing(() => wms.post('/v1/transport-orders', { barcode: 'NOPE', targetLocation: 'A/B/C/D/E', priority: { a: 1 } }));
    expect(shallow.status).toBe(400);
  });

  it('a route that takes no body runs only once the body sent anyway has arrived whole: a broken chunk changes nothing', async () => {
    const token = await wms.token();
    const before = (await wms.get('/v1/backups')).body.length;
    const reply = parseRaw(
      await changesNothing(async () => {
        const raw = await rawExchange(
          `POST /v1/backups HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n`,
        );
        return { status: 0, headers: new Headers(), text: raw, body: undefined };
      }).then((r) => r.text),
    );
    expect(reply.status).toBe(400);
    expect((await wms.get('/v1/backups')).body.length).toBe(before);
  });

  it('HEAD /v1/events answers its head at once', async () => {
    const res = await fetch(`${wms.url}/v1/events`, {
      method: 'HEAD',
      headers: { Authorization: `Bearer ${await wms.token()}` },
      signal: AbortSignal.timeout(5000),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });
});

describe('PUT /users and PUT /roles: left-out fields keep their values', () => {
  it('a user changed by pKey and one field keeps its username; a role by pKey and description keeps its name and grants', async () => {
    const user = (await wms.post('/users', { links: [], username: 'partial-user', fullname: 'Before' })).body;
    const changed = await wms.put('/users', { pKey: user.pKey, fullname: 'After' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ username: 'partial-user', fullname: 'After' });

    const role = (await wms.post('/roles', { name: 'PARTIAL_ROLE', grants: ['locations:read'] })).body;
    const renamedNot = await wms.put('/roles', { pKey: role.pKey, description: 'only this' });
    expect(renamedNot.status, renamedNot.text).toBe(200);
    expect(renamedNot.body).toMatchObject({ name: 'PARTIAL_ROLE', description: 'only this' });
    expect(renamedNot.body.grants.map((g: { name: string }) => g.name)).toEqual(['locations:read']);
  });
});

describe('headers on every reply', () => {
  it('nosniff and no-store on answers, refusals and preflights', async () => {
    const replies = [
      await wms.get('/v1/locations'),
      await wms.get('/no/such/path', { anonymous: true }),
      await wms.request('OPTIONS', '/v1/locations', { anonymous: true, headers: { Origin: 'http://hmi.local', 'Access-Control-Request-Method': 'GET' } }),
      await wms.get('/index', { anonymous: true }),
    ];
    for (const reply of replies) {
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
      expect(reply.headers.get('cache-control')).toBe('no-store');
    }
  });
});
