import type { Statement } from 'better-sqlite3';
import type { ActorKind } from './actor.ts';
import { batchInsert, type Db } from './db.ts';
import type { EventRecord, Subject } from './event-catalogue.ts';
import { firstIdAt, pruneUpto } from './retention.ts';
import { RideAlong, type Rider } from './ride-along.ts';

// The durable event log: all SQL of the `events` and `event_refs` tables
// (db/migrations/0120-event-log.sql). The unit of work appends; live streams replay;
// history pages through it; retention prunes its oldest rows in small batches.
//
// An event is written with its change. What it is about (`event_refs`, the index of a
// thing's history) is written a few milliseconds behind, riding on a later commit
// (core/ride-along.ts): those rows land on scattered pages, and writing them with each
// PLC telegram's commit would cost every telegram. A history read writes what waits
// first, so it always sees every committed event; at start, events after the index's
// recorded position are indexed again (a crash loses none).
//
// Ids grow with time (one writer, AUTOINCREMENT), so a time bound is turned into an id
// bound by a binary search over the primary key instead of keeping an index on `at`
// that every insert would pay for; filters by type or actor read windows of ids.

interface EventRow {
  id: number;
  type: string;
  at: string;
  actor_kind: ActorKind;
  actor_name: string;
  reason: string | null;
  subject_kind: string;
  subject_key: string;
  data: string;
}

export interface EventQuery {
  /** Exact type names (wildcards already expanded); empty or absent = all. */
  types?: readonly string[] | undefined;
  actorKind?: ActorKind | undefined;
  actorName?: string | undefined;
  /** Events about this thing: its subject or one of its refs. */
  about?: Subject | undefined;
  subjectKind?: string | undefined;
  /** ISO bounds on `at`, both inclusive. */
  from?: string | undefined;
  to?: string | undefined;
}

interface RefRow {
  id: number;
  subject_kind: string;
  subject_key: string;
  refs: string | null;
}

/** The index rows of an event as the log keeps it: its subject and its refs. */
const refRows = (row: RefRow): Ref[] => [
  [row.subject_kind, row.subject_key, row.id],
  ...((row.refs ? JSON.parse(row.refs) : []) as [string, string][]).map(([kind, key]): Ref => [kind, key, row.id]),
];

const COLUMNS = 'e.id, e.type, e.at, e.actor_kind, e.actor_name, e.reason, e.subject_kind, e.subject_key, e.data';

export function toRecord(row: EventRow): EventRecord {
  const record = {
    id: row.id,
    type: row.type,
    at: row.at,
    actor: { kind: row.actor_kind, name: row.actor_name },
    subject: { kind: row.subject_kind, key: row.subject_key },
    data: JSON.parse(row.data) as unknown,
  } as EventRecord;
  if (row.reason !== null) record.reason = row.reason;
  return record;
}

/** An index row: kind, key, event id. */
type Ref = [string, string, number];
const INDEX_POSITION = 'event_refs';
const REINDEX_CHUNK = 1000;

export class EventLog {
  private readonly db: Db;
  private readonly refs: RideAlong<Ref>;
  /** The rows an event's references become, kept until its unit of work commits. */
  private readonly staged = new WeakMap<EventRecord, Ref[]>();
  private readonly insertRefs: (rows: readonly Ref[]) => void;
  private readonly setPosition: Statement;
  private readonly statements = new Map<string, Statement>();
  private readonly insertEvent: Statement;
  private readonly afterId: Statement;
  private readonly firstFrom: Statement;
  private readonly minId: Statement;
  private readonly maxId: Statement;
  private readonly refsUpto: Statement;
  private readonly deleteRef: Statement;
  private readonly deleteEvents: Statement;

