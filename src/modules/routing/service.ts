import { type Listing } from '../../core/listing.ts';
import { mapListing } from '../../core/listing-ops.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { newPKey } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { checkVersion, type Versioned } from '../../core/versioned.ts';
import { alreadyExists, notFound, validationError } from '../../core/errors.ts';
import type { CommonServices } from '../common/service.ts';
import { decide, type Decision, type OrderTarget, type RoutingModel } from './decision.ts';
import { checkDefaultHops, checkHops } from './hop-rules.ts';
import { createModelCache } from './model-cache.ts';
import type { DefaultHopInput, HopInput, NewRouteInput, RouteUpdateInput } from './schema.ts';
import type { RouteEnds, RouteFields, RoutingStore, StoredDefaultHop, StoredHop, StoredRoute } from './store.ts';

// The rules of the routing module (docs/routing.md). Locations and groups belong to the common base
// module and are reached only through its services; the transport order of a unit
// comes from the transport-orders module through the `OrderLookup` it implements.

/** What routing asks the transport-orders module. */
export interface OrderLookup {
  /** The STARTED transport order of the unit (at most one), with the coordinate / name of its target. */
  startedOrderOf(transportUnitBK: string): OrderTarget | undefined;
}

/** Until the transport-orders module is connected: no unit has an order. */
const NO_ORDERS: OrderLookup = { startedOrderOf: () => undefined };

/** A route as the API shows it: locations by coordinate, groups by name (null = not set). */
export interface RouteResource extends Versioned {
  key: string;
  name: string;
  description: string | null;
  sourceLocationName: string | null;
  sourceLocationGroupName: string | null;
  targetLocationName: string | null;
  targetLocationGroupName: string | null;
  enabled: boolean;
}

interface HopResource {
  pos: number;
  source: string;
  next: string;
}

interface DefaultHopResource {
  pos: number;
  source?: string;
  sourceGroup?: string;
  next: string;
}

/** A decision with the order it was made for. */
export type RoutingDecision = Decision & { order: OrderTarget | undefined };

/** The fields a client sees; an update that changes none of them writes nothing. */
const VISIBLE: readonly (keyof RouteFields)[] = ['name', 'description', 'sourceLocationPk', 'sourceGroupPk', 'targetLocationPk', 'targetGroupPk', 'enabled'];

/** Field names as the API spells them, for the `fields` of `route.changed`. */
const FIELD_NAMES: Record<keyof RouteFields, string> = {
  name: 'name',
  description: 'description',
  sourceLocationPk: 'sourceLocationName',
  sourceGroupPk: 'sourceLocationGroupName',
  targetLocationPk: 'targetLocationName',
  targetGroupPk: 'targetLocationGroupName',
  enabled: 'enabled',
};

const routeNotFound = (key: string) => notFound(`Route with key [${key}] does not exist`, [key]);

interface RoutingServiceDeps {
  work: UnitOfWork;
  store: RoutingStore;
  common: CommonServices;
  /** The transport-orders module; `NO_ORDERS` until it is connected (see `connectOrders`). */
  orders?: OrderLookup;
}

