import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StartupError, type Db } from './db.ts';
import { CORE_KEYS, DomainError } from './errors.ts';
import { unknownSchema } from './known-schema.ts';
import type { Migration } from './migrations.ts';

// Backups of the one database file.
// - Online: SQLite's backup API copies the live database page by page, in steps that
//   let requests run in between; the copy is written under a temporary name, checked
//   and only then given its final name, so a listed backup is always a whole one.
// - Restore (command line, appliance stopped): the backup is checked (an SQLite file,
//   integrity, a database of the appliance at a schema this build knows), the current
//   database is kept beside the backups, and the backup takes its place by an atomic
//   rename. Migrations bring an older backup up to date at the next start. A file that
//   fails a check is refused before anything in the data directory changes: an empty
//   file or another program's database put in place would start as an empty warehouse.
// A backup holds every password hash and the token signing key: it is as secret as the
// box. Files are created owner-only (the umask 077 of core/data-dir.ts at start, of the
// command line's restore), and the API operations need the grant `backups:admin`.

export interface BackupFile {
  name: string;
  size: number;
  /** ISO time the file was written. */
  createDt: string;
  /** `online` (taken on request), `pre-migration` or `pre-restore`. */
  kind: 'online' | 'pre-migration' | 'pre-restore';
}

const ONLINE_PREFIX = 'wms-backup-';
const PATTERNS: [RegExp, BackupFile['kind']][] = [
  [/^wms-backup-[\w.-]+\.sqlite$/, 'online'],
  [/^wms-schema\d+-[\w.-]+\.sqlite$/, 'pre-migration'],
  [/^wms-before-restore-[\w.-]+\.sqlite$/, 'pre-restore'],
];

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

/** The backups in a folder, newest first. */
export function listBackups(dir: string): BackupFile[] {
  if (!existsSync(dir)) return [];
  const files: BackupFile[] = [];
  for (const name of readdirSync(dir)) {
    const kind = PATTERNS.find(([re]) => re.test(name))?.[1];
    if (!kind) continue;
    const stat = statSync(path.join(dir, name));
    files.push({ name, size: stat.size, createDt: stat.mtime.toISOString(), kind });
  }
  return files.sort((a, b) => b.createDt.localeCompare(a.createDt) || b.name.localeCompare(a.name));
}

/** A backup's path, or undefined for a name that is not one of ours (no path tricks). */
export function backupPath(dir: string, name: string): string | undefined {
  if (!PATTERNS.some(([re]) => re.test(name)) || name.includes('/')) return undefined;
  const file = path.join(dir, name);
  return existsSync(file) ? file : undefined;
}

/** The online backup being taken, if any: one at a time (SQLite's backup API per file, and the disk). */
let running: Promise<BackupFile> | undefined;

/**
 * Takes an online backup of the live database; keeps the newest `keep` online backups.
 * `nativeBinding`: the SQLite addon the appliance runs with (the copy is opened to check it).
 * While one is being taken, another is refused (409 `backup.inProgress`).
 */
export function takeBackup(db: Db, dir: string, keep: number, nativeBinding?: unknown): Promise<BackupFile> {
  if (running) throw new DomainError(409, CORE_KEYS.backupInProgress, 'A backup is being taken; try again when it is done');
  running = copyOnline(db, dir, keep, nativeBinding).finally(() => {
    running = undefined;
  });
  return running;
}

async function copyOnline(db: Db, dir: string, keep: number, nativeBinding: unknown): Promise<BackupFile> {
  mkdirSync(dir, { recursive: true });
  // Milliseconds are not unique enough for names: backups taken back to back (and a
  // clock set back) must never meet.
  const name = `${ONLINE_PREFIX}${stamp()}-${randomBytes(3).toString('hex')}.sqlite`;
  const file = path.join(dir, name);
  const partial = `${file}.partial`;
  try {
    await db.backup(partial, { progress: () => 256 });
    checkCopy(partial, nativeBinding);
    syncFile(partial);
    renameSync(partial, file);
  } finally {
    removeWithJournal(partial);
  }
  const online = listBackups(dir).filter((b) => b.kind === 'online');
  for (const old of online.slice(keep)) rmSync(path.join(dir, old.name), { force: true });
  return listBackups(dir).find((b) => b.name === name)!;
}

/** Removes a database file with the WAL and shared-memory files SQLite may have made beside it. */
function removeWithJournal(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
}

/** A file `wms --restore` will not put in place: the operator's to correct, told in one line. */
export class BackupRefused extends StartupError {}

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = 'SQLite format 3\0';

/** Problems of an integrity check shown at most: the first ones name the damage well enough. */
const DAMAGE_SHOWN = 3;

/**
 * Opens a fresh copy (ours to change) to check it, switched from WAL to a rollback
 * journal: it is one file that needs no `-wal`/`-shm` beside it wherever it is copied.
 */
