import { language } from '../../i18n.ts';

// Quantities as the API writes them (docs/inventory.md, "Quantities and dimensions"):
// `{"@class", "unitType": [unit class, symbol], "magnitude"}`. The unit families and
// their symbols are those of the appliance (src/core/quantity.ts): pieces and weights.

export interface Quantity {
  '@class': string;
  unitType: [string, string];
  magnitude: number;
}

interface Family {
  className: string;
  unitClassName: string;
  /** Symbol → base units (pieces; milligrams) in one. */
  units: Record<string, number>;
}

const FAMILIES: Family[] = [
  { className: 'org.vendor.core.units.api.Piece', unitClassName: 'org.vendor.core.units.api.PieceUnit', units: { PC: 1, DOZ: 12 } },
  {
    className: 'org.vendor.core.units.api.Weight',
    unitClassName: 'org.vendor.core.units.api.WeightUnit',
    units: { MG: 1, G: 1_000, KG: 1_000_000, T: 1_000_000_000, OZ: 28_349.523125, LB: 453_592.37 },
  },
];

export const unitOf = (q: Quantity): string => q.unitType[1];

const familyOfUnit = (unit: string): Family | undefined => FAMILIES.find((f) => unit in f.units);

/** The symbols of the unit's family (all symbols for an unknown one), for the unit choice. */
export const unitsLike = (unit: string | undefined): string[] => {
  const family = unit ? familyOfUnit(unit) : undefined;
  return family ? Object.keys(family.units) : FAMILIES.flatMap((f) => Object.keys(f.units));
};

export const sameFamily = (a: string, b: string): boolean => familyOfUnit(a) === familyOfUnit(b);

/** A quantity to send: `magnitude` of `unit`. */
export function quantityOf(magnitude: number, unit: string): Quantity {
  const family = familyOfUnit(unit) ?? FAMILIES[0]!;
  return { '@class': family.className, unitType: [family.unitClassName, unit], magnitude };
}

/** In base units, for comparing and progress. */
export const baseOf = (q: Quantity): number => q.magnitude * (familyOfUnit(unitOf(q))?.units[unitOf(q)] ?? 1);

/**
 * A quantity in another unit of its family: what was received in the unit it is expected
 * in (the appliance writes 1.5 KG received of 5 KG as 1500 G, 1.5 not being whole KG).
 */
export function inUnit(q: Quantity, unit: string): Quantity {
  const family = familyOfUnit(unit);
  if (!family || familyOfUnit(unitOf(q)) !== family) return q;
  return { ...q, unitType: [q.unitType[0], unit], magnitude: baseOf(q) / family.units[unit]! };
}

/**
 * What the user typed as a number: a comma is a decimal mark as well ("2,5"). NaN when it
 * is none; a number the appliance will refuse (0, -1, half a piece) is its to refuse.
 */
export function parseMagnitude(text: string): number {
  const clean = text.trim().replace(',', '.');
  return clean === '' ? Number.NaN : Number(clean);
}

export const formatMagnitude = (n: number): string => new Intl.NumberFormat(language.value, { maximumFractionDigits: 3 }).format(n);

export const formatQuantity = (q: Quantity): string => `${formatMagnitude(q.magnitude)} ${unitOf(q)}`;
