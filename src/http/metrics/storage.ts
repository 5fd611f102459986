import { statSync } from 'node:fs';
import client from 'prom-client';
import type { FlushStats } from '../../core/durability/cells.ts';

// The database files and the time each unit of work takes to commit.
//
// Sizes are read from the file system at scrape time (a stat per file). A WAL that
// keeps growing means its content is not folded back into the database (a reader
// holding an old snapshot). Every PLC reply waits for its commit (synchronous=FULL),
// or with `storage.flush: apart` for the flush thread's flush that covers it
// (docs/realtime.md, "Answers after the flush"): slow commits or flushes are slow replies.

/** The database files by the `database` label: `main` (the warehouse), `logs` (telegram log, event index). */
export type DatabaseFiles = Readonly<Record<string, string>>;

const sizeOf = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

export class StorageMetrics {
  private readonly commits: client.Histogram;

  /** `flushes`: what the flush thread's flushes took; undefined while each commit flushes itself (storage.flush: commit). */
  constructor(registry: client.Registry, files: DatabaseFiles, flushes: () => FlushStats | undefined) {
    const registers = [registry];
    new client.Gauge({
      name: 'wms_db_size_bytes',
      help: 'Size of each database file, without its WAL',
      labelNames: ['database'],
      registers,
      collect() {
        for (const [database, file] of Object.entries(files)) this.set({ database }, sizeOf(file));
      },
    });
    new client.Gauge({
      name: 'wms_db_wal_size_bytes',
      help: "Size of each database's write-ahead log (0 when there is none)",
      labelNames: ['database'],
      registers,
      collect() {
        for (const [database, file] of Object.entries(files)) this.set({ database }, sizeOf(`${file}-wal`));
      },
    });
    this.commits = new client.Histogram({
      name: 'wms_db_commit_duration_seconds',
      help: 'Time of the COMMIT of each unit of work in the main database (REST changes and PLC telegram batches)',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    // Read at scrape time from the flush thread's counters (src/core/durability).
    let stats: FlushStats | undefined;
    new client.Counter({
      name: 'wms_db_flushes_total',
      help: "Flushes of the main database's write-ahead log by the flush thread (one covers every commit made while the one before ran)",
      registers,
      collect() {
        stats = flushes();
        this.reset();
        if (stats) this.inc(stats.flushes);
      },
    });
    new client.Counter({
      name: 'wms_db_flush_seconds_total',
      help: 'Time the flushes of the main database took, added up; every answer waits for the flush that covers its commit',
      registers,
      collect() {
        this.reset();
        if (stats) this.inc(stats.seconds);
      },
    });
    new client.Gauge({
      name: 'wms_db_flush_max_seconds',
      help: 'The longest flush of the main database since the previous scrape',
      registers,
      collect() {
        this.set(stats?.maxSeconds ?? 0);
      },
    });
  }

  /** A commit took this long. */
  readonly commit = (seconds: number): void => {
    this.commits.observe(seconds);
  };
}
