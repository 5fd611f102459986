// The routing decision of docs/routing.md as a pure function over a model: where does a
// transport unit standing at location L go next? No database, no clock, no I/O; the
// service (service.ts) builds the model from the database and caches it, the unit
// tests (decision.test.ts) build it from plain arrays.
//
// Precedence (OpenWMS's RouteSearchAlgorithm, docs/plc.md, written out):
//   sources, most specific first: L; L's group; its ancestors, nearest first; "any"
//     (a route without source);
//   targets, most specific first: the order's target location; its target group (the
//     order's targetLocationGroup, else the target location's group); that group's
//     ancestors, nearest first.
//   For each source in turn, each target in turn: the first ENABLED route wins.
// Next hop: the chosen route's hops whose source is L, in `pos` order; when the route has
// none at L (or no route was found), the default hop table: L's entries, else those of
// L's group, else of its ancestors, nearest first. A hop whose next location does not
// accept units (incomingActive=false, or its group or an ancestor group NOT_AVAILABLE)
// is skipped for the next alternative.

export type GroupState = 'AVAILABLE' | 'NOT_AVAILABLE';

/** A location as routing sees it: coordinate, group and the two flags of the PLC bitmap. */
export interface LocationDef {
  locationId: string;
  groupName: string;
  incomingActive: boolean;
  outgoingActive: boolean;
}

export interface GroupDef {
  name: string;
  parentName: string | null;
  groupStateIn: GroupState;
}

interface HopDef {
  /** Coordinate of the location the unit stands at. */
  source: string;
  /** Coordinate of the location to send it to. */
  next: string;
}

export interface RouteDef {
  key: string;
  name: string;
  enabled: boolean;
  sourceLocation?: string | null | undefined;
  sourceGroup?: string | null | undefined;
  targetLocation?: string | null | undefined;
  targetGroup?: string | null | undefined;
  /** In `pos` order. */
  hops: readonly HopDef[];
}

/** One entry of the default hop table: the source is a location or a group. */
export interface DefaultHopDef {
  source?: string | null | undefined;
  sourceGroup?: string | null | undefined;
  next: string;
}

/** What routing needs of a transport order: the STARTED order of the unit. */
export interface OrderTarget {
  pKey: string;
  /** Where the unit stood when the order was created: the route of the whole journey starts there. */
  sourceLocation?: string | null | undefined;
  targetLocation: string | null;
  targetLocationGroup: string | null;
}

export interface RoutingModelInput {
  /** All routes, enabled or not; entries appear in the order of their `pos`. */
  routes: readonly RouteDef[];
  defaultHops: readonly DefaultHopDef[];
  groups: readonly GroupDef[];
  /** The locations, or a lookup by coordinate (the service reads the live flags through it). */
  locations: readonly LocationDef[] | ((locationId: string) => LocationDef | undefined);
}

interface RouteRef {
  key: string;
  name: string;
}

/** Why a unit is held where it is. */
type LockReason = 'SOURCE_OUTGOING_LOCKED' | 'NEXT_LOCKED';

export type Decision =
  /** Send the unit to `next`; `via` says whether the route's hops or the default table named it. */
  | { kind: 'next'; next: string; route: RouteRef | undefined; via: 'route' | 'default' }
  /** The unit stands at its order's target location, or in its target group. */
  | { kind: 'arrived' }
  /** No order and no default hop at the location. */
  | { kind: 'no-order' }
  /** An order, but neither a hop of a route nor a default hop from the location. */
  | { kind: 'no-route'; route: RouteRef | undefined }
  /** There is a hop, but the location does not let units out, or every next location is locked. */
  | { kind: 'locked'; reason: LockReason; route: RouteRef | undefined; via: 'route' | 'default'; candidates: string[] }
  /** The location is not known (the PLC adapter answers without a target). */
  | { kind: 'unknown-location' };

/** The indexed model `decide` runs on; build it once per change with `buildModel`. */
export interface RoutingModel {
  location(locationId: string): LocationDef | undefined;
  /** The group and its ancestors, nearest first (stops on a loop or a missing parent). */
  groupChain(name: string | null | undefined): readonly string[];
  groupState(name: string): GroupState | undefined;
  /** The enabled route from `source` to `target` (`EndKey`s); the first by name when several. */
  enabledRoute(source: string, target: string): IndexedRoute | undefined;
  /** Default hops whose source is the location, in order. */
  defaultsAtLocation(locationId: string): readonly string[];
  /** Default hops whose source is the group, in order. */
  defaultsAtGroup(name: string): readonly string[];
}

