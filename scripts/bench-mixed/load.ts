// The API side of the mixed-load benchmark, run as its own process so that the PLC
// client's timing in the main process is not disturbed by what this one parses: an
// HMI and an ERP interface at once. Started with a JSON configuration as its argument
// and an IPC channel; it opens its event streams, says `ready`, waits for `go`, then
// for `seconds` sends each load on a fixed schedule (open loop, as people and
// interfaces do, answered or not; a load with `maxInFlight` requests outstanding skips
// and counts the skip), and sends back a summary.
//
// - creates: POST /v1/locations, a new coordinate each (a committed transaction each);
// - moves: PATCH /v1/transport-units?bk=&newLocation= of the MV units to random racks;
// - reads: GET /v1/locations?locationId=… of a random rack location (an HMI's lookups);
// - searches: GET /v1/locations?area=%&aisle=…&x=…&y=…&z=… (leading wildcard);
// - paged: pages of the lists that take `limit`/`after`, following `Link: rel="next"`;
// - streams: GET /v1/events?ticket=… (a ticket each from POST /v1/events/tickets), of
//   the given types (as an HMI page subscribes) or of every event; the delay of each
//   event = arrival − its `at`;
// - fullList: one GET /v1/locations, the whole list: time to the reply's headers and
//   to its first body byte, total time, bytes; aborted after `timeoutMs`. `list-start`
//   and `list-end` go to the parent as they happen (it samples the appliance's RSS).

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { locationId, rack } from './layout.ts';

export interface LoadConfig {
  url: string;
  token: string;
  seconds: number;
  /** Rack locations that exist (`layout.ts`), for moves and searches. */
  racks: number;
  creates?: { perSecond: number; area: string };
  moves?: { perSecond: number; units: string[] };
  reads?: { perSecond: number };
  searches?: { perSecond: number };
  paged?: { perSecond: number; lists: string[] };
  /** Event streams: how many, and the types each asks for (`?types=`; every event when absent). */
  streams?: { count: number; types?: readonly string[] };
  fullList?: { afterMs: number; timeoutMs: number };
}

interface Latencies {
  sent: number;
  ok: number;
  skipped: number;
  failed: number;
  /** The first failures (status and body, or the socket error). */
  failures: string[];
  p50: number;
  p99: number;
  max: number;
}

export interface FullListResult {
  outcome: 'done' | 'timed out' | 'failed';
  status?: number;
  detail?: string;
  headersMs?: number;
  firstByteMs?: number;
  totalMs?: number;
  bytes: number;
}

interface StreamsResult {
  opened: number;
  events: number;
  bytes: number;
  /** Streams the appliance ended before the run did. */
  endedEarly: number;
  delayP50: number;
  delayP99: number;
  delayMax: number;
}

export interface LoadResult {
  requests: Record<string, Latencies>;
  fullList?: FullListResult;
  streams?: StreamsResult;
}

export type LoadMessage =
  { kind: 'ready' } | { kind: 'list-start' } | { kind: 'list-end' } | { kind: 'result'; result: LoadResult } | { kind: 'error'; message: string };

const sortedQuantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One kind of request sent `perSecond` times a second, its latencies kept. */
class Paced {
  readonly latencies: number[] = [];
  readonly failures: string[] = [];
  sent = 0;
  skipped = 0;
  failed = 0;
  private inFlight = 0;
  private done: Promise<void> = Promise.resolve();

  private readonly perSecond: number;
  private readonly send: (n: number) => Promise<Reply>;
  private readonly accept: (r: Reply) => boolean;
  private readonly maxInFlight: number;

  constructor(perSecond: number, send: (n: number) => Promise<Reply>, accept: (r: Reply) => boolean, maxInFlight = 256) {
    this.perSecond = perSecond;
    this.send = send;
    this.accept = accept;
    this.maxInFlight = maxInFlight;
  }

