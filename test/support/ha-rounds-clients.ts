import http from 'node:http';
import type { Socket } from 'node:net';
import { HALL_PORTS } from './netns.ts';

// The clients of the pair's long form (test/support/ha-rounds.ts): writers that create
// locations through the floating address, as PLCs and the ERP reach the pair, and the
// read that looks for every acknowledged one afterwards, through the API as well.

/**
 * A client's patience with one write: a request to a box that stands still fails after
 * this and goes again. Longer than a switchover holds a request (docs/ha.md), shorter
 * than an ERP's or a browser's patience (30 s and more).
 */
const WRITE_TIMEOUT_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One write some box acknowledged (201), and which box: the one at the other end of the client's TCP connection. */
export interface Ack {
  locationId: string;
  round: number;
  /** `box-a` or `box-b`; undefined when the connection closed before it could be asked. */
  box: string | undefined;
  sentAt: number;
  ackAt: number;
}

/** A write not acknowledged: answered otherwise than 201 (`status`), or not answered at all (`status` undefined: what went wrong on the way). */
export interface Refusal {
  locationId: string;
  round: number;
  at: number;
  status: number | undefined;
  why: string;
}

export interface Writers {
  stop(): Promise<void>;
}

/**
 * Which box acknowledged a write: both boxes answer at the same floating address, so the
 * address does not say, and telling it by the time against the boxes' lease history
 * would take for granted what is checked (that only the holder acknowledges). Writing
 * to the boxes' own addresses instead would leave the floating address untested. The
 * TCP connection says it: each box is a network stack of its own,
 * and a connection made to one is never answered by the other (when the address moves,
 * the other box resets it). So each client keeps one connection open and asks on it,
 * once, `GET /v1/ha` (which names the box, on either role); every write acknowledged on
 * that connection is that box's. A write whose connection closed before it could be asked
 * stays unattributed: it still counts for the lost writes, not for the lease check.
 */
const boxOfSocket = new WeakMap<Socket, string>();

interface Answer {
  status: number;
  text: string;
  socket: Socket | undefined;
}

function ask(host: string, agent: http.Agent, method: string, path: string, token: string, body: unknown, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let socket: Socket | undefined;
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const request = http.request({ host, port: HALL_PORTS.wms, method, path, agent, headers, signal: AbortSignal.timeout(timeoutMs) }, (reply) => {
      let text = '';
      reply.setEncoding('utf8');
      reply.on('data', (chunk: string) => (text += chunk));
      reply.on('end', () => resolve({ status: reply.statusCode ?? 0, text, socket }));
      reply.on('error', reject);
    });
    request.on('socket', (s: Socket) => (socket = s));
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * `clients` clients creating locations `<area>/<round>/<n>/0000/0000` through the floating
 * address at `host`, one after another, each acknowledged one (201) added to `acks`, each
 * other to `refusals`. A write not acknowledged is not retried: the next one has a name of its own.
 */
export function startWriters(host: string, area: string, round: number, clients: number, token: () => string, acks: Ack[], refusals: Refusal[]): Writers {
  let writing = true;
  let next = 0;
  const client = async () => {
    // One connection at a time, kept open: the box at its other end is asked once.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const boxOf = async (socket: Socket | undefined) => {
      if (!socket) return undefined;
      const known = boxOfSocket.get(socket);
      if (known || socket.destroyed) return known;
      const status = await ask(host, agent, 'GET', '/v1/ha', token(), undefined, 2_000).catch(() => undefined);
      if (status?.status !== 200 || !status.socket) return undefined;
      boxOfSocket.set(status.socket, (JSON.parse(status.text) as { node: string }).node);
      return boxOfSocket.get(socket);
    };
    while (writing) {
      const locationId = `${area}/${String(round).padStart(4, '0')}/${String(++next).padStart(5, '0')}/0000/0000`;
      const sentAt = Date.now();
      const reply = await ask(host, agent, 'POST', '/v1/locations', token(), { locationId, locationGroupName: 'WAREHOUSE' }, WRITE_TIMEOUT_MS).catch(
        (err: Error) => err,
      );
      if (!(reply instanceof Error) && reply.status === 201) acks.push({ locationId, round, sentAt, ackAt: Date.now(), box: await boxOf(reply.socket) });
      else {
        const at = Date.now();
        if (reply instanceof Error)
          refusals.push({ locationId, round, at, status: undefined, why: (reply.cause as Error | undefined)?.message ?? reply.message });
        else refusals.push({ locationId, round, at, status: reply.status, why: `${reply.status} ${reply.text.slice(0, 120)}` });
        // A client's pause before its next write (a refused connection fails at once): it
        // paces the client, it waits for no state the rounds assert.
        await sleep(50);
      }
    }
    agent.destroy();
  };
  const running = Array.from({ length: clients }, client);
  return {
    async stop() {
      writing = false;
      await Promise.all(running);
    },
  };
}

/**
 * The acknowledged writes (less those found lost before) that the box at `url` does not
 * hold: the area's locations read page by page over the API (thousands of writes, one
 * request per thousand, not one each).
 */
export async function missingOn(url: string, area: string, token: string, acks: readonly Ack[], lostBefore: ReadonlySet<string>): Promise<string[]> {
  const held = new Set<string>();
  let next: string | undefined = `${url}/v1/locations?area=${area}&limit=1000`;
  while (next) {
    const reply: Response = await fetch(next, { headers: { Authorization: `Bearer ${token}` } });
    if (reply.status !== 200) throw new Error(`GET ${next}: ${reply.status} ${await reply.text()}`);
    for (const location of (await reply.json()) as { locationId: string }[]) held.add(location.locationId);
    const link = /<([^>]+)>;\s*rel="next"/.exec(reply.headers.get('link') ?? '')?.[1];
    next = link ? new URL(link, url).href : undefined;
  }
  return acks.filter((a) => !held.has(a.locationId) && !lostBefore.has(a.locationId)).map((a) => a.locationId);
}
