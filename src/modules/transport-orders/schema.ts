import { z } from 'zod';
import { enumList, listParams, name, ol, text } from '../../core/schema.ts';
import { MAX_PAGE } from '../../core/paging.ts';
import { ORDER_STATES } from './store.ts';

export const orderState = z.enum(ORDER_STATES);

/** A location coordinate or a location group name; existence is checked by the service. */
const reference = name(255);

/**
 * `priority` is checked by the service, not here: an undefined level answers 400
 * `core.invalid.parameter` as the spec says, not the generic validation error.
 */
const priority = z.unknown();

/**
 * `problem`: a text recorded as the order's `message`, or the reference system's
 * problem object of which `message` is taken; `null` clears the message.
 */
const problem = z.union([text(1024), z.looseObject({ message: text(1024) }).transform((p) => p.message)]).nullable();

/**
 * `POST /v1/transport-orders`. `barcode` and at least one of `targetLocation`,
 * `targetLocationGroup` are required. `pKey` (server-assigned) and `state` (the
 * appliance sets an order going) may be sent empty only; read-only fields of a
 * TransportOrder a client echoes (`persistentKey`, `links`, dates, …) are ignored.
 */
export const newTransportOrder = z.object({
  pKey: z.null({ error: 'the appliance assigns the pKey of a new order; send null or leave it out' }).optional(),
  barcode: name(64),
  priority: priority.optional(),
  problem: problem.optional(),
  state: z.literal('CREATED', { error: 'a new order is CREATED, the appliance initializes and starts it; change its state with PATCH' }).nullable().optional(),
  targetLocation: reference.nullable().optional(),
  targetLocationGroup: reference.nullable().optional(),
});

/**
 * `PATCH /v1/transport-orders/{pKey}`: the fields to change. `pKey` and `barcode`,
 * when sent, must be the order's own; `null` clears `problem` (the message) and one of
 * the two target fields; `ol`, when sent, must be the current one.
 */
export const transportOrderPatch = z.object({
  pKey: name(64).nullable().optional(),
  ol: ol.optional(),
  barcode: name(64).optional(),
  priority: priority.optional(),
  problem: problem.optional(),
  state: orderState.nullable().optional(),
  targetLocation: reference.nullable().optional(),
  targetLocationGroup: reference.nullable().optional(),
});

/** Unknown query parameters are refused rather than ignored: a misspelt filter must not list everything. */
const lookups = {
  error: (issue: { code?: string; keys?: string[] }) =>
    issue.code === 'unrecognized_keys'
      ? `unknown parameter(s) ${(issue.keys ?? []).join(', ')}; GET /v1/transport-orders filters by barcode= and/or state=, each list paged by limit= and after=`
      : undefined,
};

/** `state=STARTED,INITIALIZED` (the parameter may also be repeated); at least one state. */
const states = enumList(ORDER_STATES).pipe(z.array(z.enum(ORDER_STATES)).min(1, 'name at least one state'));

/** `GET /v1/transport-orders` (all): no parameters but the page's. */
export const findAllQuery = z.strictObject({ ...listParams(MAX_PAGE) }, lookups);

/** `GET /v1/transport-orders?barcode=&state=`: both optional here, the route decides which are required. */
export const findQuery = z.strictObject(
  {
    barcode: name(64).optional(),
    state: states.optional(),
    ...listParams(MAX_PAGE),
  },
  lookups,
);

export type NewTransportOrderInput = z.infer<typeof newTransportOrder>;
export type TransportOrderPatchInput = z.infer<typeof transportOrderPatch>;
