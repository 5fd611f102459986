-- Tasks module (docs/tasks.md): human tasks with the lifecycle
-- CREATED -start-> ACTIVE -pause-> PAUSED -resume-> ACTIVE -finish-> FINISHED.
--
-- `task_id` is the business key the server assigns on create: `T-` and the number
-- `seq` drawn from `task_sequence`, zero-padded to six digits (`T-000001`, …,
-- `T-999999`, `T-1000000`). The counter only ever grows, so a number is never handed
-- out twice, not even after a task row was removed. `seq` also orders the list.

CREATE TABLE task_sequence (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  last_value INTEGER NOT NULL CHECK (last_value >= 0)
);
INSERT INTO task_sequence (id, last_value) VALUES (1, 0);

CREATE TABLE tasks (
  pk               TEXT PRIMARY KEY,
  seq              INTEGER NOT NULL UNIQUE,
  task_id          TEXT NOT NULL UNIQUE,
  type             TEXT NOT NULL,
  description      TEXT,
  state            TEXT NOT NULL DEFAULT 'CREATED' CHECK (state IN ('CREATED', 'ACTIVE', 'PAUSED', 'FINISHED')),
  started_at       TEXT,
  finished_at      TEXT,
  ol               INTEGER NOT NULL DEFAULT 0,
  create_dt        TEXT NOT NULL,
  last_modified_dt TEXT NOT NULL,
  -- A task that left CREATED has been started; a FINISHED one (and only that) has finished.
  CHECK ((state = 'CREATED') = (started_at IS NULL)),
  CHECK ((state = 'FINISHED') = (finished_at IS NOT NULL))
);
