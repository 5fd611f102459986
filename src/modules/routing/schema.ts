import { z } from 'zod';
import { listParams, name, ol, text } from '../../core/schema.ts';
import { MAX_PAGE } from '../../core/paging.ts';

/**
 * A route `key` chosen by a client: letters, digits, `_`, `-`, `.` and `~` (not first),
 * up to 64 characters, so that it stands in a URL path unchanged. `index` and
 * `decision` are paths of the module and cannot be keys.
 */
const RESERVED_KEYS: readonly string[] = ['index', 'decision'];
export const routeKey = z
  .string()
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9._~-]{0,63}$/, 'must be 1 to 64 of A-Z a-z 0-9 _ - . ~, not starting with . or ~')
  .refine((key) => !RESERVED_KEYS.includes(key), { message: `must not be one of ${RESERVED_KEYS.join(', ')}` });

/** A location coordinate or a group name that must exist (checked by the service); `null` = not set. */
const reference = name(255).nullable().optional();

/**
 * `POST /v1/api/routes`. Source: at most one of location and group (none = from
 * anywhere); target: exactly one. `enabled` defaults to true. Read-only fields a client
 * echoes (`pKey`, `ol`, dates, `links`) are ignored.
 */
export const newRoute = z.object({
  name: name(255),
  description: text().nullable().optional(),
  sourceLocationName: reference,
  sourceLocationGroupName: reference,
  targetLocationName: reference,
  targetLocationGroupName: reference,
  key: routeKey.optional(),
  enabled: z.boolean().optional(),
});

/**
 * `PUT /v1/api/routes`: the whole route, `key` naming it. Absent `description`, source
 * and target fields are cleared; absent `enabled` keeps the flag; `ol`, when sent, must
 * be the current one.
 */
export const routeUpdate = newRoute.extend({
  key: name(255),
  ol: ol.optional(),
});

/** `pos`, when a client echoes it, must be the entry's index in the array. */
const pos = z.number().int().min(0).optional();

/** `PUT /v1/api/routes/{key}/hops`: the hops in order; the same source several times = alternatives. */
export const hopList = z.array(z.object({ pos, source: name(255), next: name(255) })).max(10_000);

/** `PUT /v1/api/default-hops`: each entry names exactly one of `source` (a location) and `sourceGroup`. */
export const defaultHopList = z
  .array(
    z
      .object({ pos, source: name(255).optional(), sourceGroup: name(255).optional(), next: name(255) })
      .refine((h) => (h.source === undefined) !== (h.sourceGroup === undefined), {
        message: 'exactly one of source (a location) and sourceGroup (a location group) is required',
      }),
  )
  .max(10_000);

/** Unknown query parameters are refused rather than ignored. */
const lookups = {
  error: (issue: { code?: string; keys?: string[] }) =>
    issue.code === 'unrecognized_keys' ? `unknown parameter(s) ${(issue.keys ?? []).join(', ')}` : undefined,
};

/** `GET /v1/api/routes` (all): no parameters but the page's. */
export const findAllQuery = z.strictObject({ ...listParams(MAX_PAGE) }, lookups);

/**
 * `GET /v1/api/routes/decision?location=&barcode=[&assumeEnabled=<route key>]`; the last
 * asks what the decision would be with that route enabled (a dry run before enabling it).
 */
export const decisionQuery = z.strictObject({ location: name(255), barcode: name(64).optional(), assumeEnabled: name(255).optional() }, lookups);

export type NewRouteInput = z.infer<typeof newRoute>;
export type RouteUpdateInput = z.infer<typeof routeUpdate>;
export type HopInput = z.infer<typeof hopList>[number];
export type DefaultHopInput = z.infer<typeof defaultHopList>[number];
