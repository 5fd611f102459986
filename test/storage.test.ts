import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../db/migrations/index.ts';
import { openDatabase, type Db } from '../src/core/db.ts';
import { createLogger } from '../src/core/log.ts';
import { StartupError, migrate, type Migration } from '../src/core/migrations.ts';
import { startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';

const NEWEST = Math.max(...migrations.map((m) => m.version));

describe('the appliance database', () => {
  let wms: TestAppliance;
  beforeAll(async () => {
    wms = await startTestAppliance();
  });
  afterAll(() => wms.close());

  it('lives in the data directory under the configured file name', () => {
    const file = path.join(wms.dataDir, 'wms.sqlite');
    expect(existsSync(file)).toBe(true);
    expect(wms.app.db.name).toBe(file);
  });

  it('runs in WAL mode', () => {
    expect(wms.app.db.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('syncs fully (synchronous=FULL) so an acknowledged write survives a power cut (storage.flush: apart, test/durability.test.ts)', () => {
    expect(wms.app.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(wms.app.flusher).toBeUndefined();
  });

  it('enforces foreign keys', () => {
    expect(wms.app.db.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('waits storage.busyTimeoutMs for a lock', () => {
    expect(wms.app.db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('carries the newest migration number as user_version', () => {
    expect(wms.app.db.pragma('user_version', { simple: true })).toBe(NEWEST);
  });

  it('one appliance per database: a second one on the same data directory is refused', async () => {
    // The database stays open to read connections (snapshots beside the writer); the claim is a lock file.
    expect(wms.app.db.pragma('locking_mode', { simple: true })).toBe('normal');
    expect(existsSync(path.join(wms.dataDir, 'wms.sqlite-lock'))).toBe(true);
    const file = path.join(wms.dataDir, 'wms.sqlite');
    expect(() => openDatabase({ file, busyTimeoutMs: 50 })).toThrow(StartupError);
    expect(() => openDatabase({ file, busyTimeoutMs: 50 })).toThrow(/in use by another running appliance/);
    await expect(startTestAppliance({ storage: { busyTimeoutMs: 50 } }, wms.dataDir)).rejects.toThrow(StartupError);
    // The first one is unharmed.
    expect((await wms.get('/v1/accounts?default=true')).status).toBe(200);
  });

  it('took no backup on the first start (nothing to back up)', () => {
    const backups = path.join(wms.dataDir, 'backups');
    expect(existsSync(backups) ? readdirSync(backups) : []).toEqual([]);
  });
});

describe('the appliance database on a restart', () => {
  it('keeps the data and neither migrates nor backs up again', async () => {
    const first = await startTestAppliance();
    const users = () => first.app.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number };
    const before = users().n;
    expect(before).toBeGreaterThan(0);
    await first.app.close();

    const second = await startTestAppliance({}, first.dataDir);
    try {
      expect(second.app.db.pragma('user_version', { simple: true })).toBe(NEWEST);
      expect((second.app.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n).toBe(before);
      const backups = path.join(second.dataDir, 'backups');
      expect(existsSync(backups) ? readdirSync(backups) : []).toEqual([]);
      expect(second.logs().some((l) => l.includes('migration applied'))).toBe(false);
    } finally {
      await second.close();
    }
  });

  it('uses storage.file as the database file name', async () => {
    const wms = await startTestAppliance({ storage: { file: 'site-7.sqlite' } });
    try {
      expect(wms.app.db.name).toBe(path.join(wms.dataDir, 'site-7.sqlite'));
      expect(existsSync(path.join(wms.dataDir, 'site-7.sqlite'))).toBe(true);
      expect(existsSync(path.join(wms.dataDir, 'wms.sqlite'))).toBe(false);
    } finally {
      await wms.close();
    }
  });
});

describe('migrate()', () => {
  // Two fake migrations: 20 only works once 10 has run.
  const m10: Migration = {
    version: 10,
    name: '0010-shelves',
    sql: 'CREATE TABLE shelves (id INTEGER PRIMARY KEY, name TEXT NOT NULL);',
  };
  const m20: Migration = {
    version: 20,
    name: '0020-shelf-zone',
    sql: "ALTER TABLE shelves ADD COLUMN zone TEXT NOT NULL DEFAULT 'A'; CREATE TABLE bins (id INTEGER PRIMARY KEY, shelf INTEGER NOT NULL REFERENCES shelves(id));",
  };
  const failing20: Migration = {
    version: 20,
    name: '0020-broken',
    sql: 'CREATE TABLE bins (id INTEGER PRIMARY KEY); INSERT INTO no_such_table VALUES (1);',
  };

  let dir: string;
  let db: Db;
  let logLines: string[];
  const opened: Db[] = [];

  function open(file = path.join(dir, 'test.sqlite')): Db {
    const handle = openDatabase({ file, busyTimeoutMs: 1000 });
    opened.push(handle);
    return handle;
  }

  function options(backupsToKeep = 5) {
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    return { backupDir: path.join(dir, 'backups'), backupsToKeep, log: createLogger({ level: 'info', destination: sink }) };
  }

  const backups = () => (existsSync(path.join(dir, 'backups')) ? readdirSync(path.join(dir, 'backups')).sort() : []);
  const version = (handle = db) => handle.pragma('user_version', { simple: true }) as number;
  const tables = (handle = db) =>
    (handle.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  const columns = (table: string, handle = db) => (handle.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  /** Schema numbers of the backups present, e.g. [10, 20]. */
  const backupSchemas = () => backups().map((f) => Number(/^wms-schema(\d+)-/.exec(f)![1]));
  /** The log is written asynchronously to the sink; give it a turn of the event loop. */
  const flushed = () => new Promise((resolve) => setImmediate(resolve));

  afterEach(() => {
    for (const handle of opened.splice(0)) if (handle.open) handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function fresh() {
    dir = tempDir('wms-migrate-');
    logLines = [];
    db = open();
  }

  it('applies pending migrations in version order and sets user_version', async () => {
    fresh();
    migrate(db, [m20, m10], options());
    expect(version()).toBe(20);
    expect(tables()).toEqual(['bins', 'shelves']);
    expect(columns('shelves')).toEqual(['id', 'name', 'zone']);
    await flushed();
    const applied = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'migration applied');
    expect(applied.map((l) => [l.version, l.migration])).toEqual([
      [10, '0010-shelves'],
      [20, '0020-shelf-zone'],
    ]);
  });

  it('applies only the migrations above the current user_version', () => {
    fresh();
    migrate(db, [m10], options());
    db.prepare("INSERT INTO shelves (name) VALUES ('S1')").run();
    migrate(db, [m10, m20], options());
    expect(version()).toBe(20);
    expect(db.prepare('SELECT name, zone FROM shelves').all()).toEqual([{ name: 'S1', zone: 'A' }]);
  });

  it('does nothing when no migration is pending', () => {
    fresh();
    migrate(db, [m10, m20], options());
    db.prepare("INSERT INTO shelves (name) VALUES ('S1')").run();
    migrate(db, [m10, m20], options());
    expect(version()).toBe(20);
    expect(db.prepare('SELECT COUNT(*) AS n FROM shelves').get()).toEqual({ n: 1 });
    expect(backups()).toEqual([]);
  });

  it('takes no backup of a fresh database (user_version 0)', () => {
    fresh();
    migrate(db, [m10, m20], options());
    expect(backups()).toEqual([]);
  });

  it('backs up a non-empty database before applying pending migrations', async () => {
    fresh();
    migrate(db, [m10], options());
    db.prepare("INSERT INTO shelves (name) VALUES ('S1')").run();
    expect(backups()).toEqual([]);

    migrate(db, [m10, m20], options());
    const files = backups();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^wms-schema10-.*\.sqlite$/);

    // The backup is the database as it was before the migration.
    const copy = new Database(path.join(dir, 'backups', files[0]!), { readonly: true });
    try {
      expect(version(copy)).toBe(10);
      expect(tables(copy)).toEqual(['shelves']);
      expect(columns('shelves', copy)).toEqual(['id', 'name']);
      expect(copy.prepare('SELECT name FROM shelves').all()).toEqual([{ name: 'S1' }]);
    } finally {
      copy.close();
    }
    await flushed();
    expect(logLines.some((l) => JSON.parse(l).msg === 'database backed up before migrating')).toBe(true);
  });

  it('keeps only the newest backupsToKeep backups', () => {
    fresh();
    const steps = [10, 20, 30, 40].map((v) => ({ version: v, name: `00${v}-t${v}`, sql: `CREATE TABLE t${v} (x);` }));
    migrate(db, steps.slice(0, 1), options(2));
    migrate(db, steps.slice(0, 2), options(2)); // backup of 10
    migrate(db, steps.slice(0, 3), options(2)); // backup of 20
    migrate(db, steps, options(2)); // backup of 30; 10 goes
    expect(version()).toBe(40);
    expect(backupSchemas()).toEqual([20, 30]);
  });

  it('prunes by age, not by the text of the file name, past schema 100', () => {
    fresh();
    const steps = Array.from({ length: 12 }, (_, i) => (i + 1) * 10).map((v) => ({
      version: v,
      name: `${String(v).padStart(4, '0')}-t${v}`,
      sql: `CREATE TABLE t${v} (x);`,
    }));
    migrate(db, steps.slice(0, 8), options(2)); // fresh: up to 80, no backup
    migrate(db, steps.slice(0, 9), options(2)); // backup of 80
    migrate(db, steps.slice(0, 10), options(2)); // backup of 90
    migrate(db, steps.slice(0, 11), options(2)); // backup of 100; 80 goes
    migrate(db, steps, options(2)); // backup of 110; 90 goes
    expect(version()).toBe(120);
    expect(backupSchemas().sort((a, b) => a - b)).toEqual([100, 110]);
  });

  it('rolls back every migration of the run when one fails', () => {
    fresh();
    expect(() => migrate(db, [m10, failing20], options())).toThrow(/no_such_table/);
    expect(version()).toBe(0);
    expect(tables()).toEqual([]);
  });

  it('leaves an existing schema as it was when a later migration fails', () => {
    fresh();
    migrate(db, [m10], options());
    db.prepare("INSERT INTO shelves (name) VALUES ('S1')").run();
    const m30: Migration = { version: 30, name: '0030-broken', sql: 'SELECT * FROM no_such_table;' };
    expect(() => migrate(db, [m10, m20, m30], options())).toThrow(/no_such_table/);
    expect(version()).toBe(10);
    expect(tables()).toEqual(['shelves']);
    expect(columns('shelves')).toEqual(['id', 'name']);
    expect(db.prepare('SELECT name FROM shelves').all()).toEqual([{ name: 'S1' }]);
  });

  it('refuses a database written by a newer build and changes nothing', () => {
    fresh();
    migrate(db, [m10, m20], options());
    db.prepare("INSERT INTO shelves (name) VALUES ('S1')").run();
    let caught: unknown;
    try {
      migrate(db, [m10], options());
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StartupError);
    expect((caught as Error).message).toContain('newer build');
    expect((caught as Error).message).toContain('schema 20');
    expect((caught as Error).message).not.toMatch(/[\r\n]/);
    expect(version()).toBe(20);
    expect(tables()).toEqual(['bins', 'shelves']);
    expect(db.prepare('SELECT COUNT(*) AS n FROM shelves').get()).toEqual({ n: 1 });
    expect(backups()).toEqual([]);
  });

  it('refuses a user_version far above the newest migration', () => {
    fresh();
    db.pragma('user_version = 9999');
    expect(() => migrate(db, [m10, m20], options())).toThrow(StartupError);
    expect(version()).toBe(9999);
    expect(tables()).toEqual([]);
  });
});

describe('db/migrations/index.ts', () => {
  const folder = path.resolve(import.meta.dirname, '../db/migrations');
  const files = readdirSync(folder)
    .filter((f) => f.endsWith('.sql'))
    .sort();

  it('the folder holds migration files named NNNN-what.sql', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(f).toMatch(/^\d{4}-[a-z0-9-]+\.sql$/);
  });

  it('lists every .sql file of the folder, in order, by name', () => {
    expect(migrations.map((m) => `${m.name}.sql`)).toEqual(files);
  });

  it('gives each migration the number of its file as version', () => {
    for (const m of migrations) expect(m.version, m.name).toBe(Number(m.name.slice(0, 4)));
  });

  it('numbers the files in steps of 10 from 10, without gaps', () => {
    expect(migrations.map((m) => m.version)).toEqual(files.map((_, i) => (i + 1) * 10));
  });

  it('carries the text of each file as its SQL', () => {
    for (const m of migrations) expect(m.sql, m.name).toBe(readFileSync(path.join(folder, `${m.name}.sql`), 'utf8'));
  });
});
