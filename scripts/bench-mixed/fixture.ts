// The site of the mixed-load benchmark as a database file, built once and cached:
// `/tmp/wms-bench-mixed-s<schema>-<format>-r<routes>-<locations>.sqlite`, its logs
// database and a `.json` of what it holds beside it; each run copies it into a fresh
// data directory (the cached files are never opened by SQLite again).
//
// Built fast, not through the API (a million POSTs would take an hour):
// 1. the appliance starts on an empty data directory, so its migrations and first-start
//    seed run, and over REST gets the PLC benchmark's site (bench-plc/appliance.ts
//    createSite: group BNCH, its conveyors, a route with hops, the units shuttling with
//    their STARTED orders) and the units the TU-move load moves; then it stops;
// 2. into that migrated file, by SQL in big transactions: a group per area and per
//    aisle, the conveyor network, the rack locations up to the count asked for, routes
//    (each with three hops over the conveyors) up to the route count, default hops per
//    area;
// 3. the appliance starts once more on it (a fixture it cannot read fails here, not in
//    the measured run), answers one lookup, and stops; the files are cached.

import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { AREA, createSite, startAppliance, type Appliance } from '../bench-plc/appliance.ts';
import { aisleGroup, conveyor, CONVEYORS, locationId, rack, rackAreas, type Coordinate } from './layout.ts';

/** Bumped when what the fixture holds changes, so an old cached file is not reused. */
const FORMAT = 'f1';
/** The appliance's database in its data directory (its default `storage.file`). */
export const DATABASE_FILE = 'wms.sqlite';
/** The units the PLC client shuttles (enough that a backlog of half a second at 1000/s still finds an idle one). */
export const PLC_UNITS = Array.from({ length: 512 }, (_, i) => `BT${String(i + 1).padStart(4, '0')}`);
/** The units the TU-move load moves between rack locations; they start on MOVE_HOME. */
export const MOVE_UNITS = Array.from({ length: 200 }, (_, i) => `MV${String(i + 1).padStart(4, '0')}`);
const MOVE_HOME = `${AREA}/0003/0001/0000/0000`;
/** Hops per bulk route, each over the conveyor network. */
const HOPS = 3;
const BATCH = 50_000;

export interface Fixture {
  /** The cached database file and its logs database. */
  file: string;
  logsFile: string;
  /** Rack locations in it (`layout.ts` rack(0) … rack(racks − 1)). */
  racks: number;
}

/** The highest migration number of the tree a bundle was built from: the schema it writes. */
function schemaVersion(bundle: string): number {
  const dir = path.resolve(path.dirname(bundle), '..', 'db', 'migrations');
  return Math.max(...readdirSync(dir).map((f) => Number(/^(\d+)-.*\.sql$/.exec(f)?.[1] ?? 0)));
}

