import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { newPKey } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { CORE_KEYS, DomainError, validationError } from '../../core/errors.ts';
import { checkVersion } from '../../core/versioned.ts';
import { TASK_KEYS, type TaskKey } from './errors.ts';
import type { NewTaskInput, TaskUpdateInput } from './schema.ts';
import type { Task, TaskState, TaskStore } from './store.ts';

// The rules of the tasks module (docs/tasks.md and "States and
// transitions / Task"). Routes and the PLC adapter reach tasks only through here.

type TaskOperation = 'start' | 'pause' | 'resume' | 'finish';
export const TASK_OPERATIONS: readonly TaskOperation[] = ['start', 'pause', 'resume', 'finish'];

/** HTTP status of every refused move: the request conflicts with the task's current state. */
const STATE_CONFLICT = 409;

interface Refusal {
  key: TaskKey;
  why: string;
}

const refuse = (key: TaskKey, why: string): Refusal => ({ key, why });
const ALREADY_FINISHED = refuse(TASK_KEYS.alreadyFinished, 'is already finished; no further action is possible');

/**
 * Every state × operation pair: the next state, or the refusal (409 with the key).
 * docs/tasks.md shows the same table.
 */
export const TRANSITIONS: Record<TaskOperation, Record<TaskState, TaskState | Refusal>> = {
  start: {
    CREATED: 'ACTIVE',
    ACTIVE: refuse(TASK_KEYS.alreadyStarted, 'is already started'),
    PAUSED: refuse(TASK_KEYS.isPaused, 'is paused; resume it instead'),
    FINISHED: ALREADY_FINISHED,
  },
  pause: {
    CREATED: refuse(TASK_KEYS.notActive, 'is not active; start it first'),
    ACTIVE: 'PAUSED',
    PAUSED: refuse(TASK_KEYS.alreadyPaused, 'is already paused'),
    FINISHED: ALREADY_FINISHED,
  },
  resume: {
    CREATED: refuse(TASK_KEYS.isNotPaused, 'is not paused; only a paused task can be resumed'),
    ACTIVE: refuse(TASK_KEYS.isNotPaused, 'is not paused; only a paused task can be resumed'),
    PAUSED: 'ACTIVE',
    FINISHED: ALREADY_FINISHED,
  },
  finish: {
    CREATED: refuse(TASK_KEYS.notActive, 'is not active; start it first'),
    ACTIVE: 'FINISHED',
    PAUSED: refuse(TASK_KEYS.isPaused, 'is paused; resume it before finishing it'),
    FINISHED: ALREADY_FINISHED,
  },
};

/** `T-000001`: the business key drawn from the task counter (never reused). */
const formatTaskId = (seq: number): string => `T-${String(seq).padStart(6, '0')}`;

interface TaskServiceDeps {
  work: UnitOfWork;
  store: TaskStore;
  /** The task types this site supports (config `tasks.types`). */
  types: readonly string[];
}

