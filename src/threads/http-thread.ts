import type { MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { cachesOver } from '../core/cache.ts';
import type { Db } from '../core/db.ts';
import { EventLog } from '../core/event-log.ts';
import { FlushLine } from '../core/durability/line.ts';
import { createLogger } from '../core/log.ts';
import { READ_CONNECTIONS, ReadPool } from '../core/read-pool.ts';
import { yieldToConveyor } from '../core/thread-priority.ts';
import { UnitOfWork } from '../core/unit-of-work.ts';
import type { Commits } from '../http/handling.ts';
import { listen, stopServing, urlOf } from '../http/lifecycle.ts';
import { Router } from '../http/router.ts';
import { assemble } from '../modules/assemble.ts';
import { ConveyorLink } from './conveyor-link.ts';
import { createEdgeServer } from './edge-server.ts';
import { LogReader } from './log-reader.ts';
import type { HttpThreadData, ToHttpThread } from './messages.ts';
import { routeSignatures } from './routes.ts';

// The HTTP thread (docs/realtime.md): the listening socket, parsing, authentication,
// routing, every read from read connections of its own, the event streams, the HMI's
// files. A request that changes something goes to the conveyor thread as data; the
// conveyor thread tells this one of each commit (what its caches forgot, its events)
// before any reply that waited for it.

/** Serves the appliance each `start` names, one at a time. */
export function serveHttpThread(port: MessagePort): void {
  // People's requests yield the core to the PLC's (src/core/thread-priority.ts); again
  // for each appliance served, once its conveyor thread has taken its priority.
  yieldToConveyor();
  let serving = false;
  port.on('message', (message: ToHttpThread) => {
    if (message.kind !== 'start') return;
    if (serving) throw new Error('the HTTP thread was asked to start while it serves an appliance');
    serving = true;
    void serve(port, message.data).then(() => (serving = false));
  });
}

/** Serves one appliance until it is told to stop (or its start fails). */
async function serve(port: MessagePort, data: HttpThreadData): Promise<void> {
  const { config } = data;
  yieldToConveyor();
  const lines = new LinesToConveyor(port);
  const log = createLogger({ level: config.log.level, destination: lines });
  const link = new ConveyorLink(port);
  let db: Db | undefined;
  let reads: ReadPool | undefined;
  let logs: LogReader | undefined;
  let onMessage: ((message: ToHttpThread) => void) | undefined;
  // What the conveyor thread says while the modules are built is heard once they are.
  const early: ToHttpThread[] = [];
  const heldBack = (message: ToHttpThread) => early.push(message);
  port.on('message', heldBack);
  try {
    db = openReadConnection(data);
    logs = new LogReader(data.logsFile, data.nativeBinding, data.logsIndexedAtStart, () => link.ask({ op: 'syncLogs' }).then(() => undefined));
    const events = new EventLog(db, logs);
    // A unit of work over a read-only connection: its bus hears the conveyor thread's commits.
    const work = new UnitOfWork(db, events, (err, event) => log.error({ err, event: event.type, id: event.id }, 'event subscriber failed'));
    reads = new ReadPool({ file: data.databaseFile, size: READ_CONNECTIONS, nativeBinding: data.nativeBinding });
    let url = config.server.publicUrl?.replace(/\/$/, '') ?? '';
    const app = await assemble({
      config,
      thread: 'http',
      edge: true,
      conveyor: link,
      db,
      reads,
      work,
      events,
      logs,
      log,
      dataDir: data.dataDir,
      databaseFile: data.databaseFile,
      nativeBinding: data.nativeBinding,
      startedAt: data.startedAt,
      options: {},
      newRouter: (routes) => new Router(routes),
      url: () => url,
    });
    const places = new Map(app.routes.map((route, i) => [route, i]));
    const streams = app.module('events').streams;
    // Where the conveyor thread's commits stand against the disk: a reply or a stream's
    // event tells of a commit only once it is flushed.
    const line = data.flushCells && new FlushLine(data.flushCells, (err) => log.error({ err }, 'a reply waiting for a flush failed'));
    const server = createEdgeServer(app, config, log, {
      commits: readTransactions(db, line),
      forward: (route, request) => link.forward(places.get(route)!, request),
    });

    const caches = cachesOver(db);
    const openDb = db;
    const openReads = reads;
    const openLogs = logs;
    let stopped!: () => void;
    const done = new Promise<void>((resolve) => (stopped = resolve));
    onMessage = (message: ToHttpThread) => {
      if (message.kind === 'committed') {
        // Forgotten before the events are heard: a subscriber that reads sees the commit.
        if (message.forgotten) caches.apply(message.forgotten);
        const events = message.events;
        if (events.length > 0 && line) {
          line.after(message.seq, () => work.bus.deliverDurable(events));
          work.bus.deliver(events);
        } else if (events.length > 0) work.bus.deliver(events, true);
      } else if (message.kind === 'stop') {
        void (async () => {
          let cut = 0;
          try {
            cut = await stopServing(server, { drainMs: message.drainMs, graceMs: message.graceMs, endStreams: () => streams.shutdown() });
            app.module('system').stop();
          } finally {
            openReads.close();
            openLogs.close();
            openDb.close();
            port.off('message', onMessage!);
            port.postMessage({ kind: 'stopped', cut });
            stopped();
          }
        })();
      } else if (message.kind === 'hold') {
        port.postMessage({ kind: 'holding' });
        Atomics.wait(message.release, 0, 0, message.maxMs);
        port.postMessage({ kind: 'released' });
      } else if (message.kind === 'fail') {
        setImmediate(() => {
          throw new Error('the HTTP thread failed on purpose (HttpThread.failOnPurpose)');
        });
      } else if (message.kind !== 'start') link.received(message);
    };
    port.off('message', heldBack);
    port.on('message', onMessage);
    for (const message of early.splice(0)) onMessage(message);

    const address = await listen(server, config.server.port, config.server.host, { shared: config.ha.pair !== undefined });
    const listening = urlOf(address, !!config.server.tls);
    url ||= listening;
    app.module('system').start();
    port.postMessage({ kind: 'listening', port: address.port, url: listening, routes: routeSignatures(app.routes) });
    await done;
  } catch (err) {
    port.off('message', heldBack);
    if (onMessage) port.off('message', onMessage);
    reads?.close();
    logs?.close();
    db?.close();
    const code = (err as NodeJS.ErrnoException).code;
    port.postMessage({ kind: 'failed', message: (err as Error).message, code, stack: (err as Error).stack });
  }
}

function openReadConnection(data: HttpThreadData): Db {
  const db = new Database(data.databaseFile, {
    readonly: true,
    fileMustExist: true,
    timeout: data.config.storage.busyTimeoutMs,
    nativeBinding: data.nativeBinding,
  });
  // The hot pages (locations, units, orders) of the reads, as the writer keeps its own.
  db.pragma('cache_size = -16384');
  return db;
}

/**
 * Each read request's synchronous part in one read transaction: its statements see one
 * commit, whatever the conveyor thread commits meanwhile. Its reply waits for the flush
 * of every commit begun before it was handled (`line`): it may have read one of them,
 * and must not show a change that a power cut could still take back.
 */
function readTransactions(db: Db, line: FlushLine | undefined): Commits {
  const begin = db.prepare('BEGIN');
  const commit = db.prepare('COMMIT');
  return {
    grouped<T>(fn: () => T): T {
      if (db.inTransaction) return fn();
      begin.run();
      try {
        // An asynchronous handler's later part reads outside it (lists read snapshots of their own).
        return fn();
      } finally {
        if (db.inTransaction) commit.run();
      }
    },
    pendingCommit: () => line?.covering(),
  };
}

/**
 * pino's destination on this thread: each line goes to the conveyor thread at once,
 * which writes it where its own go (one stream, in order per thread).
 */
class LinesToConveyor {
  private readonly port: MessagePort;

  constructor(port: MessagePort) {
    this.port = port;
  }

  write(lines: string): boolean {
    this.port.postMessage({ kind: 'log', lines });
    return true;
  }
}
