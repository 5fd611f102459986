import type { ModuleDefinition } from '../module.ts';
import { shippingIndexLinks, shippingRoutes } from './routes.ts';
import { createShippingService, type ShippingService } from './service.ts';
import { createShippingStore } from './store.ts';

/** Shipping orders and their positions. */
export const shipping: ModuleDefinition<'shipping', ShippingService> = {
  name: 'shipping',
  create: ({ db, reads, work, use }) => {
    const service = createShippingService({ work, store: createShippingStore(db, reads), products: use('inventory').products, common: use('common') });
    return { service, routes: shippingRoutes(service), indexLinks: shippingIndexLinks };
  },
};