export function createTaskService({ work, store, types }: TaskServiceDeps) {
  const supported = new Set(types);

  function byPKey(pKey: string): Task {
    const task = store.byPk(pKey);
    if (!task) {
      throw new DomainError(404, TASK_KEYS.notFoundByPKey, `Task with pKey [${pKey}] does not exist`, { obj: [pKey] });
    }
    return task;
  }

  const alreadyExists = (what: string, value: string) =>
    new DomainError(409, TASK_KEYS.alreadyExists, `Task with ${what} [${value}] already exists`, { obj: [value] });

  function checkType(type: string) {
    if (!supported.has(type)) {
      throw new DomainError(
        400,
        CORE_KEYS.validationError,
        `Validation failed: type: [${type}] is not a supported task type; supported types: ${types.join(', ')}`,
        { obj: [type] },
      );
    }
  }

  /** PUT may echo the read-only fields; a value that differs from the stored one is refused. */
  function readOnlyDifferences(current: Task, input: TaskUpdateInput): string[] {
    const stored: Record<string, string | null> = {
      taskId: current.taskId,
      type: current.type,
      state: current.state,
      startedAt: current.startedAt,
      finishedAt: current.finishedAt,
      createDt: current.createDt,
    };
    const differing: string[] = [];
    for (const [field, value] of Object.entries(stored)) {
      const sent = input[field as keyof TaskUpdateInput];
      if (sent !== undefined && (sent ?? null) !== value) differing.push(field);
    }
    return differing;
  }

  function move(pKey: string, operation: TaskOperation): Task {
    return work.run(() => {
      const current = byPKey(pKey);
      const next = TRANSITIONS[operation][current.state];
      if (typeof next !== 'string') {
        throw new DomainError(STATE_CONFLICT, next.key, `Cannot ${operation} task [${current.taskId}]: it ${next.why} (state ${current.state})`, {
          obj: [pKey, current.state],
        });
      }
      const now = nowIso();
      const startedAt = operation === 'start' ? now : current.startedAt;
      const finishedAt = operation === 'finish' ? now : current.finishedAt;
      store.setState(current.pk, next, startedAt, finishedAt, now);
      work.emit({ type: 'task.stateChanged', key: current.taskId, data: { pKey, taskId: current.taskId, operation, from: current.state, to: next } });
      return store.byPk(pKey)!;
    });
  }

  return {
    /** The configured task types, in configuration order. */
    supportedTypes: (): readonly string[] => types,
    /** Every task, oldest first: pages, or the whole list streamed. */
    list: () => store.list(),
    byPKey,

    /** A new task in state CREATED with the next taskId. */
    create(input: NewTaskInput): Task {
      return work.run(() => {
        if (input.pKey !== undefined) {
          if (store.byPk(input.pKey)) throw alreadyExists('pKey', input.pKey);
          throw validationError('Validation failed: pKey: is assigned by the server; leave it out of a create');
        }
        if (input.taskId !== undefined) {
          if (store.byTaskId(input.taskId)) throw alreadyExists('taskId', input.taskId);
          throw validationError('Validation failed: taskId: is assigned by the server; leave it out of a create');
        }
        checkType(input.type);
        const pk = newPKey();
        const seq = store.nextSeq();
        const taskId = formatTaskId(seq);
        store.insert({ pk, seq, taskId, type: input.type, description: input.description ?? null }, nowIso());
        work.emit({ type: 'task.created', key: taskId, data: { pKey: pk, taskId, type: input.type } });
        return store.byPk(pk)!;
      });
    },

    /**
     * Changes the description (the only modifiable field). A stale `ol` → 409 and
     * nothing changes; a finished task is closed (409 alreadyFinished); an update that
     * changes nothing writes nothing (ol stays), so a retried PUT succeeds again.
     */
    update(input: TaskUpdateInput): Task {
      return work.run(() => {
        const current = byPKey(input.pKey);
        checkVersion('Task', current, input.ol);
        if (current.state === 'FINISHED') {
          throw new DomainError(
            STATE_CONFLICT,
            TASK_KEYS.alreadyFinished,
            `Cannot update task [${current.taskId}]: it is already finished; no further action is possible`,
            { obj: [current.pk, current.state] },
          );
        }
        const differing = readOnlyDifferences(current, input);
        if (differing.length > 0) {
          throw validationError(
            `Validation failed: ${differing.map((f) => `${f}: cannot be changed`).join('; ')}; only description is modifiable` +
              (differing.some((f) => f !== 'taskId' && f !== 'type' && f !== 'createDt')
                ? ' (the state changes by POST /tasks/{pKey}/start|pause|resume|finish)'
                : ''),
          );
        }
        const description = input.description ?? null;
        if (description === current.description) return current;
        store.setDescription(current.pk, description, nowIso());
        work.emit({ type: 'task.changed', key: current.taskId, data: { pKey: current.pk, taskId: current.taskId } });
        return store.byPk(input.pKey)!;
      });
    },

    start: (pKey: string) => move(pKey, 'start'),
    pause: (pKey: string) => move(pKey, 'pause'),
    resume: (pKey: string) => move(pKey, 'resume'),
    finish: (pKey: string) => move(pKey, 'finish'),
    move,
  };
}

export type TaskService = ReturnType<typeof createTaskService>;
