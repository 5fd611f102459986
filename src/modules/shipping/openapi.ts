import { z } from 'zod';
import { instant, QuantitySchema, resource, technicalFields } from '../../http/openapi/representation.ts';
import { PRODUCT_POSITION, TU_POSITION } from './schema.ts';
import { ORDER_STATES } from './store.ts';

// The ShippingOrder and its positions (`orderVO`, `positionVO`) as schemas of the API description.

const details = z.record(z.string(), z.unknown());

const positionHead = {
  orderPKey: z.string(),
  orderId: z.string(),
  pos: z.string(),
  orderPositionState: z.enum(ORDER_STATES),
  priority: z.number().int().optional(),
  details,
  targetName: z.string().optional(),
};

export const ProductPositionSchema = resource('ShippingOrderProductPosition', 'A position of a shipping order: an amount of a product.', {
  '@class': z.literal(PRODUCT_POSITION),
  ...positionHead,
  product: z.object({ sku: z.string(), pKey: technicalFields.pKey, ol: technicalFields.ol, createDt: instant, lastModifiedDt: instant }),
  qtyOrdered: QuantitySchema,
  qtyCrossdock: QuantitySchema.optional(),
});

export const TransportUnitPositionSchema = resource('ShippingOrderTransportUnitPosition', 'A position of a shipping order: a dedicated transport unit.', {
  '@class': z.literal(TU_POSITION),
  ...positionHead,
  transportUnitBK: z.string(),
  transportUnitTypeName: z.string().optional(),
});

export const PositionSchema = z
  .discriminatedUnion('@class', [ProductPositionSchema, TransportUnitPositionSchema])
  .meta({ id: 'ShippingOrderPosition', description: 'A position of a shipping order, told apart by `@class`.' });

const orderFields = {
  orderId: z.string(),
  customerOrderId: z.string().optional(),
  customerNo: z.string().optional(),
  state: z.enum(ORDER_STATES),
  startMode: z.enum(['MANUAL', 'AUTOMATIC']).optional(),
  shippingType: z.string().optional(),
  priority: z.number().int().optional(),
  latestDueDate: instant.optional(),
  startDate: instant.optional(),
  details,
};

export const ShippingOrderSchema = resource('ShippingOrder', 'A shipping order with its positions.', {
  ...orderFields,
  positions: z.array(PositionSchema),
});

export const ShippingOrderMinimumSchema = resource('ShippingOrderMinimum', 'A shipping order without its positions (the -minimum media type).', orderFields);
