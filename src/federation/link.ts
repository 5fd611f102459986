import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { EventBus } from '../core/events.ts';
import type { EventLog } from '../core/event-log.ts';
import type { Logger } from '../core/log.ts';
import { nowIso } from '../core/time.ts';
import type { FederationConfig } from './config.ts';
import { Exporter } from './exporter.ts';
import { siteNames, type SiteNames } from './names.ts';
import { connectOptions, loadNats, type NatsConnection, type NatsLibraries } from './nats.ts';
import type { CommandRunner } from './runner.ts';
import type { FederationStore } from './store.ts';
import { ensureStreams } from './streams.ts';

// The hub link of a hall (docs/federation.md): one NATS connection to the leaf node
// beside the box, the export of the event log over it, and the hub's commands from it.
// It never holds up the appliance: start() returns at once, the connection is made and
// kept in the background (for ever: a hall runs on while the office is away), and
// whatever fails is retried after a pause and shown in the status.

export type LinkState = 'DISABLED' | 'CONNECTING' | 'CONNECTED' | 'DISCONNECTED' | 'STOPPED';

/** Pause after a failure of the export or the commands loop before it tries again. */
const RETRY_MS = 2000;

export interface LinkDeps {
  config: FederationConfig;
  events: EventLog;
  /** The newest event id once the open group commit (if any) is committed. */
  newestCommitted: () => number;
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
  private loops: Promise<unknown>[] = [];
  private unsubscribe: (() => void) | undefined;
  private readonly pauses = new Set<() => void>();
  private commandStop: (() => void) | undefined;
  private reconnects = 0;

  constructor(site: string, deps: LinkDeps) {
    this.names = siteNames(site);
    this.deps = deps;
    this.exporter = new Exporter(deps.events, deps.newestCommitted, deps.store, this.names, deps.config, deps.log);
  }

  start(): void {
    this.unsubscribe = this.deps.bus.onAny((event) => this.exporter.committed(event.id));
    this.loops.push(this.connectAndRun());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.exporter.stop();
    this.commandStop?.();
    for (const resume of this.pauses) resume();
    const nc = this.nc;
    // The loops end once their publishes and the command under way settled; then the connection closes.
    await Promise.race([Promise.allSettled(this.loops), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    await nc?.close().catch(() => undefined);
    this.state = 'STOPPED';
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
      lastError: this.lastError ?? null,
      reconnects: this.reconnects,
      export: { ...this.exporter.counters },
      commands: { enabled: this.deps.config.commands, stream: this.names.commandStream, ...this.deps.runner.counters },
    };
  }

  private async connectAndRun(): Promise<void> {
    let lib: NatsLibraries;
    try {
      lib = await loadNats();
    } catch (err) {
      this.failed('the NATS client cannot be loaded', err);
      return;
    }
    const { config, log } = this.deps;
    try {
      // Waits for the first server to answer, however long that takes.
      this.nc = await lib.nats.connect(connectOptions(lib.nats, config, this.names.site));
    } catch (err) {
      this.failed('cannot connect to NATS', err);
      return;
    }
    if (this.stopped) {
      await this.nc.close();
      return;
    }
    const nc = this.nc;
    this.connected(nc);
    void this.watch(nc);
    const jsOptions = config.domain !== undefined ? { domain: config.domain } : {};
    const js = lib.js.jetstream(nc, jsOptions);
    // JetStream and the streams first: neither loop can work without them.
    let jsm: JetStreamManager | undefined;
    while (!this.stopped && !jsm) {
      try {
        const manager = await lib.js.jetstreamManager(nc, jsOptions);
        const created = await ensureStreams(lib.js, manager, this.names, config);
        if (created.length > 0) log.info({ created }, 'hub link: streams created');
        jsm = manager;
      } catch (err) {
        this.failed('JetStream is not available or the streams cannot be created', err);
        await this.pause();
      }
    }
    if (!jsm) return;
    this.loops.push(this.exportLoop(js, jsm));
    if (config.commands) this.loops.push(this.commandLoop(js));
  }

  private async exportLoop(js: JetStreamClient, jsm: JetStreamManager): Promise<void> {
    while (!this.stopped) {
      try {
        await this.exporter.resync(jsm);
        await this.exporter.run(js, () => this.state === 'CONNECTED');
      } catch (err) {
        if (this.stopped) break;
        this.failed('export stopped; it goes on after the stream\'s last event', err);
        await this.pause();
      }
    }
  }

  private async commandLoop(js: JetStreamClient): Promise<void> {
    while (!this.stopped) {
      try {
        const consumer = await js.consumers.get(this.names.commandStream, this.names.consumer);
        const messages = await consumer.consume({ max_messages: 16 });
        this.commandStop = () => void messages.close();
        for await (const m of messages) {
          const kind = m.subject.startsWith(this.names.commandPrefix) ? m.subject.slice(this.names.commandPrefix.length) : m.subject;
          try {
            this.deps.runner.handle(kind, m.data, m.seq);
          } catch (err) {
            // Only a failure to record the answer gets here (the database is in trouble): the hub sends it again.
            this.failed(`command ${m.seq} could not be answered; it comes again`, err);
            m.nak(RETRY_MS);
            continue;
          }
          m.ack();
          if (this.stopped) break;
        }
      } catch (err) {
        if (this.stopped) break;
        this.failed('taking commands stopped; it starts again', err);
        await this.pause();
      }
    }
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        this.state = 'DISCONNECTED';
        this.deps.log.warn({ server: s.server }, 'hub link: NATS connection lost; reconnecting');
      } else if (s.type === 'reconnect') {
        this.reconnects++;
        this.connected(nc);
        this.exporter.wake();
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
