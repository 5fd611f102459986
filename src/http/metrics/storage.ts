import { statSync } from 'node:fs';
import client from 'prom-client';

// The database files and the time each unit of work takes to commit.
//
// Sizes are read from the file system at scrape time (a stat per file). A WAL that
// keeps growing means its content is not folded back into the database (a reader
// holding an old snapshot). A COMMIT waits for the disk (synchronous=FULL), and every
// PLC reply waits for its commit: slow commits are slow replies.

/** The database files by the `database` label: `main` (the warehouse), `logs` (telegram log, event index). */
export type DatabaseFiles = Readonly<Record<string, string>>;

const sizeOf = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

export class StorageMetrics {
  private readonly commits: client.Histogram;

  constructor(registry: client.Registry, files: DatabaseFiles) {
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
  }

  /** A commit took this long. */
  readonly commit = (seconds: number): void => {
    this.commits.observe(seconds);
  };
}
