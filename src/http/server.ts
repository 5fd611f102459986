import { createReadStream } from 'node:fs';
import http, { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { Logger } from '../core/log.ts';
import { newRequestId } from '../core/ids.ts';
import type { IndexBody } from './hal.ts';
import type { HttpMetrics } from './metrics.ts';
import { RequestContext, type Principal, type RequestContextInit } from './context.ts';
import { errorReply, runHandler, type Commits } from './handling.ts';
import { displayPath, ServerDeclined, serverDeclinedBody, type MessageKeyFamily } from './errors.ts';
import {
  HAL_JSON,
  JSON_TYPE,
  OCTETS,
  XML,
  acceptable,
  bodyKinds,
  indexToXml,
  jsonContentType,
  mediaTypeOf,
  parseAccept,
  requestTypes,
  takesBodyAs,
  type Representation,
} from './negotiation.ts';
import { namesGrant, PUBLIC, threadOf, type Reply, type Route, type Router } from './router.ts';
import { carriesBody, ClientGone, readBody, roomOrGone } from './body.ts';
import { allowedMethods, applyCors, preflight, VARY } from './cors.ts';

export interface HttpOptions {
  router: Router;
  /** Resolves the caller from the `Authorization` header (synchronously when it can); throws `AuthenticationError`. */
  authenticate: (authorization: string | undefined) => Promise<Principal> | Principal;
  /** Resolves the caller from a single-use ticket (routes with `ticket: true`); throws `AuthenticationError`. */
  redeemTicket?: ((ticket: string) => Principal) | undefined;
  log: Logger;
  bodyLimitBytes: number;
  corsOrigins: readonly string[];
  publicUrl: string | undefined;
  messageKeys: MessageKeyFamily;
  requestTimeoutMs: number;
  /** Counts answered requests for /metrics. */
  metrics?: HttpMetrics | undefined;
  /** The group commit the handlers' writes join (core/unit-of-work.ts); absent where nothing is written. */
  commits?: Commits | undefined;
  /**
   * Hands a request whose route runs on the conveyor thread over to it (docs/realtime.md)
   * and resolves with its reply, a refusal included; absent where every route runs here.
   */
  forward?: ((route: Route, request: RequestContextInit) => Promise<Reply>) | undefined;
  /** HTTPS with this certificate chain and key (PEM); plain HTTP without. */
  tls?: { cert: Buffer; key: Buffer } | undefined;
  /**
   * A standby of a pair (docs/ha.md): every reply says so (`WMS-Pair-Role: standby`),
   * and a request that may write is refused with what this gives (503, Retry-After):
   * every one but a read and a change that touches no database (thread `http`: an
   * event stream's ticket, kept in memory).
   */
  standby?: { refusal: () => ServerDeclined } | undefined;
}

/** Methods that never write: a standby serves them. */
const READING = new Set(['GET', 'HEAD']);

/** How long an idle keep-alive connection is kept open for the client's next request. */
const KEEP_ALIVE_MS = 65_000;

export const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const HOST = /^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
/** A `%` not followed by two hex digits. */
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;

/**
 * The node:http server: request id, CORS, routing, negotiation, authentication and
 * authorisation, body limits, and the one place where errors become the spec's bodies.
 */
export function createHttpServer(options: HttpOptions): http.Server {
  // Timeouts are checked at this interval (Node's default, 30 s, would let a request
  // that should be cut off after its timeout linger up to 30 s longer).
  const checkEveryMs = Math.min(1000, options.requestTimeoutMs);
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    // Stopping (lifecycle.ts, stopServing): a request on a connection still open is
    // answered, and the client told to open a new connection for its next one.
    if (!server.listening) res.setHeader('Connection', 'close');
    new Exchange(options, req, res).start();
  };
  const server: http.Server = options.tls
    ? https.createServer({ connectionsCheckingInterval: checkEveryMs, requireHostHeader: false, cert: options.tls.cert, key: options.tls.key }, handle)
    : http.createServer({ connectionsCheckingInterval: checkEveryMs, requireHostHeader: false }, handle);
  server.requestTimeout = options.requestTimeoutMs;
  server.headersTimeout = Math.min(options.requestTimeoutMs, 60_000);
  // An idle keep-alive connection is closed by the client first: the server closing it
  // (Node's default after 5 s) races a client that sends its next request on it at that
  // moment, which then fails ("other side closed"). Clients give up idle connections
  // sooner (undici 4 s, browsers and proxies within a minute or so).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => declineUnparsed(options, err, socket));
  // Requests Node would answer by itself with a bare status line, answered like any
  // other refusal: an `Expect` other than 100-continue, and CONNECT (no proxy here).
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    new Exchange(options, req, res).decline(new ServerDeclined(417, `Expect: ${req.headers.expect} is not supported; send the request without it`));
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    writeRaw(options, socket, 405, `CONNECT is not supported here: the appliance is no proxy`, { Allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS' });
  });
  return server;
}

