import { quantityFromColumns, type Dimension, type Quantity } from '../../core/quantity.ts';

// How the inventory stores keep quantities and dimensions in columns (migration 0050).

export interface DimensionColumns {
  dim_length: number | null;
  dim_width: number | null;
  dim_height: number | null;
  dim_uom: string | null;
}

/** A dimension from its columns; none when no unit was stored. */
export function dimensionFrom(row: DimensionColumns): Dimension | null {
  if (row.dim_uom === null) return null;
  const d: Dimension = { uom: row.dim_uom as Dimension['uom'] };
  if (row.dim_length !== null) d.length = row.dim_length;
  if (row.dim_width !== null) d.width = row.dim_width;
  if (row.dim_height !== null) d.height = row.dim_height;
  return d;
}

/** Named parameters `dimLength`, `dimWidth`, `dimHeight`, `dimUom` of a dimension. */
export const dimensionParams = (d: Dimension | null) => ({
  dimLength: d?.length ?? null,
  dimWidth: d?.width ?? null,
  dimHeight: d?.height ?? null,
  dimUom: d?.uom ?? null,
});

/** Named parameters `<prefix>Family`, `<prefix>Unit`, `<prefix>Base` of a quantity. */
export function quantityParams<P extends string>(prefix: P, q: Quantity | null) {
  return {
    [`${prefix}Family`]: q?.family ?? null,
    [`${prefix}Unit`]: q?.unit ?? null,
    [`${prefix}Base`]: q?.base ?? null,
  } as Record<`${P}Family` | `${P}Unit` | `${P}Base`, string | number | null>;
}

/** A quantity from its three columns, or null when they are empty. */
export const quantityOrNull = (family: string | null, unit: string | null, base: number | null): Quantity | null =>
  family === null || unit === null || base === null ? null : quantityFromColumns(family, unit, base);
