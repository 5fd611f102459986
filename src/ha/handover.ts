import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { NatsConnection } from '@nats-io/transport-node';
import { newRequestId } from '../core/ids.ts';
import type { Logger } from '../core/log.ts';
import { serverDeclinedBody } from '../http/errors.ts';
import { REQUEST_ID, SAFETY_HEADERS } from '../http/server.ts';
import { drain, listen, readTls } from '../http/lifecycle.ts';
import type { Config } from '../config.ts';
import type { PairCluster } from './cluster.ts';
import { JSON_TYPE } from '../http/negotiation.ts';
import type { NatsLibraries } from '../nats/connect.ts';
import { decodeRelay, encodeRelay, endToEnd, RELAY_MAX_BYTES, relaySubject, type RelayedAnswer } from './relay.ts';

// The former active's door during a planned switchover (docs/ha.md, "A planned
// switchover"): a switchover refuses no request. Before the active's own server stops
// taking connections, this one listens on the same port beside it (both with
// SO_REUSEPORT: the kernel hands each new connection to one of them, and none is turned
// away in between). What arrives here is held until the standby has taken the lease and
// opened, then relayed to it over the pair's NATS cluster (relay.ts) and its answer sent
// back, with `Connection: close` and `WMS-Relayed-By: <this box>`: the client's next
// request opens a new connection, which the floating address leads to the new active once
// keepalived has moved it.
// keepalived's check (`GET /v1/ha/active`) is answered here: yes until the other box
// holds the lease (the address stays where requests are held), then no (it moves).

/**
 * The door stays open this long after the other box took the lease: keepalived finds
 * this box's check failing twice a second apart (`fall 2`, `interval 1`), and the other
 * box's passing, before the floating address moves (docs/ha/keepalived.conf).
 */
const DOOR_OPEN_AFTER_MS = 4000;

/** How long the door's close waits for the requests it holds before it cuts their connections. */
const DRAIN_MS = 5000;

/** How long a held request waits for a new active at most (unless told otherwise); then it is answered 503 with Retry-After. */
const WAIT_FOR_ACTIVE_MS = 15_000;
/** How often the door looks whether the other box holds the lease (its own lease's reading, no call). */
const LOOK_EVERY_MS = 100;
/** How often a request no active took yet is sent again ("no responders": nobody subscribes yet). */
const AGAIN_MS = 100;

export interface HandoverOptions {
  host: string;
  port: number;
  tls: { cert: Buffer; key: Buffer } | undefined;
  lib: NatsLibraries;
  nc: NatsConnection;
  pair: string;
  node: string;
  /** The limit a request's body has on the appliance (server.bodyLimitBytes). */
  bodyLimitBytes: number;
  /** How long the new active may take to answer one request (server.requestTimeoutMs). */
  requestTimeoutMs: number;
  /** Whether the other box holds the lease now. */
  otherHolds: () => boolean;
  /** How long a held request waits for a new active (WAIT_FOR_ACTIVE_MS). */
  waitForActiveMs?: number;
  log: Logger;
}

export interface Handover {
  /** Stops taking connections, answers what it holds, and resolves once every connection is closed. */
  close(): Promise<void>;
  /** Requests relayed and answered, answered with a refusal of this server's own, and held now (no active has taken them yet). */
  counts(): DoorCounts;
}

/** The switchover's door on the appliance's port; none (a switchover as before: refusals while it lasts) if it cannot listen. */
export async function openDoor(config: Config, cluster: PairCluster, port: number, otherHolds: () => boolean, log: Logger): Promise<Handover | undefined> {
  try {
    return await openHandover({
      host: config.server.host,
      port,
      tls: readTls(config.server.tls),
      lib: cluster.lib,
      nc: cluster.nc,
      pair: config.ha.pair!,
      node: config.ha.node!,
      bodyLimitBytes: config.server.bodyLimitBytes,
      requestTimeoutMs: config.server.requestTimeoutMs,
      otherHolds,
      log,
    });
  } catch (err) {
    log.warn({ err }, 'switchover: no door for the requests that arrive meanwhile; they are refused until the other box acts');
    return undefined;
  }
}

/**
 * Closes the door once the other box has held the lease for DOOR_OPEN_AFTER_MS (the
 * floating address has moved by then); or when the other box did not take it while this
 * one left it (two TTLs): this box may take it back then.
 */
export async function closeDoorOnceMoved(door: Handover, otherHolds: () => boolean, leaseTtlMs: number, stop: AbortSignal): Promise<void> {
  const openedAt = performance.now();
  const atMostMs = 2 * leaseTtlMs + DOOR_OPEN_AFTER_MS;
  let heldSince: number | undefined;
  while (!stop.aborted && performance.now() - openedAt < atMostMs) {
    if (!otherHolds()) heldSince = undefined;
    else if (performance.now() - (heldSince ??= performance.now()) >= DOOR_OPEN_AFTER_MS) break;
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
  }
  await door.close();
}

