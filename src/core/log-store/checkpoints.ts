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
// appending meanwhile (a passive checkpoint never blocks a writer), the log starting
// over from its beginning once a checkpoint has copied all of it (CATCH_UP), and nothing
// acknowledged depends on it: a commit is durable once its pages are in the log and the
// log is flushed (core/durability). This connection keeps SQLite's default
// synchronous=FULL: a checkpoint flushes the log before it copies and the database
// file after, so the log can start over only once the database holds it all. What it
// changed under load: BENCHMARKS.md, "Priorities and checkpoints".

/** How often the log's new pages are copied into the database file. */
const CHECKPOINT_EVERY_MS = 100;

/**
 * Checkpoints taken one after the other, at most, to copy the commits made while the
 * one before ran. The log starts over from its beginning (and stops growing) only when
 * a commit begins with everything in it copied; under a steady stream of commits (a
 * PLC's thousand telegrams a second) a single checkpoint every CHECKPOINT_EVERY_MS
 * almost always ends a few commits behind, and the log grew by up to 15 MB a second
 * for as long as the stream lasted. Each catch-up copies only the few commits of the
 * one before, so one of them soon ends between two commits.
 */
const CATCH_UP = 20;

/**
 * The length of the log (frames of a page each) from which checkpoints catch up: 4,096
 * frames, 16 MB, the frames one table of SQLite's index of the log covers. Every page a
 * connection reads that is not in its cache is looked up in each table of that index,
 * and a log that grows without end fills the disk.
 */
const CATCH_UP_FROM = 4096;

/** What `PRAGMA wal_checkpoint` answers: frames in the log, and how many of them are in the database file. */
interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

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
      // A checkpoint answers with the log as it was when it began: it has caught up only
      // when the next one finds no frame that one did not. A reader on an older snapshot
      // holds back what may be copied: then no catch-up gains anything.
      let seen = -1;
      for (let i = 0; i < CATCH_UP; i++) {
        const done = checkpoint.get() as CheckpointResult;
        if (done.busy !== 0 || done.checkpointed < done.log || done.log === seen || done.log < CATCH_UP_FROM) break;
        seen = done.log;
      }
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY') return;
      stop();
      failed(`checkpoints of ${file} failed: ${(err as Error).message}`);
    }
  }, CHECKPOINT_EVERY_MS);
  return stop;
}
