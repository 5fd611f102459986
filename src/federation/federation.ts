import type { Db } from '../core/db.ts';
import type { EventLog } from '../core/event-log.ts';
import type { Logger } from '../core/log.ts';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import type { MessageKeyFamily } from '../http/errors.ts';
import type { InternalReply, InternalRequest } from '../http/invoke.ts';
import type { AlarmService } from '../modules/alarms/service.ts';
import type { FederationConfig } from './config.ts';
import { HubLink } from './link.ts';
import { CommandRunner } from './runner.ts';
import { createFederationStore, type FederationStore } from './store.ts';

// The hub link (docs/federation.md): the export of the event log to NATS JetStream, the
// hub's commands, and the alarm `federation.lag` while the export is behind by more than
// `federation.maxLagSeconds`. Its module (routes, metrics, retention): ./index.ts.

/**
 * How often the lag is compared with its limit: every 5 s, or four times within a
 * shorter limit, so that the alarm is never later than a quarter of the limit allows.
 */
const lagCheckMs = (maxLagSeconds: number) => Math.min(5000, Math.max(250, (maxLagSeconds * 1000) / 4));
const LAG_CONDITION = 'federation.lag';

interface FederationDeps {
  config: FederationConfig;
  db: Db;
  work: UnitOfWork;
  events: EventLog;
  alarms: AlarmService;
  /** Runs an internal request of the API (http/invoke.ts): the route table exists only after the modules. */
  call: (request: InternalRequest, requestId: string) => InternalReply;
  messageKeys: MessageKeyFamily;
  bodyLimitBytes: number;
  log: Logger;
}

export type FederationStatus = ReturnType<Federation['status']>;

export class Federation {
  readonly store: FederationStore;
  private readonly deps: FederationDeps;
  private readonly link: HubLink | undefined;
  private lagTimer: NodeJS.Timeout | undefined;

  constructor(deps: FederationDeps) {
    this.deps = deps;
    this.store = createFederationStore(deps.db, deps.work);
    const { site } = deps.config;
    if (site !== undefined) {
      const runner = new CommandRunner({
        work: deps.work,
        store: this.store,
        call: deps.call,
        messageKeys: deps.messageKeys,
        bodyLimitBytes: deps.bodyLimitBytes,
        log: deps.log,
      });
      // The newest event of the log once on disk: the export never sends what a power cut could take back.
      const newestCommitted = async () => {
        deps.work.commitGroup();
        const newest = deps.events.newest();
        await deps.work.flushed();
        return newest;
      };
      this.link = new HubLink(site, {
        config: deps.config,
        events: deps.events,
        newestCommitted,
        bus: deps.work.bus,
        store: this.store,
        runner,
        log: deps.log,
      });
    }
  }

  get enabled(): boolean {
    return this.link !== undefined;
  }

  /** The last event id the hall's stream holds (retention keeps those after it); undefined without a hub link. */
  exportedUpto(): number | undefined {
    return this.link?.cursor;
  }

  start(): void {
    if (!this.link) {
      // A site that had a hub link and no longer has one: its lag alarm cannot clear by itself.
      this.deps.alarms.clear(LAG_CONDITION);
      return;
    }
    this.link.start();
    this.lagTimer = setInterval(() => this.checkLag(), lagCheckMs(this.deps.config.maxLagSeconds));
    this.lagTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.lagTimer) clearInterval(this.lagTimer);
    await this.link?.stop();
  }

  status() {
    const { maxLagSeconds } = this.deps.config;
    if (!this.link) {
      return {
        enabled: false,
        site: null,
        state: 'DISABLED' as const,
        server: null,
        stream: null,
        cursor: 0,
        newestEventId: this.deps.events.newest(),
        eventsWaiting: 0,
        lagSeconds: 0,
        maxLagSeconds,
        lastError: null,
        reconnects: 0,
        export: { published: 0, duplicates: 0, resyncs: 0, reordered: 0, truncated: 0, lost: 0 },
        commands: { enabled: false, stream: null, done: 0, declined: 0, repeated: 0, malformed: 0 },
      };
    }
    return { enabled: true, ...this.link.status(), maxLagSeconds };
  }

  /** Raises `federation.lag` once while the export is behind by more than maxLagSeconds; clears it when it caught up. */
  checkLag(): void {
    const status = this.status();
    const raised = this.deps.alarms.open().some((a) => a.condition === LAG_CONDITION);
    if (status.lagSeconds > status.maxLagSeconds) {
      if (raised) return;
      this.deps.alarms.raise({
        condition: LAG_CONDITION,
        kind: LAG_CONDITION,
        severity: 'major',
        message:
          `The export to the hub is ${Math.round(status.lagSeconds)} s behind (limit ${status.maxLagSeconds} s): ${status.eventsWaiting} events wait` +
          ` (link ${status.state}${status.lastError ? `; last error: ${status.lastError.message}` : ''})`,
        params: {
          seconds: Math.round(status.lagSeconds),
          maxSeconds: status.maxLagSeconds,
          waiting: status.eventsWaiting,
          state: status.state,
          ...(status.lastError ? { lastError: status.lastError.message } : {}),
        },
        source: { kind: 'federation', key: status.site ?? '' },
        clearsOnAck: false,
      });
    } else if (raised) {
      this.deps.alarms.clear(LAG_CONDITION);
    }
  }
}
