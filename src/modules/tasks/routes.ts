import type { RequestContext } from '../../http/context.ts';
import { created, defined, indexRoute, link, type Link, noContent, ok, technical } from '../../http/hal.ts';
import { vendorType } from '../../http/negotiation.ts';
import type { Route } from '../../http/router.ts';
import { newTask, taskUpdate } from './schema.ts';
import { TRANSITIONS, TASK_OPERATIONS, type TaskService } from './service.ts';
import type { Task } from './store.ts';
import { listQuery, listReplyUnlessEmpty } from '../../http/lists.ts';
import { z } from 'zod';
import { TaskSchema } from './openapi.ts';

// Tasks module (the API): no version prefix, `/tasks`.

const TYPE = vendorType('common', 'task');
const READ = 'tasks:read';
const WRITE = 'tasks:write';
const BASE = '/tasks';

/** Entry-index link of the tasks module (the API conventions (README, "API")). */
export const taskIndexLinks = { 'tasks-index': `${BASE}/index` };

/**
 * The Task representation. Links: `self`, and one link per move that is legal in the
 * task's current state (`tasks-start`, `tasks-pause`, `tasks-resume`, `tasks-finish`).
 */
export function taskVO(ctx: RequestContext, t: Task) {
  const links: Link[] = [link(ctx, 'self', `${BASE}/${t.pk}`)];
  for (const operation of TASK_OPERATIONS) {
    if (typeof TRANSITIONS[operation][t.state] === 'string') links.push(link(ctx, `tasks-${operation}`, `${BASE}/${t.pk}/${operation}`));
  }
  return {
    ...technical(t, links),
    taskId: t.taskId,
    ...defined({ description: t.description }),
    type: t.type,
    state: t.state,
    ...defined({ startedAt: t.startedAt, finishedAt: t.finishedAt }),
  };
}

export function taskRoutes(tasks: TaskService): Route[] {
  const moveRoute = (operation: (typeof TASK_OPERATIONS)[number], summary: string): Route => ({
    method: 'POST',
    path: `${BASE}/{pKey}/${operation}`,
    body: 'none',
    grant: WRITE,
    link: `tasks-${operation}`,
    vendorTypes: [TYPE],
    responseSchema: TaskSchema,
    errors: [409],
    summary,
    handler: (ctx) => ok(taskVO(ctx, tasks.move(ctx.param('pKey'), operation))),
  });

  const routes: Route[] = [
    {
      method: 'GET',
      path: BASE,
      grant: READ,
      link: 'tasks-findall',
      vendorTypes: [TYPE],
      querySchema: listQuery,
      responseSchema: z.array(TaskSchema),
      status: [200, 204],
      summary: 'All tasks, oldest first; 204 without body when there is none (a page: []).',
      handler: (ctx) => listReplyUnlessEmpty(ctx, tasks.list(), (t) => taskVO(ctx, t), noContent()),
    },
    {
      method: 'GET',
      path: `${BASE}/{pKey}`,
      grant: READ,
      link: 'tasks-findbypkey',
      vendorTypes: [TYPE],
      responseSchema: TaskSchema,
      summary: 'A task by its persistent key.',
      handler: (ctx) => ok(taskVO(ctx, tasks.byPKey(ctx.param('pKey')))),
    },
    {
      method: 'POST',
      path: BASE,
      grant: WRITE,
      link: 'tasks-create',
      vendorTypes: [TYPE],
      requestSchema: newTask,
      responseSchema: TaskSchema,
      status: 201,
      errors: [409],
      summary: 'Create a task (type, description) in state CREATED; the server assigns pKey and taskId.',
      handler: (ctx) => {
        const task = tasks.create(ctx.body(newTask));
        return created(ctx, `${BASE}/${task.pk}/`, taskVO(ctx, task));
      },
    },
    {
      method: 'PUT',
      path: BASE,
      grant: WRITE,
      link: 'tasks-update',
      vendorTypes: [TYPE],
      requestSchema: taskUpdate,
      responseSchema: TaskSchema,
      errors: [404, 409],
      summary: 'Change the description of a task named by pKey in the body (ol to detect concurrent changes).',
      handler: (ctx) => ok(taskVO(ctx, tasks.update(ctx.body(taskUpdate)))),
    },
    moveRoute('start', 'Start a CREATED task: ACTIVE, startedAt set.'),
    moveRoute('pause', 'Pause an ACTIVE task: PAUSED.'),
    moveRoute('resume', 'Resume a PAUSED task: ACTIVE, startedAt kept.'),
    moveRoute('finish', 'Finish an ACTIVE task: FINISHED, finishedAt set.'),
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the task operations.'), ...routes];
}
