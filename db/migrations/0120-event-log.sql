-- The durable event log, the telegram log and alarms (docs/events.md).
--
-- events: every change of the appliance, written by the unit of work in the same
-- transaction as the change itself, so a committed change always has its event and a
-- rolled-back one never has. An id is never handed out again: ids follow the newest
-- row, and retention never deletes the newest (src/core/event-log.ts), so a client's
-- Last-Event-ID never names a different event after a restart. (AUTOINCREMENT would
-- say the same at the price of one more page written with every change.)
--
-- Every index is paid for by every change (a PLC telegram's commit writes each touched
-- page once more), so there are few: filters by type or actor read the log window by
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
  -- The other things the event names besides its subject, as JSON [[kind, key], …]; NULL for none.
  refs         TEXT
) STRICT;

-- What an event is about: its subject, and the other things it names (the transport
-- unit of an order, the two locations of a move). History of one thing is read here.
-- Written a few milliseconds behind the events (see log_positions), so that a PLC
-- telegram's commit does not write these scattered pages each time; pruned with its
-- events (their subject and refs name the rows).
CREATE TABLE event_refs (
  kind     TEXT NOT NULL,
  key      TEXT NOT NULL,
  event_id INTEGER NOT NULL,
  PRIMARY KEY (kind, key, event_id)
) STRICT, WITHOUT ROWID;

-- How far a log that is written behind its source has got: `event_refs` is written a
-- few milliseconds after its events commit (src/core/ride-along.ts); at start, the
-- events after its position are indexed again.
CREATE TABLE log_positions (
  name     TEXT PRIMARY KEY,
  position INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Every telegram received and sent on every PLC channel. The decoded fields are not
-- stored: they are decoded from `text` when read, which keeps the row small and the
-- write path free of serialisation.
CREATE TABLE telegram_log (
  id          INTEGER PRIMARY KEY,
  at          TEXT NOT NULL,
  channel     TEXT NOT NULL,
  direction   TEXT NOT NULL CHECK (direction IN ('in', 'out')),
  type        TEXT,
  seq         INTEGER,
  text        TEXT NOT NULL,
  -- in: `ok`, the adapter's outcome, `duplicate`, `sync` or the rejection (§B6); out: `reply`, `unsolicited`, …
  outcome     TEXT NOT NULL,
  barcode     TEXT,
  location    TEXT,
  order_pk    TEXT,
  -- For a reply: milliseconds since the telegram it answers arrived.
  latency_ms  REAL,
  connection  INTEGER
) STRICT;
-- A unit's telegrams are read by barcode (its history); a channel's by scanning windows of ids.
CREATE INDEX telegram_log_barcode ON telegram_log (barcode, id) WHERE barcode IS NOT NULL;

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
