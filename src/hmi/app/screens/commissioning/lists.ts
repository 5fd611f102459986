import { get } from '../../api.ts';
import { keptList } from '../../lists/live-list.ts';
import { pagesOf } from '../../lists/pages.ts';
import type { LocationGroup, RouteInfo } from './topology.ts';

// The two lists that grow with the site, location groups and routes: paged in the API's
// order, by name, kept live by their events (commissioning.tsx follows them), and kept
// while other screens are shown.

const enc = encodeURIComponent;

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export const GROUP_EVENTS = ['locationGroup.created', 'locationGroup.changed', 'locationGroup.deleted'] as const;
export const ROUTE_EVENTS = ['route.created', 'route.changed', 'route.deleted'] as const;

export const groupList = () =>
  keptList<LocationGroup>('commissioning.groups', {
    read: pagesOf('/v1/location-groups'),
    readOne: async (pKey) => (await get<LocationGroup>(`/v1/location-groups/${enc(pKey)}`)).body,
    keyOf: (g) => g.pKey,
    order: byName,
  });

export const routeList = () =>
  keptList<RouteInfo>('commissioning.routes', {
    read: pagesOf('/v1/api/routes'),
    readOne: async (key) => (await get<RouteInfo>(`/v1/api/routes/${enc(key)}`)).body,
    keyOf: (r) => r.key,
    versionOf: (r) => r.ol,
    order: byName,
  });
