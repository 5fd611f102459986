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

export interface ListSpec<Row> {
  sql: string;
  /** The key of a row, in the order of `@k0`, `@k1`, …. */
  keyOf: (row: Row) => Key;
  /** A key before every row (`['']` for a text key). */
  first: Key;
}

/** Rows of a chunk read at once: a few milliseconds of work. */
export const CHUNK_ROWS = 500;

export class KeysetList<Row> {
  private readonly spec: ListSpec<Row>;
  private readonly statements = new WeakMap<Db, Statement>();

  constructor(spec: ListSpec<Row>) {
    this.spec = spec;
  }

  /** At most `limit` rows after `after` (the start when undefined); `next` is the key to go on from while more may exist. */
  page(db: Db, params: Record<string, unknown>, after: Key | undefined, limit: number): { rows: Row[]; next: Key | undefined } {
    const rows = this.read(db, params, after ?? this.spec.first, limit + 1);
    const more = rows.length > limit;
    if (more) rows.length = limit;
    return { rows, next: more ? this.spec.keyOf(rows.at(-1)!) : undefined };
  }

  /** Every row, chunk by chunk, from one snapshot (a consistent view, however long the walk takes). */
  async *chunks(pool: ReadPool, params: Record<string, unknown>, chunkRows = CHUNK_ROWS): AsyncGenerator<Row[]> {
    const snapshot = await pool.snapshot();
    try {
      let after = this.spec.first;
      for (;;) {
        const rows = this.read(snapshot.db, params, after, chunkRows);
        if (rows.length > 0) yield rows;
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
    let statement = this.statements.get(db);
    if (!statement) {
      statement = db.prepare(this.spec.sql);
      this.statements.set(db, statement);
    }
    const keys: Record<string, unknown> = {};
    after.forEach((value, i) => (keys[`k${i}`] = value));
    return statement.all({ ...params, ...keys, limit }) as Row[];
  }
}

/** Maps every item of every chunk (rows to representations). */
export async function* mapChunks<A, B>(chunks: AsyncIterable<readonly A[]>, map: (item: A) => B): AsyncGenerator<B[]> {
  for await (const chunk of chunks) yield chunk.map(map);
}
