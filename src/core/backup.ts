import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StartupError, type Db } from './db.ts';
import { DomainError } from './errors.ts';

// Backups of the one database file.
// - Online: SQLite's backup API copies the live database page by page, in steps that
//   let requests run in between; the copy is written under a temporary name, checked
//   and only then given its final name, so a listed backup is always a whole one.
// - Restore (command line, appliance stopped): the backup is checked (integrity, schema
//   not newer than this build), the current database is kept beside the backups, and
//   the backup takes its place by an atomic rename. Migrations bring an older backup up
//   to date at the next start.
// A backup holds every password hash and the token signing key: it is as secret as the
// box. Files are created owner-only (the appliance's umask, main.ts), and the API
// operations need the grant `backups:admin`.

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
  if (running) throw new DomainError(409, 'backup.inProgress', 'A backup is being taken; try again when it is done');
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
    checkFile(partial, nativeBinding, { selfContained: true });
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

/**
 * Opens a database file and checks it; returns its schema version. `selfContained`: the
 * file is ours to change (a fresh copy) and is switched from WAL to a rollback journal,
 * so it is one file that needs no `-wal`/`-shm` beside it wherever it is copied; else it
 * is only read.
 */
function checkFile(file: string, nativeBinding: unknown, options: { selfContained?: boolean } = {}): number {
  let check: Database.Database | undefined;
  try {
    check = new Database(file, { readonly: !options.selfContained, fileMustExist: true, nativeBinding: nativeBinding as string | undefined });
    if (options.selfContained) check.pragma('journal_mode = DELETE');
    const result = check.pragma('integrity_check', { simple: true });
    if (result !== 'ok') throw new StartupError(`${file} is damaged: ${String(result)}`);
    return check.pragma('user_version', { simple: true }) as number;
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

export interface RestoreOptions {
  /** The backup to restore. */
  source: string;
  /** The database file it replaces. */
  target: string;
  backupDir: string;
  /** The newest schema this build knows. */
  latestSchema: number;
  /** Opens the current database (to take its lock and fold in its WAL), or throws when it is in use. */
  openCurrent: () => Db;
  /** The SQLite addon the appliance runs with. */
  nativeBinding?: unknown;
}

/** Restores a backup over the (stopped) appliance's database; returns where the old one was kept. */
export function restoreBackup(options: RestoreOptions): { keptAs: string | undefined; schema: number } {
  if (!existsSync(options.source)) throw new StartupError(`${options.source} does not exist`);
  // The copy is checked, not the source: the installer's file stays as it was (opening
  // it would leave -wal/-shm beside it), and what is checked is what is put in place.
  const partial = `${options.target}.restoring`;
  try {
    copyFileSync(options.source, partial);
    const schema = checkFile(partial, options.nativeBinding, { selfContained: true });
    if (schema > options.latestSchema) {
      throw new StartupError(`${options.source} was written by a newer build (schema ${schema}; this build knows up to ${options.latestSchema})`);
    }
    mkdirSync(options.backupDir, { recursive: true });
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
    return { keptAs, schema };
  } finally {
    removeWithJournal(partial);
  }
}
