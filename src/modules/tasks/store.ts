import type { Db } from '../../core/db.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../core/versioned.ts';

// All SQL of the tasks module (tables `tasks` and `task_sequence`, migration 0040).

export const TASK_STATES = ['CREATED', 'ACTIVE', 'PAUSED', 'FINISHED'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export interface Task extends Versioned {
  taskId: string;
  type: string;
  description: string | null;
  state: TaskState;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface NewTaskRow {
  pk: string;
  seq: number;
  taskId: string;
  type: string;
  description: string | null;
}

interface Row extends VersionedRow {
  task_id: string;
  type: string;
  description: string | null;
  state: TaskState;
  started_at: string | null;
  finished_at: string | null;
}

const SELECT = `
  SELECT pk, task_id, type, description, state, started_at, finished_at, ol, create_dt, last_modified_dt
  FROM tasks`;

const toTask = (row: Row): Task => ({
  ...versionedFrom(row),
  taskId: row.task_id,
  type: row.type,
  description: row.description,
  state: row.state,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
});

export function createTaskStore(db: Db) {
  const s = {
    all: db.prepare<[], Row>(`${SELECT} ORDER BY seq`),
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE pk = ?`),
    byTaskId: db.prepare<[string], Row>(`${SELECT} WHERE task_id = ?`),
    nextSeq: db
      .prepare<[], number>('UPDATE task_sequence SET last_value = last_value + 1 WHERE id = 1 RETURNING last_value')
      .pluck(),
    insert: db.prepare<[NewTaskRow & { now: string }]>(
      `INSERT INTO tasks (pk, seq, task_id, type, description, state, ol, create_dt, last_modified_dt)
       VALUES (@pk, @seq, @taskId, @type, @description, 'CREATED', 0, @now, @now)`,
    ),
    setDescription: db.prepare<[{ pk: string; description: string | null; now: string }]>(
      'UPDATE tasks SET description = @description, ol = ol + 1, last_modified_dt = @now WHERE pk = @pk',
    ),
    setState: db.prepare<[{ pk: string; state: TaskState; startedAt: string | null; finishedAt: string | null; now: string }]>(
      `UPDATE tasks SET state = @state, started_at = @startedAt, finished_at = @finishedAt,
         ol = ol + 1, last_modified_dt = @now WHERE pk = @pk`,
    ),
  };

  return {
    /** Every task, oldest first (in the order their taskIds were assigned). */
    all: (): Task[] => s.all.all().map(toTask),
    byPk: (pk: string): Task | undefined => {
      const row = s.byPk.get(pk);
      return row && toTask(row);
    },
    byTaskId: (taskId: string): Task | undefined => {
      const row = s.byTaskId.get(taskId);
      return row && toTask(row);
    },
    /** Draws the next number of the taskId counter; call inside the create's transaction. */
    nextSeq: (): number => s.nextSeq.get()!,
    insert: (row: NewTaskRow, now: string): void => {
      s.insert.run({ ...row, now });
    },
    setDescription: (pk: string, description: string | null, now: string): void => {
      s.setDescription.run({ pk, description, now });
    },
    setState: (pk: string, state: TaskState, startedAt: string | null, finishedAt: string | null, now: string): void => {
      s.setState.run({ pk, state, startedAt, finishedAt, now });
    },
  };
}

export type TaskStore = ReturnType<typeof createTaskStore>;
