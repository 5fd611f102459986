// Which index serves the location wildcard search (`GET /v1/locations?area=&aisle=&x=&y=&z=`)
// when a part starts with a wildcard? Measured on a table of 1,000,000 locations laid out
// like a real rack site (10 areas × 100 aisles × 100 x × 10 y, z always 0000), with the
// appliance's own migrations, for several index designs; each search is read the way the
// appliance reads it: keyset pages in coordinate order (`location_id > @k0 … LIMIT`).
//
//   node scripts/wildcard-index.ts [--locations 1000000] [--rounds 5]
//
// Prints, per design: the size its indexes add, the time of a first page of 100 and of
// a whole walk in chunks of 500 for each search (median of the rounds), and the plan.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { chooseDriver, probeSql, searchSql, type Driver } from '../src/modules/common/locations/search.ts';
import { numberArg } from './args.ts';

const LOCATIONS = numberArg('--locations', 1_000_000);
const ROUNDS = numberArg('--rounds', 5);
const pad = (n: number) => String(n).padStart(4, '0');
const MIGRATIONS = path.resolve(import.meta.dirname, '..', 'db', 'migrations');

type Parts = { area: string; aisle: string; x: string; y: string; z: string };
const PARTS = ['area', 'aisle', 'x', 'y', 'z'] as const;

/** Searches as a client sends them (LIKE wildcards), a missing part matching anything. */
const SEARCHES: { name: string; parts: Partial<Parts> }[] = [
  { name: 'area=%&x=0001&y=0001&z=0000', parts: { area: '%', x: '0001', y: '0001', z: '0000' } },
  { name: 'area=%&aisle=0050', parts: { area: '%', aisle: '0050' } },
  { name: 'area=%&aisle=%&x=0042&y=0003', parts: { area: '%', x: '0042', y: '0003' } },
  { name: 'area=%&y=0005', parts: { area: '%', y: '0005' } },
  { name: 'area=%1&aisle=0007&x=%5', parts: { area: '%1', aisle: '0007', x: '%5' } },
  { name: 'area=%&z=0001 (none)', parts: { area: '%', z: '0001' } },
  { name: 'area=AR03&aisle=0010 (prefix)', parts: { area: 'AR03', aisle: '0010' } },
];

const likeToGlob = (p: string) =>
  p
    .replace(/[*?[\]]/g, (c) => `[${c}]`)
    .replace(/%/g, '*')
    .replace(/_/g, '?');
const exact = (p: string) => !p.includes('%') && !p.includes('_');

interface Design {
  name: string;
  /** Statements that set the design up on the table as migrations up to 0140 left it. */
  indexes: string[];
  /** The statement of a keyset page for these parts and its parameters (the choice of G reads the database). */
  query: (parts: Parts, db: Database.Database) => { sql: string; params: Record<string, string> };
}

const SELECT = 'SELECT l.pk, l.location_id FROM locations l';
const PAGE = 'AND l.location_id > @k0 ORDER BY l.location_id LIMIT @limit';

/** Every part by GLOB, as the search was written. */
const globAll = (parts: Parts) => ({
  sql: `${SELECT} WHERE l.area GLOB @area AND l.aisle GLOB @aisle AND l.x GLOB @x AND l.y GLOB @y AND l.z GLOB @z ${PAGE}`,
  params: Object.fromEntries(PARTS.map((p) => [p, likeToGlob(parts[p])])),
});

/** A part without wildcard compared with `=` (an index equality), the others by GLOB; parts that match anything left out. */
const exactAsEquality = (parts: Parts) => {
  const terms: string[] = [];
  const params: Record<string, string> = {};
  for (const p of PARTS) {
    if (parts[p] === '%') continue;
    terms.push(exact(parts[p]) ? `l.${p} = @${p}` : `l.${p} GLOB @${p}`);
    params[p] = exact(parts[p]) ? parts[p] : likeToGlob(parts[p]);
  }
  return { sql: `${SELECT} WHERE ${terms.length ? terms.join(' AND ') : '1'} ${PAGE}`, params };
};

