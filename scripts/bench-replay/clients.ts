// The clients of the replay benchmark, run as a process of their own so that what they
// parse does not disturb the PLC client's timing in the main process. Started with a
// JSON configuration as its argument and an IPC channel; says `ready`, waits for `go`,
// then opens `replays` event streams at once, each with `Last-Event-ID: 0` (the whole
// log), as an operator's tool or a misbehaving integration would. Each client:
// - asks the newest id just before it opens (newest.ts): its replay is done once it has
//   received that id;
// - checks that the ids come one after the other from the oldest on, each once (the
//   benchmark's log has no holes: nothing is pruned), and counts anything else as an
//   error;
// - stays open, receiving live events, until every client's replay is done (or
//   `maxSeconds` passed); then all close and the summary goes back to the parent.

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { newestEventId } from './newest.ts';

export interface ClientsConfig {
  url: string;
  token: string;
  replays: number;
  maxSeconds: number;
}

export interface ClientResult {
  /** Events up to the newest id at its opening. */
  replayed: number;
  /** ms from opening to the first event, and to the last one of its replay (undefined: not done). */
  firstEventMs?: number;
  doneMs?: number;
  /** Every event it received, replayed and live. */
  events: number;
  bytes: number;
  endedEarly: boolean;
  errors: string[];
}

export type ClientsMessage =
  | { kind: 'ready' }
  | { kind: 'all-done' }
  /** `cpuMs`: this process's CPU time (user + system) from `go` to the last replay caught up. */
  | { kind: 'result'; clients: ClientResult[]; cpuMs: number }
  | { kind: 'error'; message: string };

class ReplayClient {
  readonly result: ClientResult = { replayed: 0, events: 0, bytes: 0, endedEarly: false, errors: [] };
  private target = 0;
  private last: number | undefined;
  private partial = '';
  private opened = 0;
  private closing = false;
  private req: http.ClientRequest | undefined;
  private readonly done: () => void;

  constructor(done: () => void) {
    this.done = done;
  }

  async open(config: ClientsConfig): Promise<void> {
    const { oldest, newest } = await newestEventId(config.url, config.token);
    this.target = newest;
    this.last = oldest - 1;
    this.result.replayed = newest - oldest + 1;
    this.opened = performance.now();
    await new Promise<void>((resolve, reject) => {
      this.req = http.get(`${config.url}/v1/events`, { headers: { Authorization: `Bearer ${config.token}`, 'Last-Event-ID': '0' }, agent: false }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`GET /v1/events: ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (text: string) => this.received(text));
        // The appliance ended the stream (it gave the client up, or stopped).
        const ended = () => (this.result.endedEarly ||= !this.closing);
        res.on('end', ended);
        res.on('error', ended);
        resolve();
      });
      this.req.on('error', (err) => (this.result.endedEarly ? undefined : reject(err)));
    });
  }

  private received(text: string): void {
    this.result.bytes += text.length;
    const buffer = this.partial + text;
    const end = buffer.lastIndexOf('\n');
    this.partial = buffer.slice(end + 1);
    for (const match of buffer.slice(0, end + 1).matchAll(/^id: (\d+)$/gm)) this.event(Number(match[1]));
  }

  private event(id: number): void {
    const now = performance.now();
    this.result.events++;
    this.result.firstEventMs ??= now - this.opened;
    if (id !== this.last! + 1 && this.result.errors.length < 5) this.result.errors.push(`id ${id} after ${this.last}`);
    this.last = id;
    if (this.result.doneMs === undefined && id >= this.target) {
      this.result.doneMs = now - this.opened;
      this.done();
    }
  }

  close(): void {
    this.closing = true;
    this.req?.destroy();
  }
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2]!) as ClientsConfig;
  const say = (m: ClientsMessage) => process.send!(m);
  say({ kind: 'ready' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const cpu = process.cpuUsage();
  let left = config.replays;
  let allDone!: () => void;
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  const clients = Array.from({ length: config.replays }, () => new ReplayClient(() => --left === 0 && allDone()));
  await Promise.all(clients.map((c) => c.open(config)));
  await Promise.race([finished, new Promise((r) => setTimeout(r, config.maxSeconds * 1000))]);
  const used = process.cpuUsage(cpu);
  say({ kind: 'all-done' });
  for (const c of clients) c.close();
  say({ kind: 'result', clients: clients.map((c) => c.result), cpuMs: (used.user + used.system) / 1000 });
  process.disconnect();
}

main().catch((err: Error) => {
  process.send!({ kind: 'error', message: err.stack ?? err.message } satisfies ClientsMessage);
  process.exitCode = 1;
  process.disconnect();
});
