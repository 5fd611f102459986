import type { RequestContext } from '../../http/context.ts';
import { created, defined, indexRoute, link, type Link, ok, technical } from '../../http/hal.ts';
import { vendorType } from '../../http/negotiation.ts';
import type { Route } from '../../http/router.ts';
import { completion, findAllQuery, movementPatch, newMovement, sourceQuery, unitQuery } from './schema.ts';
import { isCompleted, type Movement, type MovementService } from './service.ts';
import { z } from 'zod';
import { MovementSchema } from './openapi.ts';
import type { Listing } from '../../core/listing.ts';
import { listReply } from '../../http/lists.ts';

// Movements module (docs/movements.md): `/v1/movements`, created under the
// transport unit at `/v1/transport-units/{transportUnitBK}/movements`.

const TYPE = vendorType('movements', 'movement');
const READ = 'movements:read';
const WRITE = 'movements:write';
const BASE = '/v1/movements';
const UNITS = '/v1/transport-units';

/** Entry-index link of the movements module (the API conventions (README, "API")). */
export const movementIndexLinks = { 'movement-index': `${BASE}/index` };

const enc = encodeURIComponent;

/** Where a movement lives under its transport unit (the `Location` of a create). */
const unitMovementPath = (m: Movement) => `${UNITS}/${enc(m.transportUnitBk)}/movements/${m.pk}`;

/**
 * The Movement representation. Links: `movement-findByPKey` (the movement itself),
 * `transport-unit` (its unit by barcode) and, while it is not completed,
 * `movement-move`, `movement-cancel` and `movement-complete`.
 */
export function movementVO(ctx: RequestContext, m: Movement) {
  const self = `${BASE}/${m.pk}`;
  const links: Link[] = [link(ctx, 'movement-findByPKey', self), link(ctx, 'transport-unit', `${UNITS}?bk=${enc(m.transportUnitBk)}`)];
  if (!isCompleted(m.state)) {
    links.push(link(ctx, 'movement-move', self), link(ctx, 'movement-cancel', self), link(ctx, 'movement-complete', `${self}/complete`));
  }
  return {
    ...technical(m, links),
    transportUnitBk: m.transportUnitBk,
    type: m.type,
    ...defined({ initiator: m.initiator }),
    mode: m.mode,
    ...defined({ sku: m.sku }),
    priority: m.priority,
    state: m.state,
    sourceLocation: m.sourceLocation,
    sourceLocationGroupName: m.sourceLocationGroupName,
    target: m.target,
    targetLocationGroup: m.targetLocationGroup,
    ...defined({ startedAt: m.startedAt, latestDueAt: m.latestDueAt, finishedAt: m.finishedAt }),
    createdAt: m.createDt,
  };
}

export function movementRoutes(movements: MovementService): Route[] {
  const one = (ctx: RequestContext, m: Movement) => ok(movementVO(ctx, m));
  const many = (ctx: RequestContext, listing: Listing<Movement>) => listReply(ctx, listing, (m) => movementVO(ctx, m));

  const routes: Route[] = [
    {
      method: 'POST',
      path: `${UNITS}/{transportUnitBK}/movements`,
      grant: WRITE,
      link: 'movement-create',
      vendorTypes: [TYPE],
      requestSchema: newMovement,
      responseSchema: MovementSchema,
      status: 201,
      errors: [409],
      summary: 'Create a movement of the transport unit (sourceLocation, target required) in state INACTIVE.',
      handler: (ctx) => {
        const movement = movements.create(ctx.param('transportUnitBK'), ctx.body(newMovement));
        return created(ctx, unitMovementPath(movement), movementVO(ctx, movement));
      },
    },
    {
      method: 'GET',
      path: `${UNITS}/{transportUnitBK}/movements/{pKey}`,
      grant: READ,
      vendorTypes: [TYPE],
      responseSchema: MovementSchema,
      summary: 'A movement of the transport unit (the Location of a create).',
      handler: (ctx) => one(ctx, movements.byUnitAndPKey(ctx.param('transportUnitBK'), ctx.param('pKey'))),
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'movement-findAll',
      vendorTypes: [TYPE],
      querySchema: findAllQuery,
      responseSchema: z.array(MovementSchema),
      summary: 'All movements, oldest first (possibly none).',
      handler: (ctx) => {
        ctx.queryAs(findAllQuery);
        return many(ctx, movements.list());
      },
    },
    {
      method: 'GET',
      path: BASE,
      query: ['barcode'],
      optionalQuery: ['types', 'states'],
      grant: READ,
      link: 'movement-findForTuAndTypesAndStates',
      vendorTypes: [TYPE],
      querySchema: unitQuery,
      responseSchema: z.array(MovementSchema),
      summary: 'The movements of a transport unit of the given types and in the given states (comma-separated lists), oldest first.',
      handler: (ctx) => {
        const q = ctx.queryAs(unitQuery);
        return many(ctx, movements.forUnit(q.barcode, q.types, q.states));
      },
    },
    {
      method: 'GET',
      path: BASE,
      query: ['state'],
      optionalQuery: ['types', 'source'],
      grant: READ,
      link: 'movement-findForStateAndTypesAndSource',
      vendorTypes: [TYPE],
      querySchema: sourceQuery,
      responseSchema: z.array(MovementSchema),
      summary: 'Movements in the state(s), of the types, from the source location or from a location in the source group or below it; in work order.',
      handler: (ctx) => {
        const q = ctx.queryAs(sourceQuery);
        return many(ctx, movements.forSource(q.state, q.types, q.source));
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'movement-findByPKey',
      vendorTypes: [TYPE],
      responseSchema: MovementSchema,
      summary: 'A movement by its persistent key.',
      handler: (ctx) => one(ctx, movements.byPKey(ctx.param('pKey'))),
    },
    {
      method: 'PATCH',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'movement-move',
      vendorTypes: [TYPE],
      requestSchema: movementPatch,
      responseSchema: MovementSchema,
      errors: [409],
      summary: 'Change a movement (subset of its fields); state ACTIVE starts it, INACTIVE stops it.',
      handler: (ctx) => one(ctx, movements.modify(ctx.param('pKey'), ctx.body(movementPatch))),
    },
    {
      method: 'DELETE',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'movement-cancel',
      vendorTypes: [TYPE],
      responseSchema: MovementSchema,
      errors: [409],
      summary: 'Cancel a movement that is not completed; 200 with the movement in state CANCELLED.',
      handler: (ctx) => one(ctx, movements.cancel(ctx.param('pKey'))),
    },
    {
      method: 'POST',
      path: `${BASE}/{pKey}/complete`,
      grant: WRITE,
      link: 'movement-complete',
      vendorTypes: [TYPE],
      requestSchema: completion,
      responseSchema: MovementSchema,
      errors: [409],
      summary: 'Complete a movement: book its transport unit onto the target location given (or its own), state DONE.',
      handler: (ctx) => one(ctx, movements.complete(ctx.param('pKey'), ctx.body(completion))),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the movement operations.'), ...routes];
}
