import { z } from 'zod';
import { parseIso } from './time.ts';

// zod building blocks shared by every module's schema.ts.

/** Control characters (NUL, ESC, …) and format characters (bidi overrides, zero-width characters, …). */
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;
/** A UTF-16 surrogate without its partner: JSON can carry one (`"\ud800"`), UTF-8 cannot store it. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A business name or key, one rule for all of them: trimmed, non-empty, bounded, only
 * printable characters (a NUL or a bidi override in a group name shows one thing and
 * is another), no lone surrogate (it would be stored as U+FFFD and read back as a
 * different name), and in Unicode NFC, so that "é" typed two ways is one name.
 */
export const name = (max = 255) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max)
    .refine((v) => !LONE_SURROGATE.test(v), 'must be valid Unicode (a lone surrogate is not)')
    .refine((v) => !UNPRINTABLE.test(v), 'must not contain control or format characters (NUL, line breaks, bidi overrides, zero-width characters)')
    .transform((v) => v.normalize('NFC'));

/** Free text, optional. */
export const text = (max = 1024) => z.string().max(max);

/** `ol`, the version counter a client sends back with an update. */
export const ol = z.number().int().min(0);

/** An API timestamp: 0, 3 or up to 9 fractional digits, `Z` or an offset; normalised to UTC milliseconds. */
export const timestamp = z.string().transform((value, ctx) => {
  const parsed = parseIso(value);
  if (!parsed) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO-8601 date-time with zone, e.g. 2025-03-12T08:15:00.000Z' });
    return z.NEVER;
  }
  return parsed;
});

/** A non-negative integer measure (millimetres). */
export const millimetres = z.number().int().min(0).max(1_000_000);

/**
 * A list of enumeration values in a query: comma-separated (`states=A,B`) and/or the
 * parameter repeated (`states=A&states=B`). Blank entries are dropped; unknown values
 * are refused naming the allowed ones.
 */
export const enumList = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((raw) =>
      (Array.isArray(raw) ? raw : [raw])
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    )
    .pipe(z.array(z.enum(values, { error: (issue) => `[${String(issue.input)}] is not one of ${values.join(', ')}` })));

/** Optional text where an empty value means absent (`?loadUnitType=`). */
export const blankAsAbsent = (max = 255) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((v) => (v ? v : undefined));

/**
 * `limit` and `after` of a paged list (core/paging.ts): `limit` 1–max (default
 * `fallback`), `after` the opaque cursor a previous page's `Link: rel="next"` gave.
 */
export const pageParams = (fallback: number, max: number) => ({
  limit: z
    .string()
    .regex(/^\d{1,7}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(max, `must be at most ${max}`))
    .default(fallback),
  after: z.string().max(512).optional(),
});

/**
 * `limit` and `after` of a list the spec answers whole: without `limit` the whole list
 * (streamed), with it a page of at most `max` (core/listing.ts).
 */
export const listParams = (max: number) => ({
  limit: z
    .string()
    .regex(/^\d{1,7}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(max, `must be at most ${max}`))
    .optional(),
  after: z.string().max(512).optional(),
});

/** A query parameter holding a timestamp (see `timestamp`). */
export const timestampParam = timestamp;
