import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from './log.ts';
import { StartupError, type Db } from './db.ts';

export { StartupError };

export interface Migration {
  /** The number in the file name (steps of 10); becomes `PRAGMA user_version`. */
  version: number;
  name: string;
  sql: string;
}

/** The newest schema the migrations make: what this build knows up to. */
export const latestSchema = (migrations: readonly Migration[]): number => migrations.reduce((max, m) => Math.max(max, m.version), 0);

interface MigrateOptions {
  /** Where a copy of the database is written before the first pending migration. */
  backupDir: string;
  backupsToKeep: number;
  log: Logger;
}

/**
 * Brings the schema to the newest version this build knows.
 *
 * All pending migrations run in one transaction together with the `user_version`
 * bump, so a power cut mid-way leaves the old schema, never half of a new one. A
 * database from a newer build is refused: this build would not understand its data.
 */
export function migrate(db: Db, migrations: readonly Migration[], options: MigrateOptions): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = latestSchema(migrations);
  if (current > latest) {
    throw new StartupError(
      `the database was written by a newer build (schema ${current}; this build knows up to ${latest}): ` + 'install that build again or restore a backup',
    );
  }
  const pending = migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
  if (pending.length === 0) return;

  if (current > 0) {
    mkdirSync(options.backupDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const target = path.join(options.backupDir, `wms-schema${current}-${stamp}.sqlite`);
    db.prepare('VACUUM INTO ?').run(target);
    options.log.info({ backup: target, schema: current }, 'database backed up before migrating');
    pruneBackups(options.backupDir, options.backupsToKeep);
  }

  db.transaction(() => {
    for (const m of pending) {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
      options.log.info({ migration: m.name, version: m.version }, 'migration applied');
    }
  })();
}

function pruneBackups(dir: string, keep: number) {
  // Oldest first by the time stamp in the name (then the schema, as a number): sorting
  // the names as text would put `wms-schema100-…` before `wms-schema90-…`.
  const files = readdirSync(dir)
    .map((f) => /^wms-schema(\d+)-(.*)\.sqlite$/.exec(f))
    .filter((m) => m !== null)
    .map((m) => ({ file: m[0], schema: Number(m[1]), stamp: m[2]! }))
    .sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.schema - b.schema))
    .map((b) => b.file);
  for (const old of files.slice(0, Math.max(0, files.length - keep))) rmSync(path.join(dir, old), { force: true });
}
