import http from 'node:http';
import https from 'node:https';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from '../core/log.ts';

// A request relayed from the box that hands the active role over to the box that took it
// (docs/ha.md, "A planned switchover"). While the floating address still leads to the
// former active, what arrives there is sent over the pair's NATS cluster to the new
// active, which runs it through its own HTTP server as if it had come from the LAN:
// authentication, validation, the group commit and the wait for the change log are its
// own. The answer goes back the same way. Nothing is relayed twice: a request that
// reached the new active and got no answer in time is answered as such, not sent again.

/** The subject the active takes relayed requests on. */
export function relaySubject(pair: string): string {
  return `wms.ha.${pair}.relay`;
}

/** What travels, besides the body: the request's line and headers, or the answer's status and headers. */
export interface RelayedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: Record<string, string | string[]>;
}

export interface RelayedAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  /** The server's answer was larger than a relayed answer may be: not sent (the former active asks the client to try again). */
  tooLarge?: true;
}

/** The most a relayed request or answer carries: below NATS's default payload limit (1 MiB), with room for the head. */
export const RELAY_MAX_BYTES = 1000 * 1024;

/** Headers that belong to one connection, not to the request: the relay's own connection has its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection', 'content-length', 'host']);

/** The headers of `raw` that travel (node:http's lower-cased header object). */
export function endToEnd(raw: http.IncomingHttpHeaders): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(raw)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  return headers;
}

/** One message: the head's length (4 bytes), the head as JSON, the body. */
export function encodeRelay(head: RelayedRequest | RelayedAnswer, body: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(head));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json, body]);
}

export function decodeRelay<T extends RelayedRequest | RelayedAnswer>(data: Uint8Array): { head: T; body: Buffer } {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const length = bytes.readUInt32BE(0);
  return { head: JSON.parse(bytes.subarray(4, 4 + length).toString()) as T, body: bytes.subarray(4 + length) };
}

/**
 * The active's side: runs each relayed request against its own server at `url` (the
 * loopback address its edge listens on) and answers with what the server answered. An
 * answer too large to travel is replaced by a 503 asking to try again (by then the
 * floating address leads here).
 */
export function serveRelayed(nc: NatsConnection, pair: string, url: string, log: Logger): Subscription {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return nc.subscribe(relaySubject(pair), {
    callback: (error, message) => {
      if (error) return log.warn({ err: error }, 'relayed requests: the subscription failed');
      let request: { head: RelayedRequest; body: Buffer };
      try {
        request = decodeRelay<RelayedRequest>(message.data);
      } catch (err) {
        return log.warn({ err }, 'a relayed request that cannot be read was dropped');
      }
      const { head, body } = request;
      const outgoing = client.request(
        {
          // An IPv6 address comes bracketed in a URL, bare in a request's options.
          host: target.hostname.replace(/^\[|\]$/g, ''),
          port: target.port,
          method: head.method,
          path: head.url,
          headers: { ...head.headers, 'content-length': String(body.length) },
          // The loopback to this box's own listener: its certificate names the site's address, not 127.0.0.1.
          rejectUnauthorized: false,
          agent: false,
        },
        (reply) => {
          const chunks: Buffer[] = [];
          let size = 0;
          reply.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= RELAY_MAX_BYTES) chunks.push(chunk);
          });
          reply.on('end', () => {
            if (size > RELAY_MAX_BYTES) return message.respond(encodeRelay({ status: 503, headers: {}, tooLarge: true }, Buffer.alloc(0)));
            message.respond(encodeRelay({ status: reply.statusCode ?? 502, headers: endToEnd(reply.headers) }, Buffer.concat(chunks)));
          });
          reply.on('error', (err) => log.warn({ err }, 'a relayed request: the answer broke off'));
        },
      );
      outgoing.on('error', (err) => log.warn({ err, method: head.method, url: head.url }, 'a relayed request could not be run here'));
      outgoing.end(body);
    },
  });
}
