import { z } from 'zod';
import { SUBJECT_KINDS } from '../../core/event-catalogue.ts';
import { DEFAULT_PAGE, MAX_PAGE } from '../../core/paging.ts';
import { pageParams, timestampParam } from '../../core/schema.ts';

// Query parameters of the events module.

/** `types=transportUnit.*,location.stateChanged`: names or prefixes ending in `*`, comma-separated or repeated. */
const typePatterns = z
  .union([z.string(), z.array(z.string())])
  .transform((raw) =>
    (Array.isArray(raw) ? raw : [raw])
      .flatMap((v) => v.split(','))
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[\w.]+\*?$|^\*$/, 'event types are names, optionally ending in *')).max(100));

const subjectKind = z.enum(SUBJECT_KINDS, { error: (i) => `[${String(i.input)}] is not one of ${SUBJECT_KINDS.join(', ')}` });

export const streamQuery = z.object({
  types: typePatterns.optional(),
  subjectKind: subjectKind.optional(),
  /** A subject's key, or a prefix of keys ending in `*`. */
  subject: z.string().min(1).max(255).optional(),
  lastEventId: z.string().max(64).optional(),
  ticket: z.string().max(128).optional(),
});

export const historyQuery = z.object({
  types: typePatterns.optional(),
  subjectKind: subjectKind.optional(),
  subject: z.string().min(1).max(255).optional(),
  actor: z.string().min(1).max(255).optional(),
  from: timestampParam.optional(),
  to: timestampParam.optional(),
  ...pageParams(DEFAULT_PAGE, MAX_PAGE),
});

export const unitHistoryQuery = z.object(pageParams(DEFAULT_PAGE, MAX_PAGE));
