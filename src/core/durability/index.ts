import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { Cell, newLineCells, Stat, type FlushStats, type FlushThreadData, type FlushThreadMessage } from './cells.ts';
import { LineEnd } from './line.ts';
import { youngGenerationOf } from '../young-generation.ts';

// Answers after the flush (docs/realtime.md). With `synchronous=FULL` every COMMIT waits
// for the disk on the thread that commits: under the full load of bench:mixed that was
// half of the conveyor thread's time, spent in fsync, and every PLC answer queued behind
// the flushes of the commits before it. Here the write connection commits with
// `synchronous=NORMAL` (in WAL mode: the log is appended to, not flushed; SQLite still
// flushes it before each checkpoint, so a power cut can lose the newest commits but never
// damage the database), and a thread of its own flushes the log (flush.worker.ts). The
// appliance acknowledges a change only once a flush covers its commit: the promise of
// `synchronous=FULL` (nothing acknowledged is lost in a power cut) holds as before, and
// one flush now covers every commit made while the previous one ran.
//
// The conveyor thread tells the line when a COMMIT begins and ends (the unit of work);
// everything that acknowledges waits on the line (`FlushLine.after`), on any thread.

declare const __WMS_FLUSH_THREAD__: string | undefined;

/** The flush thread's name, as `top -H` and /proc/<pid>/task/<tid>/comm show it. */
export const FLUSH_THREAD_NAME = 'wms-flush';

interface FlusherOptions {
  /** The database file; its write-ahead log (`<file>-wal`) is flushed. */
  databaseFile: string;
  /** A flush failed or the thread ended: nothing committed since the last flush may be acknowledged. */
  failed: (message: string) => void;
  /** A callback run after a flush threw (a bug of its caller; the others still run). */
  callbackFailed: (err: unknown) => void;
}

/** The conveyor thread's end of the line: it starts the flush thread and tells it of commits. */
export class WalFlusher extends LineEnd {
  private readonly statCells: BigInt64Array;
  private readonly worker: Worker;
  private stopping = false;

  private constructor(worker: Worker, data: FlushThreadData, options: FlusherOptions) {
    super(data.cells, options.callbackFailed);
    this.worker = worker;
    this.statCells = data.stats;
    worker.on('message', (message: FlushThreadMessage) => {
      if (message.kind === 'failed') options.failed(message.message);
    });
    worker.on('exit', (code) => {
      if (!this.stopping) options.failed(`the flush thread ended (exit code ${code})`);
    });
  }

  /** Starts the flush thread on the database's write-ahead log; resolves once it has the file open. */
  static async start(options: FlusherOptions): Promise<WalFlusher> {
    const cells = newLineCells();
    const stats = new BigInt64Array(new SharedArrayBuffer(3 * BigInt64Array.BYTES_PER_ELEMENT));
    const workerData: FlushThreadData = { file: `${options.databaseFile}-wal`, cells, stats };
    const settings = { workerData, name: FLUSH_THREAD_NAME, resourceLimits: youngGenerationOf('flush') };
    const worker =
      typeof __WMS_FLUSH_THREAD__ === 'string'
        ? new Worker(__WMS_FLUSH_THREAD__, { eval: true, ...settings })
        : new Worker(new URL('./flush.worker.ts', import.meta.url), settings);
    // It alone does not keep the process alive (a process that ends has nothing left to flush).
    worker.unref();
    const [first] = (await once(worker, 'message')) as [FlushThreadMessage];
    if (first.kind === 'failed') {
      await worker.terminate();
      throw new Error(first.message);
    }
    return new WalFlusher(worker, workerData, options);
  }

  /** The COMMIT begun last returned or failed: the next flush covers it. */
  end(): void {
    Atomics.store(this.cells, Cell.Committed, Atomics.load(this.cells, Cell.Begun));
    this.wake();
  }

  private wake(): void {
    Atomics.add(this.cells, Cell.Wake, 1);
    Atomics.notify(this.cells, Cell.Wake, 1);
  }

  /** What the flushes took so far; the longest is the longest since the previous call (a scrape). */
  stats(): FlushStats {
    const cells = this.statCells;
    return {
      flushes: Number(Atomics.load(cells, Stat.Flushes)),
      seconds: Number(Atomics.load(cells, Stat.Nanos)) / 1e9,
      maxSeconds: Number(Atomics.exchange(cells, Stat.MaxNanos, 0n)) / 1e9,
    };
  }

  /**
   * Holds the flush thread (no flush starts) until `release()`: a diagnostic, the tests'
   * proof that nothing is acknowledged before its flush.
   */
  hold(): { release(): void } {
    Atomics.store(this.cells, Cell.Held, 1);
    return {
      release: () => {
        Atomics.store(this.cells, Cell.Held, 0);
        Atomics.notify(this.cells, Cell.Held);
      },
    };
  }

  /** Waits for everything committed to be flushed, then ends the thread. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    // Kept alive meanwhile: a wait for a flush alone does not keep the process running.
    this.worker.ref();
    await new Promise<void>((resolve) => this.after(resolve));
    this.stopping = true;
    const exited = once(this.worker, 'exit');
    Atomics.store(this.cells, Cell.Stop, 1);
    Atomics.store(this.cells, Cell.Held, 0);
    Atomics.notify(this.cells, Cell.Held);
    this.wake();
    await exited;
  }
}
