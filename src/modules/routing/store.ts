import type { Db } from '../../core/db.ts';
import { KeysetList, type Listing } from '../../core/listing.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../core/versioned.ts';

// All SQL of the routing module (tables `routes`, `route_hops`, `default_hops`,
// migration 0090). Locations and groups are kept as the pKeys of the common module;
// the service turns them into coordinates and names through that module's services.

/** Where a route starts and ends, as pKeys of the common module (null = not set). */
export interface RouteEnds {
  sourceLocationPk: string | null;
  sourceGroupPk: string | null;
  targetLocationPk: string | null;
  targetGroupPk: string | null;
}

export interface RouteFields extends RouteEnds {
  name: string;
  description: string | null;
  enabled: boolean;
}

/** A route row; its `pk` is the route's `key`. */
export interface StoredRoute extends Versioned, RouteFields {}

export interface StoredHop {
  sourcePk: string;
  nextPk: string;
}

export interface StoredDefaultHop {
  sourceLocationPk: string | null;
  sourceGroupPk: string | null;
  nextPk: string;
}

interface RouteRow extends VersionedRow {
  name: string;
  description: string | null;
  source_location_pk: string | null;
  source_group_pk: string | null;
  target_location_pk: string | null;
  target_group_pk: string | null;
  enabled: number;
}

interface HopRow {
  route_pk: string;
  source_location_pk: string;
  next_location_pk: string;
}

interface DefaultHopRow {
  source_location_pk: string | null;
  source_group_pk: string | null;
  next_location_pk: string;
}

const SELECT = `
  SELECT pk, name, description, source_location_pk, source_group_pk, target_location_pk, target_group_pk,
         enabled, ol, create_dt, last_modified_dt
  FROM routes`;

const toRoute = (row: RouteRow): StoredRoute => ({
  ...versionedFrom(row),
  name: row.name,
  description: row.description,
  sourceLocationPk: row.source_location_pk,
  sourceGroupPk: row.source_group_pk,
  targetLocationPk: row.target_location_pk,
  targetGroupPk: row.target_group_pk,
  enabled: row.enabled === 1,
});

type Params = RouteEnds & { pk: string; name: string; description: string | null; enabled: 0 | 1; now: string };

const params = (pk: string, f: RouteFields, now: string): Params => ({
  pk,
  now,
  name: f.name,
  description: f.description,
  sourceLocationPk: f.sourceLocationPk,
  sourceGroupPk: f.sourceGroupPk,
  targetLocationPk: f.targetLocationPk,
  targetGroupPk: f.targetGroupPk,
  enabled: f.enabled ? 1 : 0,
});

/**
 * Every route by name, a page or a chunk at a time (core/listing.ts). Routes grow with
 * the site (one per source and target pair): the whole list streams from a snapshot.
 */
const EVERY_ROUTE = new KeysetList<RouteRow>({
  sql: `${SELECT} WHERE name > @k0 ORDER BY name LIMIT @limit`,
  keyOf: (row) => [row.name],
  first: [''],
});

