import type { RequestContext } from '../../../http/context.ts';
import { validationError } from '../../../core/errors.ts';
import { created, defined, indexRoute, link, ok, technical } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import { productSkuMissing, transportUnitBKMissing } from '../errors.ts';
import { packagingUnitVO } from '../packaging-units/routes.ts';
import type { PackagingUnitService } from '../packaging-units/service.ts';
import { divideForm, parseOrRefuse, reservation } from '../schema.ts';
import type { LoadUnit, LoadUnitService } from './service.ts';
import { z } from 'zod';
import { LoadUnitSchema } from '../openapi.ts';
import { type Listing } from '../../../core/listing.ts';
import { listQuery, listReply } from '../../../http/lists.ts';
import { mapListing } from '../../../core/listing-ops.ts';

export const LOAD_UNIT_TYPE = vendorType('inventory', 'load-unit');
const READ = 'load-units:read';
const WRITE = 'load-units:write';
const BASE = '/v1/load-units';
const enc = encodeURIComponent;

const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

export function loadUnitRoutes(loadUnits: LoadUnitService, packagingUnits: PackagingUnitService): Route[] {
  /** The LoadUnit representation, with the packaging units it holds (read for it alone unless given). */
  const loadUnitVO = (ctx: RequestContext, lu: LoadUnit, held = packagingUnits.inLoadUnit(lu.pk)) => ({
    ...technical(lu, [link(ctx, 'lu-findbypkey', `${BASE}/${lu.pk}`), link(ctx, 'transport-unit', `/v1/transport-units?bk=${enc(lu.transportUnitBK)}`)]),
    transportUnitBK: lu.transportUnitBK,
    physicalPosition: lu.physicalPosition,
    ...defined({ label: lu.label }),
    type: lu.type,
    locked: lu.locked,
    ...(lu.productPk ? { product: { sku: lu.productSku, pKey: lu.productPk } } : {}),
    ...defined({ length: lu.length, width: lu.width, height: lu.height }),
    packagingUnits: held.map((pu) => packagingUnitVO(ctx, pu)),
  });
  /** A list of load units, the packaging units of each page or chunk read in one query. */
  const list = (ctx: RequestContext, listing: Listing<LoadUnit>) =>
    listReply(
      ctx,
      mapListing(listing, (lus) => {
        const held = packagingUnits.inLoadUnits(lus.map((lu) => lu.pk));
        return lus.map((lu) => loadUnitVO(ctx, lu, held.get(lu.pk) ?? []));
      }),
      (vo) => vo,
    );
  const reserve = (ctx: RequestContext) => {
    const body = ctx.fields() ?? {};
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw validationError('Validation failed: body: a JSON object with sku (and baseUnit) is required');
    }
    if (isBlank((body as Record<string, unknown>).sku)) throw productSkuMissing();
    const request = parseOrRefuse(reservation, body);
    return ok(loadUnitVO(ctx, loadUnits.reserve(ctx.param('pKey'), request)));
  };

  const routes: Route[] = [
    {
      method: 'POST',
      path: '/v1/transport-unit',
      body: 'form',
      grant: WRITE,
      link: 'lu-divide',
      requestSchema: divideForm,
      responseSchema: null,
      status: 201,
      errors: [404, 409],
      summary: 'Divide a transport unit into load units (form: transportUnitBK, loadUnitType, parts; transportUnitType and actualLocation create the unit).',
      handler: (ctx) => {
        const fields = (ctx.fields() ?? {}) as Record<string, string>;
        if (isBlank(fields.transportUnitBK)) throw transportUnitBKMissing();
        const form = parseOrRefuse(divideForm, fields);
        const { transportUnit } = loadUnits.divide({
          transportUnitBK: form.transportUnitBK,
          loadUnitType: form.loadUnitType,
          parts: form.parts,
          transportUnitType: form.transportUnitType || undefined,
          actualLocation: form.actualLocation || undefined,
        });
        return created(ctx, `/v1/transport-units/${enc(transportUnit.barcode)}/load-units`);
      },
    },
    {
      method: 'PUT',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'lu-put-product',
      vendorTypes: [LOAD_UNIT_TYPE],
      requestSchema: reservation,
      responseSchema: LoadUnitSchema,
      errors: [409],
      summary: 'Reserve a load unit for a product (body: sku, baseUnit).',
      handler: reserve,
    },
    {
      method: 'POST',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      vendorTypes: [LOAD_UNIT_TYPE],
      requestSchema: reservation,
      responseSchema: LoadUnitSchema,
      errors: [409],
      summary: 'Reserve a load unit for a product (the POST the spec text names).',
      handler: reserve,
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'lu-findbypkey',
      vendorTypes: [LOAD_UNIT_TYPE],
      responseSchema: LoadUnitSchema,
      summary: 'A load unit by its persistent key, with its packaging units.',
      handler: (ctx) => ok(loadUnitVO(ctx, loadUnits.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'lu-findall',
      vendorTypes: [LOAD_UNIT_TYPE],
      querySchema: listQuery,
      responseSchema: z.array(LoadUnitSchema),
      summary: 'All load units, by transport unit and position.',
      handler: (ctx) => list(ctx, loadUnits.list()),
    },
    {
      method: 'GET',
      path: '/v1/transport-units/{transportUnitBK}/load-units',
      grant: READ,
      link: 'lu-findontu',
      vendorTypes: [LOAD_UNIT_TYPE],
      querySchema: listQuery,
      responseSchema: z.array(LoadUnitSchema),
      summary: 'The load units of a transport unit, by position.',
      handler: (ctx) => list(ctx, loadUnits.listOnTransportUnit(ctx.param('transportUnitBK'))),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the load unit operations.'), ...routes];
}
