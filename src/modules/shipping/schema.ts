import { z } from 'zod';
import { quantitySchema } from '../../core/quantity.ts';
import { enumList, name, ol, timestamp } from '../../core/schema.ts';
import { ORDER_STATES } from './store.ts';

export const PRODUCT_POSITION = 'org.vendor.wms.shipping.api.ShippingOrderPositionVO';
export const TU_POSITION = 'org.vendor.wms.shipping.api.ShippingTransportUnitOrderPositionVO';

export const orderState = z.enum(ORDER_STATES);
const startMode = z.enum(['MANUAL', 'AUTOMATIC']);

/** Free details of an order or position. */
const details = z
  .record(z.string().max(64), z.union([z.string().max(1024), z.number(), z.boolean(), z.null()]))
  .refine((d) => Object.keys(d).length <= 50, 'at most 50 entries');

const productPosition = z.object({
  '@class': z.literal(PRODUCT_POSITION),
  pos: name(64),
  priority: z.number().int().optional(),
  details: details.optional(),
  targetName: name().optional(),
  product: z.object({ sku: name() }),
  qtyOrdered: quantitySchema,
  qtyCrossdock: quantitySchema.optional(),
});

const transportUnitPosition = z.object({
  '@class': z.literal(TU_POSITION),
  pos: name(64),
  priority: z.number().int().optional(),
  details: details.optional(),
  targetName: name().optional(),
  transportUnitBK: name(64),
  transportUnitTypeName: name(64).optional(),
});

/** A position is told apart by `@class`: an amount of a product, or a dedicated transport unit. */
const positionSchema = z.discriminatedUnion('@class', [productPosition, transportUnitPosition]);
export type PositionInput = z.infer<typeof positionSchema>;

/** `POST /v1/shipping-orders`. */
export const newShippingOrder = z.object({
  orderId: name(64),
  customerOrderId: name().optional(),
  customerNo: name().optional(),
  startMode: startMode.optional(),
  shippingType: name().optional(),
  priority: z.number().int().optional(),
  latestDueDate: timestamp.optional(),
  startDate: timestamp.optional(),
  details: details.optional(),
  positions: z
    .array(positionSchema)
    .min(1, 'must not be empty')
    .refine((ps) => new Set(ps.map((p) => p.pos)).size === ps.length, 'pos must be unique within the order'),
});
export type NewShippingOrder = z.infer<typeof newShippingOrder>;

/** `PATCH /v1/shipping-orders/{pKey}`: the fields to change; `null` clears an optional one. */
export const orderPatch = z.object({
  customerOrderId: name().nullable().optional(),
  customerNo: name().nullable().optional(),
  state: orderState.optional(),
  startMode: startMode.nullable().optional(),
  shippingType: name().nullable().optional(),
  priority: z.number().int().nullable().optional(),
  latestDueDate: timestamp.nullable().optional(),
  startDate: timestamp.nullable().optional(),
  // `null` clears the details (to `{}`), like any other optional field.
  details: details.nullable().optional(),
  ol: ol.optional(),
});
export type OrderPatch = z.infer<typeof orderPatch>;

/** `PATCH /v1/shipping-order-positions/{pKey}`. */
export const positionPatch = z.object({
  orderPositionState: orderState.optional(),
  priority: z.number().int().nullable().optional(),
  details: details.nullable().optional(),
  targetName: name().nullable().optional(),
  qtyOrdered: quantitySchema.optional(),
  qtyCrossdock: quantitySchema.nullable().optional(),
  ol: ol.optional(),
});
export type PositionPatch = z.infer<typeof positionPatch>;

const statesList = enumList(ORDER_STATES).pipe(z.array(orderState).min(1, 'name at least one state'));

/** `?states=CREATED,PROCESSING`. */
export const statesQuery = z.object({ states: statesList });
