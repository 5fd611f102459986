import { z } from 'zod';
import { instant, LinkSchema } from '../../http/openapi/representation.ts';

// A backup file as the backups module lists it, as a schema of the API description.

export const BackupSchema = z
  .object({
    name: z.string(),
    kind: z.enum(['online', 'pre-migration', 'pre-restore']).meta({ description: 'Taken on request, before a migration, or before a restore.' }),
    size: z.number().int().meta({ description: 'Bytes.' }),
    createDt: instant,
    links: z.array(LinkSchema),
  })
  .meta({ id: 'Backup', description: 'A copy of the database in the data directory; link `backups-download`.' });
