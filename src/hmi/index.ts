import type { ModuleDefinition } from '../modules/module.ts';
import { hmiRoutes } from './routes.ts';

/** The HMI: its page and files, served from the assets embedded in the bundle; nothing for other modules. */
export const hmi: ModuleDefinition<'hmi', void> = {
  name: 'hmi',
  create: () => ({ service: undefined, routes: hmiRoutes() }),
};
