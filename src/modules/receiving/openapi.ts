import { z } from 'zod';
import { instant, QuantitySchema, resource } from '../../http/openapi/representation.ts';
import { ORDER_STATES, POSITION_STATES } from './store.ts';

// The ReceivingOrder (`orderVO`) as a schema of the API description.

const PositionSchema = z
  .object({
    pKey: z.string(),
    ol: z.number().int().min(0),
    createDt: instant,
    lastModifiedDt: instant,
    positionId: z.string(),
    state: z.enum(POSITION_STATES),
    product: z.object({ sku: z.string(), pKey: z.string() }),
    quantityExpected: QuantitySchema,
    quantityReceived: QuantitySchema,
    captures: z.array(
      z.object({
        packagingUnitPKey: z.string(),
        transportUnitBK: z.string(),
        loadUnitLabel: z.string(),
        quantity: QuantitySchema,
        capturedAt: instant,
      }),
    ),
  })
  .meta({ id: 'ReceivingOrderPosition', description: 'A position of a receiving order with the captures booked against it.' });

export const ReceivingOrderSchema = resource(
  'ReceivingOrder',
  'An announced goods receipt; links: itself and, while its state allows them, `receiving-order-capture`, `receiving-order-cancel`.',
  {
    orderId: z.string(),
    state: z.enum(ORDER_STATES),
    details: z.record(z.string(), z.unknown()),
    positions: z.array(PositionSchema),
  },
);
