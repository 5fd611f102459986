import path from 'node:path';
import { migrations } from '../db/migrations/index.ts';
import type { Config } from './config.ts';
import { prepareDataDir } from './core/data-dir.ts';
import { checkpointElsewhere, checkpointHere, flushElsewhere, openDatabase, SQLITE_AUTOCHECKPOINT_PAGES, type Db } from './core/db.ts';
import { WalFlusher } from './core/durability/index.ts';
import { EventLog } from './core/event-log.ts';
import type { EventBus } from './core/events.ts';
import { LogStore, logsFileOf } from './core/log-store/index.ts';
import { createLogger, stdoutDestination, type Logger } from './core/log.ts';
import { migrate } from './core/migrations.ts';
import { sqliteBinding, sqliteBindingFile } from './core/native.ts';
import { READ_CONNECTIONS, ReadPool } from './core/read-pool.ts';
import { startThreadPool, takeConveyorPriority } from './core/thread-priority.ts';
import { UnitOfWork } from './core/unit-of-work.ts';
import { listen, stopServing, urlOf } from './http/lifecycle.ts';
import { HttpThread } from './threads/conveyor-side.ts';
import { createEdgeServer } from './threads/edge-server.ts';
import { prestartWorker } from './threads/worker.ts';
import { Router, type Route } from './http/router.ts';
import type { HttpOptions } from './http/server.ts';
import { assemble, type Assembly } from './modules/assemble.ts';
import type { Services } from './modules/index.ts';
import type { AppOptions, ModuleName } from './modules/module.ts';
import { VERSION } from './version.ts';

// Composition root: config → database → migrations → unit of work → the module list
// (src/modules/index.ts) → HTTP → the modules started. The command line: src/cli.ts.

export type { AppOptions as StartOptions } from './modules/module.ts';

export interface Appliance {
  config: Config;
  /** `http://host:port` of the listening server. */
  url: string;
  port: number;
  db: Db;
  log: Logger;
  /** The one transaction runner; `work.bus` hands out committed events. */
  work: UnitOfWork;
  bus: EventBus;
  events: EventLog;
  routes: readonly Route[];
  /** The thread that serves the requests (`server.httpThread`, docs/realtime.md); undefined when this one does. */
  httpThread: HttpThread | undefined;
  /** The thread that flushes the write-ahead log (`storage.flush: apart`); undefined when each commit flushes itself. */
  flusher: WalFlusher | undefined;
  /** The service of a module (src/modules/index.ts names them). */
  module<N extends ModuleName>(name: N): Services[N];
  /** The schema of its database once migrated at start (`user_version`). */
  schema: number;
  /**
   * Stops; requests under way may finish for `drainMs` (a box of a pair stepping down gives
   * them none); requests on connections already open are still taken for `graceMs` (a switchover).
   */
  close(drainMs?: number, graceMs?: number): Promise<void>;
}

/** How long a stop waits for requests under way before it cuts them off. */
const STOP_DRAIN_MS = 10_000;

