import type { ModuleDefinition } from '../module.ts';
import { transportOrderIndexLinks, transportOrderRoutes } from './routes.ts';
import { createTransportOrderService, type TransportOrderService } from './service.ts';
import { createTransportOrderStore } from './store.ts';

/** Transport orders: a unit to take to a target, driven by the conveyor or by hand. */
export const transportOrders: ModuleDefinition<'transport-orders', TransportOrderService> = {
  name: 'transport-orders',
  create: ({ db, reads, work, use }) => {
    const service = createTransportOrderService({ work, store: createTransportOrderStore(db, reads), common: use('common') });
    return { service, routes: transportOrderRoutes(service), indexLinks: transportOrderIndexLinks };
  },
};
