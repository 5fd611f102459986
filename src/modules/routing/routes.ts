import type { RequestContext } from '../../http/context.ts';
import { created, defined, indexRoute, link, noContent, ok, technical } from '../../http/hal.ts';
import { vendorType } from '../../http/negotiation.ts';
import type { Route } from '../../http/router.ts';
import { reasonCode } from './decision.ts';
import { decisionQuery, defaultHopList, findAllQuery, hopList, newRoute, routeUpdate } from './schema.ts';
import type { RouteResource, RoutingDecision, RoutingService } from './service.ts';
import { listQuery, listReply } from '../../http/lists.ts';
import { arrayListing } from '../../core/listing-ops.ts';
import { z } from 'zod';
import { DecisionSchema, DefaultHopSchema, HopSchema, RouteSchema } from './openapi.ts';

// Routing module (docs/routing.md; decisions in
// docs/routing.md): routes at `/v1/api/routes`, their hops, the default hop table and a
// diagnostic lookup of the routing decision.

export const ROUTE_TYPE = vendorType('routing', 'route');
const HOPS_TYPE = vendorType('routing', 'hop');
const DECISION_TYPE = vendorType('routing', 'decision');
const READ = 'routes:read';
const WRITE = 'routes:write';
const BASE = '/v1/api/routes';
const DEFAULT_HOPS = '/v1/api/default-hops';

/** Entry-index link of the routing module. */
export const routingIndexLinks = { 'routing-index': `${BASE}/index` };

const enc = encodeURIComponent;

/** The Route: absent source and target fields (and description) are left out. Links: itself and its hops. */
export function routeVO(ctx: RequestContext, r: RouteResource) {
  const self = `${BASE}/${enc(r.key)}`;
  return {
    ...technical(r, [link(ctx, 'routes-findbykey', self), link(ctx, 'route-hops-find', `${self}/hops`)]),
    name: r.name,
    ...defined({
      description: r.description,
      sourceLocationName: r.sourceLocationName,
      sourceLocationGroupName: r.sourceLocationGroupName,
      targetLocationName: r.targetLocationName,
      targetLocationGroupName: r.targetLocationGroupName,
    }),
    key: r.key,
    enabled: r.enabled,
  };
}

const RESULT = {
  next: 'NEXT',
  arrived: 'ARRIVED',
  'no-order': 'NO_ORDER',
  'no-route': 'NO_ROUTE',
  locked: 'LOCKED',
  'unknown-location': 'UNKNOWN_LOCATION',
} as const;

/** The decision as the lookup answers it: `{result, nextLocation?, route?, order?, …}`. */
export function decisionVO(d: RoutingDecision) {
  return {
    result: RESULT[d.kind],
    reasonCode: reasonCode(d),
    ...(d.kind === 'next' ? { nextLocation: d.next, via: d.via === 'route' ? 'ROUTE' : 'DEFAULT' } : {}),
    ...(d.kind === 'locked' ? { lock: d.reason, via: d.via === 'route' ? 'ROUTE' : 'DEFAULT', candidates: d.candidates } : {}),
    ...((d.kind === 'next' || d.kind === 'no-route' || d.kind === 'locked') && d.route ? { route: { key: d.route.key, name: d.route.name } } : {}),
    ...(d.order
      ? {
          order: {
            pKey: d.order.pKey,
            ...defined({ targetLocation: d.order.targetLocation, targetLocationGroup: d.order.targetLocationGroup }),
          },
        }
      : {}),
  };
}

