import type { Task as WireTask } from '../../../../contract/replies.ts';
import { get } from '../../api.ts';
import type { LiveListSpec } from '../../lists/live-list.ts';
import { pagesOf } from '../../lists/pages.ts';

// A task as GET /tasks sends it (docs/tasks.md), and the screen's filter. The API lists
// every task, oldest first, and filters nothing: the state and the search are applied
// here, over the pages read (more are read while a filter leaves less than a page).
// Tasks have no assignee in the API; there is nothing to filter by one.

export const TASK_STATES = ['CREATED', 'ACTIVE', 'PAUSED', 'FINISHED'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** The state moves, in the order they are offered; each is `POST /tasks/{pKey}/<operation>`. */
export const OPERATIONS = ['start', 'resume', 'pause', 'finish'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** A task as the API sends it. */
export type Task = WireTask;

/** The moves the appliance offers now: the task's `tasks-<operation>` links. */
export const offered = (task: Task): Operation[] => OPERATIONS.filter((op) => task.links.some((l) => l.rel === `tasks-${op}`));

/** `open`: not finished. */
export type StateChoice = 'open' | 'all' | TaskState;

export interface TaskFilter {
  state: StateChoice;
  /** Part of the task id, type or description; '' for any. */
  text: string;
}

export const NO_FILTER: TaskFilter = { state: 'open', text: '' };

export function matches(f: TaskFilter, task: Task): boolean {
  if (f.state === 'open' ? task.state === 'FINISHED' : f.state !== 'all' && task.state !== f.state) return false;
  const text = f.text.trim().toLowerCase();
  return !text || [task.taskId, task.type, task.description ?? ''].some((v) => v.toLowerCase().includes(text));
}

/** taskId order (`T-000042`; past six digits the number grows longer). */
const byTaskId = (a: Task, b: Task) => a.taskId.length - b.taskId.length || a.taskId.localeCompare(b.taskId);

export function taskList(filter: () => TaskFilter): LiveListSpec<Task> {
  return {
    read: pagesOf('/tasks'),
    readOne: async (pKey) => (await get<Task>(`/tasks/${encodeURIComponent(pKey)}`)).body,
    keyOf: (task) => task.pKey,
    versionOf: (task) => task.ol,
    order: byTaskId,
    shows: (task) => matches(filter(), task),
    keepsHidden: true,
  };
}
