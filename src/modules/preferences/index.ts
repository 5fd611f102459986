import type { ModuleDefinition } from '../module.ts';
import { preferencesIndexLinks, preferenceRoutes } from './routes.ts';
import { createPreferenceService, type PreferenceService } from './service.ts';
import { createPreferenceStore } from './store.ts';

/** Preferences of the application, modules, roles and users. */
export const preferences: ModuleDefinition<'preferences', PreferenceService> = {
  name: 'preferences',
  create: ({ db, reads, work }) => {
    const service = createPreferenceService(work, createPreferenceStore(db, reads));
    return { service, routes: preferenceRoutes(service), indexLinks: preferencesIndexLinks };
  },
};
