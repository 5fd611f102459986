import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';
import type { ReadPool } from './read-pool.ts';

// Lists read in key order, never all at once. The SQL of a list selects rows whose key
// comes after the `@k0`, `@k1`, … parameters, in key order, `LIMIT @limit`, e.g.
//   SELECT … FROM locations l … WHERE l.location_id > @k0 ORDER BY l.location_id LIMIT @limit
// (a composite key as a row value: `(g.name, l.pk) > (@k0, @k1)`). From that one
// statement come:
// - pages: `limit` rows after a cursor, on the writer's connection (a page is small);
// - chunks: every row, in chunks read from a snapshot on a read connection, with a turn
//   of the event loop between chunks, so a million rows never sit in memory together
//   and telegrams are answered in between.
// Keyset paging (not OFFSET) costs the same on the last page as on the first, and walks
// every row once even while rows are inserted and deleted.

export type Key = readonly (string | number)[];
/** What a part of a key is: a cursor must hold the same kinds (core/paging.ts). */
type KeyKind = 'string' | 'number';

interface ListSpec<Row> {
  sql: string;
  /** The key of a row, in the order of `@k0`, `@k1`, …. */
  keyOf: (row: Row) => Key;
  /** A key before every row (`['']` for a text key). */
  first: Key;
}

/** Rows of a chunk read at once: a few milliseconds of work. */
const CHUNK_ROWS = 500;

export class KeysetList<Row> {
  private readonly spec: ListSpec<Row>;

  constructor(spec: ListSpec<Row>) {
    this.spec = spec;
  }

  /** The kinds of the key's parts, those of `first`. */
  get kinds(): KeyKind[] {
    return this.spec.first.map((part) => (typeof part === 'number' ? 'number' : 'string'));
  }

  /** Every row at once (`LIMIT -1`): for lists small by nature, on the connection given. */
  all(db: Db, params: Record<string, unknown>): Row[] {
    return this.read(db, params, this.spec.first, -1);
  }

  /**
   * The list with its parameters, as a store hands it out: pages on `db`, and the whole
   * list streamed in chunks from snapshots of `reads` (a list that grows with the site)
   * or, without a pool (a list small by nature), read at once on `db`. `map` turns the
   * rows of a page or chunk into items; it gets the connection they were read on, so
   * what it reads besides comes from the same snapshot.
   */
  listing<T>(db: Db, params: Record<string, unknown>, map: (rows: Row[], db: Db) => T[], reads?: ReadPool): Listing<T> {
    return {
      kinds: this.kinds,
      page: (after, limit) => {
        const { rows, next } = this.page(db, params, after, limit);
        return { items: map(rows, db), next };
      },
      whole: () => (reads ? this.mappedChunks(reads, params, map) : map(this.all(db, params), db)),
    };
  }

  /** At most `limit` rows after `after` (the start when undefined); `next` is the key to go on from while more may exist. */
  page(db: Db, params: Record<string, unknown>, after: Key | undefined, limit: number): { rows: Row[]; next: Key | undefined } {
    const rows = this.read(db, params, after ?? this.spec.first, limit + 1);
    const more = rows.length > limit;
    if (more) rows.length = limit;
    return { rows, next: more ? this.spec.keyOf(rows.at(-1)!) : undefined };
  }

  /** Every row, chunk by chunk, from one snapshot (a consistent view, however long the walk takes). */
  chunks(pool: ReadPool, params: Record<string, unknown>, chunkRows = CHUNK_ROWS): AsyncGenerator<Row[]> {
    return this.mappedChunks(pool, params, (rows) => rows, chunkRows);
  }

  private async *mappedChunks<T>(
    pool: ReadPool,
    params: Record<string, unknown>,
    map: (rows: Row[], db: Db) => T[],
    chunkRows = CHUNK_ROWS,
  ): AsyncGenerator<T[]> {
    const snapshot = await pool.snapshot();
    try {
      let after = this.spec.first;
      for (;;) {
        const rows = this.read(snapshot.db, params, after, chunkRows);
        if (rows.length > 0) yield map(rows, snapshot.db);
        if (rows.length < chunkRows) return;
        after = this.spec.keyOf(rows.at(-1)!);
        // Between chunks the loop serves everything else.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      snapshot.close();
    }
  }

  private read(db: Db, params: Record<string, unknown>, after: Key, limit: number): Row[] {
    const keys: Record<string, unknown> = {};
    after.forEach((value, i) => (keys[`k${i}`] = value));
    return prepared(db, this.spec.sql).all({ ...params, ...keys, limit }) as Row[];
  }
}

const statements = new WeakMap<Db, Map<string, Statement>>();

/** A statement prepared once per connection (the writer's or a read connection's). */
export function prepared(db: Db, sql: string): Statement {
  let byText = statements.get(db);
  if (!byText) {
    byText = new Map();
    statements.set(db, byText);
  }
  let statement = byText.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    byText.set(sql, statement);
  }
  return statement;
}

/** A page of a list: its items and, while more may exist, the key to go on after. */
export interface Page<T> {
  items: T[];
  next: Key | undefined;
}

/** A list as a service hands it to its route (http/lists.ts answers it). */
export interface Listing<T> {
  /** The kinds of the key's parts: what a cursor of this list holds. */
  kinds: readonly KeyKind[];
  /** At most `limit` items after the key `after` (from the start when undefined). */
  page(after: Key | undefined, limit: number): Page<T>;
  /** Every item: chunks from a snapshot (a list that grows with the site), or one array read at once (a small one). */
  whole(): AsyncIterable<T[]> | T[];
}

/** Maps every item of every chunk (rows to representations). */
export async function* mapChunks<A, B>(chunks: AsyncIterable<readonly A[]>, map: (item: A) => B): AsyncGenerator<B[]> {
  for await (const chunk of chunks) yield chunk.map(map);
}