export async function stopAppliance(child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** The cached fixture for this many locations and routes, built first when missing. */
export async function ensureFixture(options: {
  locations: number;
  routes: number;
  bundle: string;
  log: (line: string) => void;
}): Promise<Fixture & { builtSeconds?: number }> {
  const base = path.join(tmpdir(), `wms-bench-mixed-s${schemaVersion(options.bundle)}-${FORMAT}-r${options.routes}-${options.locations}`);
  const fixture = { file: `${base}.sqlite`, logsFile: `${base}-logs.sqlite`, racks: 0 };
  // Written last, so a build that failed half-way leaves no fixture that looks complete.
  const facts = `${base}.json`;
  if (existsSync(facts) && existsSync(fixture.file) && existsSync(fixture.logsFile)) {
    return { ...fixture, racks: (JSON.parse(readFileSync(facts, 'utf8')) as { racks: number }).racks };
  }
  const started = performance.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'wms-bench-mixed-build-'));
  try {
    options.log(`building the fixture: ${options.locations} locations, ${options.routes} routes → ${fixture.file}`);
    let app = await startAppliance(dir, undefined, 0, options.bundle);
    try {
      await createSite(app, PLC_UNITS);
      await app.api('POST', '/v1/locations', { locationId: MOVE_HOME, locationGroupName: AREA });
      for (const barcode of MOVE_UNITS) await app.api('POST', '/v1/transport-units', { barcode, actualLocation: MOVE_HOME, transportUnitType: 'EURO' });
    } finally {
      await stopAppliance(app.child);
    }
    const file = path.join(dir, DATABASE_FILE);
    const db = new Database(file);
    try {
      bulkLoad(db, options.locations, options.routes, options.log);
      fixture.racks = db.prepare<[], number>(`SELECT count(*) FROM locations WHERE area GLOB 'AR[0-9][0-9]'`).pluck().get()!;
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    options.log(`bulk load done after ${((performance.now() - started) / 1000).toFixed(1)} s; checking that the appliance starts on it`);
    app = await startAppliance(dir, undefined, 0, options.bundle);
    try {
      await checkSite(app, fixture.racks);
    } finally {
      await stopAppliance(app.child);
    }
    for (const [from, to] of [
      [file, fixture.file],
      [path.join(dir, 'wms-logs.sqlite'), fixture.logsFile],
    ] as const) {
      // Whatever a write-ahead log still holds goes into the file, so the file alone is the fixture.
      const folded = new Database(from, { fileMustExist: true });
      folded.pragma('wal_checkpoint(TRUNCATE)');
      folded.close();
      copyFileSync(from, `${to}.partial`);
      renameSync(`${to}.partial`, to);
    }
    writeFileSync(facts, JSON.stringify({ racks: fixture.racks }));
    const builtSeconds = (performance.now() - started) / 1000;
    options.log(`fixture built in ${builtSeconds.toFixed(1)} s`);
    return { ...fixture, builtSeconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh data directory's database and logs database from the fixture. */
export function copyFixture(fixture: Fixture, dataDir: string): void {
  copyFileSync(fixture.file, path.join(dataDir, DATABASE_FILE));
  copyFileSync(fixture.logsFile, path.join(dataDir, 'wms-logs.sqlite'));
}

async function checkSite(app: Appliance, racks: number): Promise<void> {
  const last = locationId(rack(racks - 1));
  const found = (await app.api('GET', `/v1/locations?locationId=${encodeURIComponent(last)}`)) as { locationGroupName: string };
  if (found.locationGroupName !== aisleGroup(rack(racks - 1))) throw new Error(`fixture: ${last} is in ${found.locationGroupName}`);
}

const pKey = () => randomBytes(12).toString('base64url');

function bulkLoad(db: Database.Database, locations: number, routes: number, log: (line: string) => void): void {
  // A fixture, not a production write: no fsync, a big page cache; the file is checked
  // by the appliance's start afterwards and thrown away if anything fails.
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1048576');
  db.pragma('foreign_keys = ON');
  const now = new Date().toISOString();
  const one = <T>(sql: string, ...params: unknown[]) =>
    db
      .prepare(sql)
      .pluck()
      .get(...params) as T;
  const account = one<string>('SELECT pk FROM accounts WHERE is_default = 1');
  const root = one<string>(`SELECT pk FROM location_groups WHERE name = 'WAREHOUSE'`);
  const type = (name: string) => one<string>('SELECT pk FROM location_types WHERE type = ?', name);
  const [rackType, conveyorType] = [type('RACK'), type('CONVEYOR')];
  const existing = one<number>('SELECT count(*) FROM locations');
  const racks = locations - existing - CONVEYORS;
  if (racks < 1000) throw new Error(`--locations ${locations} leaves no room for racks beside ${CONVEYORS} conveyors`);

  const insertGroup = db.prepare(`INSERT INTO location_groups (pk, name, parent_pk, account_pk, ol, create_dt, last_modified_dt) VALUES (?, ?, ?, ?, 0, ?, ?)`);
  const insertLocation = db.prepare(
    `INSERT INTO locations (pk, location_id, area, aisle, x, y, z, account_pk, location_group_pk, location_type_pk, ol, create_dt, last_modified_dt)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
  );
  const groups = new Map<string, string>();
  const group = (name: string, parent: string) => {
    let pk = groups.get(name);
    if (!pk) {
      pk = pKey();
      insertGroup.run(pk, name, parent, null, now, now); // as a group created without accountId
      groups.set(name, pk);
    }
    return pk;
  };
  const location = (c: Coordinate, groupPk: string, typePk: string) => {
    const pk = pKey();
    insertLocation.run(pk, locationId(c), c.area, c.aisle, c.x, c.y, c.z, account, groupPk, typePk, now, now);
    return pk;
  };

  const conveyors: string[] = [];
  db.transaction(() => {
    const conveyorGroup = group('CONV', root);
    for (let i = 0; i < CONVEYORS; i++) conveyors.push(location(conveyor(i), conveyorGroup, conveyorType));
  })();
  for (let from = 0; from < racks; from += BATCH) {
    db.transaction(() => {
      for (let n = from; n < Math.min(racks, from + BATCH); n++) {
        const c = rack(n);
        const areaPk = group(c.area, root);
        location(c, group(aisleGroup(c), areaPk), rackType);
      }
    })();
    log(`  ${Math.min(racks, from + BATCH)} of ${racks} rack locations`);
  }

  // Routes from a conveyor to an aisle group, each with hops over the conveyors that
  // follow it; a default hop per area group to the first conveyor.
  const bulkRoutes = routes - one<number>('SELECT count(*) FROM routes');
  const { areas, aislesOfLastArea } = rackAreas(racks);
  const aisleGroups = [...groups.entries()].filter(([name]) => name.includes('-')).map(([, pk]) => pk);
  if (bulkRoutes > CONVEYORS) throw new Error(`--routes ${routes}: at most ${CONVEYORS} routes, one per conveyor`);
  const insertRoute = db.prepare(
    `INSERT INTO routes (pk, name, source_location_pk, target_group_pk, enabled, ol, create_dt, last_modified_dt) VALUES (?, ?, ?, ?, 1, 0, ?, ?)`,
  );
  const insertHop = db.prepare('INSERT INTO route_hops (route_pk, pos, source_location_pk, next_location_pk) VALUES (?, ?, ?, ?)');
  const insertDefaultHop = db.prepare('INSERT INTO default_hops (pos, source_group_pk, next_location_pk) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < bulkRoutes; i++) {
      const pk = pKey();
      insertRoute.run(pk, `BULK-${String(i + 1).padStart(4, '0')}`, conveyors[i], aisleGroups[i % aisleGroups.length], now, now);
      for (let h = 0; h < HOPS; h++) insertHop.run(pk, h, conveyors[(i + h) % CONVEYORS], conveyors[(i + h + 1) % CONVEYORS]);
    }
    let pos = one<number>('SELECT coalesce(max(pos), -1) FROM default_hops');
    for (let a = 1; a <= areas; a++) insertDefaultHop.run(++pos, groups.get(`AR${String(a).padStart(2, '0')}`), conveyors[0]);
  })();
  log(`  ${groups.size} groups (${areas} areas, the last with ${aislesOfLastArea} aisles), ${bulkRoutes} routes with ${HOPS} hops each`);
}