  run(seconds: number): Promise<void> {
    const total = Math.round(this.perSecond * seconds);
    const interval = 1000 / this.perSecond;
    const start = performance.now();
    const pending = new Set<Promise<void>>();
    let next = 0;
    this.done = new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        while (next < total && start + next * interval <= now) {
          if (this.inFlight >= this.maxInFlight) this.skipped++;
          else {
            const p = this.one(next);
            pending.add(p);
            void p.then(() => pending.delete(p));
          }
          next++;
        }
        if (next >= total) return void Promise.all(pending).then(() => resolve());
        setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
      };
      tick();
    });
    return this.done;
  }

  private async one(n: number): Promise<void> {
    this.inFlight++;
    this.sent++;
    const at = performance.now();
    try {
      const reply = await this.send(n);
      if (this.accept(reply)) this.latencies.push(performance.now() - at);
      else this.fail(`${reply.status} ${reply.body.slice(0, 200)}`);
    } catch (err) {
      this.fail((err as Error).message);
    } finally {
      this.inFlight--;
    }
  }

  private fail(what: string): void {
    this.failed++;
    if (this.failures.length < 5) this.failures.push(what);
  }

  summary(): Latencies {
    const sorted = this.latencies.sort((a, b) => a - b);
    return {
      sent: this.sent,
      ok: sorted.length,
      skipped: this.skipped,
      failed: this.failed,
      failures: this.failures,
      p50: sortedQuantile(sorted, 0.5),
      p99: sortedQuantile(sorted, 0.99),
      max: sortedQuantile(sorted, 1),
    };
  }
}

/** An open event stream; counts its events and how late each arrived. */
class Stream {
  events = 0;
  bytes = 0;
  ended = false;
  private buffer = '';
  private req: http.ClientRequest | undefined;

  private readonly delays: number[];

  constructor(delays: number[]) {
    this.delays = delays;
  }

