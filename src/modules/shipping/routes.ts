import type { RequestContext } from '../../http/context.ts';
import { created, defined, indexRoute, link, ok, technical } from '../../http/hal.ts';
import { quantityVO } from '../../core/quantity.ts';
import type { Route } from '../../http/router.ts';
import { orderPatch, newShippingOrder, positionPatch, PRODUCT_POSITION, statesQuery, TU_POSITION } from './schema.ts';
import type { ShippingService } from './service.ts';
import { ORDER_STATES, type OrderState, type Position, type ShippingOrder } from './store.ts';
import { z } from 'zod';
import { PositionSchema, ShippingOrderMinimumSchema, ShippingOrderSchema } from './openapi.ts';
import { listQuery, listReply } from '../../http/lists.ts';

// Shipping module (the API). Media types are written as the spec gives them
// (no module segment): the full order and the order without positions.

const SHIPPING_ORDER_TYPE = 'application/vnd.vendor.shipping-order-v1+json';
const SHIPPING_ORDER_MINIMUM_TYPE = 'application/vnd.vendor.shipping-order-v1-minimum+json';
const READ = 'shipping-orders:read';
const WRITE = 'shipping-orders:write';
const BASE = '/v1/shipping-orders';
const POSITIONS = '/v1/shipping-order-positions';
const UI = '/v1/ui/shipping-orders';

/** Entry-index links of the shipping module: both revisions' sets. */
export const shippingIndexLinks = {
  'shipping-order-index': `${BASE}/index`,
  'shipping-order-position-index': `${POSITIONS}/index`,
  'shipping-order-ui-index': `${UI}/index`,
};

export function positionVO(ctx: RequestContext, service: ShippingService, p: Position) {
  const head = {
    ...technical(p, [link(ctx, 'shipping-order-findbypositionpkey', `${POSITIONS}/${p.pk}`)]),
    orderPKey: p.orderPk,
    orderId: p.orderId,
    pos: p.pos,
    orderPositionState: p.state,
    ...defined({ priority: p.priority }),
    details: p.details,
    ...defined({ targetName: p.targetName }),
  };
  if (p.kind === 'TRANSPORT_UNIT') {
    return {
      '@class': TU_POSITION,
      ...head,
      transportUnitBK: p.transportUnitBK,
      ...defined({ transportUnitTypeName: p.transportUnitTypeName }),
    };
  }
  const product = service.product(p.productPk!);
  return {
    '@class': PRODUCT_POSITION,
    ...head,
    product: { sku: product.sku, pKey: product.pk, ol: product.ol, createDt: product.createDt, lastModifiedDt: product.lastModifiedDt },
    qtyOrdered: quantityVO(p.qtyOrdered!),
    ...(p.qtyCrossdock ? { qtyCrossdock: quantityVO(p.qtyCrossdock) } : {}),
  };
}

/** The ShippingOrder; the minimum representation leaves the positions out. */
export function orderVO(ctx: RequestContext, service: ShippingService, o: ShippingOrder, minimum = false) {
  return {
    ...technical(o, [link(ctx, 'shipping-order-findbypkey', `${BASE}/${o.pk}`)]),
    orderId: o.orderId,
    ...defined({ customerOrderId: o.customerOrderId, customerNo: o.customerNo }),
    state: o.state,
    ...defined({
      startMode: o.startMode,
      shippingType: o.shippingType,
      priority: o.priority,
      latestDueDate: o.latestDueDate,
      startDate: o.startDate,
    }),
    details: o.details,
    ...(minimum ? {} : { positions: o.positions.map((p) => positionVO(ctx, service, p)) }),
  };
}

