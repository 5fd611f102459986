import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import {
  expectApiError,
  expectServerError,
  restartAfterSql,
  startTestAppliance,
  tempDir,
  type Reply,
  type TestAppliance,
  type RecordedEvent,
} from './support/appliance.ts';
import { recordEvents, refusal } from './support/expect.ts';

// Tasks module (docs/tasks.md and
// the task error keys; decisions in docs/tasks.md). Every refused request is shown to
// change nothing: the whole task list (ol, state, dates included) is the same after it.

const TASK_TYPE = 'application/vnd.vendor.common.task-v1+json';
const STATES = ['CREATED', 'ACTIVE', 'PAUSED', 'FINISHED'] as const;
const OPERATIONS = ['start', 'pause', 'resume', 'finish'] as const;
type State = (typeof STATES)[number];
type Operation = (typeof OPERATIONS)[number];

interface Task {
  pKey: string;
  ol: number;
  taskId: string;
  description?: string;
  type: string;
  state: State;
  startedAt?: string;
  finishedAt?: string;
  createDt: string;
  lastModifiedDt: string;
  links: { rel: string; href: string }[];
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TASK_ID = /^T-\d{6,}$/;
const taskNumber = (taskId: string) => Number(taskId.slice(2));

let wms: TestAppliance;
const events: RecordedEvent[] = [];
beforeAll(async () => {
  wms = await startTestAppliance();
  recordEvents(wms, events, (event) => event.type.startsWith('task.'));
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

async function create(type = 'MANUAL', description?: string): Promise<Task> {
  const reply = await wms.post('/tasks', description === undefined ? { type } : { type, description });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function read(pKey: string): Promise<Task> {
  const reply = await wms.get(`/tasks/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Every task; the 204 of an empty list as []. */
async function allTasks(on: TestAppliance = wms): Promise<Task[]> {
  const reply = await on.get('/tasks');
  if (reply.status === 204) return [];
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function move(pKey: string, operation: Operation): Promise<Reply> {
  return wms.post(`/tasks/${pKey}/${operation}`);
}

async function moved(pKey: string, operation: Operation): Promise<Task> {
  const reply = await move(pKey, operation);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** A new task brought into the state over legal moves only. */
async function taskIn(state: State, description?: string): Promise<Task> {
  let task = await create('MANUAL', description);
  const path: Record<State, Operation[]> = {
    CREATED: [],
    ACTIVE: ['start'],
    PAUSED: ['start', 'pause'],
    FINISHED: ['start', 'finish'],
  };
  for (const operation of path[state]) task = await moved(task.pKey, operation);
  expect(task.state).toBe(state);
  return task;
}

/** Runs a request that must be refused, and proves that no task changed and none was added; `on` another appliance. */
const refusedWithoutChange = refusal({ state: (on: TestAppliance = wms) => allTasks(on), events });

const linkRels = (task: Task) => task.links.map((l) => l.rel).sort();

// ---- index ------------------------------------------------------------------

describe('GET /tasks/index and the entry index', () => {
  const LINKS: Record<string, string> = {
    'tasks-findall': '/tasks',
    'tasks-findbypkey': '/tasks/{pKey}',
    'tasks-create': '/tasks',
    'tasks-update': '/tasks',
    'tasks-start': '/tasks/{pKey}/start',
    'tasks-pause': '/tasks/{pKey}/pause',
    'tasks-resume': '/tasks/{pKey}/resume',
    'tasks-finish': '/tasks/{pKey}/finish',
  };

  it('names every task operation, with absolute hrefs', async () => {
    const reply = await wms.get('/tasks/index');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    expect(Object.keys(links).sort()).toEqual(Object.keys(LINKS).sort());
    for (const [name, path] of Object.entries(LINKS)) expect(links[name]!.href, name).toBe(`${wms.url}${path}`);
  });

  it('answers XML when asked for it', async () => {
    const reply = await wms.get('/tasks/index', { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(reply.text).toContain(`rel="tasks-start" href="${wms.url}/tasks/{pKey}/start"`);
  });

  it('is linked from the public entry index as tasks-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['tasks-index'].href).toBe(`${wms.url}/tasks/index`);
  });

  it('needs tasks:read to read and tasks:write to change', () => {
    const routes = wms.app.routes.filter((r) => r.path === '/tasks' || r.path.startsWith('/tasks/'));
    expect(routes).toHaveLength(9);
    for (const route of routes) {
      expect(route.grant, `${route.method} ${route.path}`).toBe(route.method === 'GET' ? 'tasks:read' : 'tasks:write');
    }
  });
});

// ---- create -----------------------------------------------------------------

describe('POST /tasks', () => {
  it('creates a task in state CREATED: 201, Location …/tasks/<pKey>/, a server-assigned taskId', async () => {
    const reply = await wms.post('/tasks', { type: 'MANUAL', description: 'count the pallets in aisle 3' });
    expect(reply.status).toBe(201);
    const task = reply.body as Task;
    expect(reply.headers.get('location')).toBe(`${wms.url}/tasks/${task.pKey}/`);
    expect(task).toMatchObject({ ol: 0, type: 'MANUAL', description: 'count the pallets in aisle 3', state: 'CREATED' });
    expect(task.taskId).toMatch(TASK_ID);
    expect(task.createDt).toMatch(ISO_MS);
    expect(task.lastModifiedDt).toBe(task.createDt);
    expect(task).not.toHaveProperty('startedAt');
    expect(task).not.toHaveProperty('finishedAt');
    expect(task.links).toContainEqual({ rel: 'self', href: `${wms.url}/tasks/${task.pKey}` });
    expect(linkRels(task)).toEqual(['self', 'tasks-start']);

    // The Location answers the same task.
    const again = await wms.request('GET', new URL(reply.headers.get('location')!).pathname);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(task);
  });

  it('takes the vendor media type and answers it when asked', async () => {
    const reply = await wms.request('POST', '/tasks', {
      raw: JSON.stringify({ type: 'USERTASK' }),
      headers: { 'Content-Type': TASK_TYPE, Accept: TASK_TYPE },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(new RegExp(`^${TASK_TYPE.replace(/[.+]/g, '\\$&')}`));
    expect(reply.body).toMatchObject({ type: 'USERTASK', state: 'CREATED' });
    expect(reply.body).not.toHaveProperty('description');
  });

  it('ignores the other fields of a Task representation (links, ol, state, dates)', async () => {
    const reply = await wms.post('/tasks', {
      links: [],
      ol: 7,
      type: 'MANUAL',
      state: 'FINISHED',
      startedAt: '2025-01-01T00:00:00.000Z',
      finishedAt: '2025-01-01T01:00:00.000Z',
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ ol: 0, state: 'CREATED' });
    expect(reply.body).not.toHaveProperty('startedAt');
    expect(reply.body).not.toHaveProperty('finishedAt');
  });

  it('assigns consecutive, unique taskIds', async () => {
    const tasks = [await create(), await create(), await create()];
    const numbers = tasks.map((t) => taskNumber(t.taskId));
    expect(numbers[1]).toBe(numbers[0]! + 1);
    expect(numbers[2]).toBe(numbers[0]! + 2);
    expect(new Set((await allTasks()).map((t) => t.taskId)).size).toBe((await allTasks()).length);
  });

  it('never hands out a taskId twice, even after the newest task was removed', async () => {
    // There is no delete operation: an operator's clean-up in SQL, the appliance stopped, stands in for one.
    let box = await startTestAppliance();
    try {
      const created = await box.post('/tasks', { type: 'MANUAL' });
      expect(created.status, created.text).toBe(201);
      const last = created.body as Task;
      box = await restartAfterSql(box, `DELETE FROM tasks WHERE pk = '${last.pKey}'`);
      expectApiError(await box.get(`/tasks/${last.pKey}`), 404, 'svc.common.tasks.notFoundByPKey');
      const next = await box.post('/tasks', { type: 'MANUAL' });
      expect(next.status, next.text).toBe(201);
      expect(taskNumber(next.body.taskId)).toBe(taskNumber(last.taskId) + 1);
    } finally {
      await box.close();
    }
  });

  it('publishes task.created after the commit', async () => {
    const before = events.length;
    const task = await create('USERTASK');
    expect(events.slice(before)).toEqual([expect.objectContaining({ type: 'task.created', data: { pKey: task.pKey, taskId: task.taskId, type: 'USERTASK' } })]);
  });

  describe('bad input changes nothing and uses up no taskId', () => {
    it.each([
      ['type is missing', { description: 'no type' }],
      ['type is empty', { type: '' }],
      ['type is blank', { type: '   ' }],
      ['type is a number', { type: 5 }],
      ['type is null', { type: null }],
      ['type is an array', { type: ['MANUAL'] }],
      ['description is a number', { type: 'MANUAL', description: 42 }],
      ['description is an object', { type: 'MANUAL', description: { text: 'x' } }],
      ['description is longer than 1024', { type: 'MANUAL', description: 'x'.repeat(1025) }],
      ['the body is an empty object', {}],
      ['the body is an array', [{ type: 'MANUAL' }]],
      ['the body is a string', 'MANUAL'],
    ])('400 core.validation.error when %s', async (_what, body) => {
      await refusedWithoutChange(
        () => wms.post('/tasks', body),
        (r) => expectApiError(r, 400, 'core.validation.error'),
      );
    });

    it('400 core.validation.error naming the supported types for an unsupported type', async () => {
      const reply = await refusedWithoutChange(
        () => wms.post('/tasks', { type: 'PICK' }),
        (r) => expectApiError(r, 400, 'core.validation.error'),
      );
      expect(reply.body.message).toContain('PICK');
      expect(reply.body.message).toContain('MANUAL, USERTASK');
    });

    it('types are case-sensitive', async () => {
      await refusedWithoutChange(
        () => wms.post('/tasks', { type: 'manual' }),
        (r) => expectApiError(r, 400, 'core.validation.error'),
      );
    });

    it('400 when no body is sent', async () => {
      await refusedWithoutChange(
        () => wms.request('POST', '/tasks'),
        (r) => expectApiError(r, 400, 'core.validation.error'),
      );
    });

    it('400 server-declined for malformed JSON', async () => {
      await refusedWithoutChange(
        () => wms.request('POST', '/tasks', { raw: '{"type": "MANUAL"', headers: { 'Content-Type': 'application/json' } }),
        (r) => expectServerError(r, 400),
      );
    });

    it('415 server-declined for a body that is not JSON', async () => {
      await refusedWithoutChange(
        () => wms.request('POST', '/tasks', { raw: 'type=MANUAL', headers: { 'Content-Type': 'text/plain' } }),
        (r) => expectServerError(r, 415),
      );
    });

    it('409 svc.common.tasks.alreadyExists for a create naming the pKey or taskId of an existing task', async () => {
      const existing = await create('MANUAL', 'exists');
      for (const body of [
        { type: 'MANUAL', pKey: existing.pKey },
        { type: 'MANUAL', taskId: existing.taskId },
        // A replayed create: the whole representation of the task sent back.
        { ...existing },
      ]) {
        const reply = await refusedWithoutChange(
          () => wms.post('/tasks', body),
          (r) => expectApiError(r, 409, 'svc.common.tasks.alreadyExists'),
        );
        const named = body as { pKey?: string; taskId?: string };
        expect(reply.body.obj).toEqual([named.pKey ?? named.taskId]);
      }
    });

    it('400 for a create naming a pKey or taskId the server did not assign', async () => {
      for (const body of [
        { type: 'MANUAL', pKey: 'MY-OWN-PKEY' },
        { type: 'MANUAL', taskId: 'T-999999' },
      ]) {
        const reply = await refusedWithoutChange(
          () => wms.post('/tasks', body),
          (r) => expectApiError(r, 400, 'core.validation.error'),
        );
        expect(reply.body.message).toContain('assigned by the server');
      }
    });

    it('the refused creates above used up no taskId', async () => {
      const tasks = await allTasks();
      const newest = Math.max(...tasks.map((t) => taskNumber(t.taskId)));
      const next = await create();
      expect(taskNumber(next.taskId)).toBe(newest + 1);
    });
  });
});

// ---- read -------------------------------------------------------------------

describe('GET /tasks/{pKey} and GET /tasks', () => {
  it('finds a task by pKey, as application/hal+json by default', async () => {
    const task = await create('USERTASK', 'find me');
    const reply = await wms.get(`/tasks/${task.pKey}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(reply.body).toEqual(task);
  });

  it('answers 404 svc.common.tasks.notFoundByPKey naming an unknown pKey', async () => {
    const reply = await wms.get('/tasks/NO-SUCH-TASK');
    expectApiError(reply, 404, 'svc.common.tasks.notFoundByPKey');
    expect(reply.body.obj).toEqual(['NO-SUCH-TASK']);
    expect(reply.body.message).toContain('NO-SUCH-TASK');
  });

  it('lists every task oldest first as an application/json array', async () => {
    const a = await create('MANUAL', 'list a');
    const b = await create('MANUAL', 'list b');
    const reply = await wms.get('/tasks');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    const list = reply.body as Task[];
    expect(list.map((t) => t.pKey).indexOf(b.pKey)).toBe(list.map((t) => t.pKey).indexOf(a.pKey) + 1);
    expect(list.find((t) => t.pKey === a.pKey)).toEqual(a);
    const numbers = list.map((t) => taskNumber(t.taskId));
    expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
  });
});

describe('GET /tasks on an appliance without tasks', () => {
  let fresh: TestAppliance;
  beforeAll(async () => {
    fresh = await startTestAppliance();
  });
  afterAll(() => fresh.close());

  it('answers 204 without body, also after refused creates; 200 with the array once a task exists', async () => {
    const empty = await fresh.get('/tasks');
    expect(empty.status).toBe(204);
    expect(empty.text).toBe('');
    expect(empty.headers.get('content-type')).toBeNull();

    expectApiError(await fresh.post('/tasks', { type: 'NOPE' }), 400, 'core.validation.error');
    expectApiError(await fresh.post('/tasks', {}), 400, 'core.validation.error');
    expect((await fresh.get('/tasks')).status).toBe(204);

    const created = await fresh.post('/tasks', { type: 'MANUAL' });
    expect(created.status).toBe(201);
    expect(created.body.taskId).toBe('T-000001');
    const one = await fresh.get('/tasks');
    expect(one.status).toBe(200);
    expect(one.body).toEqual([created.body]);
  });
});

// ---- update -----------------------------------------------------------------

describe('PUT /tasks', () => {
  it('changes the description: 200, ol + 1, lastModifiedDt moves on, nothing else changes', async () => {
    const task = await create('MANUAL', 'before');
    const reply = await wms.put('/tasks', { pKey: task.pKey, ol: task.ol, description: 'after' });
    expect(reply.status, reply.text).toBe(200);
    const updated = reply.body as Task;
    expect(updated).toMatchObject({ pKey: task.pKey, taskId: task.taskId, type: 'MANUAL', state: 'CREATED', ol: 1, description: 'after' });
    expect(updated.createDt).toBe(task.createDt);
    expect(updated.lastModifiedDt >= task.lastModifiedDt).toBe(true);
    expect(await read(task.pKey)).toEqual(updated);
  });

  it('takes back the whole representation as read, with the description changed', async () => {
    const task = await taskIn('PAUSED', 'paused one');
    const reply = await wms.put('/tasks', { ...task, description: 'still paused' }, { headers: { 'Content-Type': TASK_TYPE } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ state: 'PAUSED', description: 'still paused', ol: task.ol + 1, startedAt: task.startedAt });
  });

  it('takes read-only fields in another ISO form of the same instant', async () => {
    const task = await taskIn('ACTIVE');
    const startedAt = task.startedAt!.replace('Z', '+00:00');
    const reply = await wms.put('/tasks', { pKey: task.pKey, startedAt, createDt: task.createDt, description: 'same instant' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.startedAt).toBe(task.startedAt);
  });

  it('applies without ol (last writer wins)', async () => {
    const task = await create('MANUAL', 'no ol');
    const reply = await wms.put('/tasks', { pKey: task.pKey, description: 'changed without ol' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ ol: 1, description: 'changed without ol' });
  });

  it('clears the description when it is null or absent (PUT carries the whole resource)', async () => {
    const a = await create('MANUAL', 'to be cleared');
    const b = await create('MANUAL', 'to be cleared too');
    const ra = await wms.put('/tasks', { pKey: a.pKey, ol: 0, description: null });
    const rb = await wms.put('/tasks', { pKey: b.pKey, ol: 0 });
    for (const reply of [ra, rb]) {
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).not.toHaveProperty('description');
      expect(reply.body.ol).toBe(1);
    }
  });

  it('writes nothing when nothing changes: ol stays, a retried PUT succeeds again', async () => {
    const task = await create('MANUAL', 'same');
    const before = events.length;
    for (let i = 0; i < 2; i++) {
      const reply = await wms.put('/tasks', { pKey: task.pKey, ol: 0, description: 'same' });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(task);
    }
    expect(events.length).toBe(before);
  });

  it('publishes task.changed after a change', async () => {
    const task = await create('MANUAL', 'event');
    const before = events.length;
    await wms.put('/tasks', { pKey: task.pKey, description: 'event 2' });
    expect(events.slice(before)).toEqual([expect.objectContaining({ type: 'task.changed', data: { pKey: task.pKey, taskId: task.taskId } })]);
  });

  describe('refusals change nothing', () => {
    it('409 core.optimistic.lock for a stale ol', async () => {
      const task = await create('MANUAL', 'original');
      await wms.put('/tasks', { pKey: task.pKey, ol: 0, description: 'first writer' });
      const reply = await refusedWithoutChange(
        () => wms.put('/tasks', { pKey: task.pKey, ol: 0, description: 'second writer' }),
        (r) => expectApiError(r, 409, 'core.optimistic.lock'),
      );
      expect(reply.body.message).toContain(task.pKey);
      expect(await read(task.pKey)).toMatchObject({ ol: 1, description: 'first writer' });
    });

    it('404 svc.common.tasks.notFoundByPKey for an unknown pKey', async () => {
      const reply = await refusedWithoutChange(
        () => wms.put('/tasks', { pKey: 'NO-SUCH-TASK', description: 'x' }),
        (r) => expectApiError(r, 404, 'svc.common.tasks.notFoundByPKey'),
      );
      expect(reply.body.obj).toEqual(['NO-SUCH-TASK']);
    });

    it('409 svc.common.tasks.alreadyFinished for a finished task', async () => {
      const task = await taskIn('FINISHED', 'done');
      await refusedWithoutChange(
        () => wms.put('/tasks', { pKey: task.pKey, ol: task.ol, description: 'too late' }),
        (r) => expectApiError(r, 409, 'svc.common.tasks.alreadyFinished'),
      );
    });

    it.each<[string, string | null]>([
      ['taskId', 'T-000000'],
      ['type', 'USERTASK'],
      ['state', 'FINISHED'],
      ['state', 'CREATED'],
      ['startedAt', '2020-01-01T00:00:00.000Z'],
      ['startedAt', null],
      ['finishedAt', '2020-01-01T00:00:00.000Z'],
      ['createDt', '2020-01-01T00:00:00.000Z'],
    ])('400 core.validation.error when %s differs from the stored value (%j)', async (field, value) => {
      const task = await taskIn('ACTIVE', 'read-only fields');
      const reply = await refusedWithoutChange(
        () => wms.put('/tasks', { ...task, description: 'changed', [field]: value }),
        (r) => expectApiError(r, 400, 'core.validation.error'),
      );
      expect(reply.body.message).toContain(field);
      expect(reply.body.message).toContain('only description is modifiable');
    });

    it.each([
      ['pKey is missing', { description: 'x' }],
      ['pKey is a number', { pKey: 5, description: 'x' }],
      ['description is a number', { pKey: 'SET-BELOW', description: 5 }],
      ['ol is a string', { pKey: 'SET-BELOW', ol: '0', description: 'x' }],
      ['ol is negative', { pKey: 'SET-BELOW', ol: -1, description: 'x' }],
      ['state is not a task state', { pKey: 'SET-BELOW', state: 'DONE' }],
      ['startedAt is not a date', { pKey: 'SET-BELOW', startedAt: 'yesterday' }],
      ['the body is an array', [{ pKey: 'SET-BELOW' }]],
    ])('400 core.validation.error when %s', async (_what, template) => {
      const task = await create('MANUAL', 'bad put');
      const body = JSON.parse(JSON.stringify(template).replace('SET-BELOW', task.pKey)) as unknown;
      await refusedWithoutChange(
        () => wms.put('/tasks', body),
        (r) => expectApiError(r, 400, 'core.validation.error'),
      );
    });

    it('400 server-declined for malformed JSON', async () => {
      const task = await create('MANUAL', 'malformed');
      await refusedWithoutChange(
        () => wms.request('PUT', '/tasks', { raw: `{"pKey": "${task.pKey}", "description": `, headers: { 'Content-Type': 'application/json' } }),
        (r) => expectServerError(r, 400),
      );
    });
  });
});

// ---- lifecycle --------------------------------------------------------------

describe('the task lifecycle', () => {
  it('CREATED -start-> ACTIVE -pause-> PAUSED -resume-> ACTIVE -finish-> FINISHED', async () => {
    const created = await create('USERTASK', 'full cycle');
    const eventsBefore = events.length;

    const active = await moved(created.pKey, 'start');
    expect(active).toMatchObject({ state: 'ACTIVE', ol: 1, taskId: created.taskId, description: 'full cycle' });
    expect(active.startedAt).toMatch(ISO_MS);
    expect(active.startedAt! >= created.createDt).toBe(true);
    expect(active).not.toHaveProperty('finishedAt');
    expect(linkRels(active)).toEqual(['self', 'tasks-finish', 'tasks-pause']);

    const paused = await moved(created.pKey, 'pause');
    expect(paused).toMatchObject({ state: 'PAUSED', ol: 2, startedAt: active.startedAt });
    expect(paused).not.toHaveProperty('finishedAt');
    expect(linkRels(paused)).toEqual(['self', 'tasks-resume']);

    const resumed = await moved(created.pKey, 'resume');
    expect(resumed).toMatchObject({ state: 'ACTIVE', ol: 3, startedAt: active.startedAt });

    const finished = await moved(created.pKey, 'finish');
    expect(finished).toMatchObject({ state: 'FINISHED', ol: 4, startedAt: active.startedAt });
    expect(finished.finishedAt).toMatch(ISO_MS);
    expect(finished.finishedAt! >= finished.startedAt!).toBe(true);
    expect(finished.lastModifiedDt).toBe(finished.finishedAt);
    expect(linkRels(finished)).toEqual(['self']);
    expect(await read(created.pKey)).toEqual(finished);

    expect(events.slice(eventsBefore).map((e) => (e.type === 'task.stateChanged' ? [e.type, e.data.from, e.data.to] : [e.type]))).toEqual([
      ['task.stateChanged', 'CREATED', 'ACTIVE'],
      ['task.stateChanged', 'ACTIVE', 'PAUSED'],
      ['task.stateChanged', 'PAUSED', 'ACTIVE'],
      ['task.stateChanged', 'ACTIVE', 'FINISHED'],
    ]);
  });

  it('answers the vendor media type when asked', async () => {
    const task = await create();
    const reply = await wms.post(`/tasks/${task.pKey}/start`, undefined, { headers: { Accept: TASK_TYPE } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/vnd\.vendor\.common\.task-v1\+json/);
  });

  // The whole table of docs/tasks.md: the next state, or the refusal's status and key.
  const TABLE: Record<State, Record<Operation, State | [number, string]>> = {
    CREATED: {
      start: 'ACTIVE',
      pause: [409, 'svc.common.tasks.notActive'],
      resume: [409, 'svc.common.tasks.isNotPaused'],
      finish: [409, 'svc.common.tasks.notActive'],
    },
    ACTIVE: {
      start: [409, 'svc.common.tasks.alreadyStarted'],
      pause: 'PAUSED',
      resume: [409, 'svc.common.tasks.isNotPaused'],
      finish: 'FINISHED',
    },
    PAUSED: {
      start: [409, 'svc.common.tasks.isPaused'],
      pause: [409, 'svc.common.tasks.alreadyPaused'],
      resume: 'ACTIVE',
      finish: [409, 'svc.common.tasks.isPaused'],
    },
    FINISHED: {
      start: [409, 'svc.common.tasks.alreadyFinished'],
      pause: [409, 'svc.common.tasks.alreadyFinished'],
      resume: [409, 'svc.common.tasks.alreadyFinished'],
      finish: [409, 'svc.common.tasks.alreadyFinished'],
    },
  };
  const pairs = STATES.flatMap((state) => OPERATIONS.map((operation) => [state, operation, TABLE[state][operation]] as const));

  it.each(pairs)('%s + %s → %j', async (state, operation, outcome) => {
    const task = await taskIn(state, `${state} ${operation}`);
    if (typeof outcome === 'string') {
      const eventsBefore = events.length;
      const after = await moved(task.pKey, operation);
      expect(after.state).toBe(outcome);
      expect(after.ol).toBe(task.ol + 1);
      expect(after.lastModifiedDt >= task.lastModifiedDt).toBe(true);
      expect(after.createDt).toBe(task.createDt);
      expect(after.taskId).toBe(task.taskId);
      if (operation === 'start') expect(after.startedAt).toMatch(ISO_MS);
      else expect(after.startedAt).toBe(task.startedAt);
      if (operation === 'finish') expect(after.finishedAt).toMatch(ISO_MS);
      else expect(after).not.toHaveProperty('finishedAt');
      expect(await read(task.pKey)).toEqual(after);
      expect(events.slice(eventsBefore)).toEqual([
        expect.objectContaining({
          type: 'task.stateChanged',
          data: { pKey: task.pKey, taskId: task.taskId, operation, from: state, to: outcome },
        }),
      ]);
    } else {
      const [status, key] = outcome;
      const reply = await refusedWithoutChange(
        () => move(task.pKey, operation),
        (r) => expectApiError(r, status, key),
      );
      expect(reply.body.obj).toEqual([task.pKey, state]);
      expect(reply.body.message).toContain(task.taskId);
      expect(await read(task.pKey)).toEqual(task);
    }
  });

  it.each(OPERATIONS)('%s of an unknown pKey: 404 svc.common.tasks.notFoundByPKey', async (operation) => {
    const reply = await refusedWithoutChange(
      () => move('NO-SUCH-TASK', operation),
      (r) => expectApiError(r, 404, 'svc.common.tasks.notFoundByPKey'),
    );
    expect(reply.body.obj).toEqual(['NO-SUCH-TASK']);
  });

  it('a body sent with a move is ignored', async () => {
    const task = await create();
    const reply = await wms.post(`/tasks/${task.pKey}/start`, { state: 'FINISHED', startedAt: '2020-01-01T00:00:00.000Z' });
    expect(reply.status).toBe(200);
    expect(reply.body.state).toBe('ACTIVE');
    expect(reply.body.startedAt).not.toBe('2020-01-01T00:00:00.000Z');
  });

  it('GET on a move path is not allowed (405) and changes nothing', async () => {
    const task = await create();
    await refusedWithoutChange(
      () => wms.get(`/tasks/${task.pKey}/start`),
      (r) => expectServerError(r, 405),
    );
  });
});

// ---- configuration ----------------------------------------------------------

describe('configurable task types (tasks.types)', () => {
  let site: TestAppliance;
  /** Data directory of the loadConfig-only cases (no config file in it). */
  const configDir = tempDir();
  beforeAll(async () => {
    site = await startTestAppliance({ tasks: { types: ['PICK', 'PACK'] } });
  });
  afterAll(async () => {
    await site.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('creates tasks of the configured types', async () => {
    for (const type of ['PICK', 'PACK']) {
      const reply = await site.post('/tasks', { type });
      expect(reply.status, reply.text).toBe(201);
      expect(reply.body.type).toBe(type);
    }
  });

  it('refuses the default types there, naming the supported ones, and changes nothing', async () => {
    for (const type of ['MANUAL', 'USERTASK']) {
      const reply = await refusedWithoutChange(
        () => site.post('/tasks', { type }),
        (r) => expectApiError(r, 400, 'core.validation.error'),
        site,
      );
      expect(reply.body.message).toContain(type);
      expect(reply.body.message).toContain('PICK, PACK');
    }
  });

  it('defaults to MANUAL and USERTASK', () => {
    expect(wms.app.config.tasks.types).toEqual(['MANUAL', 'USERTASK']);
  });

  it('is read from WMS_TASKS_TYPES as a JSON list', () => {
    const { config } = loadConfig({ WMS_TASKS_TYPES: '["PICK","COUNT"]' }, { values: {} }, { storage: { dataDir: configDir } });
    expect(config.tasks.types).toEqual(['PICK', 'COUNT']);
  });

  it.each([
    ['an empty list', []],
    ['an empty type', ['PICK', '']],
    ['a blank type', ['  ']],
    ['a number', [5]],
    ['a plain string', 'PICK'],
  ])('refuses %s at start', (_what, types) => {
    expect(() => loadConfig({}, { values: {} }, { storage: { dataDir: configDir }, tasks: { types: types as string[] } })).toThrow(ConfigError);
    expect(() => loadConfig({}, { values: {} }, { storage: { dataDir: configDir }, tasks: { types: types as string[] } })).toThrow(/tasks\.types/);
  });
});
