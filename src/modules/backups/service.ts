import { rmSync } from 'node:fs';
import { backupPath, listBackups, takeBackup, type BackupFile } from '../../core/backup.ts';
import type { Db } from '../../core/db.ts';
import { DomainError, notFound } from '../../core/errors.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';

// Online backups of the database: taken while the appliance runs, kept in the data
// directory (the newest `keep`), listed with the copies kept before migrations and
// restores, deleted. Each change leaves its event (backup.created, .failed, .deleted).

interface BackupDeps {
  db: Db;
  work: UnitOfWork;
  dir: string;
  keep: number;
  /** The SQLite addon the appliance runs with. */
  nativeBinding: unknown;
}

export function createBackupService({ db, work, dir, keep, nativeBinding }: BackupDeps) {
  /** The file of a backup by name; 404 for a name that is not one. */
  const fileOf = (name: string) => {
    const file = backupPath(dir, name);
    if (!file) throw notFound(`Backup [${name}] does not exist`, [name]);
    return file;
  };
  return {
    /** How many online backups are kept. */
    keep,
    /** Takes a backup; 409 while another is being taken. */
    async take(): Promise<BackupFile> {
      let backup: BackupFile;
      try {
        backup = await takeBackup(db, dir, keep, nativeBinding);
      } catch (err) {
        if (err instanceof DomainError) throw err; // refused (one is being taken), not failed
        // Recorded (and raised as an alarm) before the caller hears of it.
        work.run(() => work.emit({ type: 'backup.failed', key: 'backup', data: { error: (err as Error).message } }));
        throw err;
      }
      work.run(() => work.emit({ type: 'backup.created', key: backup.name, data: { name: backup.name, bytes: backup.size } }));
      return backup;
    },
    /** Newest first. */
    list: (): BackupFile[] => listBackups(dir),
    /** The backup and its file; 404 for one that does not exist. */
    byName(name: string): BackupFile & { file: string } {
      const file = fileOf(name);
      const backup = listBackups(dir).find((b) => b.name === name);
      if (!backup) throw notFound(`Backup [${name}] does not exist`, [name]);
      return { ...backup, file };
    },
    remove(name: string): void {
      rmSync(fileOf(name));
      work.run(() => work.emit({ type: 'backup.deleted', key: name, data: { name } }));
    },
  };
}

export type BackupService = ReturnType<typeof createBackupService>;
