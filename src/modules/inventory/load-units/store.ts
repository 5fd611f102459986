import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import type { ReadPool } from '../../../core/read-pool.ts';
import { bool } from '../../../core/db.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';

// All SQL of load units (table `load_units`).

export interface LoadUnitRecord extends Versioned {
  transportUnitPk: string;
  physicalPosition: string;
  label: string | null;
  type: string;
  locked: boolean;
  /** The product the load unit is reserved for. */
  productPk: string | null;
  productSku: string | null;
  length: number | null;
  width: number | null;
  height: number | null;
}

interface NewLoadUnit {
  transportUnitPk: string;
  physicalPosition: string;
  label: string | null;
  type: string;
  length: number | null;
  width: number | null;
  height: number | null;
}

interface Row extends VersionedRow {
  transport_unit_pk: string;
  physical_position: string;
  label: string | null;
  type: string;
  locked: number;
  product_pk: string | null;
  product_sku: string | null;
  length: number | null;
  width: number | null;
  height: number | null;
}

const COLUMNS = `
  SELECT lu.pk, lu.transport_unit_pk, lu.physical_position, lu.label, lu.type, lu.locked, lu.product_pk, p.sku AS product_sku,
         lu.length, lu.width, lu.height, lu.ol, lu.create_dt, lu.last_modified_dt`;
const FROM = `
  FROM load_units lu
  LEFT JOIN products p ON p.pk = lu.product_pk`;
const SELECT = `${COLUMNS} ${FROM}`;

// Positions "1" … "n" sort as numbers, other names after them by text.
const POSITION_ORDER = 'lu.transport_unit_pk, CAST(lu.physical_position AS INTEGER) = 0, CAST(lu.physical_position AS INTEGER), lu.physical_position';
const ORDER = `ORDER BY ${POSITION_ORDER}`;

/**
 * Lists of load units by transport unit and position, a page or a chunk at a time
 * (core/listing.ts), through the index of that order (migration 0150). Load units grow
 * with the site: the whole list streams from a snapshot; those of one transport unit
 * are few and read at once.
 */
const byPosition = (where: string) =>
  new KeysetList<Row & { named: number; number: number }>({
    sql: `${COLUMNS}, CAST(lu.physical_position AS INTEGER) = 0 AS named, CAST(lu.physical_position AS INTEGER) AS number ${FROM}
          WHERE ${where}(${POSITION_ORDER}) > (@k0, @k1, @k2, @k3) ${ORDER} LIMIT @limit`,
    keyOf: (row) => [row.transport_unit_pk, row.named, row.number, row.physical_position],
    first: ['', 0, 0, ''],
  });
const EVERY_LOAD_UNIT = byPosition('');
const ON_TRANSPORT_UNIT = byPosition('lu.transport_unit_pk = @tu AND ');

const toLoadUnit = (row: Row): LoadUnitRecord => ({
  ...versionedFrom(row),
  transportUnitPk: row.transport_unit_pk,
  physicalPosition: row.physical_position,
  label: row.label,
  type: row.type,
  locked: bool(row.locked),
  productPk: row.product_pk,
  productSku: row.product_sku,
  length: row.length,
  width: row.width,
  height: row.height,
});

export function createLoadUnitStore(db: Db, reads?: ReadPool) {
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE lu.pk = +?`),
    onTransportUnit: db.prepare<[string], Row>(`${SELECT} WHERE lu.transport_unit_pk = +? ${ORDER}`),
    atPosition: db.prepare<[string, string], Row>(`${SELECT} WHERE lu.transport_unit_pk = +? AND lu.physical_position = +?`),
    countOn: db.prepare<[string], number>('SELECT count(*) FROM load_units WHERE transport_unit_pk = ?').pluck(),
    /** SKUs of the products in the load unit's packaging units. */
    carried: db
      .prepare<[string], string>(
        `SELECT DISTINCT p.sku FROM packaging_units pu JOIN products p ON p.pk = pu.product_pk
         WHERE pu.load_unit_pk = +? ORDER BY p.sku`,
      )
      .pluck(),
    insert: db.prepare(
      `INSERT INTO load_units (pk, transport_unit_pk, physical_position, label, type, length, width, height, ol, create_dt, last_modified_dt)
       VALUES (@pk, @transportUnitPk, @physicalPosition, @label, @type, @length, @width, @height, 0, @now, @now)`,
    ),
    reserve: db.prepare('UPDATE load_units SET product_pk = ?, ol = ol + 1, last_modified_dt = ? WHERE pk = ?'),
  };
  const one = (row: Row | undefined) => row && toLoadUnit(row);
  const many = (rows: Row[]) => rows.map(toLoadUnit);
  return {
    /** Every load unit by transport unit and position: pages, or the whole list streamed. */
    list: (): Listing<LoadUnitRecord> => EVERY_LOAD_UNIT.listing(db, {}, many, reads),
    /** The load units of a transport unit by position: pages, or the whole list (read at once). */
    listOnTransportUnit: (transportUnitPk: string): Listing<LoadUnitRecord> => ON_TRANSPORT_UNIT.listing(db, { tu: transportUnitPk }, many),
    byPk: (pk: string) => one(s.byPk.get(pk)),
    onTransportUnit: (transportUnitPk: string) => s.onTransportUnit.all(transportUnitPk).map(toLoadUnit),
    atPosition: (transportUnitPk: string, position: string) => one(s.atPosition.get(transportUnitPk, position)),
    countOn: (transportUnitPk: string): number => s.countOn.get(transportUnitPk)!,
    carriedSkus: (pk: string): string[] => s.carried.all(pk),
    insert(fields: NewLoadUnit, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...fields, pk, now });
      return pk;
    },
    reserve: (pk: string, productPk: string, now: string) => s.reserve.run(productPk, now, pk),
  };
}

export type LoadUnitStore = ReturnType<typeof createLoadUnitStore>;