export function shippingRoutes(shipping: ShippingService): Route[] {
  const one = (ctx: RequestContext, o: ShippingOrder) => ok(orderVO(ctx, shipping, o));
  /** Orders in the states; Accept of the -minimum type (alone) leaves the positions out, and they are not read. */
  const ordersReply = (ctx: RequestContext, states: readonly OrderState[]) => {
    const minimum = ctx.accepts(SHIPPING_ORDER_MINIMUM_TYPE) && !ctx.accepts(SHIPPING_ORDER_TYPE);
    return listReply(ctx, shipping.inStates(states, !minimum), (o) => orderVO(ctx, shipping, o, minimum));
  };
  const findByPosition: Route = {
    method: 'GET',
    path: `${POSITIONS}/{pKey}`,
    grant: READ,
    link: 'shipping-order-findbypositionpkey',
    vendorTypes: [SHIPPING_ORDER_TYPE],
    responseSchema: ShippingOrderSchema,
    summary: "The shipping order a position belongs to, by the position's persistent key.",
    handler: (ctx) => one(ctx, shipping.byPositionPKey(ctx.param('pKey'))),
  };
  const updatePosition: Route = {
    method: 'PATCH',
    path: `${POSITIONS}/{pKey}`,
    grant: WRITE,
    link: 'shipping-order-updatepositionpartially',
    requestSchema: positionPatch,
    responseSchema: PositionSchema,
    errors: [409],
    summary: 'Change some fields of a position (state along the transition table, priority, details, target, quantities).',
    handler: (ctx) => ok(positionVO(ctx, shipping, shipping.updatePosition(ctx.param('pKey'), ctx.body(positionPatch)))),
  };
  const inStates: Route = {
    method: 'GET',
    path: UI,
    query: ['states'],
    grant: READ,
    link: 'shipping-order-ui-findbystates',
    vendorTypes: [SHIPPING_ORDER_TYPE, SHIPPING_ORDER_MINIMUM_TYPE],
    querySchema: statesQuery.extend(listQuery.shape),
    responseSchema: z.array(z.union([ShippingOrderSchema, ShippingOrderMinimumSchema])),
    summary: 'Orders in the given states (comma-separated), oldest first; with Accept of the -minimum type without positions.',
    handler: (ctx) => ordersReply(ctx, ctx.queryAs(statesQuery).states),
  };

  const orderRoutes: Route[] = [
    {
      method: 'POST',
      path: BASE,
      grant: WRITE,
      link: 'shipping-order-create',
      vendorTypes: [SHIPPING_ORDER_TYPE],
      requestSchema: newShippingOrder,
      responseSchema: ShippingOrderSchema,
      status: 201,
      errors: [404, 409],
      summary: 'Create a shipping order with product and transport unit positions (non-empty).',
      handler: (ctx) => {
        const order = shipping.create(ctx.body(newShippingOrder));
        return created(ctx, `${BASE}/${order.pk}`, orderVO(ctx, shipping, order));
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'shipping-order-findbypkey',
      vendorTypes: [SHIPPING_ORDER_TYPE],
      responseSchema: ShippingOrderSchema,
      summary: 'A shipping order with its positions.',
      handler: (ctx) => one(ctx, shipping.byPKey(ctx.param('pKey'))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['orderId'],
      grant: READ,
      link: 'shipping-order-findbyorderid',
      vendorTypes: [SHIPPING_ORDER_TYPE],
      responseSchema: ShippingOrderSchema,
      summary: 'A shipping order by its orderId.',
      handler: (ctx) => one(ctx, shipping.byOrderId(ctx.queryValue('orderId'))),
    },
    findByPosition,
    {
      method: 'PATCH',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: ['shipping-order-updateorderpartially', 'shipping-order-partialupdate'],
      vendorTypes: [SHIPPING_ORDER_TYPE],
      requestSchema: orderPatch,
      responseSchema: ShippingOrderSchema,
      errors: [409],
      summary: 'Change some fields of an order; its state moves along the transition table.',
      handler: (ctx) => one(ctx, shipping.updateOrder(ctx.param('pKey'), ctx.body(orderPatch))),
    },
    updatePosition,
  ];
  const allStates: Route = {
    method: 'GET',
    path: UI,
    grant: READ,
    vendorTypes: [SHIPPING_ORDER_TYPE, SHIPPING_ORDER_MINIMUM_TYPE],
    querySchema: listQuery,
    responseSchema: z.array(z.union([ShippingOrderSchema, ShippingOrderMinimumSchema])),
    summary: 'All orders (any state), oldest first; Accept of the -minimum type leaves positions out.',
    handler: (ctx) => ordersReply(ctx, ORDER_STATES),
  };
  return [
    indexRoute(`${BASE}/index`, READ, orderRoutes, 'Links of the shipping order operations.'),
    indexRoute(`${POSITIONS}/index`, READ, [findByPosition, updatePosition], 'Links of the shipping order position operations.'),
    indexRoute(`${UI}/index`, READ, [inStates], 'Links of the shipping order views for user interfaces.'),
    ...orderRoutes.filter((r) => r !== findByPosition && r !== updatePosition),
    findByPosition,
    updatePosition,
    inStates,
    allStates,
  ];
}
