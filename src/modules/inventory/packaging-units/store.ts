import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import type { ReadPool } from '../../../core/read-pool.ts';
import { bit, bool } from '../../../core/db.ts';
import { newPKey } from '../../../core/ids.ts';
import { quantityFromColumns, type Dimension, type Quantity } from '../../../core/quantity.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';
import { dimensionFrom, dimensionParams, quantityOrNull, quantityParams, type DimensionColumns } from '../columns.ts';

// All SQL of packaging units (table `packaging_units`).

/** What a create writes. */
interface PackagingUnitFields {
  loadUnitPk: string;
  productPk: string;
  quantity: Quantity;
  dimension: Dimension | null;
  weight: Quantity | null;
  message: string | null;
  serialNumber: string | null;
  expiresAt: string | null;
  labels: string[];
  piecesPerLoadUnitLayer: number | null;
  numberOfLoadUnitLayers: number | null;
}

export interface PackagingUnitRecord extends Versioned, PackagingUnitFields {
  transportUnitPk: string;
  physicalPosition: string;
  productSku: string;
  allocated: boolean;
}

interface Row extends VersionedRow, DimensionColumns {
  /** The tie-breaker of units created in the same millisecond. */
  row_id: number;
  load_unit_pk: string;
  transport_unit_pk: string;
  physical_position: string;
  product_pk: string;
  product_sku: string;
  quantity_family: string;
  quantity_unit: string;
  quantity_base: number;
  weight_family: string | null;
  weight_unit: string | null;
  weight_base: number | null;
  message: string | null;
  serial_number: string | null;
  expires_at: string | null;
  labels: string;
  pieces_per_lu_layer: number | null;
  number_of_lu_layers: number | null;
  allocated: number;
}

const SELECT = `
  SELECT pu.pk, pu.rowid AS row_id, pu.load_unit_pk, lu.transport_unit_pk, lu.physical_position, pu.product_pk, p.sku AS product_sku,
         pu.quantity_family, pu.quantity_unit, pu.quantity_base, pu.dim_length, pu.dim_width, pu.dim_height, pu.dim_uom,
         pu.weight_family, pu.weight_unit, pu.weight_base, pu.message, pu.serial_number, pu.expires_at, pu.labels,
         pu.pieces_per_lu_layer, pu.number_of_lu_layers, pu.allocated, pu.ol, pu.create_dt, pu.last_modified_dt
  FROM packaging_units pu
  JOIN load_units lu ON lu.pk = pu.load_unit_pk
  JOIN products p ON p.pk = pu.product_pk`;

/** Oldest first: the order stock is taken in (first in, first out). */
const FIFO = 'ORDER BY pu.create_dt, pu.rowid';

// Lists of packaging units, a page or a chunk at a time (core/listing.ts). Stock grows
// with the site: without `limit` they stream from a snapshot, but for those of one
// transport unit, which carries few, read at once.
const oldestFirst = (where: string) =>
  new KeysetList<Row>({
    sql: `${SELECT} WHERE ${where}(pu.create_dt, pu.rowid) > (@k0, @k1) ${FIFO} LIMIT @limit`,
    keyOf: (row) => [row.create_dt, row.row_id],
    first: ['', 0],
  });
/** Through the index (create_dt) (migration 0150). */
const EVERY_UNIT = oldestFirst('');
const ON_TRANSPORT_UNIT = oldestFirst('lu.transport_unit_pk = @tu AND ');
/** Through the index (product_pk, allocated, create_dt) (migration 0150). */
const OF_PRODUCT = oldestFirst('pu.product_pk = @product AND ');
/** Not allocated, on the transport unit `@tu` when it is given. */
const FREE = 'pu.product_pk = @product AND pu.allocated = 0 AND (@tu IS NULL OR lu.transport_unit_pk = @tu)';
const FREE_OF_PRODUCT = oldestFirst(`${FREE} AND `);
/** By quantity, smallest first; oldest first among equals. */
const FREE_BY_QUANTITY = new KeysetList<Row>({
  sql: `${SELECT} WHERE ${FREE} AND (pu.quantity_base, pu.create_dt, pu.rowid) > (@k0, @k1, @k2)
        ORDER BY pu.quantity_base, pu.create_dt, pu.rowid LIMIT @limit`,
  keyOf: (row) => [row.quantity_base, row.create_dt, row.row_id],
  first: [-1, '', 0],
});
/** By quantity, largest first; oldest first among equals. */
const FREE_BY_QUANTITY_DESC = new KeysetList<Row>({
  sql: `${SELECT} WHERE ${FREE}
          AND (pu.quantity_base < @k0 OR (pu.quantity_base = @k0 AND (pu.create_dt, pu.rowid) > (@k1, @k2)))
        ORDER BY pu.quantity_base DESC, pu.create_dt, pu.rowid LIMIT @limit`,
  keyOf: (row) => [row.quantity_base, row.create_dt, row.row_id],
  first: [Number.MAX_SAFE_INTEGER, '', 0],
});
const FREE_LISTS = { FIFO: FREE_OF_PRODUCT, ASC: FREE_BY_QUANTITY, DESC: FREE_BY_QUANTITY_DESC };

