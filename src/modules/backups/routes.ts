import path from 'node:path';
import type { BackupFile } from '../../core/backup.ts';
import type { RequestContext } from '../../http/context.ts';
import { created, indexRoute, link, noContent } from '../../http/hal.ts';
import type { Route } from '../../http/router.ts';
import type { BackupService } from './service.ts';
import { listQuery, listReply } from '../../http/lists.ts';
import { arrayListing } from '../../core/listing-ops.ts';
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

const vo = (ctx: RequestContext, b: BackupFile) => ({
  name: b.name,
  kind: b.kind,
  size: b.size,
  createDt: b.createDt,
  links: [link(ctx, 'backups-download', `${BASE}/${encodeURIComponent(b.name)}`)],
});

export function backupRoutes(backups: BackupService): Route[] {
  const routes: Route[] = [
    {
      method: 'POST',
      path: BASE,
      body: 'none',
      grant: ADMIN,
      link: 'backups-create',
      responseSchema: BackupSchema,
      status: 201,
      errors: [409],
      summary: `Take an online backup of the database (kept in the data directory; the newest ${backups.keep} are kept).`,
      handler: async (ctx) => {
        const backup = await backups.take();
        return created(ctx, `${BASE}/${encodeURIComponent(backup.name)}`, vo(ctx, backup));
      },
    },
    {
      method: 'GET',
      path: BASE,
      grant: ADMIN,
      link: 'backups-findall',
      querySchema: listQuery,
      responseSchema: z.array(BackupSchema),
      summary: 'The backups on the box, newest first: online ones, and those kept before migrations and restores.',
      // A few files (storage.backupsToKeep of each kind): read at once, paged by position.
      handler: (ctx) => listReply(ctx, arrayListing(backups.list()), (b) => vo(ctx, b)),
    },
    {
      method: 'GET',
      path: `${BASE}/{name}`,
      grant: ADMIN,
      link: 'backups-download',
      replyType: 'application/vnd.sqlite3',
      summary: 'Download a backup (an SQLite database file).',
      handler: (ctx) => {
        const backup = backups.byName(ctx.param('name'));
        return {
          status: 200,
          file: { path: backup.file, size: backup.size },
          type: 'application/vnd.sqlite3',
          headers: { 'Content-Disposition': `attachment; filename="${path.basename(backup.file)}"` },
        };
      },
    },
    {
      method: 'DELETE',
      path: `${BASE}/{name}`,
      grant: ADMIN,
      link: 'backups-delete',
      status: 204,
      summary: 'Delete a backup.',
      handler: (ctx) => {
        const name = ctx.param('name');
        backups.remove(name);
        return noContent();
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, ADMIN, routes, 'Links of the backup operations.'), ...routes];
}