function openCopy(file: string, nativeBinding: unknown): Database.Database {
  const db = new Database(file, { fileMustExist: true, nativeBinding: nativeBinding as string | undefined });
  try {
    db.pragma('journal_mode = DELETE');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** What SQLite's integrity check finds wrong, on one line; undefined when nothing. */
function damageOf(db: Database.Database): string | undefined {
  const rows = db.pragma(`integrity_check(${DAMAGE_SHOWN})`) as { integrity_check: string }[];
  const found = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok' && !r.startsWith('*** in database'));
  return found.length > 0 ? found.join('; ').replace(/\s+/g, ' ') : undefined;
}

/** SQLite's word for a file whose pages do not hold what its format promises. */
const isDamage = (err: unknown) => /^SQLITE_(CORRUPT|NOTADB)/.test((err as { code?: string }).code ?? '');

/** Checks a fresh online backup before it gets its name. */
function checkCopy(file: string, nativeBinding: unknown): void {
  let check: Database.Database | undefined;
  try {
    check = openCopy(file, nativeBinding);
    const damage = damageOf(check);
    if (damage) throw new StartupError(`${file} is damaged: ${damage}`);
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError(`${file} is not a database of the appliance: ${(err as Error).message}`);
  } finally {
    check?.close();
  }
}

function syncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

interface RestoreOptions {
  /** The backup to restore. */
  source: string;
  /** The database file it replaces. */
  target: string;
  backupDir: string;
  /** The migrations of this build: the schemas it knows. */
  migrations: readonly Migration[];
  /** Opens the current database (to take its lock and fold in its WAL), or throws when it is in use. */
  openCurrent: () => Db;
  /** The SQLite addon the appliance runs with. */
  nativeBinding?: unknown;
}

/**
 * Restores a backup over the (stopped) appliance's database; returns where the old one
 * was kept and the backup's schema. A file that is no whole database of the appliance
 * at a schema this build knows is refused (BackupRefused) with the data directory as it was.
 */
export function restoreBackup(options: RestoreOptions): { keptAs: string | undefined; schema: number } {
  const { source } = options;
  refuseUnlessSqliteFile(source);
  // The copy is checked, not the source: the installer's file stays as it was (opening
  // it would leave -wal/-shm beside it), and what is checked is what is put in place.
  const partial = `${options.target}.restoring`;
  // A new box restored from a backup has no data directory yet; made here, it goes
  // again when the backup is refused.
  const madeDir = mkdirSync(path.dirname(options.target), { recursive: true, mode: 0o700 });
  let restored = false;
  try {
    copyFileSync(source, partial);
    // The copy keeps the mode of the installer's file; the database is the box's secret.
    chmodSync(partial, 0o600);
    const schema = checkRestorable(partial, options);
    mkdirSync(options.backupDir, { recursive: true, mode: 0o700 });
    let keptAs: string | undefined;
    if (existsSync(options.target)) {
      // Opening takes the exclusive lock (refusing while the appliance runs) and folds in
      // a WAL left by a crash; the copy keeps everything the database held.
      const current = options.openCurrent();
      try {
        keptAs = path.join(options.backupDir, `wms-before-restore-${stamp()}.sqlite`);
        current.prepare('VACUUM INTO ?').run(keptAs);
      } finally {
        current.close();
      }
    }
    syncFile(partial);
    for (const suffix of ['-wal', '-shm']) rmSync(`${options.target}${suffix}`, { force: true });
    renameSync(partial, options.target);
    restored = true;
    return { keptAs, schema };
  } finally {
    removeWithJournal(partial);
    if (madeDir && !restored) rmSync(madeDir, { recursive: true, force: true });
  }
}

/** The checks that need no copy: the file is there, a file, not empty, and begins as SQLite's files do. */
function refuseUnlessSqliteFile(source: string): void {
  let stat: Stats;
  try {
    stat = statSync(source);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new BackupRefused(code === 'ENOENT' ? `${source} does not exist` : `${source} cannot be read (${code ?? (err as Error).message})`);
  }
  if (!stat.isFile()) throw new BackupRefused(`${source} is not a file`);
  if (stat.size === 0) throw new BackupRefused(`${source} is empty: a backup of the appliance is an SQLite database`);
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let fd: number;
  try {
    fd = openSync(source, 'r');
  } catch (err) {
    throw new BackupRefused(`${source} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1') !== SQLITE_HEADER) throw new BackupRefused(`${source} is not an SQLite database: a backup of the appliance is one`);
}

/** Checks the copy of a backup to restore, naming the file it came from; returns its schema. */
function checkRestorable(copy: string, options: RestoreOptions): number {
  let check: Database.Database | undefined;
  try {
    check = openCopy(copy, options.nativeBinding);
    const damage = damageOf(check);
    if (damage) throw new BackupRefused(`${options.source} is damaged: ${damage}`);
    const unknown = unknownSchema(check, options.migrations, options.nativeBinding);
    if (unknown) throw new BackupRefused(`${options.source} ${unknown}`);
    return check.pragma('user_version', { simple: true }) as number;
  } catch (err) {
    if (err instanceof StartupError) throw err;
    if (isDamage(err)) throw new BackupRefused(`${options.source} is damaged: ${(err as Error).message}`);
    throw new StartupError(`${options.source} could not be checked: ${(err as Error).message}`);
  } finally {
    check?.close();
  }
}
