import { z } from 'zod';
import { enumList, listParams, name, ol, timestamp } from '../../core/schema.ts';
import { MAX_PAGE } from '../../core/paging.ts';
import { MOVEMENT_MODES, MOVEMENT_STATES, MOVEMENT_TYPES } from './store.ts';

const movementType = z.enum(MOVEMENT_TYPES);
const movementMode = z.enum(MOVEMENT_MODES);
const movementState = z.enum(MOVEMENT_STATES);

/** A higher value means lower precedence; a whole number from 0 (first) up. */
export const priority = z.number().int().min(0).max(2_147_483_647);

/** A location coordinate or a location group name; existence is checked by the service. */
const reference = name(255);

/**
 * `POST /v1/transport-units/{transportUnitBK}/movements`. `sourceLocation` and
 * `target` are required; `transportUnitBk`, when sent, must be the path's. Read-only
 * fields of a Movement a client echoes (`pKey`, `state`, `links`, dates, group names)
 * are ignored.
 */
export const newMovement = z.object({
  transportUnitBk: z.string().optional(),
  type: movementType.optional(),
  initiator: name(255).nullable().optional(),
  mode: movementMode.optional(),
  sku: name(64).nullable().optional(),
  priority: priority.optional(),
  sourceLocation: reference,
  target: reference,
  latestDueAt: timestamp.nullable().optional(),
});

/**
 * `PATCH /v1/movements/{pKey}`: any subset of a Movement. `state` moves only between
 * INACTIVE and ACTIVE here (the service refuses the others); `null` clears the
 * optional `initiator`, `sku` and `latestDueAt`. Other fields are ignored.
 */
export const movementPatch = z.object({
  ol: ol.optional(),
  transportUnitBk: name(64).optional(),
  type: movementType.optional(),
  initiator: name(255).nullable().optional(),
  mode: movementMode.optional(),
  sku: name(64).nullable().optional(),
  priority: priority.optional(),
  state: movementState.optional(),
  sourceLocation: reference.optional(),
  target: reference.optional(),
  latestDueAt: timestamp.nullable().optional(),
});

/**
 * `POST /v1/movements/{pKey}/complete`: where the unit was put down, as `target` (or
 * `targetLocation`): a location coordinate or a location's ERP code. Without a body
 * (or without both fields) the movement's own target is taken when it is a location.
 */
export const completion = z
  .object({
    target: reference.optional(),
    targetLocation: reference.optional(),
    ol: ol.optional(),
  })
  .optional();

/** `types=INBOUND,OUTBOUND` (or repeated); empty = no restriction. */
const csv = <const T extends readonly [string, ...string[]]>(values: T) => enumList(values).transform((list) => (list.length === 0 ? undefined : list));

/** Unknown query parameters are refused rather than ignored: a misspelt filter must not list everything. */
const lookups = {
  error: (issue: { code?: string; keys?: string[] }) =>
    issue.code === 'unrecognized_keys'
      ? `unknown parameter(s) ${(issue.keys ?? []).join(', ')}; GET /v1/movements filters by barcode= (with types=, states=) or by state= (with types=, source=), each list paged by limit= and after=`
      : undefined,
};

/** `GET /v1/movements` (all): no parameters but the page's. */
export const findAllQuery = z.strictObject({ ...listParams(MAX_PAGE) }, lookups);

/** `GET /v1/movements?barcode=&types=&states=`. */
export const unitQuery = z.strictObject(
  {
    barcode: name(64),
    types: csv(MOVEMENT_TYPES).optional(),
    states: csv(MOVEMENT_STATES).optional(),
    ...listParams(MAX_PAGE),
  },
  lookups,
);

/** `GET /v1/movements?state=&types=&source=`: `source` a location coordinate or a group name. */
export const sourceQuery = z.strictObject(
  {
    state: csv(MOVEMENT_STATES),
    types: csv(MOVEMENT_TYPES).optional(),
    source: reference.optional(),
    ...listParams(MAX_PAGE),
  },
  lookups,
);

export type NewMovementInput = z.infer<typeof newMovement>;
export type MovementPatchInput = z.infer<typeof movementPatch>;
export type CompletionInput = z.infer<typeof completion>;
