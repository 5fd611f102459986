import Database from 'better-sqlite3';
import type { Db } from './db.ts';

// Read connections beside the writer. Work that reads much (a list of a million
// locations, an export) reads a snapshot of its own here: it sees the database as it
// was when it began, however long it takes and whatever is written meanwhile (WAL keeps
// the pages it needs), and it never holds the writer's connection, so telegrams and
// small requests go on between its chunks.
//
// A snapshot keeps its connection for as long as it is open; the pool has a few, and a
// request that finds them all busy waits its turn. A snapshot that is never closed
// would hold a connection and stop the WAL from being checkpointed past it, so every
// user closes it in `finally`.

/** Read connections at most per thread that reads: each streamed list holds one while it is written; more wait their turn. */
export const READ_CONNECTIONS = 4;

interface ReadPoolOptions {
  file: string;
  /** Connections at most (each open snapshot holds one). */
  size: number;
  nativeBinding?: unknown;
}

export class ReadPool {
  private readonly options: ReadPoolOptions;
  private readonly idle: Db[] = [];
  private open = 0;
  private readonly waiting: ((db: Db) => void)[] = [];
  private closed = false;

  constructor(options: ReadPoolOptions) {
    this.options = options;
  }

  /** A snapshot: `db` reads the database as it is now until `close()`. */
  async snapshot(): Promise<Snapshot> {
    const db = await this.acquire();
    try {
      // The snapshot starts with the first read of the transaction: read now.
      db.exec('BEGIN');
      db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get();
    } catch (err) {
      this.release(db, true);
      throw err;
    }
    let done = false;
    return {
      db,
      close: () => {
        if (done) return;
        done = true;
        try {
          db.exec('COMMIT');
          this.release(db, false);
        } catch {
          this.release(db, true);
        }
      },
    };
  }

  /** Closes idle connections; busy ones close when their snapshot does. */
  close(): void {
    this.closed = true;
    for (const db of this.idle.splice(0)) {
      db.close();
      this.open--;
    }
  }

  private acquire(): Promise<Db> {
    if (this.closed) return Promise.reject(new Error('the read pool is closed'));
    const db = this.idle.pop();
    if (db) return Promise.resolve(db);
    if (this.open < this.options.size) {
      this.open++;
      try {
        return Promise.resolve(this.connect());
      } catch (err) {
        this.open--;
        return Promise.reject(err);
      }
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(db: Db, broken: boolean): void {
    if (broken || this.closed) {
      this.open--;
      db.close();
      // A waiter gets a fresh connection instead of the broken one.
      const next = this.waiting.shift();
      if (next && !this.closed) void this.acquire().then(next);
      return;
    }
    const next = this.waiting.shift();
    if (next) next(db);
    else this.idle.push(db);
  }

  private connect(): Db {
    const db = new Database(this.options.file, {
      readonly: true,
      fileMustExist: true,
      nativeBinding: this.options.nativeBinding as string | undefined,
    });
    // Big scans must not evict a cache they do not share: a small one of their own.
    db.pragma('cache_size = -4096');
    return db;
  }
}

export interface Snapshot {
  /** The read connection, inside a read transaction. */
  db: Db;
  /** Ends the snapshot and gives the connection back. Idempotent. */
  close(): void;
}