export function createRoutingService({ work, store, common, orders = NO_ORDERS }: RoutingServiceDeps) {
  let orderLookup = orders;

  function stored(key: string): StoredRoute {
    const route = store.byPk(key);
    if (!route) throw routeNotFound(key);
    return route;
  }

  /** The structural rules of source and target (400), checked before anything is looked up. */
  function checkEnds(input: NewRouteInput): void {
    if (input.sourceLocationName && input.sourceLocationGroupName) {
      throw validationError('Validation failed: a route starts at a location (sourceLocationName) or at a location group (sourceLocationGroupName), not both');
    }
    if (!input.targetLocationName && !input.targetLocationGroupName) {
      throw validationError('Validation failed: a route needs a target: targetLocationName or targetLocationGroupName');
    }
    if (input.targetLocationName && input.targetLocationGroupName) {
      throw validationError('Validation failed: a route ends at a location (targetLocationName) or at a location group (targetLocationGroupName), not both');
    }
    const self =
      (input.sourceLocationName && input.sourceLocationName === input.targetLocationName) ||
      (input.sourceLocationGroupName && input.sourceLocationGroupName === input.targetLocationGroupName);
    if (self) {
      throw validationError(
        `Validation failed: a route's source and target must differ; [${input.sourceLocationName ?? input.sourceLocationGroupName}] is both`,
      );
    }
  }

  /** Source and target as pKeys; an unknown location or group: 404 `loc.notFoundByName` / `lg.notFoundByName`. */
  function resolveEnds(input: NewRouteInput): RouteEnds {
    const location = (name: string | null | undefined) => (name ? common.locations.resolve(name).pk : null);
    const group = (name: string | null | undefined) => (name ? common.locationGroups.byName(name).pk : null);
    return {
      sourceLocationPk: location(input.sourceLocationName),
      sourceGroupPk: group(input.sourceLocationGroupName),
      targetLocationPk: location(input.targetLocationName),
      targetGroupPk: group(input.targetLocationGroupName),
    };
  }

  function requireUniqueName(name: string, ownPk?: string): void {
    const clash = store.byName(name);
    if (clash && clash.pk !== ownPk) throw alreadyExists(`Route with name [${name}] already exists`);
  }

  /** At most one enabled route per source and target: the decision must not depend on chance. */
  function requireUnambiguous(ends: RouteEnds, ownPk?: string): void {
    const other = store.enabledWithEnds(ends).find((r) => r.pk !== ownPk);
    if (other) {
      throw alreadyExists(`The enabled route [${other.name}] already leads from the same source to the same target; disable it first or disable this one`);
    }
  }

  const models = createModelCache({ work, store, common });
  const { namer, view, invalidate } = models;

  function decideFor(transportUnitBK: string | undefined, locationId: string, within: RoutingModel = models.current()): RoutingDecision {
    const order = transportUnitBK === undefined ? undefined : orderLookup.startedOrderOf(transportUnitBK);
    return { ...decide(within, { location: locationId, order }), order };
  }

  const routeEvent = (r: RouteResource) => ({ key: r.key, name: r.name });

  // ---- hops -----------------------------------------------------------------------

  const hopsView = (hops: readonly StoredHop[], names = namer()): HopResource[] =>
    hops.map((h, pos) => ({ pos, source: names.location(h.sourcePk)!, next: names.location(h.nextPk)! }));

  function defaultHopsView(): DefaultHopResource[] {
    const names = namer();
    return store.defaultHops().map((d, pos) => ({
      pos,
      ...(d.sourceLocationPk !== null ? { source: names.location(d.sourceLocationPk)! } : { sourceGroup: names.group(d.sourceGroupPk)! }),
      next: names.location(d.nextPk)!,
    }));
  }

  return {
    /** Every route, by name: pages, or the whole list streamed (names looked up once per page or chunk). */
    list: (): Listing<RouteResource> =>
      mapListing(store.list(), (routes) => {
        const names = namer();
        return routes.map((r) => view(r, names));
      }),

    byKey: (key: string): RouteResource => view(stored(key)),

    /**
     * Creates a route (enabled unless `enabled: false`). Refusals, in this order: 400 for
     * the shape of source and target (both of one kind, no target, source = target); 409
     * `already.exists` for a taken key or name; 404 for an unknown location or group; 409
     * `already.exists` when an enabled route already joins the same source and target.
     */
    create(input: NewRouteInput): RouteResource {
      checkEnds(input);
      return work.run(() => {
        const key = input.key ?? newPKey();
        if (store.byPk(key)) throw alreadyExists(`Route with key [${key}] already exists`);
        requireUniqueName(input.name);
        const ends = resolveEnds(input);
        const enabled = input.enabled ?? true;
        if (enabled) requireUnambiguous(ends);
        store.insert(key, { ...ends, name: input.name, description: input.description ?? null, enabled }, nowIso());
        invalidate();
        const route = view(stored(key));
        work.emit({ type: 'route.created', key: route.key, data: { ...routeEvent(route), enabled: route.enabled } });
        return route;
      });
    },

    /**
     * Replaces the route named by `key` (PUT): absent description, source and target
     * fields are cleared, absent `enabled` keeps the flag. A stale `ol`: 409. An update
     * that changes nothing writes nothing (`ol` stays).
     */
    update(input: RouteUpdateInput): RouteResource {
      return work.run(() => {
        const current = stored(input.key);
        checkVersion('Route', current, input.ol);
        checkEnds(input);
        requireUniqueName(input.name, current.pk);
        const next: RouteFields = {
          ...resolveEnds(input),
          name: input.name,
          description: input.description ?? null,
          enabled: input.enabled ?? current.enabled,
        };
        const fields = VISIBLE.filter((f) => next[f] !== current[f]);
        if (fields.length === 0) return view(current);
        if (next.enabled) requireUnambiguous(next, current.pk);
        store.update(current.pk, next, nowIso());
        invalidate();
        const route = view(stored(input.key));
        work.emit({ type: 'route.changed', key: route.key, data: { ...routeEvent(route), fields: fields.map((f) => FIELD_NAMES[f]) } });
        return route;
      });
    },

    /** Deletes the route and its hops. */
    delete(key: string): void {
      work.run(() => {
        const route = view(stored(key));
        store.delete(route.pk);
        invalidate();
        work.emit({ type: 'route.deleted', key: route.key, data: routeEvent(route) });
      });
    },

    /** Enables or disables the route; setting the flag it has changes nothing. */
    setEnabled(key: string, enabled: boolean): RouteResource {
      return work.run(() => {
        const current = stored(key);
        if (current.enabled === enabled) return view(current);
        if (enabled) requireUnambiguous(current, current.pk);
        store.update(current.pk, { ...current, enabled }, nowIso());
        invalidate();
        const route = view(stored(key));
        work.emit({ type: 'route.changed', key: route.key, data: { ...routeEvent(route), fields: ['enabled'], enabled } });
        return route;
      });
    },

    /** The hops of a route in order. */
    hops: (key: string): HopResource[] => hopsView(store.hopsOf(stored(key).pk)),

    /**
     * Replaces the hops of a route with the list (position = index). Refused, changing
     * nothing: a hop from a location to itself, a hop listed twice, first-choice hops
     * that run in a circle (400), an unknown location (404 `loc.notFoundByName`). Raises
     * the route's `ol`.
     */
    replaceHops(key: string, hops: readonly HopInput[]): HopResource[] {
      return work.run(() => {
        const route = stored(key);
        checkHops(hops);
        const resolved = hops.map((h) => ({ sourcePk: common.locations.resolve(h.source).pk, nextPk: common.locations.resolve(h.next).pk }));
        store.replaceHops(route.pk, resolved);
        store.touch(route.pk, nowIso());
        invalidate();
        work.emit({ type: 'route.hopsReplaced', key: route.pk, data: { key: route.pk, name: route.name, hops: hops.length } });
        return hopsView(store.hopsOf(route.pk));
      });
    },

    /** The default hop table in order. */
    defaultHops: (): DefaultHopResource[] => defaultHopsView(),

    /**
     * Replaces the default hop table (position = index). Refused, changing nothing: a
     * location entry pointing at itself, an entry listed twice (400), an unknown location
     * or group (404).
     */
    replaceDefaultHops(hops: readonly DefaultHopInput[]): DefaultHopResource[] {
      checkDefaultHops(hops);
      return work.run(() => {
        const resolved: StoredDefaultHop[] = hops.map((h) => ({
          sourceLocationPk: h.source !== undefined ? common.locations.resolve(h.source).pk : null,
          sourceGroupPk: h.sourceGroup !== undefined ? common.locationGroups.byName(h.sourceGroup).pk : null,
          nextPk: common.locations.resolve(h.next).pk,
        }));
        store.replaceDefaultHops(resolved);
        invalidate();
        work.emit({ type: 'routing.defaultHopsReplaced', key: 'defaultHops', data: { entries: hops.length } });
        return defaultHopsView();
      });
    },

    /**
     * The routing decision for the PLC adapter (docs/plc.md): where the
     * unit `transportUnitBK` (undefined: a unit without barcode, i.e. no order) standing
     * at `locationId` goes next. Never throws for an unknown unit or location: an unknown
     * location is the kind `unknown-location`, a unit without STARTED order is routed by
     * the default hop table.
     */
    decide: decideFor,

    /**
     * Brings the cached model up to date from committed data. Callers that decide inside
     * their own transaction (the PLC adapter, once per REQ_) call it before opening it:
     * a model built inside a transaction is used once and not kept, as it might hold
     * that transaction's uncommitted changes.
     */
    prepare(): void {
      if (!work.active) models.current();
    },

    /** How often the routing model has been built since start (diagnostics and tests). */
    modelBuilds: () => models.builds(),

    /**
     * The diagnostic lookup behind `GET /v1/api/routes/decision`: as `decide`, but an
     * unknown location (404 `loc.notFoundByName`) or transport unit (404
     * `tu.notFoundByBK`) is refused. With `assumeEnabled` (a route's key; an unknown one
     * is refused as `GET /v1/api/routes/{key}` refuses it), the decision as if that route
     * were enabled: the dry run before enabling a route. It builds a model of its own
     * (one rebuild's work) and changes nothing.
     */
    lookup(transportUnitBK: string | undefined, locationId: string, assumeEnabled?: string): RoutingDecision {
      const location = common.locations.resolve(locationId);
      if (transportUnitBK !== undefined) common.transportUnits.byBarcode(transportUnitBK);
      if (assumeEnabled === undefined) return decideFor(transportUnitBK, location.locationId);
      stored(assumeEnabled);
      return decideFor(transportUnitBK, location.locationId, models.withEnabled(assumeEnabled));
    },

    /** Replaces the order lookup (a routing service built without one: tests). */
    connectOrders(lookup: OrderLookup): void {
      orderLookup = lookup;
    },
  };
}

export type RoutingService = ReturnType<typeof createRoutingService>;
