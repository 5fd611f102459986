import { rmSync } from 'node:fs';
import path from 'node:path';
import { backupPath, listBackups, takeBackup, type BackupFile } from '../../core/backup.ts';
import type { Db } from '../../core/db.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import type { RequestContext } from '../../http/context.ts';
import { DomainError, notFound } from '../../core/errors.ts';
import { created, indexRoute, link, noContent } from '../../http/hal.ts';
import type { Route } from '../../http/router.ts';
import type { ModuleDescriptor } from '../module.ts';
import { arrayListing, listQuery, listReply } from '../lists.ts';
import { z } from 'zod';
import { BackupSchema } from './openapi.ts';

// Online backups of the database over the API: take one while the appliance runs,
// list them (with the copies kept before migrations and restores), download, delete.
// Restoring is done on the box with the appliance stopped: `wms --restore <file>`.

// One grant for every backup operation, held by ADMIN only unless given on purpose: a
// backup holds every password hash and the token signing key, so whoever can list and
// download backups can make themselves an administrator. Its description says so.
const ADMIN = 'backups:admin';
const BASE = '/v1/backups';
export const backupIndexLinks = { 'backup-index': `${BASE}/index` };

export interface BackupDeps {
  db: Db;
  work: UnitOfWork;
  dir: string;
  keep: number;
  /** The SQLite addon the appliance runs with. */
  nativeBinding: unknown;
}

const vo = (ctx: RequestContext, b: BackupFile) => ({
  name: b.name,
  kind: b.kind,
  size: b.size,
  createDt: b.createDt,
  links: [link(ctx, 'backups-download', `${BASE}/${encodeURIComponent(b.name)}`)],
});

export function backupRoutes({ db, work, dir, keep, nativeBinding }: BackupDeps): Route[] {
  const fileOf = (name: string) => {
    const file = backupPath(dir, name);
    if (!file) throw notFound(`Backup [${name}] does not exist`, [name]);
    return file;
  };
  const routes: Route[] = [
    {
      method: 'POST', path: BASE, body: 'none', grant: ADMIN, link: 'backups-create', responseSchema: BackupSchema, status: 201, errors: [409],
      summary: `Take an online backup of the database (kept in the data directory; the newest ${keep} are kept).`,
      handler: async (ctx) => {
        let backup: BackupFile;
        try {
          backup = await takeBackup(db, dir, keep, nativeBinding);
        } catch (err) {
          if (err instanceof DomainError) throw err; // refused (one is being taken), not failed
          // Recorded (and raised as an alarm) before the request fails.
          work.run(() => work.emit({ type: 'backup.failed', key: 'backup', data: { error: (err as Error).message } }));
          throw err;
        }
        work.run(() => work.emit({ type: 'backup.created', key: backup.name, data: { name: backup.name, bytes: backup.size } }));
        return created(ctx, `${BASE}/${encodeURIComponent(backup.name)}`, vo(ctx, backup));
      },
    },
    {
      method: 'GET', path: BASE, grant: ADMIN, link: 'backups-findall', querySchema: listQuery, responseSchema: z.array(BackupSchema),
      summary: 'The backups on the box, newest first: online ones, and those kept before migrations and restores.',
      // A few files (storage.backupsToKeep of each kind): read at once, paged by position.
      handler: (ctx) => listReply(ctx, arrayListing(listBackups(dir)), (b) => vo(ctx, b)),
    },
    {
      method: 'GET', path: `${BASE}/{name}`, grant: ADMIN, link: 'backups-download', replyType: 'application/vnd.sqlite3',
      summary: 'Download a backup (an SQLite database file).',
      handler: (ctx) => {
        const name = ctx.param('name');
        const backup = listBackups(dir).find((b) => b.name === name);
        const file = fileOf(name);
        return {
          status: 200,
          file: { path: file, size: backup!.size },
          type: 'application/vnd.sqlite3',
          headers: { 'Content-Disposition': `attachment; filename="${path.basename(file)}"` },
        };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/{name}`, grant: ADMIN, link: 'backups-delete', status: 204,
      summary: 'Delete a backup.',
      handler: (ctx) => {
        const name = ctx.param('name');
        rmSync(fileOf(name));
        work.run(() => work.emit({ type: 'backup.deleted', key: name, data: { name } }));
        return noContent();
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, ADMIN, routes, 'Links of the backup operations.'), ...routes];
}

/** The backups module as the composition root plugs it in. */
export const backupsModule = (deps: BackupDeps): ModuleDescriptor => ({ name: 'backups', routes: backupRoutes(deps), indexLinks: backupIndexLinks });
