import type { RequestContext } from '../../http/context.ts';
import { created, defined, indexRoute, link, noContent, ok, technical } from '../../http/hal.ts';
import type { Route } from '../../http/router.ts';
import {
  CLASS_OF,
  createQuery,
  groupQuery,
  newPreference,
  ownerKeyQuery,
  ownerQuery,
  preferenceUpdate,
  scopeQuery,
  scopeUserQuery,
  userKeyQuery,
  userQuery,
} from './schema.ts';
import type { PreferenceService } from './service.ts';
import type { Preference } from './store.ts';
import { z } from 'zod';
import { PreferenceSchema } from './openapi.ts';
import type { Listing } from '../../core/listing.ts';
import { listQuery, listReply } from '../../http/lists.ts';

// The media types of the spec are not of the `vendorType(module, resource)` shape
// (module `core`, resources `preference` and `user-preference`): written out.
const TYPE = 'application/vnd.vendor.core.preference-v1+json';
const USER_TYPE = 'application/vnd.vendor.core.user-preference-v1+json';
const TYPES = [TYPE, USER_TYPE];
const READ = 'preferences:read';
const WRITE = 'preferences:write';
const BASE = '/v1/preferences';

/** Entry-index link of the module (the API conventions (README, "API")). */
export const preferencesIndexLinks = { 'preferences-index': `${BASE}/index` };

export function preferenceVO(ctx: RequestContext, p: Preference) {
  return {
    '@class': CLASS_OF[p.scope],
    ...technical(p, [link(ctx, 'preferences-findbypkey', `${BASE}/${p.pk}`)]),
    key: p.key,
    ...defined({ owner: p.owner, description: p.description }),
    value: p.value,
    ...defined({ groupName: p.groupName }),
    type: p.type,
  };
}

