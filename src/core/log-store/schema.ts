// The logs database: a second SQLite file beside the appliance's database
// (`<name>-logs.sqlite`), written only by the log writer thread (writer.worker.ts), read
// by the appliance. It holds what grows with every telegram and every change but need
// not commit with them: the telegram log, and the index of what each event is about.
// Keeping it out of the appliance's database keeps its writes off the thread that
// answers the PLCs (their commits write nothing of it) and out of the backups (it is
// diagnostics and an index; the index is rebuilt from the events when it is missing).
//
// Versioned by PRAGMA user_version like the appliance's migrations; an unknown newer
// version is renamed away and started afresh (nothing in it is the only copy of a fact
// except telegrams, which are diagnostics).

export const LOGS_VERSION = 1;

export const LOGS_SCHEMA = `
-- Every telegram received and sent on every PLC channel. The decoded fields are not
-- stored: they are decoded from \`text\` when read. A unit's telegrams are found by its
-- barcode; a channel's by reading the ids in windows (a site has a handful of channels).
CREATE TABLE telegram_log (
  id          INTEGER PRIMARY KEY,
  at          TEXT NOT NULL,
  channel     TEXT NOT NULL,
  direction   TEXT NOT NULL CHECK (direction IN ('in', 'out')),
  type        TEXT,
  seq         INTEGER,
  text        TEXT NOT NULL,
  -- in: \`ok\`, the adapter's outcome, \`duplicate\`, \`sync\` or the rejection; out: \`reply\`, \`unsolicited\`, …
  outcome     TEXT NOT NULL,
  barcode     TEXT,
  location    TEXT,
  order_pk    TEXT,
  -- For a reply: milliseconds since the telegram it answers arrived.
  latency_ms  REAL,
  connection  INTEGER
) STRICT;
CREATE INDEX telegram_log_barcode ON telegram_log (barcode, id) WHERE barcode IS NOT NULL;

-- What an event of the appliance's database is about: its subject and the other things
-- it names (the unit of an order, the two locations of a move). A thing's history is
-- read here, then its events from the appliance's database by id.
CREATE TABLE event_refs (
  kind     TEXT NOT NULL,
  key      TEXT NOT NULL,
  event_id INTEGER NOT NULL,
  PRIMARY KEY (kind, key, event_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX event_refs_event ON event_refs (event_id);

-- How far the index has got: the newest event id indexed.
CREATE TABLE positions (
  name     TEXT PRIMARY KEY,
  position INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- The boot of the machine the writer last ran in, and whether it stopped cleanly:
-- after a power cut the database is checked (writer.worker.ts).
CREATE TABLE meta (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
`;

/** The logs database of an appliance database file: `wms.sqlite` → `wms-logs.sqlite`. */
export const logsFileOf = (databaseFile: string): string => databaseFile.replace(/(\.sqlite)?$/, '-logs.sqlite');

/** The columns of a telegram log row, in insert order. */
export const TELEGRAM_COLUMNS = [
  'at',
  'channel',
  'direction',
  'type',
  'seq',
  'text',
  'outcome',
  'barcode',
  'location',
  'order_pk',
  'latency_ms',
  'connection',
] as const;

/** An index row: kind, key, event id. */
export type RefRow = [kind: string, key: string, eventId: number];

/** What the appliance asks of the writer thread; answered in order. */
export type WriterRequest =
  /** The database to open: the first message of a thread started ahead (prestartLogWriter); it then takes its place below the conveyor thread. */
  | { op: 'open'; file: string; nativeBinding: string | undefined }
  /** Take the checkpoints of the appliance's database `file` (checkpoints.ts) from now on. */
  | { op: 'checkpoints'; file: string }
  | { op: 'telegrams'; rows: unknown[][] }
  | { op: 'refs'; rows: RefRow[] }
  | { op: 'sync'; id: number }
  | { op: 'pruneTelegrams'; id: number; olderThan: string; maxRows: number; batch: number }
  | { op: 'pruneRefs'; id: number; upto: number }
  | { op: 'resetRefs'; id: number }
  | { op: 'close'; id: number };

export type WriterReply =
  | { op: 'ready'; position: number }
  | { op: 'notice'; message: string }
  /** The checkpoints asked for with `checkpoints` stopped: the appliance takes them itself. */
  | { op: 'checkpointsStopped'; message: string }
  | { op: 'done'; id: number; count?: number }
  | { op: 'failed'; id?: number; message: string };
