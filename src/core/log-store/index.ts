import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { Db } from '../db.ts';
import type { Logger } from '../log.ts';
import type { RefRow, WriterReply, WriterRequest } from './schema.ts';
import { youngGenerationOf } from '../young-generation.ts';

export { logsFileOf, type RefRow } from './schema.ts';

// The appliance's side of the logs database (schema.ts): rows are handed to the writer
// thread (writer.worker.ts) in batches — a message every POST_MS or every POST_ROWS
// rows, which costs the thread that answers the PLCs a few microseconds, not a write —
// and read back through a read-only connection of its own. `sync()` resolves once
// everything handed over so far is written: a reader calls it first, so it sees every
// telegram and every committed event.

/** The writer thread's own small bundle, as text (scripts/build.ts); undefined when run from the sources. */
declare const __WMS_LOG_WRITER__: string | undefined;

/**
 * What the rest of the appliance uses of the logs database. The conveyor thread has the
 * store itself (it writes); the HTTP thread reads through a connection of its own and
 * asks the conveyor thread to sync (src/threads/log-reader.ts).
 */
export interface Logs {
  /** A read-only connection to the logs database. */
  readonly reader: Db;
  /** The newest event id the index held when the appliance started. */
  readonly indexedAtStart: number;
  addTelegram(row: unknown[]): void;
  addRefs(rows: readonly RefRow[]): void;
  /** Resolves once every row handed over so far is written. */
  sync(): Promise<void>;
  pruneTelegrams(olderThan: string, maxRows: number, batch: number): Promise<number>;
  pruneRefs(upto: number): Promise<number>;
  /** Forgets the whole event index (it no longer matches the appliance's database). */
  resetRefs(): Promise<number>;
}

const POST_MS = 20;
const POST_ROWS = 500;
/** How long a thread started ahead waits to be taken over before it ends. */
const PRESTART_KEPT_MS = 10_000;

interface LogStoreOptions {
  file: string;
  /** The SQLite addon as this thread has it (better-sqlite3's `nativeBinding`: loaded, a file, or undefined). */
  nativeBinding: unknown;
  /** The SQLite addon's file for the writer thread, which loads it itself; undefined: the package's own. */
  workerBinding: string | undefined;
  log: Logger;
}