export function preferenceRoutes(preferences: PreferenceService): Route[] {
  const list = (ctx: RequestContext, listing: Listing<Preference>) => listReply(ctx, listing, (p) => preferenceVO(ctx, p));
  const one = (ctx: RequestContext, p: Preference) => ok(preferenceVO(ctx, p));

  /** `?role=`/`?module=` (and with `&key=`): shared preferences of one owner. */
  const ownerRoutes = (param: 'role' | 'module', scope: 'ROLE' | 'MODULE'): Route[] => [
    {
      method: 'GET',
      path: BASE,
      query: [param, 'key'],
      grant: READ,
      link: `${param}-preferences-findby${param}andkey`,
      vendorTypes: TYPES,
      querySchema: ownerKeyQuery(param),
      responseSchema: PreferenceSchema,
      summary: `The ${param} preference with the key; 404 not.found when there is none.`,
      handler: (ctx) => {
        const q = ctx.queryAs(ownerKeyQuery(param)) as { key: string } & Record<string, string>;
        return one(ctx, preferences.ofOwnerAndKey(ctx.caller, scope, q[param]!, q.key));
      },
    },
    {
      method: 'GET',
      path: BASE,
      query: [param],
      grant: READ,
      link: `${param}-preferences-findby${param}`,
      vendorTypes: TYPES,
      querySchema: ownerQuery(param).extend(listQuery.shape),
      responseSchema: z.array(PreferenceSchema),
      summary: `The preferences of a ${param} (any name is accepted; an unknown one has none).`,
      handler: (ctx) => {
        const q = ctx.queryAs(ownerQuery(param)) as Record<string, string>;
        return list(ctx, preferences.ofOwner(ctx.caller, scope, q[param]!));
      },
    },
  ];

  const routes: Route[] = [
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'preferences-findbypkey',
      vendorTypes: TYPES,
      responseSchema: PreferenceSchema,
      errors: [403],
      summary: "A preference by its persistent key; another user's user preference answers 403.",
      handler: (ctx) => one(ctx, preferences.byPKey(ctx.caller, ctx.param('pKey'))),
    },
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'preferences-findall',
      vendorTypes: TYPES,
      querySchema: listQuery,
      responseSchema: z.array(PreferenceSchema),
      summary: 'All preferences the caller may see: application, module and role preferences and their own user preferences.',
      handler: (ctx) => list(ctx, preferences.all(ctx.caller)),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['scope'],
      grant: READ,
      link: 'preferences-findallofscope',
      vendorTypes: TYPES,
      querySchema: scopeQuery.extend(listQuery.shape),
      responseSchema: z.array(PreferenceSchema),
      errors: [401],
      summary: 'The preferences of a scope (APPLICATION, MODULE, ROLE); USER needs the user named (401 otherwise).',
      handler: (ctx) => list(ctx, preferences.ofScope(ctx.queryAs(scopeQuery).scope)),
    },
    {
      method: 'GET',
      path: BASE,
      query: ['scope', 'user'],
      grant: READ,
      vendorTypes: TYPES,
      querySchema: scopeUserQuery.extend(listQuery.shape),
      responseSchema: z.array(PreferenceSchema),
      errors: [403],
      summary: 'The user preferences of the caller, as scope=USER&user=<caller>.',
      handler: (ctx) => {
        const q = ctx.queryAs(scopeUserQuery);
        return list(ctx, preferences.ofScopeAndUser(ctx.caller, q.scope, q.user));
      },
    },
    {
      method: 'GET',
      path: BASE,
      query: ['user', 'key'],
      grant: READ,
      link: 'user-preferences-findbyuserandkey',
      vendorTypes: TYPES,
      querySchema: userKeyQuery,
      responseSchema: PreferenceSchema,
      errors: [403],
      summary: 'One user preference of the caller by key; 404 not.found when there is none, 403 for another user.',
      handler: (ctx) => {
        const q = ctx.queryAs(userKeyQuery);
        return one(ctx, preferences.ofOwnerAndKey(ctx.caller, 'USER', q.user, q.key));
      },
    },
    {
      method: 'GET',
      path: BASE,
      query: ['user'],
      grant: READ,
      link: 'user-preferences-findbyuser',
      vendorTypes: TYPES,
      querySchema: userQuery.extend(listQuery.shape),
      responseSchema: z.array(PreferenceSchema),
      errors: [403],
      summary: 'The user preferences of the caller; 403 for another user.',
      handler: (ctx) => list(ctx, preferences.ofOwner(ctx.caller, 'USER', ctx.queryAs(userQuery).user)),
    },
    ...ownerRoutes('role', 'ROLE'),
    ...ownerRoutes('module', 'MODULE'),
    {
      method: 'GET',
      path: '/preferences/groups',
      query: ['scope', 'name'],
      optionalQuery: ['owner'],
      grant: READ,
      link: 'preferences-findbyownerscopekey',
      linkHref: '/preferences/groups?owner={owner}&scope={scope}&name={name}',
      vendorTypes: TYPES,
      querySchema: groupQuery.extend(listQuery.shape),
      responseSchema: z.array(PreferenceSchema),
      errors: [401, 403],
      summary: 'The preferences of a scope and owner whose groupName is name (owner left out for APPLICATION).',
      handler: (ctx) => {
        const q = ctx.queryAs(groupQuery);
        return list(ctx, preferences.inGroup(ctx.caller, q.scope, q.owner, q.name));
      },
    },
    {
      method: 'POST',
      path: BASE,
      optionalQuery: ['strict'],
      grant: WRITE,
      link: 'preferences-create',
      vendorTypes: TYPES,
      querySchema: createQuery,
      requestSchema: newPreference,
      responseSchema: PreferenceSchema,
      status: [200, 201],
      errors: [403, 409],
      summary: 'Create a preference (201); a duplicate answers 409, or with strict=false updates the existing one (200).',
      handler: (ctx) => {
        const strict = ctx.queryAs(createQuery).strict !== 'false';
        const { preference, created: isNew } = preferences.create(ctx.caller, ctx.body(newPreference), strict);
        const body = preferenceVO(ctx, preference);
        return isNew ? created(ctx, `${BASE}/${preference.pk}`, body) : ok(body);
      },
    },
    {
      method: 'PUT',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'preferences-update',
      vendorTypes: TYPES,
      requestSchema: preferenceUpdate,
      responseSchema: PreferenceSchema,
      errors: [403, 409],
      summary: 'Replace description, value, groupName and type of a preference; 200 with the updated preference.',
      handler: (ctx) => one(ctx, preferences.update(ctx.caller, ctx.param('pKey'), ctx.body(preferenceUpdate))),
    },
    {
      method: 'DELETE',
      path: `${BASE}/{pKey}`,
      grant: WRITE,
      link: 'preferences-delete',
      status: 204,
      errors: [403],
      summary: 'Delete a preference (204).',
      handler: (ctx) => {
        preferences.delete(ctx.caller, ctx.param('pKey'));
        return noContent();
      },
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the preference operations.'), ...routes];
}
