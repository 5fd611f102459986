import Database from 'better-sqlite3';

export type Db = Database.Database;

/** A reason not to start that the operator can act on; printed as one line, without a stack. */
export class StartupError extends Error {}

interface OpenDatabaseOptions {
  file: string;
  busyTimeoutMs: number;
  /** The loaded SQLite addon (single binary) or a path to it; undefined = the package's own prebuild. */
  nativeBinding?: unknown;
}

/**
 * Opens the writing connection of the process.
 *
 * - WAL: a backup, a long list or a report reads a snapshot of its own on another
 *   connection (read-pool.ts) while the appliance goes on writing.
 * - synchronous=FULL: an acknowledged write survives a power cut; edge boxes lose power.
 *   Relaxed to NORMAL once a flush thread takes the flushes (`flushElsewhere`).
 * - foreign_keys=ON: SQLite leaves it off by default, we rely on it for integrity.
 * - One appliance per database: a second one started on the same data directory is
 *   refused (instanceLock), instead of writing beside the first one.
 */
export function openDatabase(options: OpenDatabaseOptions): Db {
  const lock = instanceLock(options);
  let db: Db;
  try {
    db = new Database(options.file, {
      timeout: options.busyTimeoutMs,
      nativeBinding: options.nativeBinding as string | undefined,
    });
  } catch (err) {
    lock.close();
    throw err;
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // 32 MiB of page cache instead of SQLite's 2 MiB: the event log grows with every
    // change, and with the small default its pages push the hot ones (the units,
    // locations and orders a telegram reads) out, so every telegram paid for reading
    // them again.
    db.pragma('cache_size = -32768');
  } catch (err) {
    db.close();
    lock.close();
    throw err;
  }
  // The lock lives as long as the connection.
  const close = db.close.bind(db);
  db.close = () => {
    const closed = close();
    lock.close();
    return closed;
  };
  return db;
}

/**
 * Lets `db` commit without waiting for the disk (synchronous=NORMAL: in WAL mode the log
 * is appended to and flushed only before a checkpoint; a power cut may lose the newest
 * commits, never damage the file), once the flush thread flushes its write-ahead log and
 * every answer waits for that flush (core/durability, docs/realtime.md "Answers after the
 * flush").
 */
export function flushElsewhere(db: Db): void {
  db.pragma('synchronous = NORMAL');
}

/**
 * Leaves the checkpoints of `db`'s database to another connection on another thread
 * (log-store/checkpoints.ts): SQLite's default, a checkpoint in the committing
 * connection every 1,000 pages, would copy and flush on the thread that commits. None at
 * all, not one past some larger size: a long read (the full location list, a backup)
 * keeps the log from being copied past its snapshot, and the first checkpoint after it
 * copies everything since at once, from a log of hundreds of megabytes after a minute of
 * the full load. In the committing connection that held the conveyor thread for 0.3 s
 * (docs/realtime.md, "Checkpoints off the conveyor thread").
 */
export function checkpointElsewhere(db: Db): void {
  db.pragma('wal_autocheckpoint = 0');
}

/** SQLite's own checkpoints again, in the committing connection every 1,000 pages: when the other thread stopped taking them. */
export function checkpointHere(db: Db): void {
  db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
}

/** SQLite's default for `wal_autocheckpoint`. */
export const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

/**
 * The claim of one appliance on a database: a small SQLite file beside it
 * (`<file>-lock`) held in exclusive locking mode for the life of the connection. SQLite
 * takes and releases that lock itself, on every platform, and the kernel drops it when
 * the process dies, so a crash never leaves a stale claim. (The database itself is
 * opened in normal locking mode so that read connections can take snapshots beside the
 * writer; an exclusive database would admit no other connection at all.)
 */
function instanceLock(options: OpenDatabaseOptions): Database.Database {
  const lock = new Database(`${options.file}-lock`, { timeout: 0, nativeBinding: options.nativeBinding as string | undefined });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.pragma('journal_mode = MEMORY');
    // A write transaction takes the exclusive lock; in this locking mode it is kept.
    lock.exec('CREATE TABLE IF NOT EXISTS held (at TEXT); DELETE FROM held; INSERT INTO held VALUES (datetime())');
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new StartupError(`${options.file} is in use by another running appliance; stop that one first`);
    }
    throw err;
  }
  return lock;
}

/*
 * Prepared statements and bound parameters: the SQLite build we ship has STAT4,
 * under which the planner may look at a bound value while planning a join; the
 * statement is then re-compiled on every execution (about 10 µs each, more than the
 * query itself). In queries that join tables, write a parameter compared with a
 * column as `+?` (or `+@name`): the value stays the same, the index is still used,
 * and the plan is made once. `scripts/bench.ts` shows the difference.
 */

/**
 * True for the error of a write that would leave a foreign key pointing at nothing.
 * SQLite reports the default action as SQLITE_CONSTRAINT_FOREIGNKEY and an
 * `ON DELETE RESTRICT` as SQLITE_CONSTRAINT_TRIGGER with the same message.
 */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return true;
  return e?.code === 'SQLITE_CONSTRAINT_TRIGGER' && e.message === 'FOREIGN KEY constraint failed';
}

/** SQLite stores booleans as 0/1. */
export const bool = (value: unknown): boolean => value === 1 || value === true;
export const bit = (value: boolean): 0 | 1 => (value ? 1 : 0);

/**
 * Turns a wildcard pattern of the API (`%` any run, `_` one character, as in SQL LIKE)
 * into a GLOB pattern: GLOB is case-sensitive, like coordinates and names are, and
 * characters GLOB treats specially are matched literally.
 */
export function likeToGlob(pattern: string): string {
  let out = '';
  for (const ch of pattern) {
    if (ch === '%') out += '*';
    else if (ch === '_') out += '?';
    else if (ch === '*' || ch === '?' || ch === '[' || ch === ']') out += `[${ch}]`;
    else out += ch;
  }
  return out;
}

/** True when a text holds a wildcard of the API. */
export const hasWildcard = (text: string): boolean => text.includes('%') || text.includes('_');

/**
 * Inserts many rows with few statements: `VALUES (…), (…), …` up to 50 rows each, the
 * statements prepared once per row count. For logs written in batches (core/ride-along.ts).
 */
export function batchInsert(db: Db, sql: string, columns: number): (rows: readonly (readonly unknown[])[]) => void {
  const PER_STATEMENT = 50;
  const row = `(${Array(columns).fill('?').join(', ')})`;
  const statements: Database.Statement[] = [];
  const statementFor = (count: number) => (statements[count] ??= db.prepare(`${sql} VALUES ${Array(count).fill(row).join(', ')}`));
  return (rows) => {
    for (let i = 0; i < rows.length; i += PER_STATEMENT) {
      const chunk = rows.slice(i, i + PER_STATEMENT);
      statementFor(chunk.length).run(...chunk.flat());
    }
  };
}
