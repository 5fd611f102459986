// The NATS side of the hub link benchmark: the nats-server with JetStream the appliance
// exports to (test/support/nats.ts starts it, as the hub link's tests do), its process
// for CPU figures, the stream's state, and the watcher process that takes the events
// off NATS (watcher.ts).

import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager, NATS_SERVER, startNats, type NatsServer } from '../../test/support/nats.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export function requireNatsServer(): string {
  try {
    return execFileSync(NATS_SERVER, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    console.error(`${NATS_SERVER} is needed (apt-get install nats-server, or NATS_SERVER=/path/to/nats-server)`);
    process.exit(1);
  }
}

export interface Hub {
  server: NatsServer;
  /** The server's process now (it changes when the server is started again). */
  pid(): number | undefined;
  /** The hall stream's last sequence and message count (0 when it does not exist yet). */
  stream(name: string): Promise<{ lastSeq: number; messages: number }>;
}

export async function startHub(): Promise<Hub> {
  const server = await startNats({ name: 'bench-hub' });
  // Used between phases only; while the server is down it retries once a second.
  const nc = await server.connect({ maxReconnectAttempts: -1, reconnectTimeWait: 1000 });
  const jsm = await jetstreamManager(nc);
  return {
    server,
    pid: () => pidOf(server.configFile),
    async stream(name) {
      const info = await jsm.streams.info(name).catch(() => undefined);
      return { lastSeq: info?.state.last_seq ?? 0, messages: info?.state.messages ?? 0 };
    },
  };
}

/** The nats-server running from this configuration file (test/support keeps its process to itself). */
function pidOf(configFile: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes(configFile)) return Number(entry);
    } catch {
      /* gone meanwhile */
    }
  }
  return undefined;
}

/** An event as the watcher saw it: epoch ms of its arrival and of its `at`. */
export interface Arrival {
  id: number;
  arrived: number;
  at: number;
}

export class Watcher {
  readonly child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.child = child;
  }

  static async start(url: string, site: string): Promise<Watcher> {
    const child = fork(path.join(HERE, 'watcher.ts'), [url, site], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the watcher exited with ${code}`)));
    });
    return new Watcher(child);
  }

  /** What arrived since the last take. */
  take(): Promise<Arrival[]> {
    return new Promise((resolve) => {
      this.child.once('message', (m: { events: number[] }) => {
        const out: Arrival[] = [];
        for (let i = 0; i < m.events.length; i += 3) out.push({ id: m.events[i]!, arrived: m.events[i + 1]!, at: m.events[i + 2]! });
        resolve(out);
      });
      this.child.send({ take: true });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ stop: true });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}
