import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './db.ts';
import { KeysetList } from './listing.ts';
import { ReadPool } from './read-pool.ts';

// Keyset lists over a real database file: pages on the writer's connection, chunks
// from a snapshot on a read connection while the writer goes on.

interface Row {
  code: string;
}

const LIST = new KeysetList<Row>({ sql: 'SELECT code FROM bins WHERE code > @k0 ORDER BY code LIMIT @limit', keyOf: (r) => [r.code], first: [''] });
const code = (i: number) => `BIN-${String(i).padStart(5, '0')}`;

let dir: string;
let db: Db;
let pool: ReadPool;

function setup(rows: number, poolSize = 2) {
  dir = mkdtempSync(path.join(tmpdir(), 'wms-listing-'));
  db = openDatabase({ file: path.join(dir, 'db.sqlite'), busyTimeoutMs: 1000 });
  db.exec('CREATE TABLE bins (code TEXT PRIMARY KEY)');
  const insert = db.prepare('INSERT INTO bins VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(code(i * 2));
  })();
  pool = new ReadPool({ file: path.join(dir, 'db.sqlite'), size: poolSize });
}

afterEach(() => {
  pool.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('KeysetList', () => {
  it('pages walk every row once, also while rows are inserted before and after the cursor', () => {
    setup(1000);
    const seen: string[] = [];
    let after: readonly (string | number)[] | undefined;
    let extra = 0;
    for (;;) {
      const page = LIST.page(db, {}, after, 64);
      seen.push(...page.rows.map((r) => r.code));
      // Odd codes: one before the cursor (never seen), one far ahead (seen once).
      db.prepare('INSERT INTO bins VALUES (?)').run(code(extra * 2 + 1));
      db.prepare('INSERT INTO bins VALUES (?)').run(`BIN-9${String(extra++).padStart(4, '0')}`);
      if (!page.next) break;
      after = page.next;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (let i = 0; i < 1000; i++) expect(seen).toContain(code(i * 2));
    expect([...seen].sort()).toEqual(seen);
  });

  it('chunks come from one snapshot: rows written during the walk are not in it', async () => {
    setup(2000);
    const chunks = LIST.chunks(pool, {}, 300);
    const first = await chunks.next();
    expect(first.value).toHaveLength(300);
    db.prepare('INSERT INTO bins VALUES (?)').run('BIN-99999');
    db.prepare('DELETE FROM bins WHERE code = ?').run(code(3000));
    const rest: Row[] = [];
    for await (const chunk of chunks) rest.push(...chunk);
    const all = [...(first.value as Row[]), ...rest].map((r) => r.code);
    expect(all).toHaveLength(2000);
    expect(all).not.toContain('BIN-99999');
    expect(all).toContain(code(3000));
  });

  it('a walk given up half-way gives its connection back; others wait for a free one and go on', async () => {
    setup(1000, 1);
    for (let i = 0; i < 3; i++) {
      const chunks = LIST.chunks(pool, {}, 100);
      await chunks.next();
      await chunks.return(undefined);
    }
    // Two walks with one connection: the second waits until the first is done.
    const walk = async () => {
      let n = 0;
      for await (const chunk of LIST.chunks(pool, {}, 100)) n += chunk.length;
      return n;
    };
    expect(await Promise.all([walk(), walk()])).toEqual([1000, 1000]);
  });

  it('the writer is not held up: a commit goes through while a snapshot is open', async () => {
    setup(500);
    const chunks = LIST.chunks(pool, {}, 100);
    await chunks.next();
    db.prepare('INSERT INTO bins VALUES (?)').run('BIN-77777');
    expect(db.prepare('SELECT count(*) FROM bins').pluck().get()).toBe(501);
    await chunks.return(undefined);
  });
});
