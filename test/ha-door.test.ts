// A switchover's door (src/ha/handover.ts) and the relay it hands requests on
// (src/ha/relay.ts), against a real nats-server: the door on a port of its own, the
// "new active" a small HTTP server that says what reached it, served on the relay's
// subject as the active serves it. The whole switchover (the door beside the active's
// server, the floating address) is tested in test/ha-pair.test.ts and test/ha-rounds.test.ts.

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from '@nats-io/transport-node';
import { openHandover, type Handover } from '../src/ha/handover.ts';
import { serveRelayed } from '../src/ha/relay.ts';
import { connectOptions, loadNats, type NatsConnection, type NatsLibraries } from '../src/nats/connect.ts';
import { natsConnectionSchema } from '../src/nats/config.ts';
import { captureLog } from './support/plc.ts';
import { freePort, startNats, type NatsServer } from './support/nats.ts';
import { until } from './support/warehouse.ts';

const PAIR = 'halld';
let nats: NatsServer;
let lib: NatsLibraries;
let nc: NatsConnection;
let door: Handover;
let doorUrl: string;
let otherHolds = false;
/** What reached the new active, in order. */
const seen: { method: string; url: string; body: string; authorization: string | undefined }[] = [];
let active: http.Server;
let activeUrl: string;
let relayed: Subscription | undefined;

beforeAll(async () => {
  nats = await startNats({ name: 'ha-door' });
  lib = await loadNats();
  nc = await lib.nats.connect(connectOptions(lib.nats, natsConnectionSchema.parse({ servers: [nats.url] }), 'wms-ha-door-test'));
  active = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body, authorization: req.headers.authorization });
      res.writeHead(201, { 'Content-Type': 'application/json', Location: '/v1/locations/1' });
      res.end(JSON.stringify({ made: body }));
    });
  });
  await new Promise<void>((resolve) => active.listen(0, '127.0.0.1', resolve));
  activeUrl = `http://127.0.0.1:${(active.address() as { port: number }).port}`;
  const port = await freePort();
  door = await openHandover({
    host: '127.0.0.1',
    port,
    tls: undefined,
    lib,
    nc,
    pair: PAIR,
    node: 'box-a',
    bodyLimitBytes: 1000,
    requestTimeoutMs: 10_000,
    otherHolds: () => otherHolds,
    log: captureLog('warn').log,
  });
  doorUrl = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  relayed?.unsubscribe();
  await door?.close();
  await nc?.close();
  await new Promise((resolve) => active?.close(resolve));
});

describe("a switchover's door", () => {
  it('holds a request while no box takes it, and hands it over once the new active does: its answer back with Connection: close and WMS-Relayed-By', async () => {
    const sent = fetch(`${doorUrl}/v1/locations?x=1`, {
      method: 'POST',
      headers: { Authorization: 'Bearer t0k', 'Content-Type': 'application/json' },
      body: JSON.stringify({ locationId: 'HAD1/0001/0000/0000/0000' }),
    });
    // The new active opens once the door holds the request.
    await until(() => door.counts().holding === 1, 'the door holds the request', 30_000);
    relayed = serveRelayed(nc, PAIR, activeUrl, captureLog('warn').log);
    const reply = await sent;
    expect(reply.status).toBe(201);
    expect(reply.headers.get('connection')).toBe('close');
    expect(reply.headers.get('wms-relayed-by')).toBe('box-a');
    expect(reply.headers.get('location')).toBe('/v1/locations/1');
    expect(await reply.json()).toEqual({ made: JSON.stringify({ locationId: 'HAD1/0001/0000/0000/0000' }) });
    expect(seen).toEqual([
      { method: 'POST', url: '/v1/locations?x=1', body: JSON.stringify({ locationId: 'HAD1/0001/0000/0000/0000' }), authorization: 'Bearer t0k' },
    ]);
    expect(door.counts()).toEqual({ relayed: 1, refused: 0, holding: 0 });
  });

  it("a body larger than the box takes: 413 in the spec's body, nothing handed over", async () => {
    const before = seen.length;
    const reply = await fetch(`${doorUrl}/v1/locations`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(5000) });
    expect(reply.status).toBe(413);
    expect(await reply.json()).toMatchObject({ status: 413, error: 'Payload Too Large', path: '/v1/locations', message: expect.stringContaining('larger') });
    expect(seen.length).toBe(before);
  });

  it('an event stream is not held: its connection ends without an answer (the EventSource asks again)', async () => {
    await expect(fetch(`${doorUrl}/v1/events/stream`, { headers: { Accept: 'text/event-stream' } })).rejects.toThrow();
  });

  it("answers keepalived's check itself: 200 handing-over until the other box holds the lease, then 503 in the spec's body", async () => {
    const before = seen.length;
    const holding = await fetch(`${doorUrl}/v1/ha/active`);
    expect(holding.status).toBe(200);
    expect(await holding.json()).toEqual({ node: 'box-a', role: 'handing-over', term: null });
    otherHolds = true;
    const moved = await fetch(`${doorUrl}/v1/ha/active`);
    expect(moved.status).toBe(503);
    expect(await moved.json()).toMatchObject({ status: 503, message: expect.stringContaining('handed the active role over') });
    expect(seen.length).toBe(before);
  });
});

describe("a switchover's door whose new active does not come or does not answer", () => {
  const PAIR_E = 'halle';
  let quiet: Handover;
  let quietUrl: string;
  let mute: Subscription | undefined;

  beforeAll(async () => {
    const port = await freePort();
    quiet = await openHandover({
      host: '127.0.0.1',
      port,
      tls: undefined,
      lib,
      nc,
      pair: PAIR_E,
      node: 'box-a',
      bodyLimitBytes: 1000,
      requestTimeoutMs: 1000,
      waitForActiveMs: 300,
      otherHolds: () => false,
      log: captureLog('error').log,
    });
    quietUrl = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    mute?.unsubscribe();
    await quiet?.close();
  });

  it("no box takes the request in time: 503 with Retry-After in the spec's body, the client's request id kept", async () => {
    const reply = await fetch(`${quietUrl}/v1/locations`, { method: 'POST', headers: { 'X-Request-Id': 'door-503' }, body: '{}' });
    expect(reply.status).toBe(503);
    expect(reply.headers.get('retry-after')).toBe('2');
    expect(reply.headers.get('x-request-id')).toBe('door-503');
    expect(await reply.json()).toMatchObject({ status: 503, error: 'Service Unavailable', path: '/v1/locations', requestId: 'door-503' });
  });

  it('the new active takes the request and does not answer: 504, not sent twice (it may have been carried out)', async () => {
    let taken = 0;
    mute = nc.subscribe(`wms.ha.${PAIR_E}.relay`, {
      callback: () => {
        taken++;
      },
    });
    await nc.flush();
    const reply = await fetch(`${quietUrl}/v1/locations`, { method: 'POST', body: '{}' });
    expect(reply.status).toBe(504);
    expect(await reply.json()).toMatchObject({ status: 504, message: expect.stringContaining('may have been carried out') });
    expect(taken).toBe(1);
  });
});
