import type { ModuleDefinition } from '../module.ts';
import { receivingIndexLinks, receivingRoutes } from './routes.ts';
import { createReceivingService, type ReceivingService } from './service.ts';
import { createReceivingStore } from './store.ts';

/** Receiving orders and goods-in. */
export const receiving: ModuleDefinition<'receiving', ReceivingService> = {
  name: 'receiving',
  create: ({ db, reads, work, use }) => {
    const service = createReceivingService({ work, store: createReceivingStore(db, reads), inventory: use('inventory'), common: use('common') });
    return { service, routes: receivingRoutes(service), indexLinks: receivingIndexLinks };
  },
};
