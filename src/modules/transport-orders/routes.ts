import type { RequestContext } from '../../http/context.ts';
import { created, defined, indexRoute, link, type Link, noContent, ok, technical } from '../../http/hal.ts';
import { vendorType } from '../../http/negotiation.ts';
import type { Route } from '../../http/router.ts';
import { findAllQuery, findQuery, newTransportOrder, transportOrderPatch } from './schema.ts';
import { isEnded, type TransportOrder, type TransportOrderService } from './service.ts';
import { z } from 'zod';
import { TransportOrderSchema } from './openapi.ts';
import type { Listing } from '../../core/listing.ts';
import { listReply } from '../../http/lists.ts';

// Transport-orders module (docs/transport-orders.md): `/v1/transport-orders`.

const TRANSPORT_ORDER_TYPE = vendorType('tms', 'transport-order');
const READ = 'transport-orders:read';
const WRITE = 'transport-orders:write';
const BASE = '/v1/transport-orders';

/** Entry-index link of the transport-orders module. */
export const transportOrderIndexLinks = { 'transport-order-index': `${BASE}/index` };

const enc = encodeURIComponent;

/**
 * The TransportOrder. `persistentKey` is the spec's name of the key (also given as
 * `pKey`, as every resource of the appliance carries it). Links:
 * `transport-orders-findbypkey` (itself), `transport-unit` (its unit by barcode) and,
 * while it has not ended, `transport-orders-update` and `transport-orders-cancel`.
 */
export function transportOrderVO(ctx: RequestContext, o: TransportOrder) {
  const self = `${BASE}/${o.pk}`;
  const links: Link[] = [link(ctx, 'transport-orders-findbypkey', self), link(ctx, 'transport-unit', `/v1/transport-units?bk=${enc(o.transportUnitBK)}`)];
  if (!isEnded(o.state)) links.push(link(ctx, 'transport-orders-update', self), link(ctx, 'transport-orders-cancel', self));
  return {
    ...technical(o, links),
    persistentKey: o.pk,
    transportUnitBK: o.transportUnitBK,
    priority: o.priority,
    state: o.state,
    sourceLocation: o.sourceLocation,
    targetLocation: o.targetLocation,
    targetLocationGroup: o.targetLocationGroup,
    ...defined({ startDate: o.startDate, endDate: o.endDate, message: o.message }),
  };
}

export function transportOrderRoutes(orders: TransportOrderService): Route[] {
  const one = (ctx: RequestContext, o: TransportOrder) => ok(transportOrderVO(ctx, o));
  const many = (ctx: RequestContext, listing: Listing<TransportOrder>) => listReply(ctx, listing, (o) => transportOrderVO(ctx, o));

  const routes: Route[] = [
    {
      method: 'POST',
      path: BASE,
      grant: WRITE,
      link: 'transport-orders-create',
      vendorTypes: [TRANSPORT_ORDER_TYPE],
      requestSchema: newTransportOrder,
      responseSchema: TransportOrderSchema,
      status: 201,
      errors: [404, 409],
      summary:
        'Create a transport order for the unit (barcode) to targetLocation and/or targetLocationGroup; it starts at once when the unit has no STARTED order.',
      handler: (ctx) => {
        const order = orders.create(ctx.body(newTransportOrder));
        return created(ctx, `${BASE}/${order.pk}`, transportOrderVO(ctx, order));
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'transport-orders-findbypkey',
      vendorTypes: [TRANSPORT_ORDER_TYPE],
      responseSchema: TransportOrderSchema,
      summary: 'A transport order by its persistent key.',
      handler: (ctx) => one(ctx, orders.byPKey(ctx.param('pKey'))),
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'transport-orders-findall',
      vendorTypes: [TRANSPORT_ORDER_TYPE],
      querySchema: findAllQuery,
      responseSchema: z.array(TransportOrderSchema),
      summary: 'All transport orders, oldest first (possibly none).',
      handler: (ctx) => {
        ctx.queryAs(findAllQuery);
        return many(ctx, orders.list());
      },
    },
    {
      method: 'GET',
      path: BASE,
      query: ['barcode', 'state'],
      grant: READ,
      link: 'transport-orders-findbybarcodeandstate',
      vendorTypes: [TRANSPORT_ORDER_TYPE],
      querySchema: findQuery,
      responseSchema: z.array(TransportOrderSchema),
      summary: 'The transport orders of a unit in the given states (comma-separated), oldest first.',
      handler: (ctx) => {
        const q = ctx.queryAs(findQuery);
        return many(ctx, orders.forBarcode(q.barcode!, q.state));
      },
    },
    {
      method: 'GET',
      path: BASE,
      query: ['barcode'],
      grant: READ,
      link: 'transport-orders-findbybarcode',
      vendorTypes: [TRANSPORT_ORDER_TYPE],
      querySchema: findQuery,
      responseSchema: z.array(TransportOrderSchema),
      summary: 'The transport orders of a unit, oldest first.',
      handler: (ctx) => many(ctx, orders.forBarcode(ctx.queryAs(findQuery).barcode!)),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['state'],
      grant: READ,
      link: 'transport-orders-findbystate',
      vendorTypes: [TRANSPORT_ORDER_TYPE],
      querySchema: findQuery,
      responseSchema: z.array(TransportOrderSchema),
      summary: 'The transport orders in the given states (comma-separated), oldest first.',
      handler: (ctx) => many(ctx, orders.inStates(ctx.queryAs(findQuery).state!)),
    },
    {
      method: 'PATCH',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'transport-orders-update',
      requestSchema: transportOrderPatch,
      status: 204,
      errors: [409],
      summary: 'Change priority, target (redirect), state (along the transition table) or problem text of an order; 204.',
      handler: (ctx) => {
        orders.modify(ctx.param('pKey'), ctx.body(transportOrderPatch));
        return noContent();
      },
    },
    {
      method: 'DELETE',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'transport-orders-cancel',
      vendorTypes: [TRANSPORT_ORDER_TYPE],
      responseSchema: TransportOrderSchema,
      errors: [409],
      summary: "Cancel an order that has not ended; 200 with the order in state CANCELED. The unit's next order starts.",
      handler: (ctx) => one(ctx, orders.cancel(ctx.param('pKey'))),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the transport order operations.'), ...routes];
}
