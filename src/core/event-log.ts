import type { Statement } from 'better-sqlite3';
import type { ActorKind } from './actor.ts';
import type { Db } from './db.ts';
import type { EventRecord, Subject } from './event-catalogue.ts';
import { prepared } from './listing.ts';
import type { Logs, RefRow as IndexRow } from './log-store/index.ts';
import { firstIdAt, pruneUpto } from './retention.ts';

// The durable event log: all SQL of the `events` table (db/migrations/0120-event-log.sql).
// The unit of work appends; live streams replay it from read connections (as stored,
// `data` still JSON text: modules/events/frames.ts); history pages through it; the hub
// link exports it; retention prunes its oldest rows in small batches.
//
// An event is written with its change. What it is about (the index of a thing's history)
// goes to the logs database once the change committed (core/log-store), written by a
// thread of its own: those rows land on scattered pages, and writing them with each PLC
// telegram's commit would cost every telegram. A history read waits until the index
// has everything handed over, so it sees every committed event; at start, the events
// after the index's position are indexed again (a crash loses none).
//
// Ids grow with time (one writer), so a time bound is turned into an id bound by a
// binary search over the primary key instead of keeping an index on `at` that every
// insert would pay for; filters by type or actor read windows of ids.

/** An event as the log stores it: `data` is the JSON text it was written with. */
export interface StoredEvent {
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
  subjectKind?: string | undefined;
  /** ISO bounds on `at`, both inclusive. */
  from?: string | undefined;
  to?: string | undefined;
}

interface RefSource {
  id: number;
  subject_kind: string;
  subject_key: string;
  refs: string | null;
}

/** The index rows of an event as the log keeps it: its subject and its refs. */
const refRows = (row: RefSource): IndexRow[] => [
  [row.subject_kind, row.subject_key, row.id],
  ...((row.refs ? JSON.parse(row.refs) : []) as [string, string][]).map(([kind, key]): IndexRow => [kind, key, row.id]),
];

/** True when the event is about the thing: its subject, or one of its refs. */
const names = (row: RefSource, thing: Subject): boolean =>
  (row.subject_kind === thing.kind && row.subject_key === thing.key) ||
  ((row.refs ? JSON.parse(row.refs) : []) as [string, string][]).some(([kind, key]) => kind === thing.kind && key === thing.key);

const COLUMNS = 'e.id, e.type, e.at, e.actor_kind, e.actor_name, e.reason, e.subject_kind, e.subject_key, e.data';
/** The events after an id and up to another, oldest first, at most so many. */
const BETWEEN = `SELECT ${COLUMNS} FROM events e WHERE e.id > ? AND e.id <= ? ORDER BY e.id LIMIT ?`;
const OLDEST = 'SELECT min(id) AS id FROM events';

