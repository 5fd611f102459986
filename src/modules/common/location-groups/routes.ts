import type { RequestContext } from '../../../http/context.ts';
import { created, defined, indexRoute, link, noContent, ok, technical } from '../../../http/hal.ts';
import { vendorType } from '../../../http/negotiation.ts';
import type { Route } from '../../../http/router.ts';
import { errorCodeBody, locationGroupPatch, newLocationGroup, reasonBody, stateQuery } from './schema.ts';
import type { LocationGroupService } from './service.ts';
import type { LocationGroup } from './store.ts';
import { z } from 'zod';
import { LocationGroupSchema } from '../openapi.ts';
import { listQuery, listReply } from '../../../http/lists.ts';
import { arrayListing } from '../../../core/listing-ops.ts';

const TYPE = vendorType('common', 'location-group');
const READ = 'location-groups:read';
const WRITE = 'location-groups:write';
const BASE = '/v1/location-groups';

function locationGroupVO(ctx: RequestContext, g: LocationGroup) {
  const links = [link(ctx, 'location-groups-findbypkey', `${BASE}/${g.pk}`)];
  if (g.parentName) links.push(link(ctx, 'parent', `${BASE}?name=${encodeURIComponent(g.parentName)}`));
  return {
    ...technical(g, links),
    name: g.name,
    ...defined({ description: g.description, accountId: g.accountId, groupType: g.groupType }),
    operationMode: g.operationMode,
    ...defined({ parentName: g.parentName }),
    groupStateIn: g.groupStateIn,
    groupStateOut: g.groupStateOut,
    childLocationGroupNames: g.childNames,
  };
}

export function locationGroupRoutes(groups: LocationGroupService): Route[] {
  const routes: Route[] = [
    {
      method: 'POST',
      path: BASE,
      grant: WRITE,
      link: 'location-groups-create',
      vendorTypes: [TYPE],
      requestSchema: newLocationGroup,
      responseSchema: LocationGroupSchema,
      status: 201,
      errors: [404, 409],
      summary: 'Create a location group, optionally below a parent.',
      handler: (ctx) => {
        const group = groups.create(ctx.body(newLocationGroup));
        return created(ctx, `${BASE}/${group.pk}`, locationGroupVO(ctx, group));
      },
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'location-groups-findbypkey',
      vendorTypes: [TYPE],
      responseSchema: LocationGroupSchema,
      summary: 'A location group by its persistent key.',
      handler: (ctx) => ok(locationGroupVO(ctx, groups.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['name'],
      grant: READ,
      link: 'location-groups-findbyname',
      vendorTypes: [TYPE],
      responseSchema: LocationGroupSchema,
      summary: 'A location group by its name.',
      handler: (ctx) => ok(locationGroupVO(ctx, groups.byName(ctx.queryValue('name')))),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['names'],
      grant: READ,
      link: 'location-groups-findbynames',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(LocationGroupSchema),
      summary: 'The location groups with the given names (repeat `names` or separate by commas), in that order; unknown names are skipped.',
      handler: (ctx) => {
        const names = ctx.query
          .getAll('names')
          .flatMap((n) => n.split(','))
          .map((n) => n.trim())
          .filter(Boolean);
        // As many as the request names: read at once, paged by position.
        return listReply(ctx, arrayListing(groups.byNames(names)), (g) => locationGroupVO(ctx, g));
      },
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'location-groups-findall',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(LocationGroupSchema),
      summary: 'All location groups, by name.',
      handler: (ctx) => listReply(ctx, groups.list(), (g) => locationGroupVO(ctx, g)),
    },
    {
      method: 'PATCH',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'location-groups-modify',
      vendorTypes: [TYPE],
      requestSchema: locationGroupPatch,
      responseSchema: LocationGroupSchema,
      errors: [409],
      summary: 'Change some fields of a location group (name, description, parent, mode, states).',
      handler: (ctx) => ok(locationGroupVO(ctx, groups.modify(ctx.param('pKey'), ctx.body(locationGroupPatch)))),
    },
    {
      method: 'DELETE',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'location-groups-delete',
      status: 204,
      errors: [409],
      summary: 'Delete an empty location group (no child groups, no locations).',
      handler: (ctx) => {
        groups.delete(ctx.param('pKey'));
        return noContent();
      },
    },
    {
      method: 'PATCH',
      path: '/v1/location-group/{pKey}',
      query: ['op=change-state'],
      optionalQuery: ['statein', 'stateout'],
      body: ['none', 'json'],
      grant: WRITE,
      link: 'location-groups-changestate',
      querySchema: stateQuery,
      requestSchema: reasonBody,
      status: 204,
      summary: 'Set groupStateIn/groupStateOut (AVAILABLE, NOT_AVAILABLE) of a group and all groups below it; an optional body {reason} is kept on the events.',
      handler: (ctx) => {
        const q = ctx.queryAs(stateQuery);
        const reason = ctx.body(reasonBody)?.reason;
        groups.changeState(ctx.param('pKey'), { groupStateIn: q.statein, groupStateOut: q.stateout }, reason);
        return noContent();
      },
    },
    {
      method: 'PATCH',
      path: BASE,
      query: ['name', 'op=change-state'],
      grant: WRITE,
      link: 'location-groups-changestate-with-bitmap',
      requestSchema: errorCodeBody,
      status: 204,
      summary: 'Change the group states by an 8-character bitmap: position 0 from the right = in, 1 = out; optional reason (kept on the events).',
      handler: (ctx) => {
        const body = ctx.body(errorCodeBody);
        groups.changeStateByCode(ctx.queryValue('name'), body.errorCode, body.reason);
        return noContent();
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the location group operations.'), ...routes];
}
