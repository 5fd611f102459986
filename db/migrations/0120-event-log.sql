-- The durable event log, the telegram log and alarms (docs/events.md).
--
-- events: every change of the appliance, written by the unit of work in the same
-- transaction as the change itself, so a committed change always has its event and a
-- rolled-back one never has. AUTOINCREMENT: an id is never handed out again, not even
-- after the newest rows were pruned, so a client's Last-Event-ID never names a
-- different event after a restart.
CREATE TABLE events (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  type         TEXT NOT NULL,
  at           TEXT NOT NULL,
  actor_kind   TEXT NOT NULL CHECK (actor_kind IN ('user', 'apiKey', 'plc', 'hub', 'system')),
  actor_name   TEXT NOT NULL,
  reason       TEXT,
  subject_kind TEXT NOT NULL,
  subject_key  TEXT NOT NULL,
  -- What changed, as JSON: business keys, before and after where it matters.
  data         TEXT NOT NULL
) STRICT;
CREATE INDEX events_type ON events (type, id);
CREATE INDEX events_actor ON events (actor_name, id);

-- What an event is about: its subject, and the other things it names (the transport
-- unit of an order, the two locations of a move). History of one thing is read here.
CREATE TABLE event_refs (
  kind     TEXT NOT NULL,
  key      TEXT NOT NULL,
  event_id INTEGER NOT NULL,
  PRIMARY KEY (kind, key, event_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX event_refs_event ON event_refs (event_id);

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
CREATE INDEX telegram_log_channel ON telegram_log (channel, id);
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
