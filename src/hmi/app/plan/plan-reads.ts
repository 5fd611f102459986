import { get } from '../api.ts';
import { readAll } from '../lists/pages.ts';
import type { PlanLink } from './index.ts';
import type * as Wire from '../../../contract/replies.ts';

// What the plan reads from the API, as the API gives it (docs/common-module.md,
// docs/routing.md). Lists that grow with the site are read whole, in pages of 1,000.

/** What the plan reads of a location. */
export type LocationRecord = Pick<Wire.Location, 'pKey' | 'locationId' | 'locationGroupName' | 'incomingActive' | 'outgoingActive' | 'plcState'>;

/** What the plan reads of a location group. */
export type GroupRecord = Pick<Wire.LocationGroup, 'name' | 'parentName' | 'groupStateIn' | 'groupStateOut'>;

/** What the plan reads of a transport unit. */
export type UnitRecord = Pick<Wire.TransportUnit, 'barcode' | 'actualLocation'>;

/** What the plan reads of a route. */
type RouteRecord = Pick<Wire.Route, 'key' | 'name' | 'enabled' | 'sourceLocationName' | 'targetLocationName'>;

type Hop = Pick<Wire.Hop, 'source' | 'next'>;

export type DefaultHop = Pick<Wire.DefaultHop, 'source' | 'sourceGroup' | 'next'>;

export const readLocation = async (pKey: string) => (await get<LocationRecord>(`/v1/locations/${encodeURIComponent(pKey)}`)).body;

/** Routes with their hops, as links; a route of two locations is a link of its own. */
export async function readRouteLinks(): Promise<PlanLink[]> {
  const routes = await readAll<RouteRecord>('/v1/api/routes');
  const links: PlanLink[] = [];
  // A few at a time: a site has tens of routes, not thousands.
  for (let i = 0; i < routes.length; i += 4) {
    const batch = routes.slice(i, i + 4);
    const hops = await Promise.all(batch.map((r) => readAll<Hop>(`/v1/api/routes/${encodeURIComponent(r.key)}/hops`)));
    batch.forEach((r, j) => {
      const extra = { route: r.name, ...(r.enabled ? {} : { disabled: true }) };
      if (r.sourceLocationName && r.targetLocationName) links.push({ from: r.sourceLocationName, to: r.targetLocationName, kind: 'route', ...extra });
      for (const h of hops[j]!) links.push({ from: h.source, to: h.next, kind: 'hop', ...extra });
    });
  }
  return links;
}

export const readDefaultHops = () => readAll<DefaultHop>('/v1/api/default-hops');