  constructor(db: Db) {
    this.db = db;
    this.insertEvent = db.prepare(
      `INSERT INTO events (type, at, actor_kind, actor_name, reason, subject_kind, subject_key, data, refs)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.setPosition = db.prepare('INSERT INTO log_positions (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position');
    this.insertRefs = batchInsert(db, 'INSERT OR IGNORE INTO event_refs (kind, key, event_id)', 3);
    this.refs = new RideAlong<Ref>(db, (rows) => this.writeRefs(rows));
    this.afterId = db.prepare(`SELECT ${COLUMNS} FROM events e WHERE e.id > ? ORDER BY e.id LIMIT ?`);
    this.firstFrom = db.prepare('SELECT id, at FROM events WHERE id >= ? ORDER BY id LIMIT 1');
    this.minId = db.prepare('SELECT min(id) AS id FROM events').pluck();
    this.maxId = db.prepare('SELECT max(id) AS id FROM events').pluck();
    this.refsUpto = db.prepare('SELECT id, subject_kind, subject_key, refs FROM events WHERE id <= ? ORDER BY id');
    this.deleteRef = db.prepare('DELETE FROM event_refs WHERE kind = ? AND key = ? AND event_id = ?');
    this.deleteEvents = db.prepare('DELETE FROM events WHERE id <= ?');
  }

  /** Writes the index of the events committed while the appliance was down or crashed; call once at start. */
  recoverIndex(): number {
    const position = (this.db.prepare('SELECT position FROM log_positions WHERE name = ?').pluck().get(INDEX_POSITION) as number | undefined) ?? 0;
    const unindexed = this.db.prepare('SELECT id, subject_kind, subject_key, refs FROM events WHERE id > ? ORDER BY id LIMIT ?');
    let count = 0;
    for (let after = position; ; ) {
      const rows = unindexed.all(after, REINDEX_CHUNK) as RefRow[];
      if (rows.length === 0) break;
      this.db.transaction(() => this.writeRefs(rows.flatMap(refRows)))();
      after = rows[rows.length - 1]!.id;
      count += rows.length;
    }
    return count;
  }

  /** Rides on the commits of the unit of work (core/unit-of-work.ts). */
  get indexRider(): Rider {
    return this.refs;
  }

  /** After a unit of work committed: its events' references go to the index. */
  committed(events: readonly EventRecord[]): void {
    for (const event of events) {
      const rows = this.staged.get(event);
      if (rows) for (const row of rows) this.refs.add(row);
    }
  }

  /** Writes the index rows that wait, so that a read of a thing's history sees every committed event. */
  flushIndex(): void {
    this.refs.flush();
  }

  /** Appends an event (inside the unit of work's transaction); returns its id. */
  insert(record: EventRecord, refs: readonly Subject[] | undefined): number {
    const id = Number(
      this.insertEvent.run(
        record.type,
        record.at,
        record.actor.kind,
        record.actor.name,
        record.reason ?? null,
        record.subject.kind,
        record.subject.key,
        JSON.stringify(record.data),
        refs?.length ? JSON.stringify(refs.map((r) => [r.kind, r.key])) : null,
      ).lastInsertRowid,
    );
    const rows: Ref[] = [[record.subject.kind, record.subject.key, id]];
    if (refs) for (const ref of refs) rows.push([ref.kind, ref.key, id]);
    this.staged.set(record, rows);
    return id;
  }

  /** Inside a transaction: index rows and the index's new position. */
  private writeRefs(rows: readonly Ref[]): void {
    this.insertRefs(rows);
    if (rows.length > 0) this.setPosition.run(INDEX_POSITION, rows[rows.length - 1]![2]);
  }

  /** The events after an id, oldest first (live stream replay). */
  after(id: number, limit: number): EventRecord[] {
    return (this.afterId.all(id, limit) as EventRow[]).map(toRecord);
  }

  /** The oldest id still kept; undefined when the log is empty. */
  oldest(): number | undefined {
    return (this.minId.get() as number | null) ?? undefined;
  }

  /** The newest id handed out (retention keeps the newest event, so it is never handed out again); 0 for none. */
  newest(): number {
    return (this.maxId.get() as number | null) ?? 0;
  }

  /** The first id whose time is at or after `iso` (newest + 1 when none is). */
  firstIdAt(iso: string): number {
    return firstIdAt(this.firstFrom, this.oldest(), this.newest(), iso);
  }

  /**
   * Events matching `query` with `afterId < id <= uptoId`, oldest first, at most `limit`.
   * Callers keep the window small (a few thousand ids) so one call stays short.
   */
  window(query: EventQuery, afterId: number, uptoId: number, limit: number): EventRecord[] {
    const where: string[] = [];
    const params: unknown[] = [];
    let from = 'events e';
    if (query.about) {
      if (this.refs.size > 0 && !this.db.inTransaction) this.flushIndex();
      from = 'event_refs r JOIN events e ON e.id = r.event_id';
      where.push('r.kind = ?', 'r.key = ?', 'r.event_id > ?', 'r.event_id <= ?');
      params.push(query.about.kind, query.about.key, afterId, uptoId);
    } else {
      where.push('e.id > ?', 'e.id <= ?');
      params.push(afterId, uptoId);
    }
    if (query.types?.length) {
      where.push(`e.type IN (${query.types.map(() => '?').join(', ')})`);
      params.push(...query.types);
    }
    if (query.actorName !== undefined) {
      where.push('e.actor_name = ?');
      params.push(query.actorName);
    }
    if (query.actorKind !== undefined) {
      where.push('e.actor_kind = ?');
      params.push(query.actorKind);
    }
    if (query.subjectKind !== undefined) {
      where.push('e.subject_kind = ?');
      params.push(query.subjectKind);
    }
    if (query.from !== undefined) {
      where.push('e.at >= ?');
      params.push(query.from);
    }
    if (query.to !== undefined) {
      where.push('e.at <= ?');
      params.push(query.to);
    }
    const order = query.about ? 'r.event_id' : 'e.id';
    const sql = `SELECT ${COLUMNS} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`;
    params.push(limit);
    return (this.statement(sql).all(...params) as EventRow[]).map(toRecord);
  }

  /**
   * Deletes the oldest events that are older than `olderThan` or beyond the newest
   * `maxRows`, at most `batch` of them, in one short transaction; never the newest one,
   * which keeps the ids going. Returns how many ids were released (0: nothing to prune).
   */
  prune(olderThan: string, maxRows: number, batch: number): number {
    const oldest = this.oldest();
    if (oldest === undefined) return 0;
    const newest = this.newest();
    const upto = Math.min(pruneUpto(oldest, newest, maxRows, this.firstIdAt(olderThan), batch), newest - 1);
    if (upto < oldest) return 0;
    this.db.transaction(() => {
      for (const row of this.refsUpto.all(upto) as RefRow[]) for (const ref of refRows(row)) this.deleteRef.run(...ref);
      this.deleteEvents.run(upto);
    })();
    return upto - oldest + 1;
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      // The shapes of a query are few (which filters are given); bound the cache anyway.
      if (this.statements.size > 200) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