  open(url: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.req = http.get(url, { headers: { Accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`event stream: ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (text: string) => this.received(text));
        res.on('end', () => (this.ended = true));
        res.on('error', () => (this.ended = true));
        resolve();
      });
      this.req.on('error', (err) => (this.ended ? undefined : reject(err)));
    });
  }

  private received(text: string): void {
    const now = Date.now();
    this.bytes += text.length;
    this.buffer += text;
    let end;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const at = block.indexOf('"at":"');
      if (at < 0) continue; // a comment (keep-alive)
      this.events++;
      this.delays.push(now - Date.parse(block.slice(at + 6, at + 30)));
    }
  }

  close(): void {
    this.req?.destroy();
  }
}

function fullList(config: LoadConfig, timeoutMs: number, say: (m: LoadMessage) => void): Promise<FullListResult> {
  return new Promise((resolve) => {
    const result: FullListResult = { outcome: 'failed', bytes: 0 };
    const start = performance.now();
    let finished = false;
    const finish = (outcome: FullListResult['outcome'], detail?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      result.outcome = outcome;
      if (detail) result.detail = detail;
      result.totalMs = performance.now() - start;
      say({ kind: 'list-end' });
      resolve(result);
    };
    say({ kind: 'list-start' });
    const req = http.get(`${config.url}/v1/locations`, { headers: { Authorization: `Bearer ${config.token}` } }, (res) => {
      result.status = res.statusCode!;
      result.headersMs = performance.now() - start;
      let last = '';
      res.on('data', (chunk: Buffer) => {
        result.firstByteMs ??= performance.now() - start;
        result.bytes += chunk.length;
        last = chunk.toString('latin1', chunk.length - 1);
      });
      res.on('end', () =>
        finish(
          res.statusCode === 200 && last === ']' ? 'done' : 'failed',
          res.statusCode === 200 ? (last === ']' ? undefined : 'the array did not end') : `status ${res.statusCode}`,
        ),
      );
      res.on('error', (err) => finish('failed', err.message));
    });
    req.on('error', (err) => finish('failed', err.message));
    const timer = setTimeout(() => {
      finish('timed out', `no complete reply within ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
  });
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2]!) as LoadConfig;
  const say = (m: LoadMessage) => process.send!(m);
  const auth = { Authorization: `Bearer ${config.token}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const random = (n: number) => Math.floor(Math.random() * n);

  const paced: Record<string, Paced> = {};
  if (config.creates) {
    const { area } = config.creates;
    paced['POST /v1/locations'] = new Paced(
      config.creates.perSecond,
      (n) =>
        request(
          `${config.url}/v1/locations`,
          'POST',
          json,
          JSON.stringify({
            locationId: `${area}/${String(Math.floor(n / 10000) + 1).padStart(4, '0')}/${String((n % 10000) + 1).padStart(4, '0')}/0000/0000`,
            locationGroupName: 'WAREHOUSE',
          }),
        ),
      (r) => r.status === 201,
    );
  }
  if (config.moves) {
    const units = config.moves.units;
    paced['PATCH /v1/transport-units (move)'] = new Paced(
      config.moves.perSecond,
      (n) =>
        request(
          `${config.url}/v1/transport-units?bk=${units[n % units.length]}&newLocation=${encodeURIComponent(locationId(rack(random(config.racks))))}`,
          'PATCH',
          auth,
        ),
      (r) => r.status === 200,
    );
  }
  if (config.reads) {
    paced['GET /v1/locations?locationId= (random)'] = new Paced(
      config.reads.perSecond,
      () => request(`${config.url}/v1/locations?locationId=${encodeURIComponent(locationId(rack(random(config.racks))))}`, 'GET', auth),
      (r) => r.status === 200,
    );
  }
  if (config.searches) {
    paced['GET /v1/locations?area=%&… (wildcard)'] = new Paced(
      config.searches.perSecond,
      () => {
        const c = rack(random(config.racks));
        return request(`${config.url}/v1/locations?area=%25&aisle=${c.aisle}&x=${c.x}&y=${c.y}&z=${c.z}`, 'GET', auth);
      },
      (r) => r.status === 200,
      8,
    );
  }
  if (config.paged && config.paged.lists.length > 0) {
    // Walks each list page by page (at most 20 pages a walk), then the next list.
    const lists = config.paged.lists;
    let walk = 0;
    let pages = 0;
    let next: string | undefined;
    paced['GET paged lists (?limit=100, Link next)'] = new Paced(
      config.paged.perSecond,
      async () => {
        const url = next ?? `${config.url}${lists[walk % lists.length]}${lists[walk % lists.length]!.includes('?') ? '&' : '?'}limit=100`;
        next = undefined;
        const reply = await request(url, 'GET', auth);
        const link = /<([^>]+)>;\s*rel="next"/.exec(String(reply.headers.link ?? ''))?.[1];
        if (link && ++pages < 20) next = new URL(link, config.url).href;
        else {
          walk++;
          pages = 0;
        }
        return reply;
      },
      (r) => r.status === 200,
      1,
    );
  }

  const delays: number[] = [];
  const streams: Stream[] = [];
  const types = config.streams?.types ? `&types=${config.streams.types.join(',')}` : '';
  for (let i = 0; i < (config.streams?.count ?? 0); i++) {
    const ticket = await request(`${config.url}/v1/events/tickets`, 'POST', auth);
    if (ticket.status !== 200) throw new Error(`POST /v1/events/tickets: ${ticket.status} ${ticket.body}`);
    const stream = new Stream(delays);
    await stream.open(`${config.url}/v1/events?ticket=${(JSON.parse(ticket.body) as { ticket: string }).ticket}${types}`);
    streams.push(stream);
  }

  say({ kind: 'ready' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const list = config.fullList
    ? new Promise<FullListResult>((resolve) => setTimeout(() => void fullList(config, config.fullList!.timeoutMs, say).then(resolve), config.fullList!.afterMs))
    : undefined;
  await Promise.all(Object.values(paced).map((p) => p.run(config.seconds)));
  if (Object.keys(paced).length === 0 && !list) await new Promise((r) => setTimeout(r, config.seconds * 1000));
  const listResult = await list;
  const endedEarly = streams.filter((s) => s.ended).length;
  for (const s of streams) s.close();

  const result: LoadResult = { requests: Object.fromEntries(Object.entries(paced).map(([k, p]) => [k, p.summary()])) };
  if (listResult) result.fullList = listResult;
  if (streams.length > 0) {
    delays.sort((a, b) => a - b);
    result.streams = {
      opened: streams.length,
      events: streams.reduce((a, s) => a + s.events, 0),
      bytes: streams.reduce((a, s) => a + s.bytes, 0),
      endedEarly,
      delayP50: sortedQuantile(delays, 0.5),
      delayP99: sortedQuantile(delays, 0.99),
      delayMax: sortedQuantile(delays, 1),
    };
  }
  say({ kind: 'result', result });
  agent.destroy();
  process.disconnect();
}

main().catch((err: Error) => {
  process.send!({ kind: 'error', message: err.stack ?? err.message } satisfies LoadMessage);
  process.exitCode = 1;
  process.disconnect();
});