export function routingRoutes(routing: RoutingService): Route[] {
  const one = (ctx: RequestContext, r: RouteResource) => ok(routeVO(ctx, r));

  const routes: Route[] = [
    {
      method: 'POST',
      path: BASE,
      grant: WRITE,
      link: 'routes-create',
      vendorTypes: [ROUTE_TYPE],
      requestSchema: newRoute,
      responseSchema: RouteSchema,
      status: 201,
      errors: [404, 409],
      summary: 'Create a route (name, target required; key generated when not sent); 201 with Location …/v1/api/routes/<key>.',
      handler: (ctx) => {
        const route = routing.create(ctx.body(newRoute));
        return created(ctx, `${BASE}/${enc(route.key)}`, routeVO(ctx, route));
      },
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'routes-findall',
      vendorTypes: [ROUTE_TYPE],
      querySchema: findAllQuery,
      responseSchema: z.array(RouteSchema),
      summary: 'All routes, by name (possibly none).',
      handler: (ctx) => {
        ctx.queryAs(findAllQuery);
        return listReply(ctx, routing.list(), (r) => routeVO(ctx, r));
      },
    },
    {
      method: 'GET',
      path: `${BASE}/decision`,
      query: ['location'],
      optionalQuery: ['barcode', 'assumeEnabled'],
      grant: READ,
      link: 'routing-decide',
      vendorTypes: [DECISION_TYPE],
      querySchema: decisionQuery,
      responseSchema: DecisionSchema,
      errors: [404],
      summary:
        'Diagnostics: where the routing decision sends the transport unit (or a unit without order) standing at the location; with assumeEnabled=<route key>, as if that route were enabled (a dry run; nothing changes).',
      handler: (ctx) => {
        const q = ctx.queryAs(decisionQuery);
        return ok(decisionVO(routing.lookup(q.barcode, q.location, q.assumeEnabled)));
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{key}`,
      grant: READ,
      link: 'routes-findbykey',
      vendorTypes: [ROUTE_TYPE],
      responseSchema: RouteSchema,
      summary: 'A route by its key.',
      handler: (ctx) => one(ctx, routing.byKey(ctx.param('key'))),
    },
    {
      method: 'PUT',
      path: BASE,
      grant: WRITE,
      link: 'routes-update',
      vendorTypes: [ROUTE_TYPE],
      requestSchema: routeUpdate,
      responseSchema: RouteSchema,
      errors: [404, 409],
      summary: 'Replace a route named by the key in the body; absent enabled keeps the flag; a stale ol is refused.',
      handler: (ctx) => one(ctx, routing.update(ctx.body(routeUpdate))),
    },
    {
      method: 'DELETE',
      path: `${BASE}/{key}`,
      grant: WRITE,
      link: 'routes-delete',
      status: 204,
      summary: 'Delete a route and its hops; 204.',
      handler: (ctx) => {
        routing.delete(ctx.param('key'));
        return noContent();
      },
    },
    {
      method: 'POST',
      path: `${BASE}/{key}/enable`,
      body: 'none',
      grant: WRITE,
      link: 'routes-enable',
      vendorTypes: [ROUTE_TYPE],
      responseSchema: RouteSchema,
      summary: 'Enable a route; 200 with the route.',
      handler: (ctx) => one(ctx, routing.setEnabled(ctx.param('key'), true)),
    },
    {
      method: 'POST',
      path: `${BASE}/{key}/disable`,
      body: 'none',
      grant: WRITE,
      link: 'routes-disable',
      vendorTypes: [ROUTE_TYPE],
      responseSchema: RouteSchema,
      summary: 'Disable a route; 200 with the route.',
      handler: (ctx) => one(ctx, routing.setEnabled(ctx.param('key'), false)),
    },
    {
      method: 'GET',
      path: `${BASE}/{key}/hops`,
      grant: READ,
      link: 'route-hops-find',
      vendorTypes: [HOPS_TYPE],
      querySchema: listQuery,
      responseSchema: z.array(HopSchema),
      summary: 'The hops of a route in order: [{pos, source, next}].',
      // At most 10,000 (what a replace takes): read at once, paged by position.
      handler: (ctx) => listReply(ctx, arrayListing(routing.hops(ctx.param('key'))), (hop) => hop),
    },
    {
      method: 'PUT',
      path: `${BASE}/{key}/hops`,
      grant: WRITE,
      link: 'route-hops-replace',
      vendorTypes: [HOPS_TYPE],
      requestSchema: hopList,
      responseSchema: z.array(HopSchema),
      summary: 'Replace the hops of a route: [{source, next}] in order; the same source again = an alternative.',
      handler: (ctx) => ok(routing.replaceHops(ctx.param('key'), ctx.body(hopList))),
    },
    {
      method: 'GET',
      path: DEFAULT_HOPS,
      grant: READ,
      link: 'default-hops-find',
      vendorTypes: [HOPS_TYPE],
      querySchema: listQuery,
      responseSchema: z.array(DefaultHopSchema),
      summary: 'The default hop table in order: [{pos, source | sourceGroup, next}].',
      // At most 10,000 (what a replace takes): read at once, paged by position.
      handler: (ctx) => listReply(ctx, arrayListing(routing.defaultHops()), (hop) => hop),
    },
    {
      method: 'PUT',
      path: DEFAULT_HOPS,
      grant: WRITE,
      link: 'default-hops-replace',
      vendorTypes: [HOPS_TYPE],
      requestSchema: defaultHopList,
      responseSchema: z.array(DefaultHopSchema),
      errors: [404],
      summary: 'Replace the default hop table: [{source (a location) or sourceGroup, next}] in order.',
      handler: (ctx) => ok(routing.replaceDefaultHops(ctx.body(defaultHopList))),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the routing operations.'), ...routes];
}
