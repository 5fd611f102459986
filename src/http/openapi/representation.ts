import { z } from 'zod';

// Building blocks of the representation schemas that modules declare for the API
// description (their `openapi.ts`). Schemas with a `meta({ id })` become named
// components (`#/components/schemas/<id>`), so generated clients get one type per
// resource. Objects are closed (no field beyond those listed): the test that checks
// real replies against these schemas then also catches a field the code added and the
// description forgot.

/** An ISO-8601 instant with zone, as the appliance writes them (UTC, milliseconds). */
export const instant = z.string().meta({ format: 'date-time' });

/** `{rel, href}` of a resource's `links`; hrefs are absolute. */
export const LinkSchema = z
  .object({ rel: z.string(), href: z.string().meta({ format: 'uri' }) })
  .meta({ id: 'Link', description: 'A link of a resource: its relation name and absolute href.' });

/** `pKey`, `ol`, `createDt`, `lastModifiedDt` and `links`: what every persistent resource carries (`technical()` of http/hal.ts). */
export const technicalFields = {
  pKey: z.string().meta({ description: 'Persistent key, assigned by the appliance.' }),
  ol: z.number().int().min(0).meta({ description: 'Version counter; send it back with an update to detect concurrent changes.' }),
  createDt: instant,
  lastModifiedDt: instant,
  links: z.array(LinkSchema),
};

/** A named resource representation: the technical fields and its own. */
export const resource = <S extends z.ZodRawShape>(id: string, description: string, shape: S) =>
  z.object({ ...technicalFields, ...shape }).meta({ id, description });

/** A quantity as replies show it (`quantityVO` of core/quantity.ts). */
export const QuantitySchema = z
  .object({
    '@class': z.string(),
    unitType: z.tuple([z.string(), z.string()]).meta({ description: 'Unit class and unit symbol, e.g. ["org.vendor.core.units.api.PieceUnit", "PC"].' }),
    magnitude: z.number(),
  })
  .meta({ id: 'Quantity', description: 'An amount in a unit: pieces (PC, DOZ) or a weight (MG, G, KG, T, OZ, LB).' });

/** A dimension as replies show it (`dimensionVO`). */
export const DimensionSchema = z
  .object({
    length: z.number().optional(),
    width: z.number().optional(),
    height: z.number().optional(),
    uom: z.enum(['MM', 'CM', 'M']),
  })
  .meta({ id: 'Dimension', description: 'Length, width and height in a unit of length.' });

/** An index: link names to hrefs; an href with `{placeholder}` words is a URI template, marked `templated` (`IndexLink` of http/hal.ts). */
export const IndexSchema = z
  .object({
    _links: z.record(
      z.string(),
      z.object({
        href: z.string(),
        templated: z.literal(true).optional().meta({ description: 'The href is a URI template (RFC 6570): expand its {placeholder} words.' }),
      }),
    ),
  })
  .meta({ id: 'Index', description: 'HAL index: link name → link; a link whose href holds {placeholder} words is templated.' });

/** The API-declined body of the API conventions (README, "API") (`apiDeclinedBody` of http/errors.ts), sent as application/hal+json. */
export const ApiDeclinedSchema = z
  .object({
    message: z.string(),
    messageKey: z.string().meta({ description: 'Stable key of the condition, e.g. `svc.common.common.tu.notFoundByBK`.' }),
    obj: z.array(z.string().nullable()).optional().meta({ description: 'The values the message names.' }),
    class: z.literal('String').optional(),
    httpStatus: z.string().meta({ description: 'The HTTP status as text.' }),
  })
  .meta({ id: 'ApiDeclined', description: 'A request refused by validation or a rule of a module.' });

/** The server-declined body of the API conventions (README, "API") (`serverDeclinedBody`), sent as application/json. */
export const ServerDeclinedSchema = z
  .object({
    timestamp: z.number().int().meta({ description: 'Epoch milliseconds.' }),
    status: z.number().int(),
    error: z.string().meta({ description: 'The reason phrase of the status.' }),
    message: z.string(),
    path: z.string(),
    requestId: z.string().meta({ description: 'Also in the X-Request-Id header; the log holds the details under it.' }),
  })
  .meta({
    id: 'ServerDeclined',
    description: 'A request refused before it was processed (no or bad token, missing grant, unknown path, body too large, …) or a failure.',
  });
