import { quantityVO, type Dimension } from '../../../core/quantity.ts';
import type { RequestContext } from '../../../http/context.ts';
import { created, defined, indexRoute, link, ok, technical } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import { dimensionVO } from '../products/routes.ts';
import { forProductQuery, inGroupQuery, loadUnitTypeQuery, luPos, moveBody, newPackagingUnit, parseOrRefuse, type PackagingUnitInput } from '../schema.ts';
import type { PackagingUnit, PackagingUnitService } from './service.ts';
import { z } from 'zod';
import { PackagingUnitSchema } from '../openapi.ts';
import type { Listing } from '../../../core/listing.ts';
import { listQuery, listReply } from '../../../http/lists.ts';

export const PACKAGING_UNIT_TYPE = vendorType('inventory', 'packaging-unit');
const READ = 'packaging-units:read';
const WRITE = 'packaging-units:write';
const BASE = '/v1/packaging-units';
const enc = encodeURIComponent;
const MM_PER = { MM: 1, CM: 10, M: 1000 } as const;

/** Where a packaging unit lives under its transport unit (the `Location` of a create). */
const packagingUnitPath = (pu: PackagingUnit) =>
  `/v1/transport-units/${enc(pu.transportUnitBK)}/load-units/${enc(pu.physicalPosition)}/packaging-units/${pu.pk}/`;

/** Length, width and height in millimetres, as the spec's flat fields. */
function flatMeasures(d: Dimension | null) {
  if (!d) return {};
  const mm = (v: number | undefined) => (v === undefined ? undefined : Math.round(v * MM_PER[d.uom] * 1e6) / 1e6);
  return defined({ length: mm(d.length), width: mm(d.width), height: mm(d.height) });
}

/** The PackagingUnit representation. */
export function packagingUnitVO(ctx: RequestContext, pu: PackagingUnit) {
  const distribution = defined({ piecesPerLoadUnitLayer: pu.piecesPerLoadUnitLayer, numberOfLoadUnitLayers: pu.numberOfLoadUnitLayers });
  return {
    ...technical(pu, [
      link(ctx, 'packaging-units-findbypkey', `${BASE}/${pu.pk}`),
      link(ctx, 'load-unit', `/v1/load-units/${pu.loadUnitPk}`),
      link(ctx, 'product', `/v1/products/${pu.productPk}`),
    ]),
    product: { sku: pu.productSku, pKey: pu.productPk },
    quantity: quantityVO(pu.quantity),
    loadUnit: { transportUnitBK: pu.transportUnitBK, physicalPosition: pu.physicalPosition },
    physicalPosition: pu.physicalPosition,
    actualLocation: pu.actualLocation,
    ...flatMeasures(pu.dimension),
    ...(pu.dimension ? { dimension: dimensionVO(pu.dimension) } : {}),
    ...(pu.weight ? { weight: quantityVO(pu.weight) } : {}),
    ...defined({ message: pu.message, serialNumber: pu.serialNumber, expiresAt: pu.expiresAt }),
    labels: pu.labels,
    ...(Object.keys(distribution).length > 0 ? { loadUnitDistribution: distribution } : {}),
    allocated: pu.allocated,
  };
}

/** `length`, `width`, `height` (millimetres) or `dimension`: one dimension. */
function dimensionOf(body: PackagingUnitInput): Dimension | null {
  if (body.dimension) return body.dimension;
  const d: Dimension = { uom: 'MM' };
  if (body.length != null) d.length = body.length;
  if (body.width != null) d.width = body.width;
  if (body.height != null) d.height = body.height;
  return Object.keys(d).length > 1 ? d : null;
}

