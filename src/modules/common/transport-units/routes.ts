import type { RequestContext } from '../../../http/context.ts';
import { created, defined, indexRoute, link, noContent, ok, technical } from '../../../http/hal.ts';
import { validationError } from '../../../core/errors.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import { bkQuery, moveParams, newTransportUnit, transportUnitParams, transportUnitUpdate } from './schema.ts';
import type { TransportUnitService } from './service.ts';
import type { TransportUnit, TransportUnitState } from './store.ts';
import { z } from 'zod';
import { TransportUnitSchema } from '../openapi.ts';
import { listQuery, listReply } from '../../../http/lists.ts';

const TYPE = vendorType('common', 'transport-unit');
const READ = 'transport-units:read';
const WRITE = 'transport-units:write';
const BASE = '/v1/transport-units';

const transportUnitVO = (ctx: RequestContext, tu: TransportUnit) => ({
  ...technical(tu, [
    link(ctx, 'transport-unit-findbypkey', `${BASE}/${tu.pk}`),
    link(ctx, 'actual-location', `/v1/locations?locationId=${encodeURIComponent(tu.actualLocation)}`),
    link(ctx, 'transport-unit-type', `/v1/transport-unit-types?type=${encodeURIComponent(tu.transportUnitType)}`),
  ]),
  barcode: tu.barcode,
  transportUnitType: tu.transportUnitType,
  actualLocation: tu.actualLocation,
  actualLocationDate: tu.actualLocationDate,
  ...defined({ targetLocation: tu.targetLocation }),
  state: tu.state,
  ...defined({ weight: tu.weight }),
});

