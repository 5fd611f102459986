import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../core/db.ts';
import type { Listing } from '../../../core/listing.ts';
import { ReadPool } from '../../../core/read-pool.ts';
import type { Coordinate } from '../../../core/coordinate.ts';
import { candidates, chooseDriver, probeSql, scanListing, type Driver } from './search.ts';

// The wildcard search's choice of index and its windowed walk, over a real database
// file with the coordinate columns and the part indexes of migration 0150.

let dir: string;
let db: Db;
let pool: ReadPool;

/** Racks AR01–AR02 × aisles 01–05 × x 01–10, y 01–02, z always 0000: 200 locations. */
function setup() {
  dir = mkdtempSync(path.join(tmpdir(), 'wms-search-'));
  db = openDatabase({ file: path.join(dir, 'db.sqlite'), busyTimeoutMs: 1000 });
  db.exec(`CREATE TABLE locations (location_id TEXT NOT NULL UNIQUE, area TEXT, aisle TEXT, x TEXT, y TEXT, z TEXT);
    CREATE INDEX locations_aisle ON locations (aisle, location_id);
    CREATE INDEX locations_x ON locations (x, location_id);
    CREATE INDEX locations_y ON locations (y, location_id);
    CREATE INDEX locations_z ON locations (z, location_id);`);
  const insert = db.prepare('INSERT INTO locations VALUES (?, ?, ?, ?, ?, ?)');
  const pad = (n: number) => String(n).padStart(2, '0');
  db.transaction(() => {
    for (let a = 1; a <= 2; a++)
      for (let aisle = 1; aisle <= 5; aisle++)
        for (let x = 1; x <= 10; x++)
          for (let y = 1; y <= 2; y++) {
            const parts = [`AR${pad(a)}`, pad(aisle), pad(x), pad(y), '0000'];
            insert.run(parts.join('/'), ...parts);
          }
  })();
  pool = new ReadPool({ file: path.join(dir, 'db.sqlite'), size: 1 });
}

afterEach(() => {
  pool.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const globs = (parts: Partial<Coordinate>): Coordinate => ({ area: '*', aisle: '*', x: '*', y: '*', z: '*', ...parts });
const count = (driver: Driver, params: object) =>
  db
    .prepare(probeSql(driver as Exclude<Driver, 'scan'>))
    .pluck()
    .get(params) as number;
const select = () => 'SELECT l.location_id FROM locations l';
const ids = (rows: { location_id: string }[]) => rows.map((r) => r.location_id);

function scan(parts: Partial<Coordinate>, reads?: ReadPool): Listing<string> {
  return scanListing({ db, reads, params: globs(parts), select, map: ids, window: 7, windowsPerPage: 2 });
}

function walk(listing: Listing<string>, limit: number): { items: string[]; pages: number; short: number } {
  const items: string[] = [];
  let after: readonly (string | number)[] | undefined;
  let pages = 0;
  let short = 0;
  do {
    const page = listing.page(after, limit);
    items.push(...page.items);
    pages++;
    if (page.items.length < limit && page.next) short++;
    after = page.next;
  } while (after);
  return { items, pages, short };
}

const matching = (test: (id: string) => boolean) =>
  (db.prepare('SELECT location_id FROM locations ORDER BY location_id').pluck().all() as string[]).filter(test);

describe('the driver of a search', () => {
  it('is the exact part with the fewest rows, never a part every rack shares', () => {
    setup();
    // z is 0000 everywhere, y splits in two, x in ten: x drives.
    expect(chooseDriver(globs({ x: '03', y: '01', z: '0000' }), count).driver).toBe('x');
    expect(chooseDriver(globs({ aisle: '04', z: '0000' }), count).driver).toBe('aisle');
    // A part that matches nothing wins at once.
    expect(chooseDriver(globs({ x: '03', z: '0001' }), count).driver).toBe('z');
  });

  it('is the start of the coordinate when the area is exact, and nothing (a scan) without an exact part', () => {
    setup();
    expect(candidates(globs({ area: 'AR02', aisle: '0*' }))[0]).toMatchObject({ driver: 'prefix', params: { from: 'AR02/0', to: 'AR02/1' } });
    expect(chooseDriver(globs({ area: 'AR02', x: '0?' }), count).driver).toBe('prefix');
    expect(chooseDriver(globs({ area: '*2', x: '*3' }), count).driver).toBe('scan');
  });
});

describe('a search without an exact part', () => {
  it('pages in windows: every match once, in order; a page may be short and still name the next', () => {
    setup();
    // 2 of 200 match: most pages find nothing within their two windows.
    const listing = scan({ area: '*2', aisle: '*5', x: '1?', y: '*2' });
    const { items, pages, short } = walk(listing, 5);
    expect(items).toEqual(matching((id) => /^AR02\/05\/1.\/02\//.test(id)));
    expect(items).toHaveLength(1);
    expect(pages).toBe(Math.ceil(200 / 14));
    expect(short).toBeGreaterThan(0);
  });

  it('pages of many matches stop when full; the stream from a snapshot gives the same', async () => {
    setup();
    const listing = scan({ area: '*', y: '*1' }, pool);
    const { items } = walk(listing, 3);
    expect(items).toEqual(matching((id) => id.endsWith('/01/0000')));
    const streamed: string[] = [];
    for await (const chunk of listing.whole() as AsyncIterable<string[]>) streamed.push(...chunk);
    expect(streamed).toEqual(items);
    // Without a pool the whole list is read at once, window by window.
    expect(scan({ area: '*', y: '*1' }).whole()).toEqual(items);
  });
});
