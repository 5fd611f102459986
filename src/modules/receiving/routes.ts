import { quantityVO } from '../../core/quantity.ts';
import type { RequestContext } from '../../http/context.ts';
import { created, indexRoute, link, type Link, noContent, ok, technical } from '../../http/hal.ts';
import { vendorType } from '../../http/negotiation.ts';
import type { Route } from '../../http/router.ts';
import type { Product } from '../inventory/service.ts';
import { captureRequest, loadUnitTypeQuery, newReceivingOrder, parseCaptures, parseNewOrder, parseOrRefuse } from './schema.ts';
import { quantityReceived, type ReceivingService } from './service.ts';
import type { Position, ReceivingOrder } from './store.ts';
import { z } from 'zod';
import { ReceivingOrderSchema } from './openapi.ts';
import { listQuery, listReply } from '../../http/lists.ts';
import { mapListing } from '../../core/listing-ops.ts';

// Receiving module (docs/receiving.md). Decisions: docs/receiving.md.

const RECEIVING_ORDER_TYPE = vendorType('receiving', 'receiving-order');
const READ = 'receiving-orders:read';
const WRITE = 'receiving-orders:write';
const BASE = '/v1/receiving-orders';

/** Entry-index link of the receiving module (the API conventions (README, "API")). */
export const receivingIndexLinks = { 'receiving-order-index': `${BASE}/index` };

/** Products by pk, looked up once per reply. */
function productLookup(service: ReceivingService) {
  const cache = new Map<string, Product>();
  return (pk: string): Product => {
    let product = cache.get(pk);
    if (!product) {
      product = service.product(pk);
      cache.set(pk, product);
    }
    return product;
  };
}

function positionVO(p: Position, product: Product) {
  return {
    pKey: p.pk,
    ol: p.ol,
    createDt: p.createDt,
    lastModifiedDt: p.lastModifiedDt,
    positionId: p.positionId,
    state: p.state,
    product: { sku: product.sku, pKey: product.pk },
    quantityExpected: quantityVO(p.quantityExpected),
    quantityReceived: quantityVO(quantityReceived(p)),
    captures: p.captures.map((c) => ({
      packagingUnitPKey: c.packagingUnitPk,
      transportUnitBK: c.transportUnitBK,
      loadUnitLabel: c.luPos,
      quantity: quantityVO(c.quantity),
      capturedAt: c.createDt,
    })),
  };
}

/**
 * The ReceivingOrder. Links: `receiving-order-findbypkey`, and `receiving-order-capture`
 * / `receiving-order-cancel` while the order's state allows them.
 */
export function orderVO(ctx: RequestContext, o: ReceivingOrder, productOf: (pk: string) => Product) {
  const links: Link[] = [link(ctx, 'receiving-order-findbypkey', `${BASE}/${o.pk}`)];
  if (o.state === 'CREATED' || o.state === 'PROCESSING') links.push(link(ctx, 'receiving-order-capture', `${BASE}/${o.pk}/capture`));
  if (o.state === 'CREATED') links.push(link(ctx, 'receiving-order-cancel', `${BASE}/${o.pk}`));
  return {
    ...technical(o, links),
    orderId: o.orderId,
    state: o.state,
    details: o.details,
    positions: o.positions.map((p) => positionVO(p, productOf(p.productPk))),
  };
}

export function receivingRoutes(receiving: ReceivingService): Route[] {
  const one = (ctx: RequestContext, o: ReceivingOrder) => ok(orderVO(ctx, o, productLookup(receiving)));

  const routes: Route[] = [
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'receiving-order-findall',
      vendorTypes: [RECEIVING_ORDER_TYPE],
      querySchema: listQuery,
      responseSchema: z.array(ReceivingOrderSchema),
      summary: 'All receiving orders with their positions, oldest first (an empty array when there is none).',
      handler: (ctx) => {
        // Products looked up once per page or chunk: a long stream keeps no map of them all.
        const orders = mapListing(receiving.list(), (chunk) => {
          const productOf = productLookup(receiving);
          return chunk.map((o) => orderVO(ctx, o, productOf));
        });
        return listReply(ctx, orders, (vo) => vo);
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'receiving-order-findbypkey',
      vendorTypes: [RECEIVING_ORDER_TYPE],
      responseSchema: ReceivingOrderSchema,
      summary: 'A receiving order by its persistent key.',
      handler: (ctx) => one(ctx, receiving.byPKey(ctx.param('pKey'))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['orderId'],
      grant: READ,
      link: 'receiving-order-findbyorderid',
      vendorTypes: [RECEIVING_ORDER_TYPE],
      responseSchema: ReceivingOrderSchema,
      summary: 'A receiving order by its orderId.',
      handler: (ctx) => one(ctx, receiving.byOrderId(ctx.queryValue('orderId'))),
    },
    {
      method: 'POST',
      path: BASE,
      grant: WRITE,
      link: 'receiving-order-create',
      vendorTypes: [RECEIVING_ORDER_TYPE],
      requestSchema: newReceivingOrder,
      responseSchema: ReceivingOrderSchema,
      status: 201,
      errors: [404, 409],
      summary: 'Announce a goods receipt: orderId and a non-empty array of positions (positionId, product sku, quantityExpected).',
      handler: (ctx) => {
        const order = receiving.create(parseNewOrder(ctx.fields()));
        return created(ctx, `${BASE}/${order.pk}/`, orderVO(ctx, order, productLookup(receiving)));
      },
    },
    {
      method: 'POST',
      path: `${BASE}/{pKey}/capture`,
      optionalQuery: ['loadUnitType'],
      grant: WRITE,
      link: 'receiving-order-capture',
      vendorTypes: [RECEIVING_ORDER_TYPE],
      querySchema: loadUnitTypeQuery,
      requestSchema: z.union([captureRequest, z.array(captureRequest)]),
      responseSchema: ReceivingOrderSchema,
      errors: [409],
      summary:
        'Capture received goods (one capture request or an array): booked against the open positions of the product and put ' +
        "as packaging units onto the transport unit's load unit (created with loadUnitType when missing); all or nothing.",
      handler: (ctx) => {
        const { requests, single } = parseCaptures(ctx.fields());
        const { loadUnitType } = parseOrRefuse(loadUnitTypeQuery, Object.fromEntries(ctx.query), 'query');
        return one(ctx, receiving.capture(ctx.param('pKey'), requests, single, loadUnitType));
      },
    },
    {
      method: 'DELETE',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'receiving-order-cancel',
      status: 204,
      errors: [403],
      summary: 'Cancel a receiving order that is still CREATED (204); in process, processed or cancelled → 403 CANCELLATION.DENIED.',
      handler: (ctx) => {
        receiving.cancel(ctx.param('pKey'));
        return noContent();
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the receiving order operations.'), ...routes];
}