/** The appliance's search (src/modules/common/locations/search.ts): the driver with the fewest rows, counted in its index. */
const probes = new Map<string, Database.Statement>();
const appliance = (parts: Parts, db: Database.Database) => {
  const globs = Object.fromEntries(PARTS.map((p) => [p, likeToGlob(parts[p])])) as Parts;
  const { driver, params } = chooseDriver(globs, (d, ps) => {
    const sql = probeSql(d as Exclude<Driver, 'scan'>);
    let probe = probes.get(sql);
    if (!probe) probes.set(sql, (probe = db.prepare(sql).pluck()));
    return probe.get(ps) as number;
  });
  return { sql: searchSql(driver, (hint) => `SELECT l.pk, l.location_id FROM locations l ${hint}`), params: params as unknown as Record<string, string> };
};

/** FTS5 trigram over the coordinate: the rows whose location_id matches the whole GLOB. */
const trigram = (parts: Parts) => ({
  sql: `${SELECT} WHERE l.rowid IN (SELECT rowid FROM locations_trigram WHERE location_id GLOB @glob) ${PAGE}`,
  params: { glob: PARTS.map((p) => likeToGlob(parts[p])).join('/') },
});

const ANALYZE = ['PRAGMA analysis_limit = 1000', 'ANALYZE locations'];
const PART_INDEXES = ['aisle', 'x', 'y', 'z'].map((p) => `CREATE INDEX locations_${p} ON locations (${p})`);
const PART_KEY_INDEXES = ['aisle', 'x', 'y', 'z'].map((p) => `CREATE INDEX locations_${p} ON locations (${p}, location_id)`);
const MIGRATION = readFileSync(path.join(MIGRATIONS, '0150-list-indexes.sql'), 'utf8');
const DESIGNS: Design[] = [
  { name: 'A: index of the five parts only (before 0150)', indexes: [], query: globAll },
  { name: 'B: one index per part, all parts by GLOB', indexes: PART_INDEXES, query: globAll },
  { name: 'C: one index per part, exact parts by =', indexes: PART_INDEXES, query: exactAsEquality },
  { name: "D: C + ANALYZE (the planner knows each part's spread)", indexes: [...PART_INDEXES, ...ANALYZE], query: exactAsEquality },
  { name: 'E: (part, location_id) per part, exact parts by =', indexes: PART_KEY_INDEXES, query: exactAsEquality },
  { name: 'F: E + ANALYZE', indexes: [...PART_KEY_INDEXES, ...ANALYZE], query: exactAsEquality },
  { name: 'G: migration 0150 + driver counted in its index (the appliance)', indexes: [MIGRATION], query: appliance },
  {
    name: 'H: FTS5 trigram over location_id',
    indexes: [
      `CREATE VIRTUAL TABLE locations_trigram USING fts5(location_id, content='locations', content_rowid='rowid', tokenize='trigram', detail='none')`,
      `INSERT INTO locations_trigram (locations_trigram) VALUES ('rebuild')`,
    ],
    query: trigram,
  },
];

function build(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  for (const name of readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith('.sql') && f < '0150')
    .sort())
    db.exec(readFileSync(path.join(MIGRATIONS, name), 'utf8'));
  const now = new Date().toISOString();
  db.prepare(`INSERT INTO accounts (pk, identifier, name, is_default, create_dt, last_modified_dt) VALUES ('A', 'DEF', 'Default', 1, ?, ?)`).run(now, now);
  db.prepare(`INSERT INTO location_groups (pk, name, create_dt, last_modified_dt) VALUES ('G', 'WAREHOUSE', ?, ?)`).run(now, now);
  const insert = db.prepare(
    `INSERT INTO locations (pk, location_id, area, aisle, x, y, z, account_pk, location_group_pk, create_dt, last_modified_dt)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'A', 'G', ?, ?)`,
  );
  db.transaction(() => {
    for (let n = 0; n < LOCATIONS; n++) {
      const c = {
        area: `AR${String(Math.floor(n / 100_000) + 1).padStart(2, '0')}`,
        aisle: pad((Math.floor(n / 1000) % 100) + 1),
        x: pad((Math.floor(n / 10) % 100) + 1),
        y: pad((n % 10) + 1),
        z: '0000',
      };
      // Random-looking pks, as the appliance's are: the table is not in coordinate order.
      insert.run(
        `pk${((n * 2654435761) % 4294967296).toString(36)}-${n}`,
        `${c.area}/${c.aisle}/${c.x}/${c.y}/${c.z}`,
        c.area,
        c.aisle,
        c.x,
        c.y,
        c.z,
        now,
        now,
      );
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  return db;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const pages = (db: Database.Database) => db.prepare<[], number>('PRAGMA page_count').pluck().get()! * db.prepare<[], number>('PRAGMA page_size').pluck().get()!;

function measure(db: Database.Database, design: Design, parts: Parts) {
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string) => statements.get(sql) ?? statements.set(sql, db.prepare(sql)).get(sql)!;
  const first: number[] = [];
  const whole: number[] = [];
  let rows = 0;
  let plan = '';
  for (let round = 0; round < ROUNDS; round++) {
    // The choice of the statement (G counts rows) is part of each request's cost.
    let t = performance.now();
    let { sql, params } = design.query(parts, db);
    prepare(sql).all({ ...params, k0: '', limit: 101 });
    first.push(performance.now() - t);
    t = performance.now();
    ({ sql, params } = design.query(parts, db));
    const statement = prepare(sql);
    rows = 0;
    let after = '';
    for (;;) {
      const chunk = statement.all({ ...params, k0: after, limit: 500 }) as { location_id: string }[];
      rows += chunk.length;
      if (chunk.length < 500) break;
      after = chunk.at(-1)!.location_id;
    }
    whole.push(performance.now() - t);
    plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ ...params, k0: '', limit: 100 }) as { detail: string }[]).map((r) => r.detail).join('; ');
  }
  return { firstMs: median(first), wholeMs: median(whole), rows, plan };
}

