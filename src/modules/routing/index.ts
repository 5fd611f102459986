import type { ModuleDefinition } from '../module.ts';
import { routingIndexLinks, routingRoutes } from './routes.ts';
import { createRoutingService, type RoutingService } from './service.ts';
import { createRoutingStore } from './store.ts';

/** Routes, their steps and the decision where a unit goes next. */
export const routing: ModuleDefinition<'routing', RoutingService> = {
  name: 'routing',
  create: ({ db, reads, work, use }) => {
    const service = createRoutingService({ work, store: createRoutingStore(db, reads), common: use('common'), orders: use('transport-orders') });
    return { service, routes: routingRoutes(service), indexLinks: routingIndexLinks };
  },
};
