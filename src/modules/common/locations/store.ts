import { EntityCache } from '../../../core/cache.ts';
import { KeysetList, mapChunks } from '../../../core/listing.ts';
import type { ReadPool } from '../../../core/read-pool.ts';
import type { Db } from '../../../core/db.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';
import type { Coordinate } from './coordinate.ts';

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

const SELECT = `
  SELECT l.pk, l.location_id, l.area, l.aisle, l.x, l.y, l.z, a.identifier AS account_id, l.location_group_pk,
         g.name AS group_name, t.type AS type_name, l.plc_code, l.erp_code, l.description, l.sort_order,
         l.stock_zone, l.incoming_active, l.outgoing_active, l.plc_state, l.last_movement,
         l.ol, l.create_dt, l.last_modified_dt
  FROM locations l
  JOIN accounts a ON a.pk = l.account_pk
  JOIN location_groups g ON g.pk = l.location_group_pk
  LEFT JOIN location_types t ON t.pk = l.location_type_pk`;

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

export interface LocationFlags {
  incomingActive?: boolean | undefined;
  outgoingActive?: boolean | undefined;
  plcState?: number | undefined;
}

/** Every location in coordinate order, a page or a chunk at a time (core/listing.ts). */
const EVERY_LOCATION = new KeysetList<Row>({
  sql: `${SELECT} WHERE l.location_id > @k0 ORDER BY l.location_id LIMIT @limit`,
  keyOf: (row) => [row.location_id],
  first: [''],
});

export function createLocationStore(db: Db, reads?: ReadPool) {
  const s = {
    all: db.prepare<[], Row>(`${SELECT} ORDER BY l.location_id`),
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE l.pk = +?`),
    byLocationId: db.prepare<[string], Row>(`${SELECT} WHERE l.location_id = +?`),
    byPlcCode: db.prepare<[string], Row>(`${SELECT} WHERE l.plc_code = +?`),
    byErpCode: db.prepare<[string], Row>(`${SELECT} WHERE l.erp_code = +?`),
    search: db.prepare<[string, string, string, string, string], Row>(
      `${SELECT} WHERE l.area GLOB ? AND l.aisle GLOB ? AND l.x GLOB ? AND l.y GLOB ? AND l.z GLOB ? ORDER BY l.location_id`,
    ),
    inGroups: db.prepare<[string], Row>(
      `${SELECT} WHERE g.name IN (SELECT value FROM json_each(?)) ORDER BY l.location_id`,
    ),
    inGroupsGlob: db.prepare<[string], Row>(`${SELECT} WHERE g.name GLOB ? ORDER BY l.location_id`),
    inGroupPks: db.prepare<[string], Row>(
      `${SELECT} WHERE l.location_group_pk IN (SELECT value FROM json_each(?)) ORDER BY l.location_id`,
    ),
    transportUnitCount: db.prepare<[string], number>(
      'SELECT count(*) FROM transport_units WHERE ? IN (actual_location_pk, target_location_pk)',
    ).pluck(),
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
  const cache = new EntityCache<Location>(db, {
    locationId: (l) => l.locationId,
    plcCode: (l) => l.plcCode,
    erpCode: (l) => l.erpCode,
  });
  const one = (row: Row | undefined) => cache.remember(row ? toLocation(row) : undefined);
  const bit = (flag: boolean | undefined) => (flag === undefined ? null : flag ? 1 : 0);
  return {
    all: () => s.all.all().map(toLocation),
    /** `limit` locations after the coordinate `after`; `next` while more may exist. */
    page(after: string | undefined, limit: number): { items: Location[]; next: string | undefined } {
      const { rows, next } = EVERY_LOCATION.page(db, {}, after === undefined ? undefined : [after], limit);
      return { items: rows.map(toLocation), next: next?.[0] as string | undefined };
    },
    /** Every location, chunk by chunk, from a snapshot on a read connection. */
    chunks(): AsyncIterable<Location[]> {
      if (!reads) throw new Error('the location store has no read pool');
      return mapChunks(EVERY_LOCATION.chunks(reads, {}), toLocation);
    },
    byPk: (pk: string) => cache.get(pk) ?? one(s.byPk.get(pk)),
    byLocationId: (locationId: string) => cache.getBy('locationId', locationId) ?? one(s.byLocationId.get(locationId)),
    byPlcCode: (plcCode: string) => cache.getBy('plcCode', plcCode) ?? one(s.byPlcCode.get(plcCode)),
    byErpCode: (erpCode: string) => cache.getBy('erpCode', erpCode) ?? one(s.byErpCode.get(erpCode)),
    /** Each part a GLOB pattern. */
    search: (g: Coordinate) => s.search.all(g.area, g.aisle, g.x, g.y, g.z).map(toLocation),
    inGroups: (names: readonly string[]) => s.inGroups.all(JSON.stringify(names)).map(toLocation),
    inGroupsGlob: (pattern: string) => s.inGroupsGlob.all(pattern).map(toLocation),
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
      cache.forget(pk);
      s.touch.run(now, pk);
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
