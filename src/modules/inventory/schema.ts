import { z } from 'zod';
import { dimensionSchema, FAMILIES, quantitySchema, type Quantity } from '../../core/quantity.ts';
import { blankAsAbsent, name, ol, text, timestamp } from '../../core/schema.ts';
import { validationError } from '../../core/errors.ts';

// Request schemas of the inventory module (docs/inventory.md).
// Read-only fields a client echoes from a representation (`links`, `ol` on create,
// dates) are ignored; unknown fields are ignored too, as everywhere in the API.

export const AVAILABILITY_STATES = ['LOCKED', 'QC_LOCKED', 'AVAILABLE'] as const;
export type AvailabilityState = (typeof AVAILABILITY_STATES)[number];

/** A business key of the inventory: SKU, load unit type, position. */
export const sku = name(128);
const optionalText = (max = 1024) => text(max).nullable().optional();

/** A quantity of more than nothing (a product's base unit, a packaging unit, a move). */
export const positiveQuantity = quantitySchema.refine((q: Quantity) => q.base > 0, 'must be greater than 0');

/** A weight: a quantity of the Weight family. */
const weightQuantity = quantitySchema.refine(
  (q: Quantity) => q.family === 'Weight',
  `must be a weight (one of ${Object.keys(FAMILIES.Weight.units).join(', ')})`,
);

export { dimensionSchema };

/** `details` of a product unit: all Strings in the spec; numbers are taken as their text. */
const layerValue = z.union([z.string().max(64), z.number()]).transform(String);
const unitDetails = z.object({
  piecesPerLayer: layerValue.nullable().optional(),
  numbersOfLayers: layerValue.nullable().optional(),
  carrierType: layerValue.nullable().optional(),
});

/** One of a product's `units` (alternative packagings); `pKey` is the server's, kept when it names an existing unit. */
const productUnit = z.object({
  pKey: z.string().nullable().optional(),
  label: optionalText(255),
  quantity: quantitySchema,
  dimension: dimensionSchema.nullable().optional(),
  details: unitDetails.nullable().optional(),
});

const stackingRule = z.object({
  noProducts: z.number().int().min(0),
  allowedProduct: z.object({ sku }),
});

const productFields = {
  sku,
  label: optionalText(255),
  accountId: name().nullable().optional(),
  baseUnit: positiveQuantity,
  overbookingAllowed: z.boolean().nullable().optional(),
  description: optionalText(),
  availabilityState: z.enum(AVAILABILITY_STATES).nullable().optional(),
  classification: optionalText(255),
  group: optionalText(255),
  stockZone: optionalText(255),
  units: z.array(productUnit).nullable().optional(),
  dimension: dimensionSchema.nullable().optional(),
  stackingRules: z.array(stackingRule).nullable().optional(),
  details: z.record(z.string(), z.string().max(1024)).nullable().optional(),
};

/** Every alternative packaging is of the base unit's family. */
function unitsOfBaseFamily(p: { baseUnit: Quantity; units?: { quantity: Quantity }[] | null | undefined }, ctx: z.RefinementCtx) {
  p.units?.forEach((u, i) => {
    if (u.quantity.family !== p.baseUnit.family) {
      ctx.addIssue({
        code: 'custom',
        path: ['units', i, 'quantity'],
        message: `[${u.quantity.unit}] is a unit of ${u.quantity.family}, but the base unit [${p.baseUnit.unit}] is of ${p.baseUnit.family}`,
      });
    }
  });
}

/** A product of `POST /v1/products`. */
export const newProduct = z.object(productFields).superRefine(unitsOfBaseFamily);
export type ProductInput = z.infer<typeof newProduct>;

/** `POST /v1/products`: an array of products (bulk), or a single product. */
export const newProducts = z.array(newProduct).min(1, 'at least one product is required');

/** `PUT /v1/products`: the whole product with its pKey. */
export const productUpdate = z.object({ ...productFields, pKey: name(), ol: ol.optional() }).superRefine(unitsOfBaseFamily);
export type ProductUpdateInput = z.infer<typeof productUpdate>;