/**
 * Node's HTTP parser refuses some requests before any handler sees them (an unknown
 * method, a duplicate Content-Length, a header section over 16 KiB, a request that took
 * longer than the request timeout); left to Node, they get a bare status line. They get
 * the server-declined body and a request id like every other refusal. A client that
 * went away gets nothing (a debug line).
 */
function declineUnparsed(options: HttpOptions, err: NodeJS.ErrnoException, socket: Duplex): void {
  const status = PARSER_STATUS[err.code ?? ''] ?? 400;
  // Reset, or ended in the middle of a request: nobody is left to read an answer.
  if (err.code === 'ECONNRESET' || err.code === 'HPE_INVALID_EOF_STATE' || !socket.writable) {
    options.log.debug({ code: err.code }, 'client went away');
    socket.destroy();
    return;
  }
  const message = PARSER_MESSAGE[err.code ?? ''] ?? `Malformed HTTP request (${err.code ?? err.message})`;
  writeRaw(options, socket, status, message, { code: err.code ?? '' });
}

/** A server-declined reply written straight to a socket no request object owns, then closed. */
function writeRaw(options: HttpOptions, socket: Duplex, status: number, message: string, extra: Record<string, string> = {}): void {
  const requestId = newRequestId();
  options.log.debug({ requestId, status, ...extra }, message);
  const body = JSON.stringify(serverDeclinedBody(status, message, '', requestId));
  const headers = Object.entries(extra)
    .filter(([k]) => k !== 'code')
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Content-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n` +
      `${headers}${SAFETY_HEADERS_TEXT}Connection: close\r\n\r\n${body}`,
  );
}

const PARSER_STATUS: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_INVALID_METHOD: 501,
};
const PARSER_MESSAGE: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'Request header section is larger than 16 KiB',
  ERR_HTTP_REQUEST_TIMEOUT: 'Request not complete within the request timeout',
  HPE_INVALID_METHOD: 'Unknown HTTP method',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length given twice or together with Transfer-Encoding',
  HPE_INVALID_CONTENT_LENGTH: 'Invalid Content-Length',
  HPE_INVALID_TRANSFER_ENCODING: 'Invalid Transfer-Encoding',
};

/**
 * On every reply: no MIME sniffing (a JSON body is never run as a page), and no caching
 * of API replies anywhere between the box and the browser (they hold warehouse state
 * and sometimes tokens).
 */
export const SAFETY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };
const SAFETY_HEADERS_TEXT = Object.entries(SAFETY_HEADERS)
  .map(([k, v]) => `${k}: ${v}\r\n`)
  .join('');

/**
 * One request from arrival to reply. The common path (cached token, synchronous
 * handler, no body) runs to the reply in one go, without a detour through the
 * microtask queue; a step that has to wait (first sight of a token, a request body,
 * an asynchronous handler) continues from its promise.
 */
class Exchange {
  private readonly options: HttpOptions;
  private readonly req: IncomingMessage;
  private readonly res: ServerResponse;
  private readonly requestId: string;
  private readonly rawPath: string;
  private readonly rawQuery: string;
  private readonly headers: Record<string, string>;
  private readonly originAllowed: boolean;
  private route: Route | undefined;
  private params: Record<string, string> = {};
  private query: URLSearchParams | undefined;
  private accept: readonly string[] = [];
  private representation: Representation = 'json';
  private principal: Principal | undefined;
  private readonly arrived = process.hrtime.bigint();
  private readonly fail = (err: unknown) => this.done(sendError(this.options, this.req, this.res, err, this.rawPath, this.requestId, this.headers));

  constructor(options: HttpOptions, req: IncomingMessage, res: ServerResponse) {
    this.options = options;
    this.req = req;
    this.res = res;
    const suppliedId = req.headers['x-request-id'];
    this.requestId = typeof suppliedId === 'string' && REQUEST_ID.test(suppliedId) ? suppliedId : newRequestId();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.rawPath = q < 0 ? url : url.slice(0, q);
    this.rawQuery = q < 0 ? '' : url.slice(q + 1);
    this.headers = { 'X-Request-Id': this.requestId, Vary: VARY, ...SAFETY_HEADERS };
    if (options.standby) this.headers['WMS-Pair-Role'] = 'standby';
    this.originAllowed = applyCors(options, req, this.headers);
  }

  /** Refuses the request before it is routed (a refusal Node would otherwise answer itself). */
  decline(err: ServerDeclined): void {
    this.fail(err);
  }

  /** Routing, negotiation and authentication. */
  start(): void {
    try {
      const { req, rawPath, rawQuery } = this;
      // HTTP/1.1 requires Host (Node would refuse it with a bare 400; refused here in the spec's format).
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
        throw new ServerDeclined(400, 'Host header missing (required by HTTP/1.1)');
      }
      const query = new URLSearchParams(rawQuery);
      if (BAD_PERCENT.test(rawPath) || BAD_PERCENT.test(rawQuery) || !decodesCleanly(rawQuery, query)) {
        throw new ServerDeclined(400, 'Bad percent-encoding in the request URL');
      }
      this.query = query;
      if (req.method === 'OPTIONS') return preflight(this.options, req, this.res, rawPath, this.headers, this.originAllowed);

      const match = this.options.router.match(req.method ?? 'GET', rawPath, query);
      if (match.kind === 'not-found') throw new ServerDeclined(404, `No resource at ${displayPath(rawPath)}`);
      if (match.kind === 'method-not-allowed') {
        const allow = allowedMethods(match.allow);
        throw new ServerDeclined(405, `${req.method} is not supported here; use ${allow}`, { Allow: allow });
      }
      if (match.kind === 'query-missing') {
        throw new ServerDeclined(400, `Missing query parameters: expected ${match.expected.map((e) => `?${e}`).join(' or ')}`);
      }
      const route = match.route;
      if (this.options.standby && !READING.has(req.method ?? 'GET') && route.thread !== 'http') throw this.options.standby.refusal();
      this.route = route;
      this.params = match.params;
      this.accept = parseAccept(req.headers.accept);
      const representation = acceptable(route, this.accept);
      if (!representation) {
        throw new ServerDeclined(406, `Cannot answer ${req.headers.accept}; this resource speaks ${offered(route)}`);
      }
      this.representation = representation;

      if (route.grant === PUBLIC) return this.authorised(undefined);
      const ticket = route.ticket && !req.headers.authorization ? query.get('ticket') : null;
      if (ticket !== null && this.options.redeemTicket) return this.authorised(this.options.redeemTicket(ticket));
      const principal = this.options.authenticate(req.headers.authorization);
      if (principal instanceof Promise) principal.then((p) => this.authorised(p), this.fail);
      else this.authorised(principal);
    } catch (err) {
      this.fail(err);
    }
  }

  /** Grant check, then the body when the route takes one. */
  private authorised(principal: Principal | undefined): void {
    try {
      const route = this.route!;
      if (principal && namesGrant(route.grant) && !principal.grants.has(route.grant)) {
        throw new ServerDeclined(403, `Access denied: the grant ${route.grant} is needed for this operation`);
      }
      this.principal = principal;
      const kinds = bodyKinds(route);
      if (!carriesBody(this.req)) return this.run(undefined, undefined);
      // A route that takes no body ignores one, but only once it has arrived whole: a
      // request whose body turns out malformed (a broken chunk) is refused before it
      // changes anything, never after.
      if (kinds.length === 1 && kinds[0] === 'none') {
        readBody(this.req, this.options.bodyLimitBytes).then(() => this.run(undefined, undefined), this.fail);
        return;
      }
      // A route whose body is optional reads it when one comes.
      const contentType = mediaTypeOf(this.req.headers['content-type']);
      if (!kinds.some((kind) => takesBodyAs(route, kind, contentType))) {
        const types = kinds.flatMap((kind) => (kind === 'none' ? ['no body'] : requestTypes(route, kind)));
        throw new ServerDeclined(415, `Content type ${contentType ?? '(none)'} is not supported here; send ${types.join(', ')}`);
      }
      readBody(this.req, this.options.bodyLimitBytes).then((body) => this.run(body, contentType), this.fail);
    } catch (err) {
      this.fail(err);
    }
  }

  /** The handler, here or on the conveyor thread, and its reply on the wire. */
  private run(body: Buffer | undefined, contentType: string | undefined): void {
    try {
      const route = this.route!;
      const request: RequestContextInit = {
        requestId: this.requestId,
        method: this.req.method ?? 'GET',
        path: this.rawPath,
        params: this.params,
        query: this.query!,
        headers: this.req.headers,
        baseUrl: baseUrl(this.options, this.req),
        clientAddress: this.req.socket.remoteAddress ?? 'unknown',
        principal: this.principal,
        body,
        contentType,
        accept: this.accept,
      };
      const { forward } = this.options;
      if (forward && threadOf(route) === 'conveyor') forward(route, request).then(this.send, this.fail);
      else runHandler(route, new RequestContext(request), this.options.commits, this.send, this.fail);
    } catch (err) {
      this.fail(err);
    }
  }

  private readonly send = (reply: Reply): void => {
    try {
      if (reply.items) {
        void this.writeItems(reply, reply.items);
        return;
      }
      send(this.res, this.route!, this.accept, this.representation, reply, this.headers);
      this.done(reply.status);
    } catch (err) {
      this.fail(err);
    }
  };

  /**
   * A JSON array from its chunks. The head goes out before the first row is read (the
   * client sees the answer begin at once); each chunk is written when the socket has
   * room for it. Closing the iterator (return) ends the snapshot it reads from, also
   * when the client goes away half-way.
   */
  private async writeItems(reply: Reply, items: AsyncIterable<readonly unknown[]>): Promise<void> {
    const { res } = this;
    Object.assign(this.headers, reply.headers);
    this.headers['Content-Type'] = reply.type ?? jsonContentType(this.route!, this.accept, []);
    res.writeHead(reply.status, this.headers);
    let first = true;
    try {
      res.write('[');
      for await (const chunk of items) {
        if (res.destroyed) break;
        let text = '';
        for (const item of chunk) {
          text += first ? JSON.stringify(item) : `,${JSON.stringify(item)}`;
          first = false;
        }
        if (!res.write(text)) await roomOrGone(res);
      }
      if (!res.destroyed) res.end(']');
      this.done(reply.status);
    } catch (err) {
      this.options.log.error({ requestId: this.requestId, path: this.rawPath, err }, 'list failed while it was being written; connection cut');
      res.destroy();
      this.done(500);
    }
  }

  /** Counts the answered request for /metrics, by route template. */
  private done(status: number): void {
    const seconds = Number(process.hrtime.bigint() - this.arrived) / 1e9;
    this.options.metrics?.observe(this.req.method ?? 'GET', this.route?.path ?? 'unmatched', status, seconds);
  }
}

function send(
  res: ServerResponse,
  route: Route,
  accept: readonly string[],
  representation: Representation,
  reply: Reply,
  headers: Record<string, string>,
): void {
  if (reply.status === 201 && !reply.headers?.Location && !reply.withoutLocation) {
    throw new Error(`${route.method} ${route.path} answered 201 without a Location header`);
  }
  Object.assign(headers, reply.headers);
  if (reply.stream) {
    headers['Content-Type'] = reply.type ?? 'text/event-stream';
    res.writeHead(reply.status, headers);
    // HEAD: the head is the answer (Node would hold it back until a body write that never comes).
    if (res.req.method === 'HEAD') {
      res.end();
      return;
    }
    reply.stream(res);
    return;
  }
  if (reply.file) {
    headers['Content-Type'] = reply.type ?? OCTETS;
    headers['Content-Length'] = String(reply.file.size);
    res.writeHead(reply.status, headers);
    createReadStream(reply.file.path)
      .on('error', () => res.destroy())
      .pipe(res);
    return;
  }
  let payload: string | Buffer | undefined;
  if (reply.raw) {
    payload = reply.raw;
    headers['Content-Type'] = reply.type ?? OCTETS;
  } else if (reply.body !== undefined) {
    if (representation === 'xml') {
      payload = indexToXml(reply.body as IndexBody);
      headers['Content-Type'] = XML;
    } else {
      payload = JSON.stringify(reply.body);
      headers['Content-Type'] = reply.type ?? jsonContentType(route, accept, reply.body);
    }
  }
  if (payload !== undefined) headers['Content-Length'] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}

function sendError(
  options: HttpOptions,
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  rawPath: string,
  requestId: string,
  headers: Record<string, string>,
): number {
  if (err instanceof ClientGone) {
    options.log.debug({ requestId, method: req.method, path: rawPath }, err.message);
    res.destroy();
    return 499;
  }
  const { status, body, type, headers: added } = errorReply(err, options, { requestId, method: req.method, rawPath });
  if (res.headersSent || res.destroyed) return status;
  Object.assign(headers, added);
  const payload = JSON.stringify(body);
  headers['Content-Type'] = type;
  headers['Content-Length'] = String(Buffer.byteLength(payload));
  // After an oversize body the rest of it is still on the wire: close instead of reading it.
  if (status === 413) headers.Connection = 'close';
  res.writeHead(status, headers);
  res.end(payload);
  return status;
}

function offered(route: Route): string {
  return [...(route.vendorTypes ?? []), HAL_JSON, JSON_TYPE, ...(route.index ? [XML] : [])].join(', ');
}

function baseUrl(options: HttpOptions, req: IncomingMessage): string {
  if (options.publicUrl) return options.publicUrl.replace(/\/+$/, '');
  const host = req.headers.host;
  return `${options.tls ? 'https' : 'http'}://${host && HOST.test(host) ? host : 'localhost'}`;
}

/**
 * URLSearchParams turns a percent-sequence that is not UTF-8 into U+FFFD instead of
 * failing; such a value is refused (a literal U+FFFD arrives as %EF%BF%BD and is refused
 * too, which no warehouse key contains).
 */
function decodesCleanly(rawQuery: string, query: URLSearchParams): boolean {
  if (!rawQuery.includes('%')) return true;
  for (const [key, value] of query) if (key.includes('\uFFFD') || value.includes('\uFFFD')) return false;
  return true;
}