export class LogStore implements Logs {
  /** A read-only connection to the logs database (WAL: reads beside the writer). */
  readonly reader: Db;
  /** The newest event id the index held when the appliance started. */
  readonly indexedAtStart: number;
  private readonly worker: Worker;
  private readonly log: Logger;
  private telegrams: unknown[][] = [];
  private refs: RefRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (count: number) => void; reject: (err: Error) => void }>();
  private closed = false;
  /** Told once when the writer thread stops taking the appliance database's checkpoints. */
  private checkpointsStopped: ((reason: string) => void) | undefined;

  private constructor(worker: Worker, reader: Db, indexed: number, log: Logger) {
    this.worker = worker;
    this.reader = reader;
    this.indexedAtStart = indexed;
    this.log = log;
    worker.on('message', (message: WriterReply) => this.answered(message));
    worker.on('error', (err) => {
      this.log.error({ err }, 'log writer thread failed; the telegram log and the event index stop being written');
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      this.checkpointsEnded(`the log writer thread failed: ${err.message}`);
    });
    worker.on('exit', (code) => {
      if (!this.closed) this.checkpointsEnded(`the log writer thread ended (exit code ${code})`);
    });
  }

  /** Starts the writer thread (it creates the database), then opens the reader. */
  static async open(options: LogStoreOptions): Promise<LogStore> {
    const worker = takePrestarted() ?? startWriter();
    worker.ref();
    // It yields the core to the thread that opens it, the conveyor thread, which has taken its priority by now.
    worker.postMessage({ op: 'open', file: options.file, nativeBinding: options.workerBinding } satisfies WriterRequest);
    let onMessage: ((message: WriterReply) => void) | undefined;
    let onError: ((err: Error) => void) | undefined;
    let onExit: ((code: number) => void) | undefined;
    const ready = await new Promise<number>((resolve, reject) => {
      onMessage = (message) => {
        if (message.op === 'ready') resolve(message.position);
        else if (message.op === 'notice') options.log.warn(message.message);
        else if (message.op === 'failed') reject(new Error(message.message));
      };
      onError = reject;
      onExit = (code) => reject(new Error(`the log writer thread exited with ${code} before it was ready`));
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    })
      .catch(async (err: unknown) => {
        await worker.terminate();
        throw err;
      })
      .finally(() => {
        // Only these: a Worker keeps listeners of its own.
        worker.off('message', onMessage!);
        worker.off('error', onError!);
        worker.off('exit', onExit!);
      });
    const reader = new Database(options.file, { readonly: true, fileMustExist: true, nativeBinding: options.nativeBinding as string | undefined });
    return new LogStore(worker, reader, ready, options.log);
  }

  addTelegram(row: unknown[]): void {
    if (this.closed) return;
    this.telegrams.push(row);
    this.schedule();
  }

  addRefs(rows: readonly RefRow[]): void {
    if (this.closed) return;
    for (const row of rows) this.refs.push(row);
    this.schedule();
  }

  /**
   * From now on the writer thread takes the checkpoints of the appliance's database
   * `file` (checkpoints.ts). `stopped` hears once if it no longer does (a checkpoint
   * failed, or the thread ended): the caller then takes them itself.
   */
  takeCheckpointsOf(file: string, stopped: (reason: string) => void): void {
    this.checkpointsStopped = stopped;
    this.worker.postMessage({ op: 'checkpoints', file } satisfies WriterRequest);
  }

  /** Tells the one waiting that the writer thread no longer takes the checkpoints (once). */
  private checkpointsEnded(reason: string): void {
    const stopped = this.checkpointsStopped;
    this.checkpointsStopped = undefined;
    stopped?.(reason);
  }

  /** Resolves once every row handed over so far is written. */
  sync(): Promise<void> {
    return this.request({ op: 'sync', id: 0 }).then(() => undefined);
  }

  pruneTelegrams(olderThan: string, maxRows: number, batch: number): Promise<number> {
    return this.request({ op: 'pruneTelegrams', id: 0, olderThan, maxRows, batch });
  }

  pruneRefs(upto: number): Promise<number> {
    return this.request({ op: 'pruneRefs', id: 0, upto });
  }

  /** Forgets the whole event index (it no longer matches the appliance's database). */
  resetRefs(): Promise<number> {
    return this.request({ op: 'resetRefs', id: 0 });
  }

  /** Writes what waits, then stops the writer thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.request({ op: 'close', id: 0 });
    } catch (err) {
      this.log.warn({ err }, 'log writer thread: closing failed');
    }
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.reader.close();
    await this.worker.terminate();
  }

  private schedule(): void {
    if (this.telegrams.length + this.refs.length >= POST_ROWS) return this.post();
    if (this.timer) return;
    this.timer = setTimeout(() => this.post(), POST_MS);
    this.timer.unref();
  }

  /** Hands the waiting rows to the writer. */
  private post(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.telegrams.length > 0) {
      this.send({ op: 'telegrams', rows: this.telegrams });
      this.telegrams = [];
    }
    if (this.refs.length > 0) {
      this.send({ op: 'refs', rows: this.refs });
      this.refs = [];
    }
  }

  private request(message: WriterRequest & { id: number }): Promise<number> {
    if (this.closed) return Promise.reject(new Error('the log store is closed'));
    this.post();
    const id = this.nextId++;
    return new Promise<number>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ ...message, id } as WriterRequest);
    });
  }

  private send(message: WriterRequest): void {
    this.worker.postMessage(message);
  }

  private answered(message: WriterReply): void {
    if (message.op === 'ready') return;
    if (message.op === 'notice') return this.log.warn(message.message);
    if (message.op === 'checkpointsStopped') return this.checkpointsEnded(message.message);
    if (message.op === 'failed' && message.id === undefined) {
      this.log.error({ reason: message.message }, 'log writer thread: writing rows failed; they are lost');
      return;
    }
    const waiting = this.waiting.get(message.id!);
    if (!waiting) return;
    this.waiting.delete(message.id!);
    if (message.op === 'done') waiting.resolve(message.count ?? 0);
    else waiting.reject(new Error(message.message));
  }
}

let prestarted: { worker: Worker; timer: NodeJS.Timeout } | undefined;

/**
 * Starts the writer thread before the appliance knows its data directory (src/entry.ts
 * calls it first thing): booting a thread (a V8 isolate, the bundle compiled once more)
 * takes longer than anything else at start-up, and so it overlaps the appliance's own
 * loading instead of following it. `LogStore.open` takes it over; a command that
 * starts no appliance (`--version`, `install-service`) leaves it, and it neither keeps
 * the process alive nor stays long.
 */
export function prestartLogWriter(): void {
  if (prestarted) return;
  const worker = startWriter();
  worker.unref();
  const timer = setTimeout(() => {
    if (prestarted?.worker === worker) prestarted = undefined;
    void worker.terminate();
  }, PRESTART_KEPT_MS);
  timer.unref();
  // A thread that fails before it is taken over is started again by `open`.
  worker.once('error', () => {
    if (prestarted?.worker === worker) prestarted = undefined;
  });
  prestarted = { worker, timer };
}

function takePrestarted(): Worker | undefined {
  const taken = prestarted;
  prestarted = undefined;
  if (!taken) return undefined;
  clearTimeout(taken.timer);
  // One that ended meanwhile (threadId -1) is of no use: `open` starts another.
  return taken.worker.threadId >= 0 ? taken.worker : undefined;
}

/**
 * The writer thread: from its own bundle, carried as text in the appliance's bundle and
 * single binary (neither has a file to start a thread from), or from the sources (tests).
 */
function startWriter(): Worker {
  // The database to open follows in the first message (writer.worker.ts).
  const options = { workerData: {}, name: LOG_WRITER_THREAD_NAME, resourceLimits: youngGenerationOf('logs') };
  if (typeof __WMS_LOG_WRITER__ === 'string') return new Worker(__WMS_LOG_WRITER__, { eval: true, ...options });
  return new Worker(new URL('./writer.worker.ts', import.meta.url), options);
}

/** The log writer thread's name, as `top -H` and /proc/<pid>/task/<tid>/comm show it. */
export const LOG_WRITER_THREAD_NAME = 'wms-logs';
