import { z } from 'zod';

// Quantities of the API: `{"@class": "org.vendor.core.units.api.Piece",
// "unitType": ["org.vendor.core.units.api.PieceUnit", "PC"], "magnitude": 5}`, and
// the earlier attribute names `amount` and `unit`.
//
// A quantity is kept as an integer count of its family's base unit (pieces; milligrams
// for weights), so sums and comparisons are exact: 0.1 KG + 0.2 KG is 300,000 mg, not
// 0.30000000000000004 KG. It remembers the unit it was given in, for display.

interface UnitFamily {
  /** `@class` of a quantity of this family. */
  className: string;
  /** First element of `unitType`. */
  unitClassName: string;
  /** Symbol → how many base units one unit is. */
  units: Record<string, number>;
  /** The unit shown when none is asked for. */
  baseSymbol: string;
}

export const FAMILIES: Record<'Piece' | 'Weight', UnitFamily> = {
  Piece: {
    className: 'org.vendor.core.units.api.Piece',
    unitClassName: 'org.vendor.core.units.api.PieceUnit',
    units: { PC: 1, DOZ: 12 },
    baseSymbol: 'PC',
  },
  Weight: {
    className: 'org.vendor.core.units.api.Weight',
    unitClassName: 'org.vendor.core.units.api.WeightUnit',
    // milligrams
    units: { MG: 1, G: 1_000, KG: 1_000_000, T: 1_000_000_000, OZ: 28_349.523125, LB: 453_592.37 },
    baseSymbol: 'G',
  },
};

type FamilyName = keyof typeof FAMILIES;

/** A quantity as the appliance computes with it. */
export interface Quantity {
  family: FamilyName;
  /** Unit it was given in (and is shown in). */
  unit: string;
  /** Whole base units (pieces, milligrams). */
  base: number;
}

function familyOfUnit(symbol: string): FamilyName | undefined {
  for (const [name, family] of Object.entries(FAMILIES)) if (symbol in family.units) return name as FamilyName;
  return undefined;
}

function familyOfClass(className: string): FamilyName | undefined {
  for (const [name, family] of Object.entries(FAMILIES)) {
    if (family.className === className || name === className) return name as FamilyName;
  }
  return undefined;
}

/** All unit symbols the appliance knows, for messages. */
export const UNIT_SYMBOLS = Object.values(FAMILIES).flatMap((f) => Object.keys(f.units));

/** A quantity as a client writes it: the example the refusals of a malformed one show. */
export const QUANTITY_EXAMPLE = '{"@class": "org.vendor.core.units.api.Piece", "unitType": ["org.vendor.core.units.api.PieceUnit", "PC"], "magnitude": 5}';

/**
 * The end of every refusal of a quantity's shape: a client that guessed the format
 * wrong learns the right one from the error alone, with an example and the units.
 */
const SHAPE = `a Quantity looks like ${QUANTITY_EXAMPLE} (weights: "@class" org.vendor.core.units.api.Weight, unitType ["org.vendor.core.units.api.WeightUnit", "KG"]); units ${UNIT_SYMBOLS.join(', ')}`;

const shaped = (what: string) => ({ error: () => `${what}; ${SHAPE}` });
const unitText = z.string(shaped('unitType must be [unit class, unit symbol], two texts'));

/**
 * The JSON forms a client may send: the current one (`@class`, `unitType`, `magnitude`)
 * or the earlier one (`amount`, `unit`). Magnitudes are finite and not negative; the
 * value must be a whole number of base units (pieces; milligrams).
 */