/** Listens beside the active's own server on its port; the caller stops that one next. */
export async function openHandover(options: HandoverOptions): Promise<Handover> {
  const counts: DoorCounts = { relayed: 0, refused: 0, holding: 0 };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    void answer(options, req, res, counts).catch((err: unknown) => {
      options.log.warn({ err, method: req.method, url: req.url }, 'switchover: a held request failed');
      if (!res.headersSent) refuse(res, req, 502, 'The request could not be handed to the new active box', counts);
      else res.destroy();
    });
  };
  // A request whose client went silent (its packets reach the other box once the address
  // moved) is cut off at the appliance's request timeout, checked every second.
  const serverOptions = { connectionsCheckingInterval: 1000 };
  const server = options.tls
    ? https.createServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key }, handle)
    : http.createServer(serverOptions, handle);
  server.requestTimeout = options.requestTimeoutMs;
  server.headersTimeout = Math.min(options.requestTimeoutMs, 60_000);
  server.keepAliveTimeout = 1000;
  await listen(server, options.port, options.host, { shared: true });
  options.log.info({ port: options.port }, 'switchover: requests that arrive here are held and handed to the new active');
  return {
    counts: () => ({ ...counts }),
    async close() {
      // What it holds is answered first; a connection whose client went silent is not waited for.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const cut = await drain(server, closed, DRAIN_MS);
      options.log.info({ ...counts, cut }, 'switchover: no more requests arrive here');
    },
  };
}

interface DoorCounts {
  relayed: number;
  refused: number;
  holding: number;
}

async function answer(options: HandoverOptions, req: IncomingMessage, res: ServerResponse, counts: DoorCounts): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === '/v1/ha/active' && req.method === 'GET') return acting(options, req, res, counts);
  // An event stream cannot be relayed message by message: the connection ends without an
  // answer, and the browser's EventSource asks again (with its Last-Event-ID) until it
  // reaches the new active.
  if ((req.headers.accept ?? '').includes('text/event-stream')) return void res.destroy();
  const limit = Math.min(options.bodyLimitBytes, RELAY_MAX_BYTES);
  const body = await readAll(req, limit);
  if (body === undefined) return refuse(res, req, 413, `The request body is larger than this box can hand over while it switches (${limit} bytes)`, counts);
  const payload = encodeRelay({ method: req.method ?? 'GET', url: req.url ?? '/', headers: endToEnd(req.headers) }, body);
  const giveUpAt = performance.now() + (options.waitForActiveMs ?? WAIT_FOR_ACTIVE_MS);
  counts.holding++;
  try {
    return await handOn(options, req, res, counts, payload, giveUpAt);
  } finally {
    counts.holding--;
  }
}

/** Sends the held request to the new active until one takes it (or `giveUpAt`), and writes its answer. */
async function handOn(
  options: HandoverOptions,
  req: IncomingMessage,
  res: ServerResponse,
  counts: DoorCounts,
  payload: Buffer,
  giveUpAt: number,
): Promise<void> {
  const { NoRespondersError, RequestError, TimeoutError } = options.lib.nats.errors;
  const nobodyTook = (err: unknown) => err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders());
  const unanswered = (err: unknown) => err instanceof TimeoutError || (err instanceof Error && err.cause instanceof TimeoutError);
  for (;;) {
    try {
      const reply = await options.nc.request(relaySubject(options.pair), payload, { timeout: options.requestTimeoutMs });
      const { head, body: replyBody } = decodeRelay<RelayedAnswer>(reply.data);
      if (head.tooLarge) return refuse(res, req, 503, 'The answer is larger than this box can hand over while it switches: ask again', counts, '1');
      counts.relayed++;
      // Said on the answer: which box relayed it (the answer itself is the new active's).
      res.writeHead(head.status, { ...head.headers, 'content-length': String(replyBody.length), connection: 'close', 'wms-relayed-by': options.node });
      res.end(replyBody);
      return;
    } catch (err) {
      // Nobody took it: no active yet (the other box is taking over). Sent again shortly.
      if (nobodyTook(err) && performance.now() < giveUpAt) {
        await new Promise((resolve) => setTimeout(resolve, AGAIN_MS));
        continue;
      }
      if (nobodyTook(err)) return refuse(res, req, 503, 'No box of the pair acts at the moment: ask again shortly', counts, '2');
      // Sent, and not answered in time: it may have been carried out. It is not sent twice.
      if (unanswered(err))
        return refuse(res, req, 504, 'The new active box did not answer in time: the request may have been carried out; look before sending it again', counts);
      throw err;
    }
  }
}

/** keepalived's check: the floating address stays here until the other box holds the lease. */
function acting(options: HandoverOptions, req: IncomingMessage, res: ServerResponse, counts: DoorCounts): void {
  if (options.otherHolds()) return refuse(res, req, 503, `Box ${options.node} handed the active role over; the other box acts`, counts, undefined, false);
  const body = JSON.stringify({ node: options.node, role: 'handing-over', term: null });
  res.writeHead(200, { ...SAFETY_HEADERS, 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
  res.end(body);
}

/** The whole body, or undefined once it passes `limit` bytes. */
function readAll(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= limit ? Buffer.concat(chunks) : undefined));
    req.on('error', reject);
  });
}

/** A refusal of this server's own, in the spec's server-declined body. */
function refuse(
  res: ServerResponse,
  req: IncomingMessage,
  status: number,
  message: string,
  counts: { refused: number },
  retryAfter?: string,
  counted = true,
): void {
  if (counted) counts.refused++;
  // As the appliance's own refusals: the client's request id if it gave one, the safety headers.
  const given = req.headers['x-request-id'];
  const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
  const body = JSON.stringify(serverDeclinedBody(status, message, (req.url ?? '/').split('?')[0]!, requestId));
  res.writeHead(status, {
    ...SAFETY_HEADERS,
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    connection: 'close',
    ...(retryAfter ? { 'retry-after': retryAfter } : {}),
  });
  res.end(body);
}
