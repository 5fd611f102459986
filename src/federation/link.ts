import type { EventBus } from '../core/events.ts';
import type { EventLog } from '../core/event-log.ts';
import type { Logger } from '../core/log.ts';
import { nowIso } from '../core/time.ts';
import type { FederationConfig } from './config.ts';
import { Exporter } from './exporter.ts';
import { siteNames, type SiteNames } from './names.ts';
import { connectOptions, loadNats, type NatsConnection, type NatsLibraries } from '../nats/connect.ts';
import { ConnectionWork, RETRY_MS } from './connection-work.ts';
import type { CommandRunner } from './runner.ts';
import type { FederationStore } from './store.ts';

// The hub link of a hall (docs/federation.md): one NATS connection to the leaf node
// beside the box, the export of the event log over it, and the hub's commands from it.
// It never holds up the appliance: start() returns at once, the connection is made and
// kept in the background (for ever: a hall runs on while the office is away), and
// whatever fails is retried after a pause and shown in the status. What is done over
// each connection (the streams, the export, the commands) is connection-work.ts; here
// are the connections one after the other, their state, and the pauses between tries.

type LinkState = 'DISABLED' | 'CONNECTING' | 'CONNECTED' | 'DISCONNECTED' | 'STOPPED';

interface LinkDeps {
  config: FederationConfig;
  events: EventLog;
  /** The newest event id once the open group commit (if any) is committed. */
  newestCommitted: () => Promise<number>;
  bus: EventBus;
  store: FederationStore;
  runner: CommandRunner;
  log: Logger;
}

export class HubLink {
  readonly names: SiteNames;
  private readonly deps: LinkDeps;
  private readonly exporter: Exporter;
  private nc: NatsConnection | undefined;
  private state: LinkState = 'CONNECTING';
  private server: string | undefined;
  private lastError: { message: string; at: string } | undefined;
  private stopped = false;
  /** The connections loop (runConnections). */
  private main: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;
  private readonly pauses = new Set<() => void>();
  /** The work over the current connection. */
  private work: ConnectionWork | undefined;
  private reconnects = 0;

  constructor(site: string, deps: LinkDeps) {
    this.names = siteNames(site);
    this.deps = deps;
    this.exporter = new Exporter(deps.events, deps.newestCommitted, deps.store, this.names, deps.config, deps.log);
  }

  start(): void {
    // What was committed before the link started waits for it (the status shows it at once).
    this.deps.newestCommitted().then(
      (newest) => this.exporter.feed.committed(newest),
      (err: unknown) => this.deps.log.error({ err }, 'hub link: the newest event could not be read; the export reads it again when it connects'),
    );
    this.unsubscribe = this.deps.bus.onAnyDurable((event) => this.exporter.feed.delivered(event));
    this.main = this.runConnections();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.exporter.stop();
    this.work?.stopCommands();
    for (const resume of this.pauses) resume();
    // Publishes still unanswered are left to the next start: it reads the stream's tail.
    await this.nc?.close().catch(() => undefined);
    await Promise.race([this.main, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    this.state = 'STOPPED';
  }

  /** The last event id the hall's stream acknowledged. */
  get cursor(): number {
    return this.exporter.cursor;
  }

  status() {
    const cursor = this.exporter.cursor;
    const newest = this.exporter.newest;
    const waitingSince = newest > cursor ? this.deps.store.firstAfter(cursor) : undefined;
    return {
      site: this.names.site,
      state: this.state,
      server: this.server ?? null,
      stream: this.names.stream,
      cursor,
      newestEventId: newest,
      eventsWaiting: Math.max(0, newest - cursor),
      lagSeconds: waitingSince === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(waitingSince)) / 1000),
      lastError: this.exporter.conflict ? { message: this.exporter.conflict, at: this.lastError?.at ?? nowIso() } : (this.lastError ?? null),
      reconnects: this.reconnects,
      export: { ...this.exporter.counters },
      commands: { enabled: this.deps.config.commands, stream: this.names.commandStream, ...this.deps.runner.counters },
    };
  }

  /**
   * One connection after the other, for as long as the link runs: the client reconnects
   * by itself, but gives up for good on some failures (logins refused twice in a row);
   * then a new connection is made here.
   */
  private async runConnections(): Promise<void> {
    let lib: NatsLibraries;
    try {
      lib = await loadNats();
    } catch (err) {
      this.failed('the NATS client cannot be loaded', err);
      return;
    }
    while (!this.stopped) {
      const nc = await this.connect(lib);
      if (!nc) return;
      this.work = new ConnectionWork(
        lib,
        nc,
        { ...this.deps, names: this.names, exporter: this.exporter },
        {
          stopped: () => this.stopped,
          connected: () => this.state === 'CONNECTED',
          failed: (what, err) => this.failed(what, err),
          pause: () => this.pause(),
        },
      );
      const loops = this.work.run();
      const closed = await nc.closed();
      if (this.stopped) {
        await loops;
        return;
      }
      this.state = 'DISCONNECTED';
      this.failed('the NATS connection closed; a new one is made', closed ?? new Error('closed'));
      this.work.stopCommands();
      await loops;
      await this.pause();
    }
  }

  /** The first connection, tried until it is made or the link stops. */
  private async connect(lib: NatsLibraries): Promise<NatsConnection | undefined> {
    while (!this.stopped) {
      try {
        const nc = await lib.nats.connect(connectOptions(lib.nats, this.deps.config.nats, `wms-${this.names.site}`));
        if (this.stopped) {
          await nc.close();
          return undefined;
        }
        this.nc = nc;
        this.connected(nc);
        void this.watch(nc);
        return nc;
      } catch (err) {
        this.failed('cannot connect to NATS', err);
        await this.pause();
      }
    }
    return undefined;
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        this.state = 'DISCONNECTED';
        this.deps.log.warn({ server: s.server }, 'hub link: NATS connection lost; reconnecting');
      } else if (s.type === 'reconnect') {
        this.reconnects++;
        this.connected(nc);
        // The loops waiting out a failure go on at once.
        for (const resume of [...this.pauses]) resume();
        this.exporter.feed.wake();
      } else if (s.type === 'error') {
        // What the server said, shown while it lasts (a login refused at every reconnect:
        // logged once, not every second).
        const message = `the NATS server refused: ${s.error.message}`;
        if (this.lastError?.message === message) this.lastError = { message, at: nowIso() };
        else this.failed('the NATS server refused', s.error);
      }
    }
  }

  private connected(nc: NatsConnection): void {
    this.state = 'CONNECTED';
    this.server = nc.getServer();
    this.deps.log.info({ server: this.server, site: this.names.site }, 'hub link: connected to NATS');
  }

  private failed(what: string, err: unknown): void {
    const message = `${what}: ${(err as Error)?.message ?? String(err)}`;
    this.lastError = { message, at: nowIso() };
    this.deps.log.warn({ err: (err as Error)?.message }, `hub link: ${what}`);
  }

  /** Waits RETRY_MS, or less when the link stops. */
  private pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.pauses.delete(done);
        resolve();
      };
      const timer = setTimeout(done, RETRY_MS);
      this.pauses.add(done);
    });
  }
}
