// HTTP as the reliability suites speak it: a keep-alive client on node:http that can
// send what a well-formed request may carry (any method token, repeated headers, raw
// body bytes) and never throws for a missing reply, and a raw TCP exchange for what
// no HTTP client sends (malformed request lines and headers, broken framing, aborted
// uploads). Both report what came back, or that nothing did.

import http, { type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';

export interface Reply {
  kind: 'reply';
  status: number;
  /** Lower-case names; repeated headers joined as node:http joins them. */
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** The body as JSON, or undefined when it is empty or not JSON. */
  json: unknown;
}

/** The connection ended, failed or timed out without a (complete) reply. */
interface NoReply {
  kind: 'none';
  error: string;
}

export type Outcome = Reply | NoReply;

export interface Request {
  method: string;
  /** Path and query as sent on the request line (already encoded). */
  path: string;
  /** In order; a name may repeat. */
  headers?: readonly (readonly [string, string])[];
  body?: Buffer | string;
  timeoutMs?: number;
}

function reply(status: number, headers: IncomingHttpHeaders, body: Buffer): Reply {
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { kind: 'reply', status, headers, body, text, json };
}

export class HttpClient {
  readonly url: string;
  private readonly host: string;
  private readonly port: number;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(url: string) {
    const u = new URL(url);
    this.url = url;
    this.host = u.hostname;
    this.port = Number(u.port);
  }

  send(req: Request): Promise<Outcome> {
    return new Promise((resolve) => {
      // Headers as a list keep repeats and order; node:http then adds neither Host nor
      // Content-Length, so they are added here unless the request sets them itself.
      const raw: string[] = [];
      const named = new Set((req.headers ?? []).map(([name]) => name.toLowerCase()));
      if (!named.has('host')) raw.push('Host', `${this.host}:${this.port}`);
      if (req.body !== undefined && !named.has('content-length') && !named.has('transfer-encoding')) {
        raw.push('Content-Length', String(Buffer.byteLength(req.body)));
      }
      for (const [name, value] of req.headers ?? []) raw.push(name, value);
      let settled = false;
      const settle = (o: Outcome) => {
        if (!settled) {
          settled = true;
          resolve(o);
        }
      };
      let r: http.ClientRequest;
      try {
        r = http.request({ host: this.host, port: this.port, method: req.method, path: req.path, headers: raw, agent: this.agent });
      } catch (err) {
        // The client refuses to put it on the wire (an unescaped path, a bad header).
        settle({ kind: 'none', error: `not sendable: ${(err as Error).message}` });
        return;
      }
      r.setTimeout(req.timeoutMs ?? 15_000, () => {
        settle({ kind: 'none', error: 'timeout' });
        r.destroy();
      });
      r.on('error', (err) => settle({ kind: 'none', error: (err as NodeJS.ErrnoException).code ?? err.message }));
      r.on('response', (res) => {
        // A stream (Server-Sent Events) never ends by itself: its head is the answer.
        if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          settle(reply(res.statusCode ?? 0, res.headers, Buffer.alloc(0)));
          res.destroy();
          r.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => settle(reply(res.statusCode ?? 0, res.headers, Buffer.concat(chunks))));
        res.on('error', (err) => settle({ kind: 'none', error: `reply cut: ${err.message}` }));
        res.on('aborted', () => settle({ kind: 'none', error: 'reply aborted' }));
      });
      r.end(req.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface RawOptions {
  timeoutMs?: number;
  /** Close our side after writing (a client that gives up half-way). */
  endAfterWrite?: boolean;
}

/**
 * Writes bytes on a fresh connection and reads one reply (skipping 1xx). Resolves
 * with the reply once it is complete, or NoReply when the connection ends first.
 */
export function rawExchange(url: string, bytes: Buffer | readonly Buffer[], options: RawOptions = {}): Promise<Outcome> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(u.port), u.hostname);
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => settle(parseReply(received, true) ?? { kind: 'none', error: 'timeout' }), options.timeoutMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseReply(received, false);
      if (parsed) settle(parsed);
    });
    socket.on('close', () =>
      settle(
        parseReply(received, true) ?? {
          kind: 'none',
          error: received.length ? `incomplete reply: ${received.toString('latin1').slice(0, 200)}` : 'closed without reply',
        },
      ),
    );
    socket.on('error', () => {
      /* a reset while we still write: what was read is judged on close */
    });
    socket.on('connect', () => {
      for (const b of Array.isArray(bytes) ? bytes : [bytes]) socket.write(b);
      if (options.endAfterWrite) socket.end();
    });
  });
}

/** One HTTP/1.x reply from the bytes so far; `ended`: no more will come. Undefined while incomplete. */
function parseReply(data: Buffer, ended: boolean): Outcome | undefined {
  let start = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', start);
    if (headEnd < 0) return undefined;
    const lines = data.subarray(start, headEnd).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(lines[0] ?? '')?.[1]);
    if (!status) return { kind: 'none', error: `not an HTTP reply: ${lines[0]}` };
    const headers: IncomingHttpHeaders = {};
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const name = line.slice(0, i).trim().toLowerCase();
      const value = line.slice(i + 1).trim();
      const prior = headers[name];
      headers[name] = prior === undefined ? value : `${String(prior)}, ${value}`;
    }
    const bodyStart = headEnd + 4;
    if (status >= 100 && status < 200) {
      start = bodyStart;
      continue;
    }
    // A stream (Server-Sent Events) never ends by itself: its head is the answer.
    if (String(headers['content-type'] ?? '').startsWith('text/event-stream')) return reply(status, headers, Buffer.alloc(0));
    if (status === 204 || status === 304) return reply(status, headers, Buffer.alloc(0));
    const length = headers['content-length'];
    if (length !== undefined) {
      const n = Number(length);
      if (data.length - bodyStart < n) return undefined;
      return reply(status, headers, data.subarray(bodyStart, bodyStart + n));
    }
    if (
      String(headers['transfer-encoding'] ?? '')
        .toLowerCase()
        .includes('chunked')
    ) {
      const body = dechunk(data.subarray(bodyStart));
      return body ? reply(status, headers, body) : undefined;
    }
    return ended ? reply(status, headers, data.subarray(bodyStart)) : undefined;
  }
}

function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return Buffer.concat(parts);
    if (size === 0) return Buffer.concat(parts);
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
