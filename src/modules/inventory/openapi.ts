import { z } from 'zod';
import { DimensionSchema, instant, QuantitySchema, resource } from '../../http/openapi/representation.ts';
import { AVAILABILITY_STATES } from './schema.ts';

// The representations of the inventory module (`productVO`, `loadUnitVO`,
// `packagingUnitVO`) as schemas of the API description.

export const ProductSchema = resource('Product', 'A product (SKU) with its base unit and alternative packagings.', {
  sku: z.string(),
  label: z.string().optional(),
  accountId: z.string(),
  baseUnit: QuantitySchema,
  overbookingAllowed: z.boolean(),
  description: z.string().optional(),
  availabilityState: z.enum(AVAILABILITY_STATES),
  classification: z.string().optional(),
  group: z.string().optional(),
  stockZone: z.string().optional(),
  units: z.array(
    z.object({
      pKey: z.string(),
      label: z.string().optional(),
      quantity: QuantitySchema,
      dimension: DimensionSchema.optional(),
      details: z.object({ piecesPerLayer: z.string().optional(), numbersOfLayers: z.string().optional(), carrierType: z.string().optional() }),
    }),
  ),
  dimension: DimensionSchema.optional(),
  stackingRules: z.array(z.object({ noProducts: z.number().int(), allowedProduct: z.object({ sku: z.string() }) })),
  details: z.record(z.string(), z.string()),
});

const productRef = z.object({ sku: z.string(), pKey: z.string() });

export const PackagingUnitSchema = resource(
  'PackagingUnit',
  'An amount of a product in a load unit; links: itself, `load-unit`, `product`. Length, width and height in millimetres.',
  {
    product: productRef,
    quantity: QuantitySchema,
    loadUnit: z.object({ transportUnitBK: z.string(), physicalPosition: z.string() }),
    physicalPosition: z.string(),
    actualLocation: z.string(),
    length: z.number().optional(),
    width: z.number().optional(),
    height: z.number().optional(),
    dimension: DimensionSchema.optional(),
    weight: QuantitySchema.optional(),
    message: z.string().optional(),
    serialNumber: z.string().optional(),
    expiresAt: instant.optional(),
    labels: z.array(z.string()),
    loadUnitDistribution: z.object({ piecesPerLoadUnitLayer: z.number().int().optional(), numberOfLoadUnitLayers: z.number().int().optional() }).optional(),
    allocated: z.boolean(),
  },
);

export const LoadUnitSchema = resource('LoadUnit', 'A load unit (a position on a transport unit) with the packaging units it holds.', {
  transportUnitBK: z.string(),
  physicalPosition: z.string(),
  label: z.string().optional(),
  type: z.string(),
  locked: z.boolean(),
  product: productRef.optional().meta({ description: 'The product the load unit is reserved for.' }),
  length: z.number().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  packagingUnits: z.array(PackagingUnitSchema),
});