export const quantitySchema = z
  .object(
    {
      '@class': z.string(shaped('@class must be a text')).optional(),
      unitType: z.tuple([unitText, unitText], shaped('unitType must be [unit class, unit symbol], two texts')).optional(),
      magnitude: z.number(shaped('magnitude must be a number')).optional(),
      amount: z.number(shaped('amount must be a number')).optional(),
      unit: z.string(shaped('unit must be a unit symbol')).optional(),
    },
    shaped('must be an object'),
  )
  .transform((q, ctx): Quantity => {
    const symbol = q.unitType?.[1] ?? q.unit;
    const magnitude = q.magnitude ?? q.amount;
    if (symbol === undefined) {
      ctx.addIssue({ code: 'custom', message: `unitType (or unit) is required; ${SHAPE}` });
      return z.NEVER;
    }
    const family = familyOfUnit(symbol);
    if (!family) {
      ctx.addIssue({ code: 'custom', message: `unknown unit [${symbol}]; known are ${UNIT_SYMBOLS.join(', ')}` });
      return z.NEVER;
    }
    const declared = q['@class'];
    if (declared !== undefined && familyOfClass(declared) !== family) {
      ctx.addIssue({ code: 'custom', message: `unit [${symbol}] is not of ${declared}` });
      return z.NEVER;
    }
    if (q.unitType && q.unitType[0] !== FAMILIES[family].unitClassName) {
      ctx.addIssue({ code: 'custom', message: `unitType class must be ${FAMILIES[family].unitClassName} for [${symbol}]` });
      return z.NEVER;
    }
    if (magnitude === undefined || !Number.isFinite(magnitude)) {
      ctx.addIssue({ code: 'custom', message: `magnitude (or amount) is required and must be a finite number; ${SHAPE}` });
      return z.NEVER;
    }
    if (magnitude < 0) {
      ctx.addIssue({ code: 'custom', message: `magnitude must not be negative, got ${magnitude}` });
      return z.NEVER;
    }
    const exact = magnitude * FAMILIES[family].units[symbol]!;
    const base = Math.round(exact);
    if (Math.abs(exact - base) > 1e-6 * Math.max(1, Math.abs(exact)) || !Number.isSafeInteger(base)) {
      ctx.addIssue({
        code: 'custom',
        message: `${magnitude} ${symbol} is not a whole number of ${family === 'Piece' ? 'pieces' : 'milligrams'}`,
      });
      return z.NEVER;
    }
    return { family, unit: symbol, base };
  });

/** A quantity of the given family, in its base unit. */
export const quantityOf = (family: FamilyName, base: number, unit = FAMILIES[family].baseSymbol): Quantity => ({
  family,
  unit,
  base,
});

/** The magnitude of a quantity in a unit of its family (default: the unit it was given in). */
export function magnitudeIn(q: Quantity, unit = q.unit): number {
  const factor = FAMILIES[q.family].units[unit];
  if (factor === undefined) throw new Error(`unit ${unit} is not of ${q.family}`);
  // Rounded to 9 decimals: a base count converts back without binary noise.
  return Math.round((q.base / factor) * 1e9) / 1e9;
}

/** The quantity expressed in another unit of the same family. */
export function convert(q: Quantity, unit: string): Quantity {
  if (FAMILIES[q.family].units[unit] === undefined) throw new Error(`unit ${unit} is not of ${q.family}`);
  return { ...q, unit };
}

export const sameFamily = (a: Quantity, b: Quantity) => a.family === b.family;

/**
 * The unit a quantity is best shown in: its own when it is a whole number of it (a
 * remainder of 2 DOZ stays 2 DOZ), else the family's base unit, else its smallest
 * (7 PC of a dozen-counted stock are shown as 7 PC).
 */
export function tidy(q: Quantity): Quantity {
  const family = FAMILIES[q.family];
  if (Number.isInteger(q.base / family.units[q.unit]!)) return q;
  if (Number.isInteger(q.base / family.units[family.baseSymbol]!)) return { ...q, unit: family.baseSymbol };
  return { ...q, unit: Object.entries(family.units).find(([, factor]) => factor === 1)![0] };
}

/** `12.5 KG`, for messages. */
export const describeQuantity = (q: Quantity) => `${magnitudeIn(q)} ${q.unit}`;

/** The JSON form of a quantity. */
export function quantityVO(q: Quantity) {
  const family = FAMILIES[q.family];
  return { '@class': family.className, unitType: [family.unitClassName, q.unit], magnitude: magnitudeIn(q) };
}

/** Columns a store keeps a quantity in: `<prefix>_family`, `<prefix>_unit`, `<prefix>_base`. */
export const quantityFromColumns = (family: string, unit: string, base: number): Quantity => ({
  family: family as FamilyName,
  unit,
  base,
});

// Dimension of the API: height, length, width and a unit (values seen MM, CM).
export const dimensionSchema = z.object({
  height: z.number().min(0).optional(),
  length: z.number().min(0).optional(),
  width: z.number().min(0).optional(),
  uom: z.enum(['MM', 'CM', 'M']).default('MM'),
});

export type Dimension = z.infer<typeof dimensionSchema>;