export function packagingUnitRoutes(units: PackagingUnitService): Route[] {
  const list = (ctx: RequestContext, listing: Listing<PackagingUnit>) => listReply(ctx, listing, (pu) => packagingUnitVO(ctx, pu));
  const ON_TU = '/v1/transport-units/{transportUnitBK}/load-units';

  const routes: Route[] = [
    {
      method: 'POST',
      path: `${ON_TU}/{luPos}/packaging-units`,
      optionalQuery: ['loadUnitType'],
      grant: WRITE,
      link: 'packaging-units-create',
      vendorTypes: [PACKAGING_UNIT_TYPE],
      querySchema: loadUnitTypeQuery,
      requestSchema: newPackagingUnit,
      responseSchema: PackagingUnitSchema,
      status: 201,
      errors: [409],
      summary: 'Put a new packaging unit into a load unit of a transport unit; loadUnitType creates the load unit when needed.',
      handler: (ctx) => {
        const body = parseOrRefuse(newPackagingUnit, ctx.fields());
        const position = parseOrRefuse(luPos, ctx.param('luPos'), 'luPos');
        const { loadUnitType } = parseOrRefuse(loadUnitTypeQuery, Object.fromEntries(ctx.query), 'query');
        const pu = units.create({
          transportUnitBK: ctx.param('transportUnitBK'),
          luPos: position,
          sku: body.product.sku,
          quantity: body.quantity,
          loadUnitType,
          message: body.message,
          dimension: dimensionOf(body),
          weight: body.weight,
          serialNumber: body.serialNumber,
          expiresAt: body.expiresAt,
          labels: body.labels,
          piecesPerLoadUnitLayer: body.loadUnitDistribution?.piecesPerLoadUnitLayer,
          numberOfLoadUnitLayers: body.loadUnitDistribution?.numberOfLoadUnitLayers,
        });
        return created(ctx, packagingUnitPath(pu), packagingUnitVO(ctx, pu));
      },
    },
    {
      method: 'GET',
      path: `${ON_TU}/packaging-units`,
      grant: READ,
      link: 'packaging-units-findontu',
      vendorTypes: [PACKAGING_UNIT_TYPE],
      querySchema: listQuery,
      responseSchema: z.array(PackagingUnitSchema),
      summary: 'All packaging units in all load units of a transport unit, oldest first.',
      handler: (ctx) => list(ctx, units.listOnTransportUnit(ctx.param('transportUnitBK'))),
    },
    {
      method: 'GET',
      path: `${ON_TU}/packaging-units`,
      query: ['sku'],
      optionalQuery: ['amount', 'sort'],
      grant: READ,
      vendorTypes: [PACKAGING_UNIT_TYPE],
      querySchema: forProductQuery.extend(listQuery.shape),
      responseSchema: z.array(PackagingUnitSchema),
      summary: 'Packaging units of a product on a transport unit, not allocated, oldest first; amount limits, sort ASC|DESC by quantity.',
      handler: (ctx) => {
        const q = parseOrRefuse(forProductQuery, Object.fromEntries(ctx.query), 'query');
        return list(ctx, units.forProduct(q.sku, q, ctx.param('transportUnitBK')));
      },
    },
    {
      method: 'GET',
      path: `${ON_TU}/{luPos}/packaging-units/{pKey}`,
      grant: READ,
      vendorTypes: [PACKAGING_UNIT_TYPE],
      responseSchema: PackagingUnitSchema,
      summary: 'A packaging unit under its transport unit and load unit (the Location of a create).',
      handler: (ctx) => ok(packagingUnitVO(ctx, units.at(ctx.param('transportUnitBK'), ctx.param('luPos'), ctx.param('pKey')))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['sku'],
      optionalQuery: ['amount', 'sort'],
      grant: READ,
      link: 'packaging-units-findforproduct',
      linkHref: `${BASE}?sku=&amount=&sort=`,
      vendorTypes: [PACKAGING_UNIT_TYPE],
      querySchema: forProductQuery.extend(listQuery.shape),
      responseSchema: z.array(PackagingUnitSchema),
      summary: 'Packaging units of a product, not allocated, on any transport unit, oldest first; amount limits, sort ASC|DESC by quantity.',
      handler: (ctx) => {
        const q = parseOrRefuse(forProductQuery, Object.fromEntries(ctx.query), 'query');
        return list(ctx, units.forProduct(q.sku, q));
      },
    },
    {
      method: 'GET',
      path: BASE,
      query: ['productPKey', 'locationGroupName'],
      grant: READ,
      link: 'packaging-units-findforproductinlg',
      vendorTypes: [PACKAGING_UNIT_TYPE],
      querySchema: inGroupQuery.extend(listQuery.shape),
      responseSchema: z.array(PackagingUnitSchema),
      summary:
        'Packaging units of a product on transport units in a location group or any group below it, oldest first; a page may hold fewer than limit and still link a next one.',
      handler: (ctx) => {
        const q = parseOrRefuse(inGroupQuery, Object.fromEntries(ctx.query), 'query');
        return list(ctx, units.inLocationGroup(q.productPKey, q.locationGroupName));
      },
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'packaging-units-findall',
      vendorTypes: [PACKAGING_UNIT_TYPE],
      querySchema: listQuery,
      responseSchema: z.array(PackagingUnitSchema),
      summary: 'All packaging units, oldest first.',
      handler: (ctx) => list(ctx, units.list()),
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'packaging-units-findbypkey',
      vendorTypes: [PACKAGING_UNIT_TYPE],
      responseSchema: PackagingUnitSchema,
      summary: 'A packaging unit by its persistent key.',
      handler: (ctx) => ok(packagingUnitVO(ctx, units.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'POST',
      path: `${BASE}/move`,
      grant: WRITE,
      link: 'packaging-units-move',
      vendorTypes: [PACKAGING_UNIT_TYPE],
      requestSchema: moveBody,
      responseSchema: PackagingUnitSchema,
      status: 201,
      errors: [404, 409],
      summary: 'Move a quantity of a product from a location into a new packaging unit on another transport unit.',
      handler: (ctx) => {
        const pu = units.move(parseOrRefuse(moveBody, ctx.fields()));
        return created(ctx, packagingUnitPath(pu), packagingUnitVO(ctx, pu));
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the packaging unit operations.'), ...routes];
}
