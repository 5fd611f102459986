import { EntityCache } from '../../../core/cache.ts';
import type { Statement } from 'better-sqlite3';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import type { ReadPool } from '../../../core/read-pool.ts';
import type { Db } from '../../../core/db.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';
import type { Coordinate } from '../../../core/coordinate.ts';
import { chooseDriver, INDEXED_DRIVERS, probeSql, scanListing, searchSql, type Driver, type SearchParams } from './search.ts';

export interface Location extends Versioned, Coordinate {
  locationId: string;
  accountId: string;
  groupPk: string;
  groupName: string;
  type: string | null;
  plcCode: string | null;
  erpCode: string | null;
  description: string | null;
  sortOrder: number | null;
  stockZone: string | null;
  incomingActive: boolean;
  outgoingActive: boolean;
  plcState: number;
  lastMovement: string | null;
}

export interface LocationFields extends Coordinate {
  locationId: string;
  accountPk: string;
  groupPk: string;
  typePk: string | null;
  plcCode: string | null;
  erpCode: string | null;
  description: string | null;
  sortOrder: number | null;
  stockZone: string | null;
}

interface Row extends VersionedRow, Coordinate {
  location_id: string;
  account_id: string;
  location_group_pk: string;
  group_name: string;
  type_name: string | null;
  plc_code: string | null;
  erp_code: string | null;
  description: string | null;
  sort_order: number | null;
  stock_zone: string | null;
  incoming_active: number;
  outgoing_active: number;
  plc_state: number;
  last_movement: string | null;
}

/** The statement's head; `hint` an `INDEXED BY` for the locations (the wildcard search). */
const selectWith = (hint: string) => `
  SELECT l.pk, l.location_id, l.area, l.aisle, l.x, l.y, l.z, a.identifier AS account_id, l.location_group_pk,
         g.name AS group_name, t.type AS type_name, l.plc_code, l.erp_code, l.description, l.sort_order,
         l.stock_zone, l.incoming_active, l.outgoing_active, l.plc_state, l.last_movement,
         l.ol, l.create_dt, l.last_modified_dt
  FROM locations l ${hint}
  JOIN accounts a ON a.pk = l.account_pk
  JOIN location_groups g ON g.pk = l.location_group_pk
  LEFT JOIN location_types t ON t.pk = l.location_type_pk`;
const SELECT = selectWith('');

const toLocation = (row: Row): Location => ({
  ...versionedFrom(row),
  locationId: row.location_id,
  area: row.area,
  aisle: row.aisle,
  x: row.x,
  y: row.y,
  z: row.z,
  accountId: row.account_id,
  groupPk: row.location_group_pk,
  groupName: row.group_name,
  type: row.type_name,
  plcCode: row.plc_code,
  erpCode: row.erp_code,
  description: row.description,
  sortOrder: row.sort_order,
  stockZone: row.stock_zone,
  incomingActive: row.incoming_active === 1,
  outgoingActive: row.outgoing_active === 1,
  plcState: row.plc_state,
  lastMovement: row.last_movement,
});

interface LocationFlags {
  incomingActive?: boolean | undefined;
  outgoingActive?: boolean | undefined;
  plcState?: number | undefined;
}

// Lists of locations, in coordinate order, a page or a chunk at a time (core/listing.ts).
// They grow with the site: without `limit` they stream from a snapshot.
const inCoordinateOrder = (sql: string) => new KeysetList<Row>({ sql, keyOf: (row) => [row.location_id], first: [''] });
const PAGE = 'l.location_id > @k0 ORDER BY l.location_id LIMIT @limit';
const EVERY_LOCATION = inCoordinateOrder(`${SELECT} WHERE ${PAGE}`);
/** Through the index (location_group_pk, location_id): the rows of the group only, in order. */
const IN_GROUP = inCoordinateOrder(`${SELECT} WHERE l.location_group_pk = (SELECT pk FROM location_groups WHERE name = @name) AND ${PAGE}`);
/** The same for several groups, merged by a sort of their rows after the key. */
const IN_GROUPS = inCoordinateOrder(
  `${SELECT} WHERE l.location_group_pk IN (SELECT pk FROM location_groups WHERE name IN (SELECT value FROM json_each(@names))) AND ${PAGE}`,
);
const IN_GROUPS_GLOB = inCoordinateOrder(`${SELECT} WHERE l.location_group_pk IN (SELECT pk FROM location_groups WHERE name GLOB @pattern) AND ${PAGE}`);
/** The wildcard search, one statement per driving index (search.ts). */
const SEARCH = new Map(INDEXED_DRIVERS.map((driver) => [driver, inCoordinateOrder(searchSql(driver, selectWith))]));

