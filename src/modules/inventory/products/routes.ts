import { quantityVO, type Dimension } from '../../../core/quantity.ts';
import type { RequestContext } from '../../../http/context.ts';
import { validationError } from '../../../core/errors.ts';
import { created, defined, indexRoute, link, ok, technical } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Reply, Route } from '../../../http/router.ts';
import { productBaseUnitMissing, productPKeyMissing, productSkuMissing } from '../errors.ts';
import { newProduct, newProducts, parseOrRefuse, productUpdate, skuAndUom } from '../schema.ts';
import type { Product, ProductService } from './service.ts';
import { z } from 'zod';
import { ProductSchema } from '../openapi.ts';
import { listQuery, listReply } from '../../../http/lists.ts';

export const PRODUCT_TYPE = vendorType('inventory', 'product');
const READ = 'products:read';
const WRITE = 'products:write';
const BASE = '/v1/products';

/** A dimension as the spec shows it: `length`, `width`, `height`, `uom`. */
export const dimensionVO = (d: Dimension) => ({ ...defined({ length: d.length, width: d.width, height: d.height }), uom: d.uom });

/** The Product representation; optional texts without a value are left out. */
export function productVO(ctx: RequestContext, p: Product) {
  return {
    ...technical(p, [link(ctx, 'products-findbyspkey', `${BASE}/${p.pk}`)]),
    sku: p.sku,
    ...defined({ label: p.label }),
    accountId: p.accountId,
    baseUnit: quantityVO(p.baseUnit),
    overbookingAllowed: p.overbookingAllowed,
    ...defined({ description: p.description }),
    availabilityState: p.availabilityState,
    ...defined({ classification: p.classification, group: p.group, stockZone: p.stockZone }),
    units: p.units.map((u) => ({
      pKey: u.pk,
      ...defined({ label: u.label }),
      quantity: quantityVO(u.quantity),
      ...(u.dimension ? { dimension: dimensionVO(u.dimension) } : {}),
      details: defined({ piecesPerLayer: u.piecesPerLayer, numbersOfLayers: u.numbersOfLayers, carrierType: u.carrierType }),
    })),
    ...(p.dimension ? { dimension: dimensionVO(p.dimension) } : {}),
    stackingRules: p.stackingRules.map((r) => ({ noProducts: r.noProducts, allowedProduct: { sku: r.allowedSku } })),
    details: p.details,
  };
}

const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

export function productRoutes(products: ProductService): Route[] {
  const one = (ctx: RequestContext, p: Product): Reply => ok(productVO(ctx, p));

  const routes: Route[] = [
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'products-findall',
      vendorTypes: [PRODUCT_TYPE],
      querySchema: listQuery,
      responseSchema: z.array(ProductSchema),
      summary: 'All products, by SKU.',
      handler: (ctx) => listReply(ctx, products.list(), (p) => productVO(ctx, p)),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['sku'],
      grant: READ,
      link: 'products-findbysku',
      vendorTypes: [PRODUCT_TYPE],
      responseSchema: ProductSchema,
      summary: 'A product by its SKU; unknown → 404 not.found.',
      handler: (ctx) => one(ctx, products.lookupBySku(ctx.queryValue('sku'))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['sku', 'uom'],
      grant: READ,
      link: 'products-findbyskuanduom',
      vendorTypes: [PRODUCT_TYPE],
      querySchema: skuAndUom,
      responseSchema: ProductSchema,
      summary: 'The product with this SKU whose base unit is given in the unit symbol uom.',
      handler: (ctx) => {
        const q = parseOrRefuse(skuAndUom, Object.fromEntries(ctx.query), 'query');
        return one(ctx, products.bySkuAndUom(q.sku, q.uom));
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'products-findbyspkey',
      vendorTypes: [PRODUCT_TYPE],
      responseSchema: ProductSchema,
      summary: 'A product by its persistent key.',
      handler: (ctx) => one(ctx, products.byPKey(ctx.param('pKey'))),
    },
    {
      method: 'POST',
      path: BASE,
      grant: WRITE,
      link: 'products-create',
      vendorTypes: [PRODUCT_TYPE],
      requestSchema: z.union([newProducts, newProduct]),
      responseSchema: z.array(ProductSchema),
      status: 201,
      errors: [404, 409],
      summary: 'Create products: an array (bulk) or one product; all or none. 201 with the created products.',
      handler: (ctx) => {
        const body = ctx.fields();
        if (body === undefined) throw validationError('Validation failed: body: an array of products is required');
        const inputs = Array.isArray(body) ? parseOrRefuse(newProducts, body) : [parseOrRefuse(newProduct, body)];
        const made = products.create(inputs);
        const vos = made.map((p) => productVO(ctx, p));
        // The Location names the product only when exactly one was sent.
        if (made.length === 1) return created(ctx, `${BASE}/${made[0]!.pk}/`, vos);
        return { status: 201, body: vos, withoutLocation: true };
      },
    },
    {
      method: 'PUT',
      path: BASE,
      grant: WRITE,
      link: 'products-update',
      vendorTypes: [PRODUCT_TYPE],
      requestSchema: productUpdate,
      responseSchema: ProductSchema,
      errors: [404, 409],
      summary: 'Replace a product named by pKey in the body (ol to detect concurrent changes).',
      handler: (ctx) => {
        const body = ctx.fields();
        if (body === null || typeof body !== 'object' || Array.isArray(body)) {
          throw validationError('Validation failed: body: one product (a JSON object) is required');
        }
        const fields = body as Record<string, unknown>;
        if (isBlank(fields.pKey)) throw productPKeyMissing();
        if (isBlank(fields.sku)) throw productSkuMissing();
        if (fields.baseUnit === undefined || fields.baseUnit === null) throw productBaseUnitMissing();
        return one(ctx, products.update(parseOrRefuse(productUpdate, body)));
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the product operations.'), ...routes];
}
