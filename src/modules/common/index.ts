import type { ModuleDefinition } from '../module.ts';
import { commonIndexLinks, commonRoutes } from './routes.ts';
import { createCommonServices, type CommonServices } from './service.ts';

/** Accounts, locations and their groups and types, transport units and their types. */
export const common: ModuleDefinition<'common', CommonServices> = {
  name: 'common',
  create: ({ db, reads, work, log }) => {
    const service = createCommonServices(db, work, reads);
    return {
      service,
      routes: commonRoutes(service),
      indexLinks: commonIndexLinks,
      prepare: () => {
        if (service.seed()) log.info('first start: default account, root location group and type catalogues written');
      },
    };
  },
};