const signed = (mb: number) => `${mb >= 0 ? '+' : ''}${mb.toFixed(0)}`;

/** Microseconds per location of inserting 20,000 more (random coordinates, so every index is written at random places), then removing them. */
function insertCost(db: Database.Database): number {
  const now = new Date().toISOString();
  const insert = db.prepare(
    `INSERT INTO locations (pk, location_id, area, aisle, x, y, z, account_pk, location_group_pk, create_dt, last_modified_dt)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'A', 'G', ?, ?)`,
  );
  const n = 20_000;
  const t = performance.now();
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const c = [`NEW${i % 7}`, pad((i * 7919) % 10_000), pad((i * 104_729) % 10_000), pad(i % 13), pad(i % 3)];
      insert.run(`new-${i}`, c.join('/'), ...c, now, now);
    }
  })();
  const us = ((performance.now() - t) * 1000) / n;
  db.exec(`DELETE FROM locations WHERE pk GLOB 'new-*'`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  return us;
}

const dir = mkdtempSync(path.join(tmpdir(), 'wms-wildcard-'));
try {
  console.log(`building ${LOCATIONS} locations …`);
  let t = performance.now();
  const db = build(path.join(dir, 'wms.sqlite'));
  console.log(`built in ${((performance.now() - t) / 1000).toFixed(1)} s, ${(pages(db) / 1e6).toFixed(0)} MB`);
  for (const design of DESIGNS) {
    const before = pages(db);
    t = performance.now();
    for (const statement of design.indexes) db.exec(statement);
    const buildS = (performance.now() - t) / 1000;
    db.pragma('wal_checkpoint(TRUNCATE)');
    const added = (pages(db) - before) / 1e6;
    const insertUs = insertCost(db);
    console.log(`\n${design.name}: indexes ${signed(added)} MB, built in ${buildS.toFixed(1)} s, ${insertUs.toFixed(0)} µs per location inserted`);
    for (const search of SEARCHES) {
      const parts = Object.fromEntries(PARTS.map((p) => [p, search.parts[p] ?? '%'])) as Parts;
      const r = measure(db, design, parts);
      console.log(
        `  ${search.name.padEnd(32)} rows ${String(r.rows).padStart(7)}  first page ${r.firstMs.toFixed(2).padStart(8)} ms  whole ${r.wholeMs.toFixed(1).padStart(8)} ms  | ${r.plan}`,
      );
    }
    // Each design starts from the table as migrations up to 0140 left it.
    for (const name of db
      .prepare<[], string>(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'locations' AND sql IS NOT NULL`)
      .pluck()
      .all()) {
      db.exec(`DROP INDEX ${name}`);
    }
    db.exec('DROP TABLE IF EXISTS locations_trigram');
    db.exec('CREATE INDEX locations_group ON locations (location_group_pk)');
    db.exec('CREATE INDEX locations_coordinate ON locations (area, aisle, x, y, z)');
    db.exec('CREATE INDEX locations_type ON locations (location_type_pk)');
    db.exec('DROP TABLE IF EXISTS sqlite_stat1');
    db.exec('VACUUM');
  }
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
