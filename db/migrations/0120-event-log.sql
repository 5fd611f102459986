-- The durable event log and alarms (docs/events.md).
--
-- events: every change of the appliance, written by the unit of work in the same
-- transaction as the change itself, so a committed change always has its event and a
-- rolled-back one never has. An id is never handed out again: ids follow the newest
-- row, and retention never deletes the newest (src/core/event-log.ts), so a client's
-- Last-Event-ID never names a different event after a restart. (AUTOINCREMENT would
-- say the same at the price of one more page written with every change.)
--
-- Every index is paid for by every change (a PLC telegram's commit writes each touched
-- page once more), so there is none: filters by type or actor read the log window by
-- window in id order instead (time bounds become id bounds by a binary search).
CREATE TABLE events (
  id           INTEGER PRIMARY KEY,
  type         TEXT NOT NULL,
  at           TEXT NOT NULL,
  actor_kind   TEXT NOT NULL CHECK (actor_kind IN ('user', 'apiKey', 'plc', 'hub', 'system')),
  actor_name   TEXT NOT NULL,
  reason       TEXT,
  subject_kind TEXT NOT NULL,
  subject_key  TEXT NOT NULL,
  -- What changed, as JSON: business keys, before and after where it matters.
  data         TEXT NOT NULL,
  -- The other things the event names besides its subject, as JSON [[kind, key], …];
  -- NULL for none (the index in the logs database is rebuilt from these and the subject).
  refs         TEXT
) STRICT;

-- What each event is about (the index of a thing's history) and the telegram log are
-- kept in the logs database beside this one (src/core/log-store/schema.ts), written by
-- a thread of their own, so that no PLC telegram's commit writes them.

-- Alarms the appliance raises and clears from what it sees. `condition` names the
-- condition (`location.plcState:<locationId>`, `plcChannel.down:<name>`, …); at most
-- one alarm per condition is open (not cleared) at a time, its repeats counted.
CREATE TABLE alarms (
  id               INTEGER PRIMARY KEY,
  condition        TEXT NOT NULL,
  kind             TEXT NOT NULL,
  severity         TEXT NOT NULL CHECK (severity IN ('critical', 'major', 'minor', 'warning')),
  state            TEXT NOT NULL CHECK (state IN ('active', 'acknowledged', 'cleared')),
  message          TEXT NOT NULL,
  source_kind      TEXT NOT NULL,
  source_key       TEXT NOT NULL,
  first_seen       TEXT NOT NULL,
  last_seen        TEXT NOT NULL,
  count            INTEGER NOT NULL DEFAULT 1,
  -- Event alarms (an ERR_ without group, an order ONFAILURE) have no condition that
  -- goes away: acknowledging them clears them.
  clears_on_ack    INTEGER NOT NULL DEFAULT 0,
  acknowledged_by  TEXT,
  acknowledged_at  TEXT,
  ack_comment      TEXT,
  shelved_until    TEXT,
  shelved_by       TEXT,
  shelve_comment   TEXT,
  cleared_at       TEXT
) STRICT;
CREATE UNIQUE INDEX alarms_open ON alarms (condition) WHERE state <> 'cleared';
CREATE INDEX alarms_state ON alarms (state, id);
