import type { ModuleDefinition } from '../module.ts';
import { taskIndexLinks, taskRoutes } from './routes.ts';
import { createTaskService, type TaskService } from './service.ts';
import { createTaskStore } from './store.ts';

/** Tasks people work on, and the moves between their states. */
export const tasks: ModuleDefinition<'tasks', TaskService> = {
  name: 'tasks',
  create: ({ db, reads, work, config }) => {
    const service = createTaskService({ work, store: createTaskStore(db, reads), types: config.tasks.types });
    return { service, routes: taskRoutes(service), indexLinks: taskIndexLinks };
  },
};