export function createLocationStore(db: Db, reads?: ReadPool) {
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE l.pk = +?`),
    byLocationId: db.prepare<[string], Row>(`${SELECT} WHERE l.location_id = +?`),
    byPlcCode: db.prepare<[string], Row>(`${SELECT} WHERE l.plc_code = +?`),
    byErpCode: db.prepare<[string], Row>(`${SELECT} WHERE l.erp_code = +?`),
    inGroupPks: db.prepare<[string], Row>(`${SELECT} WHERE l.location_group_pk IN (SELECT value FROM json_each(?)) ORDER BY l.location_id`),
    transportUnitCount: db.prepare<[string], number>('SELECT count(*) FROM transport_units WHERE ? IN (actual_location_pk, target_location_pk)').pluck(),
    insert: db.prepare(
      `INSERT INTO locations (pk, location_id, area, aisle, x, y, z, account_pk, location_group_pk, location_type_pk,
         plc_code, erp_code, description, sort_order, stock_zone, ol, create_dt, last_modified_dt)
       VALUES (@pk, @locationId, @area, @aisle, @x, @y, @z, @accountPk, @groupPk, @typePk,
         @plcCode, @erpCode, @description, @sortOrder, @stockZone, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE locations SET location_id = @locationId, area = @area, aisle = @aisle, x = @x, y = @y, z = @z,
         account_pk = @accountPk, location_group_pk = @groupPk, location_type_pk = @typePk, plc_code = @plcCode,
         erp_code = @erpCode, description = @description, sort_order = @sortOrder, stock_zone = @stockZone,
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    setFlags: db.prepare(
      `UPDATE locations SET incoming_active = coalesce(@incomingActive, incoming_active),
         outgoing_active = coalesce(@outgoingActive, outgoing_active), plc_state = coalesce(@plcState, plc_state),
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    touch: db.prepare('UPDATE locations SET last_movement = ? WHERE pk = ?'),
    delete: db.prepare('DELETE FROM locations WHERE pk = ?'),
  };
  // Single-location lookups are the hot path (HMI, PLC telegrams, routing); they are
  // served from a cache the writes below keep exact. Cached objects are shared: callers
  // never change them.
  const cache = new EntityCache<Location>(db, 'locations', {
    locationId: (l) => l.locationId,
    plcCode: (l) => l.plcCode,
    erpCode: (l) => l.erpCode,
  });
  const one = (row: Row | undefined) => cache.remember(row ? toLocation(row) : undefined);
  const bit = (flag: boolean | undefined) => (flag === undefined ? null : flag ? 1 : 0);
  const listed = (list: KeysetList<Row>, params: Record<string, unknown>): Listing<Location> => list.listing(db, params, (rows) => rows.map(toLocation), reads);
  const probes = new Map<Driver, Statement>();
  const probe = (driver: Driver, params: SearchParams): number => {
    if (driver === 'scan') return Number.MAX_SAFE_INTEGER;
    let statement = probes.get(driver);
    if (!statement) probes.set(driver, (statement = db.prepare(probeSql(driver)).pluck()));
    return statement.get(params) as number;
  };
  return {
    /** Every location, in pages or streamed from a snapshot on a read connection. */
    list: () => listed(EVERY_LOCATION, {}),
    byPk: (pk: string) => cache.get(pk) ?? one(s.byPk.get(pk)),
    byLocationId: (locationId: string) => cache.getBy('locationId', locationId) ?? one(s.byLocationId.get(locationId)),
    byPlcCode: (plcCode: string) => cache.getBy('plcCode', plcCode) ?? one(s.byPlcCode.get(plcCode)),
    byErpCode: (erpCode: string) => cache.getBy('erpCode', erpCode) ?? one(s.byErpCode.get(erpCode)),
    /** Each part a GLOB pattern; driven by the index that reads the fewest rows (search.ts). */
    search(globs: Coordinate): Listing<Location> {
      const { driver, params } = chooseDriver(globs, probe);
      if (driver === 'scan') return scanListing<Row, Location>({ db, reads, params, select: selectWith, map: (rows) => rows.map(toLocation) });
      return listed(SEARCH.get(driver)!, { ...params } as Record<string, unknown>);
    },
    inGroups: (names: readonly string[]) => (names.length === 1 ? listed(IN_GROUP, { name: names[0] }) : listed(IN_GROUPS, { names: JSON.stringify(names) })),
    inGroupsGlob: (pattern: string) => listed(IN_GROUPS_GLOB, { pattern }),
    inGroupPks: (pks: readonly string[]) => s.inGroupPks.all(JSON.stringify(pks)).map(toLocation),
    transportUnitCount: (pk: string) => s.transportUnitCount.get(pk)!,
    insert(fields: LocationFields, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...fields, pk, now });
      return pk;
    },
    update(pk: string, fields: LocationFields, now: string) {
      cache.forget(pk);
      s.update.run({ ...fields, pk, now });
    },
    setFlags(pk: string, flags: LocationFlags, now: string) {
      cache.forget(pk);
      s.setFlags.run({
        pk,
        now,
        incomingActive: bit(flags.incomingActive),
        outgoingActive: bit(flags.outgoingActive),
        plcState: flags.plcState ?? null,
      });
    },
    /** Records that a transport unit arrived at or left the location. */
    touch(pk: string, now: string) {
      s.touch.run(now, pk);
      // The one field it writes: the cached location stays (every PLC arrival touches two).
      cache.revise(pk, { lastMovement: now });
    },
    delete(pk: string) {
      cache.forget(pk);
      s.delete.run(pk);
    },
    /** After a change to what locations show of their group, type or account. */
    forgetAll: () => cache.clear(),
  };
}

export type LocationStore = ReturnType<typeof createLocationStore>;