export function createRoutingStore(db: Db, reads?: ReadPool) {
  const s = {
    all: db.prepare<[], RouteRow>(`${SELECT} ORDER BY name`),
    byPk: db.prepare<[string], RouteRow>(`${SELECT} WHERE pk = ?`),
    byName: db.prepare<[string], RouteRow>(`${SELECT} WHERE name = ?`),
    // `IS` compares NULLs as equal: the same ends, set or not.
    enabledWithEnds: db.prepare<[RouteEnds], RouteRow>(
      `${SELECT} WHERE enabled = 1 AND source_location_pk IS @sourceLocationPk AND source_group_pk IS @sourceGroupPk
         AND target_location_pk IS @targetLocationPk AND target_group_pk IS @targetGroupPk`,
    ),
    insert: db.prepare<[Params]>(
      `INSERT INTO routes (pk, name, description, source_location_pk, source_group_pk, target_location_pk, target_group_pk,
         enabled, ol, create_dt, last_modified_dt)
       VALUES (@pk, @name, @description, @sourceLocationPk, @sourceGroupPk, @targetLocationPk, @targetGroupPk,
         @enabled, 0, @now, @now)`,
    ),
    update: db.prepare<[Params]>(
      `UPDATE routes SET name = @name, description = @description, source_location_pk = @sourceLocationPk,
         source_group_pk = @sourceGroupPk, target_location_pk = @targetLocationPk, target_group_pk = @targetGroupPk,
         enabled = @enabled, ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    touch: db.prepare<[string, string]>('UPDATE routes SET ol = ol + 1, last_modified_dt = ? WHERE pk = ?'),
    delete: db.prepare<[string]>('DELETE FROM routes WHERE pk = ?'),
    hopsOf: db.prepare<[string], HopRow>('SELECT route_pk, source_location_pk, next_location_pk FROM route_hops WHERE route_pk = ? ORDER BY pos'),
    allHops: db.prepare<[], HopRow>('SELECT route_pk, source_location_pk, next_location_pk FROM route_hops ORDER BY route_pk, pos'),
    deleteHops: db.prepare<[string]>('DELETE FROM route_hops WHERE route_pk = ?'),
    insertHop: db.prepare<[string, number, string, string]>('INSERT INTO route_hops (route_pk, pos, source_location_pk, next_location_pk) VALUES (?, ?, ?, ?)'),
    defaultHops: db.prepare<[], DefaultHopRow>('SELECT source_location_pk, source_group_pk, next_location_pk FROM default_hops ORDER BY pos'),
    deleteDefaultHops: db.prepare('DELETE FROM default_hops'),
    insertDefaultHop: db.prepare<[number, string | null, string | null, string]>(
      'INSERT INTO default_hops (pos, source_location_pk, source_group_pk, next_location_pk) VALUES (?, ?, ?, ?)',
    ),
  };

  const toHop = (row: HopRow): StoredHop => ({ sourcePk: row.source_location_pk, nextPk: row.next_location_pk });

  return {
    /** Every route, by name. */
    all: (): StoredRoute[] => s.all.all().map(toRoute),
    /** The same as a list: pages, or the whole list streamed. */
    list: (): Listing<StoredRoute> => EVERY_ROUTE.listing(db, {}, (rows) => rows.map(toRoute), reads),
    byPk: (pk: string): StoredRoute | undefined => {
      const row = s.byPk.get(pk);
      return row && toRoute(row);
    },
    byName: (name: string): StoredRoute | undefined => {
      const row = s.byName.get(name);
      return row && toRoute(row);
    },
    /** The enabled routes with exactly these ends (at most one, by the schema). */
    enabledWithEnds: (ends: RouteEnds): StoredRoute[] =>
      s.enabledWithEnds
        .all({
          sourceLocationPk: ends.sourceLocationPk,
          sourceGroupPk: ends.sourceGroupPk,
          targetLocationPk: ends.targetLocationPk,
          targetGroupPk: ends.targetGroupPk,
        })
        .map(toRoute),
    insert: (pk: string, fields: RouteFields, now: string): void => {
      s.insert.run(params(pk, fields, now));
    },
    /** Writes every field; raises `ol` by one. */
    update: (pk: string, fields: RouteFields, now: string): void => {
      s.update.run(params(pk, fields, now));
    },
    /** Raises `ol` (the hops of the route changed). */
    touch: (pk: string, now: string): void => {
      s.touch.run(now, pk);
    },
    /** Deletes the route and, by the cascade, its hops. */
    delete: (pk: string): void => {
      s.delete.run(pk);
    },
    hopsOf: (routePk: string): StoredHop[] => s.hopsOf.all(routePk).map(toHop),
    /** Every hop of every route, grouped by route pKey, each list in `pos` order. */
    allHops(): Map<string, StoredHop[]> {
      const byRoute = new Map<string, StoredHop[]>();
      for (const row of s.allHops.all()) {
        const list = byRoute.get(row.route_pk) ?? [];
        list.push(toHop(row));
        byRoute.set(row.route_pk, list);
      }
      return byRoute;
    },
    /** Replaces the hops of a route; `pos` is the index in the list. */
    replaceHops(routePk: string, hops: readonly StoredHop[]): void {
      s.deleteHops.run(routePk);
      hops.forEach((h, pos) => s.insertHop.run(routePk, pos, h.sourcePk, h.nextPk));
    },
    defaultHops: (): StoredDefaultHop[] =>
      s.defaultHops.all().map((row) => ({
        sourceLocationPk: row.source_location_pk,
        sourceGroupPk: row.source_group_pk,
        nextPk: row.next_location_pk,
      })),
    /** Replaces the whole default hop table; `pos` is the index in the list. */
    replaceDefaultHops(hops: readonly StoredDefaultHop[]): void {
      s.deleteDefaultHops.run();
      hops.forEach((h, pos) => s.insertDefaultHop.run(pos, h.sourceLocationPk, h.sourceGroupPk, h.nextPk));
    },
  };
}

export type RoutingStore = ReturnType<typeof createRoutingStore>;
