import type { RequestContext } from '../../../http/context.ts';
import { created, indexRoute, link, noContent, ok } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import { defined, technical } from '../shared.ts';
import { locationTypeBody, locationTypeUpdate } from './schema.ts';
import type { LocationTypeService } from './service.ts';
import type { LocationType } from './store.ts';

const TYPE = vendorType('common', 'location-type');
const READ = 'location-types:read';
const WRITE = 'location-types:write';
const BASE = '/v1/location-types';

export const locationTypeVO = (ctx: RequestContext, t: LocationType) => ({
  ...technical(t, [link(ctx, 'location-types-findbypkey', `${BASE}/${t.pk}`)]),
  type: t.type,
  ...defined({ description: t.description, length: t.length, width: t.width, height: t.height }),
});

export function locationTypeRoutes(types: LocationTypeService): Route[] {
  const byType = (ctx: RequestContext, param: string) => ok(locationTypeVO(ctx, types.byType(ctx.queryValue(param))));
  const routes: Route[] = [
    {
      method: 'GET', path: `${BASE}/{pKey}`, grant: READ, link: 'location-types-findbypkey', vendorTypes: [TYPE],
      summary: 'A location type by its persistent key.',
      handler: (ctx) => ok(locationTypeVO(ctx, types.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET', path: BASE, query: ['typeName'], grant: READ, link: 'location-types-findbytypename', vendorTypes: [TYPE],
      summary: 'A location type by its name.',
      handler: (ctx) => byType(ctx, 'typeName'),
    },
    {
      method: 'GET', path: BASE, query: ['type'], grant: READ, vendorTypes: [TYPE],
      summary: 'A location type by its name (`type` as the field is called).',
      handler: (ctx) => byType(ctx, 'type'),
    },
    {
      method: 'GET', path: BASE, grant: READ, link: 'location-types-findall', vendorTypes: [TYPE],
      summary: 'All location types.',
      handler: (ctx) => ok(types.all().map((t) => locationTypeVO(ctx, t))),
    },
    {
      method: 'POST', path: BASE, grant: WRITE, link: 'location-types-create', vendorTypes: [TYPE],
      summary: 'Create a location type.',
      handler: (ctx) => {
        const type = types.create(ctx.body(locationTypeBody));
        return created(ctx, `${BASE}/${type.pk}`, locationTypeVO(ctx, type));
      },
    },
    {
      method: 'PUT', path: BASE, grant: WRITE, link: 'location-types-update', vendorTypes: [TYPE],
      summary: 'Replace a location type; the body carries its pKey (and ol to detect concurrent changes).',
      handler: (ctx) => {
        const body = ctx.body(locationTypeUpdate);
        return ok(locationTypeVO(ctx, types.update(body.pKey, body)));
      },
    },
    {
      method: 'DELETE', path: `${BASE}/{pKey}`, grant: WRITE, link: 'location-types-delete',
      summary: 'Delete a location type that no location uses.',
      handler: (ctx) => {
        types.delete(ctx.param('pKey'));
        return noContent();
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the location type operations.'), ...routes];
}
