import type * as Wire from '../../../../contract/replies.ts';
// The shapes of the API's answers this screen reads (docs/common-module.md,
// docs/routing.md), and the checks of a new hop made before it is sent: the appliance
// refuses a duplicate hop and a circle of first-choice hops with a general validation
// error, while the screen can say exactly what is wrong and where.

/** What commissioning shows of a location group. */
export type LocationGroup = Pick<Wire.LocationGroup, 'pKey' | 'name' | 'parentName' | 'description' | 'childLocationGroupNames'>;

/** What commissioning shows of a route. */
export type RouteInfo = Pick<
  Wire.Route,
  'key' | 'name' | 'description' | 'sourceLocationName' | 'sourceLocationGroupName' | 'targetLocationName' | 'targetLocationGroupName' | 'enabled' | 'ol'
>;

/** A hop as read, or as sent (without its position, which the list order gives). */
export type Hop = Pick<Wire.Hop, 'source' | 'next'> & Partial<Pick<Wire.Hop, 'pos'>>;

export type DefaultHop = Pick<Wire.DefaultHop, 'source' | 'sourceGroup' | 'next'> & Partial<Pick<Wire.DefaultHop, 'pos'>>;

/** A routing decision as the API answers it (the dry run). */
export type Decision = Wire.Decision;

export const routeSource = (r: RouteInfo): string | undefined => r.sourceLocationName ?? r.sourceLocationGroupName;
export const routeTarget = (r: RouteInfo): string => r.targetLocationName ?? r.targetLocationGroupName ?? '';

type HopProblem = { key: 'commissioning.hop.self' | 'commissioning.hop.twice' } | { key: 'commissioning.hop.circle'; circle: string[] };

/**
 * Why the appliance would refuse `hops` with `added` appended (docs/routing.md,
 * "Hops"), or undefined. A circle is checked on first choices only: alternatives may
 * lead back (a recirculation loop for when the way ahead is locked).
 */
export function hopProblem(hops: readonly Hop[], added: Hop): HopProblem | undefined {
  if (added.source === added.next) return { key: 'commissioning.hop.self' };
  if (hops.some((h) => h.source === added.source && h.next === added.next)) return { key: 'commissioning.hop.twice' };
  const first = new Map<string, string>();
  for (const h of [...hops, added]) if (!first.has(h.source)) first.set(h.source, h.next);
  const path = [added.source];
  for (let at = first.get(added.source); at !== undefined; at = first.get(at)) {
    if (at === added.source) return { key: 'commissioning.hop.circle', circle: [...path, at] };
    if (path.includes(at)) break;
    path.push(at);
  }
  return undefined;
}

/** Whether a default hop table already has this entry (the appliance refuses it twice). */
export const defaultHopTwice = (table: readonly DefaultHop[], source: string, next: string): boolean =>
  table.some((h) => h.source === source && h.next === next);
