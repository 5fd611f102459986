import { EntityCache } from '../../../core/cache.ts';
import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import type { ReadPool } from '../../../core/read-pool.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';

export type TransportUnitState = 'AVAILABLE' | 'BLOCKED' | 'QUALITY_CHECK';
export const TRANSPORT_UNIT_STATES = ['AVAILABLE', 'BLOCKED', 'QUALITY_CHECK'] as const;

export interface TransportUnit extends Versioned {
  barcode: string;
  transportUnitType: string;
  actualLocationPk: string;
  actualLocation: string;
  actualLocationDate: string;
  targetLocationPk: string | null;
  targetLocation: string | null;
  state: TransportUnitState;
  weight: number | null;
}

interface TransportUnitFields {
  barcode: string;
  typePk: string;
  actualLocationPk: string;
  actualLocationDate: string;
  targetLocationPk: string | null;
  state: TransportUnitState;
  weight: number | null;
}

interface Row extends VersionedRow {
  barcode: string;
  type_name: string;
  actual_location_pk: string;
  actual_location: string;
  actual_location_date: string;
  target_location_pk: string | null;
  target_location: string | null;
  state: TransportUnitState;
  weight: number | null;
}

const SELECT = `
  SELECT tu.pk, tu.barcode, tut.type AS type_name, tu.actual_location_pk, al.location_id AS actual_location,
         tu.actual_location_date, tu.target_location_pk, tl.location_id AS target_location, tu.state, tu.weight,
         tu.ol, tu.create_dt, tu.last_modified_dt
  FROM transport_units tu
  JOIN transport_unit_types tut ON tut.pk = tu.transport_unit_type_pk
  JOIN locations al ON al.pk = tu.actual_location_pk
  LEFT JOIN locations tl ON tl.pk = tu.target_location_pk`;

const toUnit = (row: Row): TransportUnit => ({
  ...versionedFrom(row),
  barcode: row.barcode,
  transportUnitType: row.type_name,
  actualLocationPk: row.actual_location_pk,
  actualLocation: row.actual_location,
  actualLocationDate: row.actual_location_date,
  targetLocationPk: row.target_location_pk,
  targetLocation: row.target_location,
  state: row.state,
  weight: row.weight,
});

// Lists of transport units by barcode, a page or a chunk at a time (core/listing.ts).
// Units grow with the site: without `limit` the lists stream from a snapshot, but for the
// units a request names by barcode, as many as it names, read at once.
const byBarcode = (where: string) =>
  new KeysetList<Row>({ sql: `${SELECT} WHERE ${where}tu.barcode > @k0 ORDER BY tu.barcode LIMIT @limit`, keyOf: (row) => [row.barcode], first: [''] });
const EVERY_UNIT = byBarcode('');
const NAMED_UNITS = byBarcode('tu.barcode IN (SELECT value FROM json_each(@barcodes)) AND ');
/** Through the index (actual_location_pk, barcode) (migration 0150). */
const UNITS_ON = byBarcode('tu.actual_location_pk = @location AND ');

export function createTransportUnitStore(db: Db, reads?: ReadPool) {
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE tu.pk = +?`),
    byBarcode: db.prepare<[string], Row>(`${SELECT} WHERE tu.barcode = +?`),
    onLocation: db.prepare<[string], Row>(`${SELECT} WHERE tu.actual_location_pk = +? ORDER BY tu.barcode`),
    insert: db.prepare(
      `INSERT INTO transport_units (pk, barcode, transport_unit_type_pk, actual_location_pk, actual_location_date,
         target_location_pk, state, weight, ol, create_dt, last_modified_dt)
       VALUES (@pk, @barcode, @typePk, @actualLocationPk, @actualLocationDate, @targetLocationPk, @state, @weight, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE transport_units SET barcode = @barcode, transport_unit_type_pk = @typePk,
         actual_location_pk = @actualLocationPk, actual_location_date = @actualLocationDate,
         target_location_pk = @targetLocationPk, state = @state, weight = @weight,
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    move: db.prepare(
      `UPDATE transport_units SET actual_location_pk = @locationPk, actual_location_date = @now,
         ol = ol + 1, last_modified_dt = @now WHERE pk = @pk`,
    ),
    setState: db.prepare('UPDATE transport_units SET state = ?, ol = ol + 1, last_modified_dt = ? WHERE pk = ?'),
    delete: db.prepare('DELETE FROM transport_units WHERE pk = ?'),
  };
  // Every PLC telegram looks its unit up by barcode and books it elsewhere: the unit is
  // served from a cache that the writes below keep exact, a booking by revising the
  // cached unit (core/cache.ts). A unit shows its locations' coordinates and its type's
  // name, so an edited location or type empties the cache. Cached objects are shared:
  // callers never change them.
  const cache = new EntityCache<TransportUnit>(db, 'transportUnits', { barcode: (unit) => unit.barcode });
  cache.shows('locations');
  cache.shows('transport_unit_types');
  const one = (row: Row | undefined) => cache.remember(row ? toUnit(row) : undefined);
  const units = (rows: Row[]) => rows.map(toUnit);
  return {
    /** Every unit: pages, or the whole list streamed. */
    list: (): Listing<TransportUnit> => EVERY_UNIT.listing(db, {}, units, reads),
    byPk: (pk: string) => cache.get(pk) ?? one(s.byPk.get(pk)),
    byBarcode: (barcode: string) => cache.getBy('barcode', barcode) ?? one(s.byBarcode.get(barcode)),
    byBarcodes: (barcodes: readonly string[]): Listing<TransportUnit> => NAMED_UNITS.listing(db, { barcodes: JSON.stringify(barcodes) }, units),
    onLocation: (locationPk: string) => s.onLocation.all(locationPk).map(toUnit),
    /** The units standing on a location: pages, or the whole list streamed. */
    listOnLocation: (locationPk: string): Listing<TransportUnit> => UNITS_ON.listing(db, { location: locationPk }, units, reads),
    insert(fields: TransportUnitFields, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...fields, pk, now });
      return pk;
    },
    update(pk: string, fields: TransportUnitFields, now: string) {
      cache.forget(pk);
      s.update.run({ ...fields, pk, now });
    },
    /** Books the unit onto `location`: the columns `move` writes, revised in the cached unit. */
    move(pk: string, location: { pk: string; locationId: string }, now: string) {
      s.move.run({ pk, locationPk: location.pk, now });
      cache.revise(pk, (unit) => ({
        actualLocationPk: location.pk,
        actualLocation: location.locationId,
        actualLocationDate: now,
        ol: unit.ol + 1,
        lastModifiedDt: now,
      }));
    },
    setState(pk: string, state: TransportUnitState, now: string) {
      s.setState.run(state, now, pk);
      cache.revise(pk, (unit) => ({ state, ol: unit.ol + 1, lastModifiedDt: now }));
    },
    delete(pk: string) {
      cache.forget(pk);
      s.delete.run(pk);
    },
  };
}

export type TransportUnitStore = ReturnType<typeof createTransportUnitStore>;
