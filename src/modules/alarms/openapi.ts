import { z } from 'zod';
import { instant, LinkSchema } from '../../http/openapi/representation.ts';
import { ALARM_STATES, SEVERITIES } from './store.ts';

// The Alarm representation as a schema of the API description.

export const AlarmSchema = z
  .object({
    id: z.number().int(),
    condition: z.string().meta({ description: 'What is wrong, e.g. a PLC channel down; one open alarm per condition.' }),
    kind: z.string(),
    severity: z.enum(SEVERITIES),
    state: z.enum(ALARM_STATES),
    message: z.string().meta({ description: 'What is wrong, in English, the values filled in.' }),
    params: z.record(z.string(), z.union([z.string(), z.number()])).meta({
      description: 'The values of the message by name, to word the alarm in another language from its kind; empty for alarms raised before they were kept.',
    }),
    source: z.object({ kind: z.string(), key: z.string() }),
    firstSeen: instant,
    lastSeen: instant,
    count: z.number().int(),
    clearsOnAck: z.boolean(),
    acknowledgedBy: z.string().nullable(),
    acknowledgedAt: instant.nullable(),
    ackComment: z.string().nullable(),
    shelvedUntil: instant.nullable(),
    shelvedBy: z.string().nullable(),
    shelveComment: z.string().nullable(),
    clearedAt: instant.nullable(),
    shelved: z.boolean().meta({ description: 'Shelved now: open, and shelvedUntil still ahead.' }),
    links: z.array(LinkSchema),
  })
  .meta({ id: 'Alarm', description: 'An alarm; links: `self` and, while open, `alarm-acknowledge`, `alarm-shelve`.' });
