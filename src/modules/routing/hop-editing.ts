import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { nowIso } from '../../core/time.ts';
import type { CommonServices } from '../common/service.ts';
import { checkDefaultHops, checkHops } from './hop-rules.ts';
import type { ModelCache } from './model-cache.ts';
import type { DefaultHopInput, HopInput } from './schema.ts';
import type { RoutingStore, StoredDefaultHop, StoredHop, StoredRoute } from './store.ts';

// Editing the hops of a route and the default hop table (docs/routing.md): each list is
// replaced whole, after the rules of hop-rules.ts, with its coordinates and group names
// resolved to pKeys. Every change invalidates the cached model (model-cache.ts), so the
// next decision follows the new hops.

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

interface HopEditingDeps {
  work: UnitOfWork;
  store: RoutingStore;
  common: CommonServices;
  models: ModelCache;
  /** The stored route of a key, 404 when unknown (route-editing.ts). */
  stored: (key: string) => StoredRoute;
}

export function createHopEditing({ work, store, common, models, stored }: HopEditingDeps) {
  const { namer, invalidate } = models;

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
  };
}
