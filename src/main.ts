import path from 'node:path';
import { migrations } from '../db/migrations/index.ts';
import type { Config } from './config.ts';
import { prepareDataDir } from './core/data-dir.ts';
import { openDatabase, type Db } from './core/db.ts';
import { EventLog } from './core/event-log.ts';
import type { EventBus } from './core/events.ts';
import { LogStore, logsFileOf } from './core/log-store/index.ts';
import { createLogger, type Logger } from './core/log.ts';
import { migrate } from './core/migrations.ts';
import { sqliteBinding, sqliteBindingFile } from './core/native.ts';
import { ReadPool } from './core/read-pool.ts';
import { UnitOfWork } from './core/unit-of-work.ts';
import { closeServer, drain, listen, readTls, urlOf } from './http/lifecycle.ts';
import { Router, type Route } from './http/router.ts';
import { createHttpServer } from './http/server.ts';
import { assemble } from './modules/assemble.ts';
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
  /** The service of a module (src/modules/index.ts names them). */
  module<N extends ModuleName>(name: N): Services[N];
  close(): Promise<void>;
}

/** Read connections at most: each streamed list holds one while it is written; more wait their turn. */
const READ_CONNECTIONS = 4;

/** How long a stop waits for requests under way before it cuts them off. */
const STOP_DRAIN_MS = 10_000;

export async function startAppliance(config: Config, options: AppOptions = {}): Promise<Appliance> {
  const startedAt = Date.now();
  const log = createLogger({ level: config.log.level, ...(options.logDestination ? { destination: options.logDestination } : {}) });
  for (const note of options.configNotes ?? []) log.warn(note);

  const dataDir = path.resolve(config.storage.dataDir);
  prepareDataDir(dataDir, log);
  const file = path.join(dataDir, config.storage.file);
  const nativeBinding = sqliteBinding(dataDir);
  const db = openDatabase({ file, busyTimeoutMs: config.storage.busyTimeoutMs, nativeBinding });
  let logs: LogStore | undefined;
  let reads: ReadPool | undefined;
  try {
    migrate(db, migrations, { backupDir: path.join(dataDir, 'backups'), backupsToKeep: config.storage.backupsToKeep, log });
    // The telegram log and the index of what each event is about: a database and a thread of their own.
    logs = await LogStore.open({ file: logsFileOf(file), nativeBinding, workerBinding: sqliteBindingFile(dataDir), log });
    const events = new EventLog(db, logs);
    const reindexed = await events.recoverIndex();
    if (reindexed > 0) log.info({ events: reindexed }, 'event history index caught up with the events it did not have');
    // Every change from here on runs through the unit of work and leaves its events in the log.
    const work = new UnitOfWork(db, events, (err, event) => log.error({ err, event: event.type, id: event.id }, 'event subscriber failed'));
    reads = new ReadPool({ file, size: READ_CONNECTIONS, nativeBinding });

    let url = config.server.publicUrl?.replace(/\/$/, '') ?? '';
    const app = await assemble({
      config,
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

    const users = app.module('users');
    const tickets = app.module('events').tickets;
    const server = createHttpServer({
      router: app.router,
      authenticate: (authorization) => users.authenticate(authorization),
      redeemTicket: (ticket) => users.currentPrincipalOrRefuse(tickets.redeem(ticket)),
      log,
      bodyLimitBytes: config.server.bodyLimitBytes,
      corsOrigins: config.server.corsOrigins,
      publicUrl: config.server.publicUrl,
      messageKeys: config.api.messageKeys,
      requestTimeoutMs: config.server.requestTimeoutMs,
      metrics: app.module('system').http,
      tls: readTls(config.server.tls),
      grouped: (fn) => work.grouped(fn),
      pendingCommit: () => work.pendingCommit(),
    });
    const address = await listen(server, config.server.port, config.server.host);
    const listening = urlOf(address, !!config.server.tls);
    url ||= listening;
    try {
      await app.start();
    } catch (err) {
      await closeServer(server);
      throw err;
    }
    const plc = app.module('plc');
    log.info({ url: listening, version: VERSION, database: file, routes: app.routes.length, plcChannels: plc.list().length }, 'appliance started');

    const openReads = reads;
    const openLogs = logs;
    let closing: Promise<void> | undefined;
    return {
      config,
      url: listening,
      port: address.port,
      db,
      log,
      work,
      bus: work.bus,
      events,
      routes: app.routes,
      module: app.module,
      close() {
        closing ??= (async () => {
          // No new connections from here on; requests under way go on.
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          // Modules in reverse: the PLC first (it answers what it has read, then closes
          // its links), open event streams before the server (they would keep it
          // waiting for ever).
          await app.stop();
          const cut = await drain(server, closed, STOP_DRAIN_MS);
          if (cut > 0) log.warn({ connections: cut, waitedMs: STOP_DRAIN_MS }, 'requests still under way at stop were cut off');
          work.commitGroup();
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
    db.close();
    throw err;
  }
}
