import type { RequestContext } from '../../../http/context.ts';
import { created, indexRoute, link, noContent, ok } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import { defined, technical } from '../shared.ts';
import { transportUnitTypeBody, transportUnitTypeUpdate } from './schema.ts';
import type { TransportUnitTypeService } from './service.ts';
import type { TransportUnitType } from './store.ts';

const TYPE = vendorType('common', 'transport-unit-type');
const READ = 'transport-unit-types:read';
const WRITE = 'transport-unit-types:write';
const BASE = '/v1/transport-unit-types';

export const transportUnitTypeVO = (ctx: RequestContext, t: TransportUnitType) => ({
  ...technical(t, [link(ctx, 'transport-unit-types-findbypkey', `${BASE}/${t.pk}`)]),
  type: t.type,
  ...defined({
    description: t.description,
    length: t.length,
    width: t.width,
    height: t.height,
    weightTare: t.weightTare,
    weightMax: t.weightMax,
  }),
});

export function transportUnitTypeRoutes(types: TransportUnitTypeService): Route[] {
  const routes: Route[] = [
    {
      method: 'GET', path: `${BASE}/{pKey}`, grant: READ, link: 'transport-unit-types-findbypkey', vendorTypes: [TYPE],
      summary: 'A transport unit type by its persistent key.',
      handler: (ctx) => ok(transportUnitTypeVO(ctx, types.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET', path: BASE, query: ['type'], grant: READ, link: 'transport-unit-types-findtransportunittype',
      vendorTypes: [TYPE],
      summary: 'A transport unit type by its name.',
      handler: (ctx) => ok(transportUnitTypeVO(ctx, types.byType(ctx.queryValue('type')))),
    },
    {
      method: 'GET', path: BASE, grant: READ, link: 'transport-unit-types-findall', vendorTypes: [TYPE],
      summary: 'All transport unit types.',
      handler: (ctx) => ok(types.all().map((t) => transportUnitTypeVO(ctx, t))),
    },
    {
      method: 'POST', path: BASE, grant: WRITE, link: 'transport-unit-types-create', vendorTypes: [TYPE],
      summary: 'Create a transport unit type.',
      handler: (ctx) => {
        const type = types.create(ctx.body(transportUnitTypeBody));
        return created(ctx, `${BASE}/${type.pk}`, transportUnitTypeVO(ctx, type));
      },
    },
    {
      method: 'PUT', path: BASE, grant: WRITE, link: 'transport-unit-types-update', vendorTypes: [TYPE],
      summary: 'Replace a transport unit type; the body carries its pKey (and ol to detect concurrent changes).',
      handler: (ctx) => {
        const body = ctx.body(transportUnitTypeUpdate);
        return ok(transportUnitTypeVO(ctx, types.update(body.pKey, body)));
      },
    },
    {
      method: 'DELETE', path: `${BASE}/{pKey}`, grant: WRITE, link: 'transport-unit-types-delete',
      summary: 'Delete a transport unit type that no transport unit uses.',
      handler: (ctx) => {
        types.delete(ctx.param('pKey'));
        return noContent();
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the transport unit type operations.'), ...routes];
}
