import { z } from 'zod';
import { instant, resource } from '../../http/openapi/representation.ts';
import { TASK_STATES } from './store.ts';

// The Task representation (`taskVO`) as a schema of the API description.

export const TaskSchema = resource('Task', 'A task; links: `self` and one per move legal in its state (`tasks-start`, `tasks-pause`, …).', {
  taskId: z.string(),
  description: z.string().optional(),
  type: z.string(),
  state: z.enum(TASK_STATES),
  startedAt: instant.optional(),
  finishedAt: instant.optional(),
});
