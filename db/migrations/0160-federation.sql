-- The hub link (src/federation, docs/federation.md).
-- How far the export of the event log to the hall's stream got: the last event id the
-- stream acknowledged and the stream sequence it was stored at, per site name (a
-- renamed site is a new stream, exported anew).
CREATE TABLE federation_cursor (
  site        TEXT PRIMARY KEY,
  event_id    INTEGER NOT NULL,
  stream_seq  INTEGER NOT NULL,
  at          TEXT NOT NULL
) WITHOUT ROWID;

-- The hub's commands already run, by their commandId: a command delivered again is
-- answered from here, not run a second time. `answer` is the result as published.
CREATE TABLE hub_commands (
  command_id   TEXT PRIMARY KEY,
  kind         TEXT NOT NULL,
  status       INTEGER NOT NULL,
  answer       TEXT NOT NULL,
  answered_at  TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX hub_commands_answered_at ON hub_commands (answered_at);
