import type { EventRecord } from '../../core/event-catalogue.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import type { CommonServices } from '../common/service.ts';
import { buildModel, type GroupDef, type RoutingModel, type RoutingModelInput } from './decision.ts';
import type { RouteResource } from './route-editing.ts';
import type { RoutingStore, StoredHop, StoredRoute } from './store.ts';

// The routing model the decisions are made on (decision.ts), built from the stored
// routes, hops and default hops and the common module's group tree, and kept until a
// change makes it stale: a REQ_ must find it built. Also the names of the pKeys routing
// stores (locations by coordinate, groups by name), for the model and the replies.

/**
 * What an event makes stale: the routes, hops and default hops with their names (a
 * routing change; a renamed, moved or deleted location or group), the group tree with
 * its states, or nothing. Location flags are read live (the common module's location
 * cache is exact), so a LOCU storm rebuilds nothing; a group state change (SYSU) re-reads
 * only the groups. The thread that makes a routing change forgets the model at once
 * (`invalidate`); the HTTP thread, whose model serves the dry runs, by the event.
 */
function staleAfter(event: EventRecord, named: ReadonlySet<string> | undefined): { names: boolean; groups: boolean } {
  if (event.subject.kind === 'route' || event.type === 'routing.defaultHopsReplaced') return { names: true, groups: false };
  if (event.type.startsWith('locationGroup.')) {
    return { names: event.type !== 'locationGroup.stateChanged' && event.type !== 'locationGroup.created', groups: true };
  }
  // A location matters only when a route, hop or default hop names it: a new one never
  // is yet (it has a new pKey), and a change or deletion of one nobody names changes
  // nothing the model holds (an HMI creating locations must not make every REQ_ that
  // follows rebuild the model of a thousand routes).
  if (event.type === 'location.changed' || event.type === 'location.deleted') {
    return { names: named === undefined || named.has((event.data as { pKey: string }).pKey), groups: false };
  }
  return { names: false, groups: false };
}

interface ModelCacheDeps {
  work: UnitOfWork;
  store: RoutingStore;
  common: CommonServices;
}

export function createModelCache({ work, store, common }: ModelCacheDeps) {
  /** Coordinate / group name of a pKey, memoised for one reply. */
  function namer() {
    const groups = new Map<string, string>();
    return {
      location: (pk: string | null): string | null => (pk === null ? null : (common.locations.findByPk(pk)?.locationId ?? null)),
      group(pk: string | null): string | null {
        if (pk === null) return null;
        let name = groups.get(pk);
        if (name === undefined) {
          name = common.locationGroups.byPKey(pk).name;
          groups.set(pk, name);
        }
        return name;
      },
    };
  }

  function view(r: StoredRoute, names = namer()): RouteResource {
    return {
      pk: r.pk,
      ol: r.ol,
      createDt: r.createDt,
      lastModifiedDt: r.lastModifiedDt,
      key: r.pk,
      name: r.name,
      description: r.description,
      sourceLocationName: names.location(r.sourceLocationPk),
      sourceLocationGroupName: names.group(r.sourceGroupPk),
      targetLocationName: names.location(r.targetLocationPk),
      targetLocationGroupName: names.group(r.targetGroupPk),
      enabled: r.enabled,
    };
  }

  // ---- the routing model, cached ------------------------------------------------

  // Two parts, rebuilt separately: the routes, hops and default hops with their names
  // (read from the database; stale after routing changes and renames), and the group
  // tree with its states (stale after any group event). The model is indexed from both.
  type Definitions = Pick<RoutingModelInput, 'routes' | 'defaultHops'>;
  let definitions: Definitions | undefined;
  let groupDefs: GroupDef[] | undefined;
  let model: RoutingModel | undefined;
  /** How often the model was indexed (diagnostics; a REQ_ should not cause one). */
  let builds = 0;
  /** The locations (pKeys) the definitions name; undefined while they are not read. */
  let named: Set<string> | undefined;
  const invalidate = () => {
    definitions = undefined;
    named = undefined;
    model = undefined;
  };
  work.bus.onAny((event) => {
    const stale = staleAfter(event, definitions && named);
    if (stale.names) named = undefined;
    if (stale.names) definitions = undefined;
    if (stale.groups) groupDefs = undefined;
    if (stale.names || stale.groups) model = undefined;
  });

  function readDefinitions(): Definitions {
    const names = namer();
    const allHops = store.allHops();
    const pks = new Set<string>();
    const stored = store.all();
    for (const r of stored) for (const pk of [r.sourceLocationPk, r.targetLocationPk]) if (pk) pks.add(pk);
    for (const hops of allHops.values()) for (const h of hops) pks.add(h.sourcePk).add(h.nextPk);
    const defaults = store.defaultHops();
    for (const d of defaults) {
      if (d.sourceLocationPk) pks.add(d.sourceLocationPk);
      pks.add(d.nextPk);
    }
    named = pks;
    const coordinate = (pk: string) => common.locations.findByPk(pk)?.locationId;
    const hopsOf = (hops: readonly StoredHop[]) =>
      hops.flatMap((h) => {
        const source = coordinate(h.sourcePk);
        const next = coordinate(h.nextPk);
        return source && next ? [{ source, next }] : [];
      });
    return {
      routes: stored.map((r) => {
        const v = view(r, names);
        return {
          key: v.key,
          name: v.name,
          enabled: v.enabled,
          sourceLocation: v.sourceLocationName,
          sourceGroup: v.sourceLocationGroupName,
          targetLocation: v.targetLocationName,
          targetGroup: v.targetLocationGroupName,
          hops: hopsOf(allHops.get(r.pk) ?? []),
        };
      }),
      defaultHops: defaults.flatMap((d) => {
        const next = coordinate(d.nextPk);
        if (!next) return [];
        return [{ source: names.location(d.sourceLocationPk), sourceGroup: names.group(d.sourceGroupPk), next }];
      }),
    };
  }

  const readGroups = (): GroupDef[] => common.locationGroups.all().map((g) => ({ name: g.name, parentName: g.parentName, groupStateIn: g.groupStateIn }));

  /** The model for the current data; each part read at most once per change (nothing is cached inside a transaction). */
  function currentModel(): RoutingModel {
    if (model) return model;
    const keep = !work.active;
    const defs = definitions ?? readDefinitions();
    const groups = groupDefs ?? readGroups();
    builds++;
    const built = buildModel({
      ...defs,
      groups,
      // Live: the common module's location cache is exact, flags included.
      locations: (locationId) => common.locations.findByLocationId(locationId),
    });
    if (keep) {
      definitions = defs;
      groupDefs = groups;
      model = built;
    }
    return built;
  }

  /** A model as if the route `key` were enabled: built for one dry run, never kept. */
  function modelWithEnabled(key: string): RoutingModel {
    const defs = definitions ?? readDefinitions();
    return buildModel({
      ...defs,
      routes: defs.routes.map((r) => (r.key === key ? { ...r, enabled: true } : r)),
      groups: groupDefs ?? readGroups(),
      locations: (locationId) => common.locations.findByLocationId(locationId),
    });
  }

  return {
    namer,
    view,
    /** The model for the current data (built at most once per change). */
    current: currentModel,
    /** A model as if the route `key` were enabled (the dry run), never kept. */
    withEnabled: modelWithEnabled,
    /** Forgets the routes, hops and default hops read (a routing change in this unit of work). */
    invalidate,
    /** How often the model was indexed (diagnostics; a REQ_ should not cause one). */
    builds: () => builds,
  };
}

export type ModelCache = ReturnType<typeof createModelCache>;