const toPackagingUnit = (row: Row): PackagingUnitRecord => ({
  ...versionedFrom(row),
  loadUnitPk: row.load_unit_pk,
  transportUnitPk: row.transport_unit_pk,
  physicalPosition: row.physical_position,
  productPk: row.product_pk,
  productSku: row.product_sku,
  quantity: quantityFromColumns(row.quantity_family, row.quantity_unit, row.quantity_base),
  dimension: dimensionFrom(row),
  weight: quantityOrNull(row.weight_family, row.weight_unit, row.weight_base),
  message: row.message,
  serialNumber: row.serial_number,
  expiresAt: row.expires_at,
  labels: JSON.parse(row.labels) as string[],
  piecesPerLoadUnitLayer: row.pieces_per_lu_layer,
  numberOfLoadUnitLayers: row.number_of_lu_layers,
  allocated: bool(row.allocated),
});

export function createPackagingUnitStore(db: Db, reads?: ReadPool) {
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE pu.pk = +?`),
    onTransportUnit: db.prepare<[string], Row>(`${SELECT} WHERE lu.transport_unit_pk = +? ${FIFO}`),
    inLoadUnit: db.prepare<[string], Row>(`${SELECT} WHERE pu.load_unit_pk = +? ${FIFO}`),
    inLoadUnits: db.prepare<[string], Row>(`${SELECT} WHERE pu.load_unit_pk IN (SELECT value FROM json_each(?)) ${FIFO}`),
    freeOfProductOn: db.prepare<[string, string], Row>(
      `${SELECT} WHERE pu.product_pk = +? AND pu.allocated = 0
         AND lu.transport_unit_pk IN (SELECT value FROM json_each(?)) ${FIFO}`,
    ),
    insert: db.prepare(
      `INSERT INTO packaging_units (pk, load_unit_pk, product_pk, quantity_family, quantity_unit, quantity_base,
         dim_length, dim_width, dim_height, dim_uom, weight_family, weight_unit, weight_base, message, serial_number,
         expires_at, labels, pieces_per_lu_layer, number_of_lu_layers, allocated, ol, create_dt, last_modified_dt)
       VALUES (@pk, @loadUnitPk, @productPk, @quantityFamily, @quantityUnit, @quantityBase,
         @dimLength, @dimWidth, @dimHeight, @dimUom, @weightFamily, @weightUnit, @weightBase, @message, @serialNumber,
         @expiresAt, @labels, @piecesPerLoadUnitLayer, @numberOfLoadUnitLayers, 0, 0, @now, @now)`,
    ),
    setQuantity: db.prepare(
      `UPDATE packaging_units SET quantity_unit = @quantityUnit, quantity_base = @quantityBase, ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    setAllocated: db.prepare('UPDATE packaging_units SET allocated = ?, ol = ol + 1, last_modified_dt = ? WHERE pk = ?'),
    delete: db.prepare('DELETE FROM packaging_units WHERE pk = ?'),
  };
  const many = (rows: Row[]) => rows.map(toPackagingUnit);
  return {
    /** Every packaging unit, oldest first: pages, or the whole list streamed. */
    list: (): Listing<PackagingUnitRecord> => EVERY_UNIT.listing(db, {}, many, reads),
    /** The units on a transport unit, oldest first: pages, or the whole list (read at once). */
    listOnTransportUnit: (transportUnitPk: string): Listing<PackagingUnitRecord> => ON_TRANSPORT_UNIT.listing(db, { tu: transportUnitPk }, many),
    /** The units of a product, oldest first: pages, or the whole list streamed. */
    listOfProduct: (productPk: string): Listing<PackagingUnitRecord> => OF_PRODUCT.listing(db, { product: productPk }, many, reads),
    /** The units of a product not allocated (on one transport unit when given), oldest first or by quantity. */
    listFreeOfProduct: (productPk: string, order: keyof typeof FREE_LISTS, transportUnitPk?: string): Listing<PackagingUnitRecord> =>
      FREE_LISTS[order].listing(db, { product: productPk, tu: transportUnitPk ?? null }, many, reads),
    byPk: (pk: string) => {
      const row = s.byPk.get(pk);
      return row && toPackagingUnit(row);
    },
    onTransportUnit: (transportUnitPk: string) => many(s.onTransportUnit.all(transportUnitPk)),
    inLoadUnit: (loadUnitPk: string) => many(s.inLoadUnit.all(loadUnitPk)),
    /** The units of several load units at once, oldest first. */
    inLoadUnits: (loadUnitPks: readonly string[]) => many(s.inLoadUnits.all(JSON.stringify(loadUnitPks))),
    /** Not allocated, on one of the transport units, oldest first. */
    freeOfProductOn: (productPk: string, transportUnitPks: readonly string[]) => many(s.freeOfProductOn.all(productPk, JSON.stringify(transportUnitPks))),
    insert(f: PackagingUnitFields, now: string): string {
      const pk = newPKey();
      s.insert.run({
        pk,
        now,
        loadUnitPk: f.loadUnitPk,
        productPk: f.productPk,
        ...quantityParams('quantity', f.quantity),
        ...dimensionParams(f.dimension),
        ...quantityParams('weight', f.weight),
        message: f.message,
        serialNumber: f.serialNumber,
        expiresAt: f.expiresAt,
        labels: JSON.stringify(f.labels),
        piecesPerLoadUnitLayer: f.piecesPerLoadUnitLayer,
        numberOfLoadUnitLayers: f.numberOfLoadUnitLayers,
      });
      return pk;
    },
    setQuantity: (pk: string, q: Quantity, now: string) => s.setQuantity.run({ pk, now, quantityUnit: q.unit, quantityBase: q.base }),
    setAllocated: (pk: string, allocated: boolean, now: string) => s.setAllocated.run(bit(allocated), now, pk),
    delete: (pk: string) => s.delete.run(pk),
  };
}

export type PackagingUnitStore = ReturnType<typeof createPackagingUnitStore>;
