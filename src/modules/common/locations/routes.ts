import type { RequestContext } from '../../../http/context.ts';
import { created, indexRoute, link, noContent, ok, technical } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Reply, Route } from '../../../http/router.ts';
import { COORDINATE_PARTS } from '../../../core/coordinate.ts';
import { changeStateBody, coordinateSearch, locationUpdate, newLocation } from './schema.ts';
import { listQuery, listReply, listReplyUnlessEmpty } from '../../../http/lists.ts';
import type { LocationService } from './service.ts';
import type { Location } from './store.ts';
import { z } from 'zod';
import { LocationSchema } from '../openapi.ts';

const TYPE = vendorType('common', 'location');
const READ = 'locations:read';
const WRITE = 'locations:write';
const BASE = '/v1/locations';

/** The Location representation; absent optional fields are left out (plcCode is shown as null). */
function locationVO(ctx: RequestContext, l: Location) {
  const vo: Record<string, unknown> = technical(l, [link(ctx, 'location-findbypkey', `${BASE}/${l.pk}`)]);
  vo.locationId = l.locationId;
  vo.accountId = l.accountId;
  vo.locationGroupName = l.groupName;
  vo.plcCode = l.plcCode;
  if (l.erpCode !== null) vo.erpCode = l.erpCode;
  if (l.type !== null) vo.type = l.type;
  if (l.description !== null) vo.description = l.description;
  if (l.sortOrder !== null) vo.sortOrder = l.sortOrder;
  if (l.stockZone !== null) vo.stockZone = l.stockZone;
  vo.incomingActive = l.incomingActive;
  vo.outgoingActive = l.outgoingActive;
  vo.plcState = l.plcState;
  if (l.lastMovement !== null) vo.lastMovement = l.lastMovement;
  return vo;
}

export function locationRoutes(locations: LocationService): Route[] {
  const vo = (ctx: RequestContext) => (l: Location) => locationVO(ctx, l);
  /**
   * Wildcard search. Without `limit` the whole list, or 404 with an empty body when
   * nothing matches, as the spec shows; with `limit` a page, `[]` when nothing matches.
   */
  const search = (ctx: RequestContext): Promise<Reply> => listReplyUnlessEmpty(ctx, locations.search(ctx.queryAs(coordinateSearch)), vo(ctx), { status: 404 });
  const byCoordinate = (ctx: RequestContext, param: string) => ok(locationVO(ctx, locations.byLocationId(ctx.queryValue(param))));
  const changeState = (ctx: RequestContext, location: Location) => {
    const body = ctx.body(changeStateBody);
    locations.changeState(location.pk, body.errorCode, body.plcState, body.reason);
    return noContent();
  };

  const routes: Route[] = [
    {
      method: 'POST',
      path: BASE,
      grant: WRITE,
      link: 'location-create',
      vendorTypes: [TYPE],
      requestSchema: newLocation,
      responseSchema: LocationSchema,
      status: 201,
      errors: [404, 409],
      summary: 'Create a location in a location group.',
      handler: (ctx) => {
        const location = locations.create(ctx.body(newLocation));
        return created(ctx, `${BASE}/${location.pk}/`, locationVO(ctx, location));
      },
    },
    {
      method: 'PUT',
      path: BASE,
      grant: WRITE,
      link: 'location-updatelocation',
      vendorTypes: [TYPE],
      requestSchema: locationUpdate,
      responseSchema: LocationSchema,
      errors: [404, 409],
      summary: 'Replace a location (body with pKey); incomingActive, outgoingActive and plcState change by state change only.',
      handler: (ctx) => {
        const body = ctx.body(locationUpdate);
        return ok(locationVO(ctx, locations.update(body.pKey, body)));
      },
    },
    {
      method: 'DELETE',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'location-deletelocation',
      status: 204,
      errors: [409],
      summary: 'Delete a location no transport unit stands on or heads for.',
      handler: (ctx) => {
        locations.delete(ctx.param('pKey'));
        return noContent();
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'location-findbypkey',
      vendorTypes: [TYPE],
      responseSchema: LocationSchema,
      summary: 'A location by its persistent key.',
      handler: (ctx) => ok(locationVO(ctx, locations.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['locationId'],
      grant: READ,
      link: 'location-findbycoordinate',
      vendorTypes: [TYPE],
      responseSchema: LocationSchema,
      summary: 'A location by its URL-encoded coordinate AREA/AISLE/X/Y/Z.',
      handler: (ctx) => byCoordinate(ctx, 'locationId'),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['locationPK'],
      grant: READ,
      vendorTypes: [TYPE],
      responseSchema: LocationSchema,
      summary: 'A location by its coordinate (the parameter name of earlier revisions).',
      handler: (ctx) => byCoordinate(ctx, 'locationPK'),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['area'],
      optionalQuery: ['aisle', 'x', 'y', 'z'],
      grant: READ,
      link: 'location-findbycoordinate-wc',
      vendorTypes: [TYPE],
      querySchema: coordinateSearch.extend(listQuery.shape),
      responseSchema: z.array(LocationSchema),
      summary: 'Locations whose coordinate parts match, in coordinate order; each part takes the wildcards % and _. None: 404, empty body (a page: []).',
      handler: search,
    },
    {
      method: 'GET',
      path: BASE,
      query: ['erpCode'],
      grant: READ,
      link: 'location-findbyerpcode',
      vendorTypes: [TYPE],
      responseSchema: LocationSchema,
      summary: 'A location by its ERP code.',
      handler: (ctx) => ok(locationVO(ctx, locations.byErpCode(ctx.queryValue('erpCode')))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['plcCode'],
      grant: READ,
      link: 'location-findbyplccode',
      vendorTypes: [TYPE],
      responseSchema: LocationSchema,
      summary: 'A location by its PLC code.',
      handler: (ctx) => ok(locationVO(ctx, locations.byPlcCode(ctx.queryValue('plcCode')))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['locationGroupNames'],
      grant: READ,
      link: 'location-forlocationgroup',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(LocationSchema),
      summary: 'Locations of the named groups (repeat the parameter), in coordinate order; a wildcard only with a single name.',
      handler: (ctx) => listReply(ctx, locations.forGroups(ctx.query.getAll('locationGroupNames')), vo(ctx)),
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'location-findall',
      vendorTypes: [TYPE],
      querySchema: coordinateSearch.extend(listQuery.shape),
      responseSchema: z.array(LocationSchema),
      summary: 'All locations; with any of aisle, x, y, z the wildcard search.',
      handler: (ctx) => (COORDINATE_PARTS.some((p) => ctx.query.has(p)) ? search(ctx) : listReply(ctx, locations.list(), vo(ctx))),
    },
    {
      method: 'PATCH',
      path: '/v1/location/{pKey}',
      query: ['op=change-state'],
      grant: WRITE,
      link: 'location-changestate',
      requestSchema: changeStateBody,
      status: 204,
      summary: 'Lock or release a location (and its group) by an 8-character errorCode; optional plcState and reason (kept on the events).',
      handler: (ctx) => changeState(ctx, locations.byPKey(ctx.param('pKey'))),
    },
    {
      method: 'PATCH',
      path: '/v1/location',
      query: ['locationId', 'op=change-state'],
      grant: WRITE,
      requestSchema: changeStateBody,
      status: 204,
      errors: [404],
      summary: 'The state change addressed by coordinate instead of pKey.',
      handler: (ctx) => changeState(ctx, locations.byLocationId(ctx.queryValue('locationId'))),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the location operations.'), ...routes];
}