export function toRecord(row: StoredEvent): EventRecord {
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

type Ref = IndexRow;
const REINDEX_CHUNK = 2000;

export class EventLog {
  private readonly db: Db;
  private readonly index: Logs | undefined;
  /** The rows an event's references become, kept until its unit of work commits. */
  private readonly staged = new WeakMap<EventRecord, Ref[]>();
  private readonly statements = new Map<string, Statement>();
  private readonly aboutIds: Statement | undefined;
  private readonly insertEvent: Statement;
  private readonly afterId: Statement;
  private readonly firstFrom: Statement;
  private readonly minId: Statement;
  private readonly maxId: Statement;
  private readonly deleteEvents: Statement;
  private readonly unindexed: Statement;

  /** `index`: the logs database that keeps what each event is about; without it, history "about" a thing is not answered. */
  constructor(db: Db, index?: Logs) {
    this.db = db;
    this.index = index;
    this.aboutIds = index?.reader
      .prepare('SELECT event_id FROM event_refs WHERE kind = ? AND key = ? AND event_id > ? AND event_id <= ? ORDER BY event_id LIMIT ?')
      .pluck();
    this.insertEvent = db.prepare(
      `INSERT INTO events (type, at, actor_kind, actor_name, reason, subject_kind, subject_key, data, refs)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.afterId = db.prepare(BETWEEN);
    this.firstFrom = db.prepare('SELECT id, at FROM events WHERE id >= ? ORDER BY id LIMIT 1');
    this.minId = db.prepare(OLDEST).pluck();
    this.maxId = db.prepare('SELECT max(id) AS id FROM events').pluck();
    this.deleteEvents = db.prepare('DELETE FROM events WHERE id <= ?');
    this.unindexed = db.prepare('SELECT id, subject_kind, subject_key, refs FROM events WHERE id > ? ORDER BY id LIMIT ?');
  }

  /**
   * At start: indexes the events the index does not have (committed just before a
   * crash), or all of them when the index does not belong to this database (a restored
   * backup, a deleted logs file). Returns how many events were indexed.
   */
  async recoverIndex(): Promise<number> {
    if (!this.index) return 0;
    let after = this.index.indexedAtStart;
    if (after > this.newest()) {
      await this.index.resetRefs();
      after = 0;
    }
    let count = 0;
    for (;;) {
      const rows = this.unindexed.all(after, REINDEX_CHUNK) as RefSource[];
      if (rows.length === 0) break;
      this.index.addRefs(rows.flatMap(refRows));
      after = rows[rows.length - 1]!.id;
      count += rows.length;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await this.index.sync();
    return count;
  }

  /** After a unit of work committed: its events' references go to the index. */
  committed(events: readonly EventRecord[]): void {
    if (!this.index) return;
    for (const event of events) {
      const rows = this.staged.get(event);
      if (rows) this.index.addRefs(rows);
    }
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
    if (this.index) {
      const rows: Ref[] = [[record.subject.kind, record.subject.key, id]];
      if (refs) for (const ref of refs) rows.push([ref.kind, ref.key, id]);
      this.staged.set(record, rows);
    }
    return id;
  }

  /** The events after an id, oldest first (the export to the hub). */
  after(id: number, limit: number): EventRecord[] {
    return (this.afterId.all(id, Number.MAX_SAFE_INTEGER, limit) as StoredEvent[]).map(toRecord);
  }

  /**
   * The events after an id as stored, oldest first, up to `upTo` at most, read on `on`
   * (a read connection: it sees committed events only, and reading there never holds
   * the writer).
   */
  storedAfter(on: Db, id: number, limit: number, upTo = Number.MAX_SAFE_INTEGER): StoredEvent[] {
    return prepared(on, BETWEEN).all(id, upTo, limit) as StoredEvent[];
  }

  /** The oldest id still kept (as `on`, a read connection, sees it when given); undefined when the log is empty. */
  oldest(on?: Db): number | undefined {
    const id = on ? prepared(on, OLDEST).pluck().get() : this.minId.get();
    return (id as number | null) ?? undefined;
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
    const where: string[] = ['e.id > ?', 'e.id <= ?'];
    const params: unknown[] = [afterId, uptoId];
    this.filters(query, where, params);
    const sql = `SELECT ${COLUMNS} FROM events e WHERE ${where.join(' AND ')} ORDER BY e.id LIMIT ?`;
    params.push(limit);
    return (this.statement(sql).all(...params) as StoredEvent[]).map(toRecord);
  }

  /**
   * Events about `subject` (its own and those naming it) matching the other filters,
   * with `afterId < id <= uptoId`, oldest first, at most `limit`; by the index, after it
   * has written everything committed so far.
   */
  async about(subject: Subject, query: EventQuery, afterId: number, uptoId: number, limit: number): Promise<EventRecord[]> {
    if (!this.index || !this.aboutIds) throw new Error('this event log has no index (no logs database)');
    await this.index.sync();
    const found: EventRecord[] = [];
    for (let after = afterId; found.length < limit;) {
      const ids = this.aboutIds.all(subject.kind, subject.key, after, uptoId, Math.max(limit, 100)) as number[];
      if (ids.length === 0) break;
      const where = [`e.id IN (${ids.map(() => '?').join(', ')})`];
      const params: unknown[] = [...ids];
      this.filters(query, where, params);
      const rows = this.db.prepare(`SELECT ${COLUMNS}, e.refs FROM events e WHERE ${where.join(' AND ')} ORDER BY e.id`).all(...params) as (StoredEvent & {
        refs: string | null;
      })[];
      // An index row is only a pointer: the event itself must say it is about the thing.
      for (const row of rows) if (names(row, subject) && found.length < limit) found.push(toRecord(row));
      after = ids[ids.length - 1]!;
    }
    return found;
  }

  private filters(query: EventQuery, where: string[], params: unknown[]): void {
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
  }

  /**
   * Deletes the oldest events that are older than `olderThan` or beyond the newest
   * `maxRows`, at most `batch` of them, in one short transaction; never the newest one,
   * which keeps the ids going. Age spares the events after `keepAfter` (not yet
   * exported to the hub); `maxRows` does not. Returns how many ids were released (0:
   * nothing to prune).
   */
  prune(olderThan: string, maxRows: number, batch: number, keepAfter?: number): number {
    const oldest = this.oldest();
    if (oldest === undefined) return 0;
    const newest = this.newest();
    const upto = Math.min(pruneUpto(oldest, newest, maxRows, this.firstIdAt(olderThan), batch, keepAfter), newest - 1);
    if (upto < oldest) return 0;
    this.deleteEvents.run(upto);
    // The index follows, on its own thread; a failure there only leaves pointers the reads skip.
    this.index?.pruneRefs(upto).catch(() => undefined);
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
