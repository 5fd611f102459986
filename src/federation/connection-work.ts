import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from '../core/log.ts';
import type { FederationConfig } from './config.ts';
import type { Exporter } from './exporter.ts';
import type { SiteNames } from './names.ts';
import type { NatsConnection, NatsLibraries } from '../nats/connect.ts';
import type { CommandRunner } from './runner.ts';
import { ensureStreams } from './streams.ts';

// What the hub link (link.ts) does over one NATS connection (docs/federation.md):
// JetStream and the streams first, then the export of the event log and, when enabled,
// the hub's commands, each a loop that goes on after a failure (a pause, the streams
// made again when they are missing) until the connection closes or the link stops.
// Which connection, and the pauses, are the link's.

/** Pause after a failure of the export or the commands loop before it tries again. */
export const RETRY_MS = 2000;

interface WorkDeps {
  config: FederationConfig;
  names: SiteNames;
  exporter: Exporter;
  runner: CommandRunner;
  log: Logger;
}

/** What the work asks of the link it runs for. */
interface LinkView {
  /** The link is stopping. */
  stopped(): boolean;
  /** The client is connected now (not between a disconnect and its reconnect). */
  connected(): boolean;
  /** A failure, logged and shown in the status. */
  failed(what: string, err: unknown): void;
  /** Waits RETRY_MS, or less when the link stops or the client reconnects. */
  pause(): Promise<void>;
}

export class ConnectionWork {
  private readonly lib: NatsLibraries;
  private readonly nc: NatsConnection;
  private readonly deps: WorkDeps;
  private readonly link: LinkView;
  private commandStop: (() => void) | undefined;

  constructor(lib: NatsLibraries, nc: NatsConnection, deps: WorkDeps, link: LinkView) {
    this.lib = lib;
    this.nc = nc;
    this.deps = deps;
    this.link = link;
  }

  /** Ends the commands loop's wait for the next command (the connection closed, the link stops). */
  stopCommands(): void {
    this.commandStop?.();
  }

  /** The export and the commands over one connection; ends when it closes or the link stops. */
  async run(): Promise<void> {
    const { lib, nc } = this;
    const { config } = this.deps;
    const jsOptions = config.domain !== undefined ? { domain: config.domain } : {};
    const js = lib.js.jetstream(nc, jsOptions);
    const live = () => !this.link.stopped() && !nc.isClosed();
    // JetStream and the streams first: neither loop can work without them.
    let jsm: JetStreamManager | undefined;
    while (live() && !jsm) {
      try {
        const manager = await lib.js.jetstreamManager(nc, jsOptions);
        await this.ensureStreams(manager);
        jsm = manager;
      } catch (err) {
        this.link.failed('JetStream is not available or the streams cannot be created', err);
        await this.link.pause();
      }
    }
    if (!jsm) return;
    // The largest message the server takes (1 MB unless it says otherwise).
    const maxPayload = () => nc.info?.max_payload ?? 1024 * 1024;
    await Promise.all([this.exportLoop(js, jsm, live, maxPayload), config.commands ? this.commandLoop(js, jsm, live) : undefined]);
  }

  private async ensureStreams(jsm: JetStreamManager): Promise<void> {
    const created = await ensureStreams(this.lib.js, jsm, this.deps.names, this.deps.config);
    if (created.length > 0) this.deps.log.info({ created }, 'hub link: streams created');
  }

  /** True for the errors of a stream or consumer that is not there (deleted by someone, a wiped store). */
  private missing(err: unknown): boolean {
    const { JetStreamApiError, JetStreamApiCodes } = this.lib.js;
    return err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound);
  }

  private async exportLoop(js: JetStreamClient, jsm: JetStreamManager, live: () => boolean, maxPayload: () => number): Promise<void> {
    while (live()) {
      // Nothing is asked of the server while the client is away: a request made then is
      // not answered after the reconnect, and would hold the export up to its timeout.
      while (!this.link.connected() && live()) await this.link.pause();
      if (!live()) break;
      try {
        await this.deps.exporter.resync(jsm);
        await this.deps.exporter.run(js, this.nc, this.lib.nats.headers, () => this.link.connected() && live(), maxPayload());
      } catch (err) {
        if (!live()) break;
        this.link.failed("export stopped; it goes on after the stream's last event", err);
        if (this.missing(err)) await this.ensureStreams(jsm).catch((e: unknown) => this.link.failed('the streams cannot be created', e));
        await this.link.pause();
      }
    }
  }

  private async commandLoop(js: JetStreamClient, jsm: JetStreamManager, live: () => boolean): Promise<void> {
    while (live()) {
      try {
        const consumer = await js.consumers.get(this.deps.names.commandStream, this.deps.names.consumer);
        // A consumer or stream deleted under it ends the loop (instead of waiting silently): both are made again.
        const messages = await consumer.consume({ max_messages: 4, abort_on_missing_resource: true });
        this.commandStop = () => void messages.close();
        for await (const m of messages) {
          const kind = m.subject.startsWith(this.deps.names.commandPrefix) ? m.subject.slice(this.deps.names.commandPrefix.length) : m.subject;
          try {
            this.deps.runner.handle(kind, m.data, m.seq);
          } catch (err) {
            // The command could not be run or answered (the database is in trouble): it comes
            // again in a while; the consumer lets one command out at a time, so none overtakes it.
            this.link.failed(`command ${m.seq} could not be answered; it comes again`, err);
            m.nak(RETRY_MS);
            continue;
          }
          await this.deps.runner.flushed();
          m.ack();
          if (!live()) break;
          // A burst of commands gives way to telegrams between commands.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        if (live()) throw new Error('the commands consumer ended');
      } catch (err) {
        if (!live()) break;
        this.link.failed('taking commands stopped; it starts again', err);
        if (this.missing(err) || /consumer|stream/i.test((err as Error)?.message ?? '')) {
          await this.ensureStreams(jsm).catch((e: unknown) => this.link.failed('the commands stream cannot be created', e));
        }
        await this.link.pause();
      }
    }
  }
}
