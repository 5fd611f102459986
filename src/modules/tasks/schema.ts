import { z } from 'zod';
import { name, ol, text, timestamp } from '../../core/schema.ts';
import { TASK_STATES } from './store.ts';

/**
 * `POST /tasks`: `type` (checked against the configured types by the service) and an
 * optional `description`. `pKey` and `taskId` are assigned by the server; a create that
 * names them is accepted only to be refused: 409 `svc.common.tasks.alreadyExists` when
 * that task exists (a replayed create), else 400. Other fields of a Task representation
 * (`links`, `ol`, `state`, dates) are ignored.
 */
export const newTask = z.object({
  type: name(64),
  description: text().nullable().optional(),
  pKey: name().optional(),
  taskId: name(64).optional(),
});

/**
 * `PUT /tasks`: a Task representation with `pKey`. Only `description` is modifiable
 * (absent or null clears it: PUT carries the whole resource). `ol`, when sent, must be
 * the current one. `taskId`, `type`, `state`, `startedAt`, `finishedAt` and `createDt`
 * may be sent back as read; a value that differs from the stored one is refused (400).
 * `links` and `lastModifiedDt` are ignored.
 */
export const taskUpdate = z.object({
  pKey: name(),
  ol: ol.optional(),
  description: text().nullable().optional(),
  taskId: z.string().nullable().optional(),
  type: z.string().nullable().optional(),
  state: z.enum(TASK_STATES).nullable().optional(),
  startedAt: timestamp.nullable().optional(),
  finishedAt: timestamp.nullable().optional(),
  createDt: timestamp.nullable().optional(),
});

export type NewTaskInput = z.infer<typeof newTask>;
export type TaskUpdateInput = z.infer<typeof taskUpdate>;
