import { type Listing } from '../../core/listing.ts';
import { mapListing } from '../../core/listing-ops.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { newPKey } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { checkVersion, type Versioned } from '../../core/versioned.ts';
import { alreadyExists, notFound, validationError } from '../../core/errors.ts';
import type { CommonServices } from '../common/service.ts';
import type { ModelCache } from './model-cache.ts';
import type { NewRouteInput, RouteUpdateInput } from './schema.ts';
import type { RouteEnds, RouteFields, RoutingStore, StoredRoute } from './store.ts';

// Editing the routes routing decides on (docs/routing.md), with the rules a route keeps:
// its ends, a unique name, at most one enabled route per source and target. Every change
// invalidates the cached model (model-cache.ts), so the next decision sees it. Their hops
// and the default hop table are edited in hop-editing.ts; the decision itself
// (service.ts, decision.ts) reads nothing of this file on its way.

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

interface RouteEditingDeps {
  work: UnitOfWork;
  store: RoutingStore;
  common: CommonServices;
  models: ModelCache;
}

export function createRouteEditing({ work, store, common, models }: RouteEditingDeps) {
  const { namer, view, invalidate } = models;

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

  const routeEvent = (r: RouteResource) => ({ key: r.key, name: r.name });

  return {
    /** The stored route of `key`, 404 when unknown (the decision's dry run asks too). */
    stored,

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
  };
}