/** `GET /v1/products?sku=&uom=`. */
export const skuAndUom = z.object({ sku: z.string(), uom: z.string().min(1) });

/** `PUT|POST /v1/load-units/{pKey}`: the product to reserve the load unit for. */
export const reservation = z.object({ sku, baseUnit: positiveQuantity.nullable().optional() });

/** A load unit position (`luPos`) or type name. */
export const luPos = name(64);

/** `POST /v1/transport-unit`, form fields (transportUnitBK is checked before, for its own key). */
export const divideForm = z.object({
  transportUnitBK: name(64),
  loadUnitType: name(64),
  parts: z
    .string()
    .regex(/^\d+$/, 'must be a whole number from 1 to 1000')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000')),
  transportUnitType: z.string().trim().optional(),
  actualLocation: z.string().trim().optional(),
});

const millimetres = z.number().min(0);
const MM_PER = { MM: 1, CM: 10, M: 1000 } as const;

/** Body of `POST /v1/transport-units/{bk}/load-units/{luPos}/packaging-units`. */
export const newPackagingUnit = z
  .object({
    product: z.object({ sku }),
    quantity: positiveQuantity,
    length: millimetres.nullable().optional(),
    width: millimetres.nullable().optional(),
    height: millimetres.nullable().optional(),
    dimension: dimensionSchema.nullable().optional(),
    weight: weightQuantity.nullable().optional(),
    message: optionalText(),
    serialNumber: optionalText(255),
    expiresAt: timestamp.nullable().optional(),
    labels: z.array(text(255)).nullable().optional(),
    loadUnitDistribution: z
      .object({
        piecesPerLoadUnitLayer: z.number().int().min(0).nullable().optional(),
        numberOfLoadUnitLayers: z.number().int().min(0).nullable().optional(),
      })
      .nullable()
      .optional(),
  })
  .superRefine((pu, ctx) => {
    // `length`, `width`, `height` (millimetres) and `dimension` say the same; when both are sent they must agree.
    if (!pu.dimension) return;
    for (const side of ['length', 'width', 'height'] as const) {
      const flat = pu[side];
      if (flat === undefined || flat === null) continue;
      const inMm = pu.dimension[side] === undefined ? undefined : pu.dimension[side] * MM_PER[pu.dimension.uom];
      if (inMm === undefined || Math.abs(inMm - flat) > 1e-9 * Math.max(1, flat)) {
        ctx.addIssue({ code: 'custom', path: [side], message: `differs from dimension.${side}; send one of them` });
      }
    }
  });
export type PackagingUnitInput = z.infer<typeof newPackagingUnit>;

/** `?loadUnitType=` of the packaging unit create; empty is the same as absent. */
export const loadUnitTypeQuery = z.object({ loadUnitType: blankAsAbsent(64) });

/** `?sku=&amount=&sort=`. */
export const forProductQuery = z.object({
  sku,
  amount: z.string().regex(/^\d+$/, 'must be a whole number of at least 1').transform(Number).pipe(z.number().int().min(1, 'must be at least 1')).optional(),
  sort: z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(['ASC', 'DESC'], { error: 'must be ASC or DESC' }))
    .optional(),
});

/** `?productPKey=&locationGroupName=`. */
export const inGroupQuery = z.object({ productPKey: name(), locationGroupName: name() });

/** Body of `POST /v1/packaging-units/move`. */
export const moveBody = z.object({
  sku,
  sourceLocation: name(),
  quantity: positiveQuantity,
  targetTransportUnitBK: name(64),
  targetLuPos: luPos,
  loadUnitType: name(64).nullable().optional(),
});

/** A field path as clients write it: `[0].units[1].quantity`. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? String(part) : `.${String(part)}`;
  return out;
}

/** Parses with a schema; a failure is 400 `core.validation.error` naming every failing field as `[0].sku`. */
export function parseOrRefuse<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const parts = result.error.issues.map((issue) => `${fieldPath(issue.path) || where}: ${issue.message}`);
  throw validationError(`Validation failed: ${parts.join('; ')}`);
}
