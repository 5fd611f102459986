import { describe, expect, it } from 'vitest';
import { convert, magnitudeIn, quantitySchema, quantityVO } from './quantity.ts';

const parse = (value: unknown) => quantitySchema.safeParse(value);

describe('quantities', () => {
  it('reads the current JSON form and keeps whole base units', () => {
    const q = parse({ '@class': 'org.vendor.core.units.api.Piece', unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'], magnitude: 5 });
    expect(q.success && q.data).toEqual({ family: 'Piece', unit: 'PC', base: 5 });
  });

  it('reads the earlier form (amount, unit)', () => {
    expect(parse({ amount: 2, unit: 'DOZ' }).data).toEqual({ family: 'Piece', unit: 'DOZ', base: 24 });
  });

  it('computes weights exactly in milligrams', () => {
    const a = parse({ unitType: ['org.vendor.core.units.api.WeightUnit', 'KG'], magnitude: 0.1 }).data!;
    const b = parse({ unitType: ['org.vendor.core.units.api.WeightUnit', 'KG'], magnitude: 0.2 }).data!;
    expect(a.base + b.base).toBe(300_000);
    expect(magnitudeIn({ ...a, base: a.base + b.base })).toBe(0.3);
    expect(magnitudeIn(convert(a, 'G'))).toBe(100);
    expect(magnitudeIn(convert({ family: 'Weight', unit: 'T', base: 1_500_000_000 }, 'KG'))).toBe(1500);
  });

  it('writes the current JSON form', () => {
    expect(quantityVO({ family: 'Weight', unit: 'KG', base: 1_250_000 })).toEqual({
      '@class': 'org.vendor.core.units.api.Weight',
      unitType: ['org.vendor.core.units.api.WeightUnit', 'KG'],
      magnitude: 1.25,
    });
  });

  it.each([
    ['a negative magnitude', { unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'], magnitude: -1 }, /negative/],
    ['an unknown unit', { unitType: ['org.vendor.core.units.api.PieceUnit', 'XX'], magnitude: 1 }, /unknown unit/],
    [
      'a unit of another family than @class',
      { '@class': 'org.vendor.core.units.api.Piece', unitType: ['org.vendor.core.units.api.WeightUnit', 'KG'], magnitude: 1 },
      /not of/,
    ],
    ['a wrong unit class', { unitType: ['org.vendor.core.units.api.WeightUnit', 'PC'], magnitude: 1 }, /unitType class/],
    ['half a piece', { unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'], magnitude: 0.5 }, /whole number of pieces/],
    ['a fraction of a milligram', { unitType: ['org.vendor.core.units.api.WeightUnit', 'G'], magnitude: 0.0001 }, /milligrams/],
    ['no magnitude', { unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'] }, /magnitude/],
    ['no unit', { magnitude: 3 }, /unitType/],
    ['an infinite magnitude', { unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'], magnitude: Number.POSITIVE_INFINITY }, /finite|number/],
  ])('refuses %s', (_why, value, message) => {
    const result = parse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message).join(' ')).toMatch(message);
  });
});
