import type { Db } from '../../core/db.ts';
import { KeysetList, type Listing } from '../../core/listing.ts';
import type { ReadPool } from '../../core/read-pool.ts';
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

interface NewTaskRow {
  pk: string;
  seq: number;
  taskId: string;
  type: string;
  description: string | null;
}

interface Row extends VersionedRow {
  seq: number;
  task_id: string;
  type: string;
  description: string | null;
  state: TaskState;
  started_at: string | null;
  finished_at: string | null;
}

const SELECT = `
  SELECT pk, seq, task_id, type, description, state, started_at, finished_at, ol, create_dt, last_modified_dt
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

/**
 * Every task, oldest first (by its number), a page or a chunk at a time (core/listing.ts).
 * Tasks pile up with the site's history: the whole list streams from a snapshot.
 */
const EVERY_TASK = new KeysetList<Row>({
  sql: `${SELECT} WHERE seq > @k0 ORDER BY seq LIMIT @limit`,
  keyOf: (row) => [row.seq],
  first: [-1],
});

export function createTaskStore(db: Db, reads?: ReadPool) {
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE pk = ?`),
    byTaskId: db.prepare<[string], Row>(`${SELECT} WHERE task_id = ?`),
    nextSeq: db.prepare<[], number>('UPDATE task_sequence SET last_value = last_value + 1 WHERE id = 1 RETURNING last_value').pluck(),
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
    /** Every task, oldest first: pages, or the whole list streamed. */
    list: (): Listing<Task> => EVERY_TASK.listing(db, {}, (rows) => rows.map(toTask), reads),
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