export async function startAppliance(config: Config, options: AppOptions = {}): Promise<Appliance> {
  const startedAt = Date.now();
  const pair = options.pair;
  // A standby serves its reads on this thread: it has no PLC to keep apart from them.
  if (pair?.role === 'standby') config = { ...config, server: { ...config.server, httpThread: false } };
  // The lines of both threads go here (the HTTP thread hands its lines over).
  const destination = options.logDestination ?? stdoutDestination();
  const log = createLogger({ level: config.log.level, destination });
  for (const note of options.configNotes ?? []) log.warn(note);
  // The PLC's answers before anything else on the box (docs/realtime.md, "Who gets the core").
  await startThreadPool();
  const priority = takeConveyorPriority(config.server.conveyorNice);
  if (priority?.refused) {
    log.warn(
      { nice: priority.nice, asked: config.server.conveyorNice, error: priority.refused },
      'the conveyor thread keeps its priority: other processes on the box can delay PLC answers (the service unit grants the raise with LimitNICE=-10)',
    );
  }

  // The HTTP thread loads its code on the other core while this one opens the database.
  if (config.server.httpThread) prestartWorker();
  const dataDir = path.resolve(config.storage.dataDir);
  prepareDataDir(dataDir, log);
  const file = path.join(dataDir, config.storage.file);
  const nativeBinding = sqliteBinding(dataDir);
  const db = openDatabase({ file, busyTimeoutMs: config.storage.busyTimeoutMs, nativeBinding });
  let logs: LogStore | undefined;
  let reads: ReadPool | undefined;
  let flusher: WalFlusher | undefined;
  try {
    migrate(db, options.migrations ?? migrations, { backupDir: path.join(dataDir, 'backups'), backupsToKeep: config.storage.backupsToKeep, log });
    // Commits stop waiting for the disk; answers wait for the flush thread instead (docs/realtime.md).
    if (config.storage.flush === 'apart') {
      flusher = await WalFlusher.start({
        databaseFile: file,
        failed: (message) => {
          // What the disk holds of the commits since the last good flush is unknown: none
          // of them may be acknowledged, and the process cannot take them back. It ends;
          // the service starts it again, and the start recovers what the disk kept.
          log.fatal({ error: message }, 'flushing the database to disk failed; the appliance ends without acknowledging what it could not flush');
          log.flush();
          process.exit(70);
        },
        callbackFailed: (err) => log.error({ err }, 'an answer waiting for a flush failed'),
      });
      flushElsewhere(db);
    }
    // The telegram log and the index of what each event is about: a database and a thread of their own.
    logs = await LogStore.open({ file: logsFileOf(file), nativeBinding, workerBinding: sqliteBindingFile(dataDir), log });
    // Copying the write-ahead log into the database is the writer thread's, not the conveyor thread's.
    logs.takeCheckpointsOf(file, (reason) => {
      if (!db.open) return; // stopping: the thread ended after the database closed
      checkpointHere(db);
      log.warn(
        { reason },
        `the log writer thread no longer takes the database's checkpoints: the conveyor thread takes them itself, every ${SQLITE_AUTOCHECKPOINT_PAGES} pages of log`,
      );
    });
    checkpointElsewhere(db);
    const events = new EventLog(db, logs);
    const reindexed = await events.recoverIndex();
    if (reindexed > 0) log.info({ events: reindexed }, 'event history index caught up with the events it did not have');
    // Every change from here on runs through the unit of work and leaves its events in the log.
    const work = new UnitOfWork(db, events, (err, event) => log.error({ err, event: event.type, id: event.id }, 'event subscriber failed'));
    work.after.flushWith(flusher);
    // The pair: an active's commits count once their entries are stored; a standby's
    // connection writes nothing but what its follower applies (src/ha/role.ts).
    const replication = pair?.role === 'active' ? pair.attach(db, work) : undefined;
    if (replication) {
      work.after.flushWith(replication);
      work.after.captureWith(replication);
    }
    reads = new ReadPool({ file, size: READ_CONNECTIONS, nativeBinding });

    let url = config.server.publicUrl?.replace(/\/$/, '') ?? '';
    const app = await assemble({
      config,
      thread: 'conveyor',
      edge: !config.server.httpThread,
      conveyor: undefined,
      db,
      reads,
      work,
      events,
      logs,
      log,
      dataDir,
      databaseFile: file,
      nativeBinding,
      startedAt,
      options,
      newRouter: (routes) => new Router(routes),
      url: () => url,
    });

    // A standby's copy changes only by what its follower applies: from here on its
    // connection refuses every other write. (Its modules' first-start steps above find
    // everything in place in a copy of the active's database, and change nothing.)
    if (pair?.role === 'standby') db.pragma('query_only = 1');

    const edge = config.server.httpThread
      ? await HttpThread.start({
          data: {
            config,
            dataDir,
            databaseFile: file,
            logsFile: logsFileOf(file),
            nativeBinding: sqliteBindingFile(dataDir),
            startedAt,
            logsIndexedAtStart: logs.indexedAtStart,
            flushCells: flusher?.line.cells ?? replication?.line.cells,
          },
          routes: app.routes,
          db,
          work,
          logs,
          log,
          destination,
          messageKeys: config.api.messageKeys,
          metrics: () => app.module('system').registry.getMetricsAsJSON(),
          apiKeyUsed: (pk, at) => app.module('users').apiKeys.recordUse(pk, at),
        })
      : await listenHere(app, config, log, work, pair?.role === 'standby' ? pair : undefined);
    url ||= edge.url;
    try {
      // A standby acts on nothing: its modules are made (their reads serve) and not started.
      if (pair?.role !== 'standby') await app.start();
    } catch (err) {
      await edge.stop(0, 0);
      throw err;
    }
    const plc = app.module('plc');
    log.info(
      { url: edge.url, version: VERSION, database: file, routes: app.routes.length, plcChannels: plc.list().length, ...(pair ? { role: pair.role } : {}) },
      'appliance started',
    );

    const openReads = reads;
    const openLogs = logs;
    const openFlusher = flusher;
    let closing: Promise<void> | undefined;
    return {
      config,
      url: edge.url,
      port: edge.port,
      db,
      log,
      work,
      bus: work.bus,
      events,
      routes: app.routes,
      httpThread: edge instanceof HttpThread ? edge : undefined,
      flusher,
      module: app.module,
      schema: db.pragma('user_version', { simple: true }) as number,
      close(drainMs = STOP_DRAIN_MS, graceMs = 0) {
        closing ??= (async () => {
          // No new connections from here on; requests under way go on, those handed
          // over to this thread included, and open event streams end.
          const cut = await edge.stop(drainMs, graceMs);
          if (cut > 0) log.warn({ connections: cut, waitedMs: drainMs }, 'requests still under way at stop were cut off');
          // Modules in reverse: the PLC first (it answers what it has read, then closes its links).
          await app.stop();
          work.commitGroup();
          // The last answers go out once flushed; then the flush thread ends.
          await openFlusher?.stop();
          openReads.close();
          await openLogs.close();
          // Everything committed is folded into the database file: the next start (or a
          // copy of the data directory) needs no WAL.
          db.pragma('wal_checkpoint(TRUNCATE)');
          db.close();
          log.info('appliance stopped');
          log.flush();
        })();
        return closing;
      },
    };
  } catch (err) {
    reads?.close();
    await logs?.close();
    await flusher?.stop();
    db.close();
    throw err;
  }
}

/** The HTTP edge as the appliance stops it: on a thread of its own, or on this one. */
interface Edge {
  url: string;
  port: number;
  /** Stops taking requests (those on open connections for `graceMs` more), lets those under way finish (at most `drainMs`); how many were cut. */
  stop(drainMs: number, graceMs: number): Promise<number>;
}

/** The server on this thread (`server.httpThread: false`): every request runs here. */
async function listenHere(app: Assembly, config: Config, log: Logger, work: UnitOfWork, standby: HttpOptions['standby']): Promise<Edge> {
  const events = app.module('events');
  const server = createEdgeServer(app, config, log, { commits: work, standby });
  const address = await listen(server, config.server.port, config.server.host, { shared: config.ha.pair !== undefined });
  return {
    url: urlOf(address, !!config.server.tls),
    port: address.port,
    stop: (drainMs, graceMs) => stopServing(server, { drainMs, graceMs, endStreams: () => events.streams.shutdown() }),
  };
}
