import path from 'node:path';
import type { ModuleDefinition } from '../module.ts';
import { backupIndexLinks, backupRoutes } from './routes.ts';
import { createBackupService, type BackupService } from './service.ts';

/** Online backups of the database, in the data directory's `backups` folder. */
export const backups: ModuleDefinition<'backups', BackupService> = {
  name: 'backups',
  create: ({ db, work, config, dataDir, nativeBinding }) => {
    const service = createBackupService({ db, work, dir: path.join(dataDir, 'backups'), keep: config.storage.backupsToKeep, nativeBinding });
    return { service, routes: backupRoutes(service), indexLinks: backupIndexLinks };
  },
};