interface IndexedRoute extends RouteRef {
  /** Next locations by source coordinate, in `pos` order. */
  hopsAt(locationId: string): readonly string[];
}

const SEP = '\u0000';
/** The key of one end of a route: a location, a group, or anywhere. */
const locationEnd = (locationId: string) => `L${SEP}${locationId}`;
const groupEnd = (name: string) => `G${SEP}${name}`;
const ANYWHERE = '*';
const pairKey = (source: string, target: string) => `${source}${SEP}${SEP}${target}`;

function sourceEnd(r: RouteDef): string {
  if (r.sourceLocation) return locationEnd(r.sourceLocation);
  if (r.sourceGroup) return groupEnd(r.sourceGroup);
  return ANYWHERE;
}

function targetEnd(r: RouteDef): string | undefined {
  if (r.targetLocation) return locationEnd(r.targetLocation);
  if (r.targetGroup) return groupEnd(r.targetGroup);
  return undefined;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const NONE: readonly string[] = Object.freeze([]);

export function buildModel(input: RoutingModelInput): RoutingModel {
  const groups = new Map(input.groups.map((g) => [g.name, g]));
  const chains = new Map<string, readonly string[]>();
  function groupChain(name: string | null | undefined): readonly string[] {
    if (!name) return NONE;
    const cached = chains.get(name);
    if (cached) return cached;
    const chain: string[] = [];
    for (let g: string | null | undefined = name; g && !chain.includes(g); g = groups.get(g)?.parentName) chain.push(g);
    chains.set(name, chain);
    return chain;
  }

  const routes = new Map<string, IndexedRoute>();
  for (const r of [...input.routes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const target = targetEnd(r);
    if (!r.enabled || target === undefined) continue;
    const key = pairKey(sourceEnd(r), target);
    if (routes.has(key)) continue;
    const hops = new Map<string, string[]>();
    for (const h of r.hops) push(hops, h.source, h.next);
    routes.set(key, { key: r.key, name: r.name, hopsAt: (locationId) => hops.get(locationId) ?? NONE });
  }

  const atLocation = new Map<string, string[]>();
  const atGroup = new Map<string, string[]>();
  for (const d of input.defaultHops) {
    if (d.source) push(atLocation, d.source, d.next);
    else if (d.sourceGroup) push(atGroup, d.sourceGroup, d.next);
  }

  let location: (locationId: string) => LocationDef | undefined;
  if (typeof input.locations === 'function') {
    location = input.locations;
  } else {
    const byId = new Map(input.locations.map((l) => [l.locationId, l]));
    location = (locationId) => byId.get(locationId);
  }

  return {
    location,
    groupChain,
    groupState: (name) => groups.get(name)?.groupStateIn,
    enabledRoute: (source, target) => routes.get(pairKey(source, target)),
    defaultsAtLocation: (locationId) => atLocation.get(locationId) ?? NONE,
    defaultsAtGroup: (name) => atGroup.get(name) ?? NONE,
  };
}

/** True when the order's target is reached at this location (its target location, else its target group's subtree). */
function arrived(model: RoutingModel, here: LocationDef, order: OrderTarget): boolean {
  if (order.targetLocation) return here.locationId === order.targetLocation;
  if (order.targetLocationGroup) return model.groupChain(here.groupName).includes(order.targetLocationGroup);
  return false;
}

/**
 * The route of the order's journey, as the reference system finds it (docs/routing.md):
 * the most specific enabled route from the order's source location — where the unit
 * stood when the order was created — to its target: source location, then its group
 * and the group's ancestors; for each source the target location, then the target
 * group and its ancestors. So a route "infeed → stock" keeps guiding the unit hop by
 * hop along the way. When no route starts there (or the order names no source), the
 * same search runs from `here`; a route from anywhere comes last. Only this most
 * specific route is asked for a hop at `here`.
 */
function findRoute(model: RoutingModel, here: LocationDef, order: OrderTarget): IndexedRoute | undefined {
  const targets: string[] = [];
  if (order.targetLocation) targets.push(locationEnd(order.targetLocation));
  const targetGroup = order.targetLocationGroup ?? (order.targetLocation ? model.location(order.targetLocation)?.groupName : undefined);
  for (const g of model.groupChain(targetGroup)) targets.push(groupEnd(g));
  if (targets.length === 0) return undefined;

  const sourcesFrom = (location: LocationDef) => [locationEnd(location.locationId), ...model.groupChain(location.groupName).map(groupEnd)];
  const origin = order.sourceLocation ? model.location(order.sourceLocation) : undefined;
  const sources = [...(origin ? sourcesFrom(origin) : []), ...sourcesFrom(here), ANYWHERE];
  for (const source of sources) {
    for (const target of targets) {
      const route = model.enabledRoute(source, target);
      if (route) return route;
    }
  }
  return undefined;
}

/** The default hops that apply at `here`: its own entries, else its group's, else its ancestors' (nearest first). */
function defaultHopsAt(model: RoutingModel, here: LocationDef): readonly string[] {
  const own = model.defaultsAtLocation(here.locationId);
  if (own.length > 0) return own;
  for (const g of model.groupChain(here.groupName)) {
    // A group entry pointing at the location itself does not apply there.
    const entries = model.defaultsAtGroup(g).filter((next) => next !== here.locationId);
    if (entries.length > 0) return entries;
  }
  return NONE;
}

/** True when a unit may not be sent to the location: unknown, incomingActive=false, or a NOT_AVAILABLE group above it. */
function nextLocked(model: RoutingModel, locationId: string): boolean {
  const next = model.location(locationId);
  if (!next || !next.incomingActive) return true;
  return model.groupChain(next.groupName).some((g) => model.groupState(g) === 'NOT_AVAILABLE');
}

const ref = (route: IndexedRoute | undefined): RouteRef | undefined => (route ? { key: route.key, name: route.name } : undefined);

/**
 * Where the unit at `location` goes next, given its STARTED transport order (or none).
 * Checks, in order: unknown location; arrived (the order's target reached); the hops
 * that apply (route, else default table; none → no-route / no-order); the location's
 * outgoingActive (false → locked); the first hop whose next location accepts units
 * (none → locked).
 */
export function decide(model: RoutingModel, input: { location: string; order?: OrderTarget | undefined }): Decision {
  const here = model.location(input.location);
  if (!here) return { kind: 'unknown-location' };
  const { order } = input;

  let route: IndexedRoute | undefined;
  let candidates: readonly string[] = NONE;
  let via: 'route' | 'default' = 'default';
  if (order) {
    if (arrived(model, here, order)) return { kind: 'arrived' };
    route = findRoute(model, here, order);
    if (route) {
      candidates = route.hopsAt(here.locationId);
      via = 'route';
    }
    if (candidates.length === 0) {
      candidates = defaultHopsAt(model, here);
      via = 'default';
    }
    if (candidates.length === 0) return { kind: 'no-route', route: ref(route) };
  } else {
    candidates = defaultHopsAt(model, here);
    if (candidates.length === 0) return { kind: 'no-order' };
  }

  if (!here.outgoingActive) {
    return { kind: 'locked', reason: 'SOURCE_OUTGOING_LOCKED', route: ref(route), via, candidates: [...candidates] };
  }
  for (const next of candidates) {
    if (!nextLocked(model, next)) return { kind: 'next', next, route: ref(route), via };
  }
  return { kind: 'locked', reason: 'NEXT_LOCKED', route: ref(route), via, candidates: [...candidates] };
}

/**
 * The reason code of a RES_ telegram with `resReasonCodes: true` (docs/plc.md
 * step 5): 00000000 OK, 00000001 no order, 00000002 no route, 00000003 next hop locked,
 * 00000005 unknown location. An arrived unit gets OK without a target.
 */
export function reasonCode(decision: Decision): string {
  switch (decision.kind) {
    case 'next':
    case 'arrived':
      return '00000000';
    case 'no-order':
      return '00000001';
    case 'no-route':
      return '00000002';
    case 'locked':
      return '00000003';
    case 'unknown-location':
      return '00000005';
  }
}
