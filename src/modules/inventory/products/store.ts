import type { Db } from '../../../core/db.ts';
import { KeysetList, prepared, type Listing } from '../../../core/listing.ts';
import type { ReadPool } from '../../../core/read-pool.ts';
import { bit, bool } from '../../../core/db.ts';
import { newPKey } from '../../../core/ids.ts';
import { quantityFromColumns, type Dimension, type Quantity } from '../../../core/quantity.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';
import { dimensionFrom, dimensionParams, quantityParams, type DimensionColumns } from '../columns.ts';
import type { AvailabilityState } from '../schema.ts';

// All SQL of products (tables `products`, `product_units`, `product_stacking_rules`).

export interface ProductUnit {
  pk: string;
  label: string | null;
  quantity: Quantity;
  dimension: Dimension | null;
  piecesPerLayer: string | null;
  numbersOfLayers: string | null;
  carrierType: string | null;
}

export interface StackingRule {
  noProducts: number;
  allowedSku: string;
}

/** What a create or update writes. */
export interface ProductFields {
  sku: string;
  label: string | null;
  accountPk: string;
  baseUnit: Quantity;
  overbookingAllowed: boolean;
  description: string | null;
  availabilityState: AvailabilityState;
  classification: string | null;
  group: string | null;
  stockZone: string | null;
  dimension: Dimension | null;
  details: Record<string, string>;
  units: ProductUnit[];
  stackingRules: StackingRule[];
}

export interface ProductRecord extends Versioned, ProductFields {}

interface Row extends VersionedRow, DimensionColumns {
  sku: string;
  label: string | null;
  account_pk: string;
  base_unit_family: string;
  base_unit_unit: string;
  base_unit_base: number;
  overbooking_allowed: number;
  description: string | null;
  availability_state: AvailabilityState;
  classification: string | null;
  product_group: string | null;
  stock_zone: string | null;
  details: string;
}

interface UnitRow extends DimensionColumns {
  pk: string;
  product_pk: string;
  label: string | null;
  quantity_family: string;
  quantity_unit: string;
  quantity_base: number;
  pieces_per_layer: string | null;
  numbers_of_layers: string | null;
  carrier_type: string | null;
}

interface RuleRow {
  product_pk: string;
  no_products: number;
  allowed_sku: string;
}

const SELECT = `
  SELECT pk, sku, label, account_pk, base_unit_family, base_unit_unit, base_unit_base, overbooking_allowed,
         description, availability_state, classification, product_group, stock_zone,
         dim_length, dim_width, dim_height, dim_uom, details, ol, create_dt, last_modified_dt
  FROM products`;

const UNITS = `
  SELECT pk, product_pk, label, quantity_family, quantity_unit, quantity_base, dim_length, dim_width, dim_height, dim_uom,
         pieces_per_layer, numbers_of_layers, carrier_type
  FROM product_units`;

const toUnit = (row: UnitRow): ProductUnit => ({
  pk: row.pk,
  label: row.label,
  quantity: quantityFromColumns(row.quantity_family, row.quantity_unit, row.quantity_base),
  dimension: dimensionFrom(row),
  piecesPerLayer: row.pieces_per_layer,
  numbersOfLayers: row.numbers_of_layers,
  carrierType: row.carrier_type,
});

const toRule = (row: RuleRow): StackingRule => ({ noProducts: row.no_products, allowedSku: row.allowed_sku });

const toProduct = (row: Row, units: ProductUnit[], rules: StackingRule[]): ProductRecord => ({
  ...versionedFrom(row),
  sku: row.sku,
  label: row.label,
  accountPk: row.account_pk,
  baseUnit: quantityFromColumns(row.base_unit_family, row.base_unit_unit, row.base_unit_base),
  overbookingAllowed: bool(row.overbooking_allowed),
  description: row.description,
  availabilityState: row.availability_state,
  classification: row.classification,
  group: row.product_group,
  stockZone: row.stock_zone,
  dimension: dimensionFrom(row),
  details: JSON.parse(row.details) as Record<string, string>,
  units,
  stackingRules: rules,
});

const fieldParams = (f: ProductFields) => ({
  sku: f.sku,
  label: f.label,
  accountPk: f.accountPk,
  ...quantityParams('baseUnit', f.baseUnit),
  overbookingAllowed: bit(f.overbookingAllowed),
  description: f.description,
  availabilityState: f.availabilityState,
  classification: f.classification,
  group: f.group,
  stockZone: f.stockZone,
  ...dimensionParams(f.dimension),
  details: JSON.stringify(f.details),
});

/**
 * Every product by SKU, a page or a chunk at a time (core/listing.ts). Products grow with
 * the site: the whole list streams from a snapshot.
 */
const EVERY_PRODUCT = new KeysetList<Row>({ sql: `${SELECT} WHERE sku > @k0 ORDER BY sku LIMIT @limit`, keyOf: (row) => [row.sku], first: [''] });
/** Units and stacking rules of the products of a page or chunk, read on its connection. */
const UNITS_OF = `${UNITS} WHERE product_pk IN (SELECT value FROM json_each(?)) ORDER BY product_pk, position`;
const RULES_OF =
  'SELECT product_pk, no_products, allowed_sku FROM product_stacking_rules WHERE product_pk IN (SELECT value FROM json_each(?)) ORDER BY product_pk, position';

