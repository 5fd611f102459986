import Database from 'better-sqlite3';

// The appliance database's checkpoints, taken on the log writer's thread (docs/realtime.md,
// "Checkpoints off the conveyor thread").
//
// In WAL mode every commit appends to the write-ahead log, and a checkpoint copies those
// pages into the database file and flushes it. SQLite's default runs that checkpoint in
// the connection that commits, at the commit that takes the log past 1,000 pages (4 MB):
// at a thousand telegrams a second that is every few hundred milliseconds, on the thread
// that answers the PLC, for as long as copying and flushing take; and while a long read
// (the full location list, a backup) keeps an old snapshot, the pages after it wait, to
// be copied all at once by the first commit after it. Here a connection of its own on
// the writer thread copies what is new every CHECKPOINT_EVERY_MS, and the committing
// connection takes none (db.ts, `checkpointElsewhere`); commits go on
// appending meanwhile (a passive checkpoint never blocks a writer), and nothing
// acknowledged depends on it: a commit is durable once its pages are in the log and the
// log is flushed (core/durability). This connection keeps SQLite's default
// synchronous=FULL: a checkpoint flushes the log before it copies and the database
// file after, so the log can start over only once the database holds it all. What it
// changed under load: BENCHMARKS.md, "Priorities and checkpoints".

/** How often the log's new pages are copied into the database file. */
const CHECKPOINT_EVERY_MS = 100;

/**
 * Takes the database `file`'s checkpoints every CHECKPOINT_EVERY_MS until stopped. A
 * checkpoint that fails (other than SQLITE_BUSY: another connection is taking one, the
 * next turn will do) ends them: `failed` hears why, once, and the appliance's own
 * connection takes them from then on (db.ts, `checkpointHere`).
 */
export function takeCheckpoints(file: string, nativeBinding: string | undefined, failed: (message: string) => void): () => void {
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 0, nativeBinding });
  } catch (err) {
    failed(`checkpoints of ${file} cannot be taken: ${(err as Error).message}`);
    return () => {};
  }
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const stop = () => {
    clearInterval(timer);
    if (db.open) db.close();
  };
  const timer = setInterval(() => {
    try {
      checkpoint.get();
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY') return;
      stop();
      failed(`checkpoints of ${file} failed: ${(err as Error).message}`);
    }
  }, CHECKPOINT_EVERY_MS);
  return stop;
}
