import type { ModuleDefinition } from '../module.ts';
import { movementIndexLinks, movementRoutes } from './routes.ts';
import { createMovementService, type MovementService } from './service.ts';
import { createMovementStore } from './store.ts';

/** Movements of transport units between locations, done by hand. */
export const movements: ModuleDefinition<'movements', MovementService> = {
  name: 'movements',
  create: ({ db, reads, work, use }) => {
    const service = createMovementService({ work, store: createMovementStore(db, reads), common: use('common') });
    return { service, routes: movementRoutes(service), indexLinks: movementIndexLinks };
  },
};
