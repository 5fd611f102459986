import { z } from 'zod';
import { instant, resource } from '../../http/openapi/representation.ts';
import { ORDER_STATES, PRIORITIES } from './store.ts';

// The TransportOrder representation (`transportOrderVO`) as a schema of the API description.

export const TransportOrderSchema = resource(
  'TransportOrder',
  'An order to bring a transport unit to a location or group; links: itself, `transport-unit` and, while not ended, `transport-orders-update`, `transport-orders-cancel`.',
  {
    persistentKey: z.string().meta({ description: "The same as pKey (the spec's name of the key)." }),
    transportUnitBK: z.string(),
    priority: z.enum(PRIORITIES),
    state: z.enum(ORDER_STATES),
    sourceLocation: z.string(),
    targetLocation: z.string().nullable(),
    targetLocationGroup: z.string().nullable(),
    startDate: instant.optional(),
    endDate: instant.optional(),
    message: z.string().optional().meta({ description: 'The problem text of the order.' }),
  },
);