/** Rows with their units and rules, as records. */
function withParts(rows: Row[], db: Db): ProductRecord[] {
  const pks = JSON.stringify(rows.map((row) => row.pk));
  const units = groupBy(prepared(db, UNITS_OF).all(pks) as UnitRow[], toUnit);
  const rules = groupBy(prepared(db, RULES_OF).all(pks) as RuleRow[], toRule);
  return rows.map((row) => toProduct(row, units.get(row.pk) ?? [], rules.get(row.pk) ?? []));
}

function groupBy<R extends { product_pk: string }, T>(rows: R[], map: (row: R) => T): Map<string, T[]> {
  const byProduct = new Map<string, T[]>();
  for (const row of rows) {
    const list = byProduct.get(row.product_pk) ?? [];
    list.push(map(row));
    byProduct.set(row.product_pk, list);
  }
  return byProduct;
}

export function createProductStore(db: Db, reads?: ReadPool) {
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE pk = ?`),
    bySku: db.prepare<[string], Row>(`${SELECT} WHERE sku = ?`),
    unitsOf: db.prepare<[string], UnitRow>(`${UNITS} WHERE product_pk = ? ORDER BY position`),
    rulesOf: db.prepare<[string], RuleRow>('SELECT product_pk, no_products, allowed_sku FROM product_stacking_rules WHERE product_pk = ? ORDER BY position'),
    insert: db.prepare(
      `INSERT INTO products (pk, sku, label, account_pk, base_unit_family, base_unit_unit, base_unit_base, overbooking_allowed,
         description, availability_state, classification, product_group, stock_zone, dim_length, dim_width, dim_height, dim_uom,
         details, ol, create_dt, last_modified_dt)
       VALUES (@pk, @sku, @label, @accountPk, @baseUnitFamily, @baseUnitUnit, @baseUnitBase, @overbookingAllowed,
         @description, @availabilityState, @classification, @group, @stockZone, @dimLength, @dimWidth, @dimHeight, @dimUom,
         @details, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE products SET sku = @sku, label = @label, account_pk = @accountPk, base_unit_family = @baseUnitFamily,
         base_unit_unit = @baseUnitUnit, base_unit_base = @baseUnitBase, overbooking_allowed = @overbookingAllowed,
         description = @description, availability_state = @availabilityState, classification = @classification,
         product_group = @group, stock_zone = @stockZone, dim_length = @dimLength, dim_width = @dimWidth,
         dim_height = @dimHeight, dim_uom = @dimUom, details = @details, ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    deleteUnits: db.prepare('DELETE FROM product_units WHERE product_pk = ?'),
    insertUnit: db.prepare(
      `INSERT INTO product_units (pk, product_pk, position, label, quantity_family, quantity_unit, quantity_base,
         dim_length, dim_width, dim_height, dim_uom, pieces_per_layer, numbers_of_layers, carrier_type)
       VALUES (@pk, @productPk, @position, @label, @quantityFamily, @quantityUnit, @quantityBase,
         @dimLength, @dimWidth, @dimHeight, @dimUom, @piecesPerLayer, @numbersOfLayers, @carrierType)`,
    ),
    unitOwner: db.prepare<[string], string>('SELECT product_pk FROM product_units WHERE pk = ?').pluck(),
    stockCount: db.prepare<[string], number>('SELECT count(*) FROM packaging_units WHERE product_pk = ?').pluck(),
    deleteRules: db.prepare('DELETE FROM product_stacking_rules WHERE product_pk = ?'),
    insertRule: db.prepare('INSERT INTO product_stacking_rules (product_pk, position, no_products, allowed_sku) VALUES (?, ?, ?, ?)'),
  };

  const one = (row: Row | undefined): ProductRecord | undefined => row && toProduct(row, s.unitsOf.all(row.pk).map(toUnit), s.rulesOf.all(row.pk).map(toRule));

  function writeParts(pk: string, f: ProductFields) {
    s.deleteUnits.run(pk);
    f.units.forEach((u, position) =>
      s.insertUnit.run({
        pk: u.pk,
        productPk: pk,
        position,
        label: u.label,
        ...quantityParams('quantity', u.quantity),
        ...dimensionParams(u.dimension),
        piecesPerLayer: u.piecesPerLayer,
        numbersOfLayers: u.numbersOfLayers,
        carrierType: u.carrierType,
      }),
    );
    s.deleteRules.run(pk);
    f.stackingRules.forEach((r, position) => s.insertRule.run(pk, position, r.noProducts, r.allowedSku));
  }

  return {
    /** Every product by SKU, with its units and stacking rules: pages, or the whole list streamed. */
    list: (): Listing<ProductRecord> => EVERY_PRODUCT.listing(db, {}, withParts, reads),
    byPk: (pk: string) => one(s.byPk.get(pk)),
    bySku: (sku: string) => one(s.bySku.get(sku)),
    /** The product a unit pKey belongs to. */
    unitOwner: (unitPk: string): string | undefined => s.unitOwner.get(unitPk),
    /** How many packaging units hold the product. */
    stockCount: (pk: string): number => s.stockCount.get(pk)!,
    insert(f: ProductFields, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...fieldParams(f), pk, now });
      writeParts(pk, f);
      return pk;
    },
    update(pk: string, f: ProductFields, now: string): void {
      s.update.run({ ...fieldParams(f), pk, now });
      writeParts(pk, f);
    },
  };
}

export type ProductStore = ReturnType<typeof createProductStore>;
