import type { Migration } from '../core/migrations.ts';
import type { MetricObjectWithValues, MetricValue, Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { Db } from '../core/db.ts';
import type { EventLog } from '../core/event-log.ts';
import type { Logs } from '../core/log-store/index.ts';
import type { Logger } from '../core/log.ts';
import type { ReadPool } from '../core/read-pool.ts';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import type { PairPart } from '../ha/role.ts';
import type { Route, Router, Thread } from '../http/router.ts';
import type { Services } from './index.ts';

// How a module plugs into the appliance (docs/extending.md). Each module folder's
// index.ts exports one definition; src/modules/index.ts lists them in order; the
// composition root (src/main.ts) creates them in that order with one context, starts
// them in that order once HTTP listens and stops them in reverse. Adding a module is
// one folder and one line in the list.

/**
 * The conveyor thread as the HTTP thread reaches it (src/threads): what a read there
 * causes that only the thread with the write connection may do.
 */
export interface ConveyorPort {
  /** A machine's API key was used now (its `lastUsedAt`). */
  apiKeyUsed(pk: string, at: string): void;
  /** The conveyor thread's metrics (prom-client's JSON of its registry), joined with this thread's at a scrape. */
  metrics(): Promise<MetricObjectWithValues<MetricValue<string>>[]>;
}

/**
 * What every module is built from. Each thread builds every module (docs/realtime.md):
 * on the conveyor thread with the write connection, prepared and started; on the HTTP
 * thread over read connections, neither prepared nor started, to serve the reads.
 */
export interface AppContext {
  readonly config: Config;
  /** The thread this assembly serves. */
  readonly thread: Thread;
  /**
   * This thread serves the requests: the HTTP thread, or the conveyor thread when there
   * is none (`server.httpThread: false`). The event streams live here.
   */
  readonly edge: boolean;
  /** On the HTTP thread, the conveyor thread; undefined on the conveyor thread itself. */
  readonly conveyor: ConveyorPort | undefined;
  /** The writer connection: read and write through the unit of work (read-only on the HTTP thread). */
  readonly db: Db;
  /** Read connections for lists and exports too long to read on the writer's connection. */
  readonly reads: ReadPool;
  /** The one transaction runner; `work.bus` hands out committed events. */
  readonly work: UnitOfWork;
  /** The event log the unit of work writes. */
  readonly events: EventLog;
  /** The second database (telegram log, signal log, event index), written by a thread of its own; read on either thread. */
  readonly logs: Logs;
  readonly log: Logger;
  /** The data directory (absolute) and the database file in it. */
  readonly dataDir: string;
  readonly databaseFile: string;
  /** The SQLite addon to load (the single executable carries its own). */
  readonly nativeBinding: unknown;
  /** When the start began (ms since the epoch). */
  readonly startedAt: number;
  /** What the caller of the start asked for beyond the config (tests, `--reset-admin`). */
  readonly options: AppOptions;
  /** The service of a module earlier in the list (a later one does not exist yet). */
  use<N extends ModuleName>(name: N): Services[N];
  /** Every route of the appliance; known once every module is created. */
  routes(): readonly Route[];
  /** The route table; known once every module is created. */
  router(): Router;
  /** Link name → path of every module's index (`GET /index`); known once every module is created. */
  indexLinks(): Readonly<Record<string, string>>;
  /** The appliance's own address (`server.publicUrl`, else where it listens); known once HTTP listens. */
  url(): string;
}

/** A module as created: its service and what it adds to the appliance. */
export interface Module<S> {
  /** What other modules (`ctx.use`), the composition root and tests (`app.module`) call. */
  service: S;
  routes?: readonly Route[];
  /** Link name → path of the module's index, shown by `GET /index`. */
  indexLinks?: Record<string, string>;
  /** Registers the module's metrics (`GET /metrics`), read at scrape time; on the conveyor thread. */
  metrics?(registry: Registry): void;
  /** Registers metrics of what lives where requests are served (the event streams); on the edge thread. */
  edgeMetrics?(registry: Registry): void;
  /** Once every module is created and the route table is known, before HTTP listens (seeding); on the conveyor thread only. */
  prepare?(): void | Promise<void>;
  /** Once HTTP listens, in list order; on the conveyor thread only. */
  start?(): void | Promise<void>;
  /** When the appliance stops, in reverse list order. */
  stop?(): void | Promise<void>;
}

export interface ModuleDefinition<N extends string = string, S = unknown> {
  /** The name `use` and `app.module` know it by; also in logs. */
  name: N;
  create(ctx: AppContext): Module<S> | Promise<Module<S>>;
}

export type ModuleName = keyof Services & string;

/** What the caller of a start asks for beyond the config. */
export interface AppOptions {
  /** Where log lines go (tests read them); stdout when absent. */
  logDestination?: NodeJS.WritableStream;
  /** Restore the user admin with `auth.adminPassword` (the recovery path of `--reset-admin`). */
  resetAdmin?: boolean;
  /** Notes from loading the config, logged once the logger exists. */
  configNotes?: string[];
  /** One box of a pair, in the role the pair gives it (src/ha/role.ts); absent: the box runs alone. */
  pair?: PairPart;
  /** The schema migrations of this build (db/migrations); a test gives a later build's to see an upgrade. */
  migrations?: readonly Migration[];
}
