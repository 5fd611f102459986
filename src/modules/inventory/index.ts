import type { ModuleDefinition } from '../module.ts';
import { inventoryIndexLinks, inventoryRoutes } from './routes.ts';
import { createInventory, type InventoryServices } from './service.ts';

/** Products, load units and packaging units: what is stored where. */
export const inventory: ModuleDefinition<'inventory', InventoryServices> = {
  name: 'inventory',
  create: ({ db, reads, work, config, use }) => {
    const service = createInventory({ db, reads, work, common: use('common'), options: config.inventory });
    return { service, routes: inventoryRoutes(service), indexLinks: inventoryIndexLinks };
  },
};