export function transportUnitRoutes(units: TransportUnitService): Route[] {
  const vo = (ctx: RequestContext) => (tu: TransportUnit) => transportUnitVO(ctx, tu);
  const one = (ctx: RequestContext, tu: TransportUnit) => ok(transportUnitVO(ctx, tu));
  const createdUnit = (ctx: RequestContext, tu: TransportUnit) => created(ctx, `${BASE}/${tu.pk}`, transportUnitVO(ctx, tu));
  const stateChange = (state: TransportUnitState) => (ctx: RequestContext) => {
    units.setState(ctx.queryValue('bk'), state);
    return noContent();
  };

  const routes: Route[] = [
    {
      method: 'POST',
      path: BASE,
      grant: WRITE,
      link: 'transport-unit-createtuwithbody',
      optionalQuery: ['bk'],
      vendorTypes: [TYPE],
      querySchema: bkQuery,
      requestSchema: newTransportUnit,
      responseSchema: TransportUnitSchema,
      status: 201,
      errors: [404, 409],
      summary: 'Create a transport unit from a JSON body (barcode, actualLocation, transportUnitType).',
      handler: (ctx) => {
        const body = ctx.body(newTransportUnit);
        const { bk } = ctx.queryAs(bkQuery);
        if (bk !== undefined && body.barcode !== undefined && bk !== body.barcode) {
          throw validationError(`Validation failed: bk [${bk}] and barcode [${body.barcode}] differ`);
        }
        return createdUnit(ctx, units.create({ ...body, barcode: body.barcode ?? bk }));
      },
    },
    {
      method: 'POST',
      path: BASE,
      query: ['actualLocation', 'tut'],
      optionalQuery: ['bk'],
      body: 'none',
      grant: WRITE,
      link: 'transport-unit-createtuwithparams',
      vendorTypes: [TYPE],
      querySchema: transportUnitParams,
      responseSchema: TransportUnitSchema,
      status: 201,
      errors: [404, 409],
      summary: 'Create a transport unit from query parameters; without bk a barcode is assigned.',
      handler: (ctx) => {
        const q = ctx.queryAs(transportUnitParams);
        return createdUnit(ctx, units.create({ barcode: q.bk, actualLocation: q.actualLocation, transportUnitType: q.tut }));
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'transport-unit-findbypkey',
      vendorTypes: [TYPE],
      responseSchema: TransportUnitSchema,
      summary: 'A transport unit by its persistent key.',
      handler: (ctx) => one(ctx, units.byPKey(ctx.param('pKey'))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['bk'],
      grant: READ,
      link: 'transport-unit-findbybarcode',
      vendorTypes: [TYPE],
      responseSchema: TransportUnitSchema,
      summary: 'A transport unit by its barcode.',
      handler: (ctx) => one(ctx, units.byBarcode(ctx.queryValue('bk'))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['barcode'],
      grant: READ,
      vendorTypes: [TYPE],
      responseSchema: TransportUnitSchema,
      summary: 'A transport unit by its barcode (`barcode` as the field is called).',
      handler: (ctx) => one(ctx, units.byBarcode(ctx.queryValue('barcode'))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['bks'],
      grant: READ,
      link: 'transport-unit-findbybarcodes',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(TransportUnitSchema),
      summary: 'The transport units with the given barcodes (repeat bks), by barcode; unknown ones are skipped.',
      handler: (ctx) => listReply(ctx, units.byBarcodes(ctx.query.getAll('bks')), vo(ctx)),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['actualLocation'],
      grant: READ,
      link: 'transport-unit-findonlocation',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(TransportUnitSchema),
      summary: 'The transport units standing on a location (coordinate), by barcode.',
      handler: (ctx) => listReply(ctx, units.listOnLocation(ctx.queryValue('actualLocation')), vo(ctx)),
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'transport-unit-findall',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(TransportUnitSchema),
      summary: 'All transport units, by barcode.',
      handler: (ctx) => listReply(ctx, units.list(), vo(ctx)),
    },
    {
      method: 'PATCH',
      path: BASE,
      query: ['bk', 'newLocation'],
      body: 'none',
      grant: WRITE,
      link: 'transport-unit-move',
      vendorTypes: [TYPE],
      querySchema: moveParams,
      responseSchema: TransportUnitSchema,
      errors: [404, 409],
      summary: 'Move a transport unit to another location (coordinate).',
      handler: (ctx) => {
        const q = ctx.queryAs(moveParams);
        return one(ctx, units.move(q.bk, q.newLocation));
      },
    },
    {
      method: 'PUT',
      path: BASE,
      query: ['bk'],
      grant: WRITE,
      link: 'transport-unit-update',
      vendorTypes: [TYPE],
      requestSchema: transportUnitUpdate,
      responseSchema: TransportUnitSchema,
      errors: [404, 409],
      summary: 'Change a transport unit (type, state, target, weight; a new actualLocation moves it).',
      handler: (ctx) => one(ctx, units.update(ctx.queryValue('bk'), ctx.body(transportUnitUpdate))),
    },
    {
      method: 'DELETE',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'transport-unit-delete',
      status: 204,
      errors: [409],
      summary: 'Delete a transport unit.',
      handler: (ctx) => {
        units.delete(ctx.param('pKey'));
        return noContent();
      },
    },
    {
      method: 'POST',
      path: `${BASE}/block`,
      query: ['bk'],
      body: 'none',
      grant: WRITE,
      link: 'transport-unit-block',
      status: 204,
      errors: [404],
      summary: 'Block a transport unit (state BLOCKED).',
      handler: stateChange('BLOCKED'),
    },
    {
      method: 'POST',
      path: `${BASE}/available`,
      query: ['bk'],
      body: 'none',
      grant: WRITE,
      link: 'transport-unit-unblock',
      status: 204,
      errors: [404],
      summary: 'Release a transport unit (state AVAILABLE).',
      handler: stateChange('AVAILABLE'),
    },
    {
      method: 'POST',
      path: `${BASE}/quality-check`,
      query: ['bk'],
      body: 'none',
      grant: WRITE,
      link: 'transport-unit-qc',
      status: 204,
      errors: [404],
      summary: 'Put a transport unit into quality check (state QUALITY_CHECK).',
      handler: stateChange('QUALITY_CHECK'),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the transport unit operations.'), ...routes];
}
