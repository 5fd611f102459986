import type { Statement } from 'better-sqlite3';
import type { ActorKind } from './actor.ts';
import type { Db } from './db.ts';
import type { EventRecord, Subject } from './event-catalogue.ts';
import { firstIdAt } from './retention.ts';

// The durable event log: all SQL of the `events` and `event_refs` tables
// (db/migrations/0120-event-log.sql). The unit of work appends; live streams replay;
// history pages through it; retention prunes its oldest rows in small batches.
//
// Ids grow with time (one writer, AUTOINCREMENT), so a time bound is turned into an id
// bound by a binary search over the primary key instead of keeping an index on `at`
// that every insert would pay for.

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

export class EventLog {
  private readonly db: Db;
  private readonly statements = new Map<string, Statement>();
  private readonly insertEvent: Statement;
  private readonly insertRef: Statement;
  private readonly afterId: Statement;
  private readonly firstFrom: Statement;
  private readonly minId: Statement;
  private readonly maxId: Statement;
  private readonly sequence: Statement;
  private readonly deleteRefs: Statement;
  private readonly deleteEvents: Statement;

  constructor(db: Db) {
    this.db = db;
    this.insertEvent = db.prepare(
      `INSERT INTO events (type, at, actor_kind, actor_name, reason, subject_kind, subject_key, data)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertRef = db.prepare('INSERT OR IGNORE INTO event_refs (kind, key, event_id) VALUES (?, ?, ?)');
    this.afterId = db.prepare(`SELECT ${COLUMNS} FROM events e WHERE e.id > ? ORDER BY e.id LIMIT ?`);
    this.firstFrom = db.prepare('SELECT id, at FROM events WHERE id >= ? ORDER BY id LIMIT 1');
    this.minId = db.prepare('SELECT min(id) AS id FROM events').pluck();
    this.maxId = db.prepare('SELECT max(id) AS id FROM events').pluck();
    this.sequence = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'events'").pluck();
    this.deleteRefs = db.prepare('DELETE FROM event_refs WHERE event_id <= ?');
    this.deleteEvents = db.prepare('DELETE FROM events WHERE id <= ?');
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
      ).lastInsertRowid,
    );
    this.insertRef.run(record.subject.kind, record.subject.key, id);
    if (refs) for (const ref of refs) this.insertRef.run(ref.kind, ref.key, id);
    return id;
  }

  /** The events after an id, oldest first (live stream replay). */
  after(id: number, limit: number): EventRecord[] {
    return (this.afterId.all(id, limit) as EventRow[]).map(toRecord);
  }

  /** The oldest id still kept; undefined when the log is empty. */
  oldest(): number | undefined {
    return (this.minId.get() as number | null) ?? undefined;
  }

  /** The newest id ever handed out (also when it was pruned since); 0 for none. */
  newest(): number {
    return (this.sequence.get() as number | undefined) ?? 0;
  }

  /** The newest id kept; 0 for none. */
  newestKept(): number {
    return (this.maxId.get() as number | null) ?? 0;
  }

  /** The first id whose time is at or after `iso` (newest + 1 when none is). */
  firstIdAt(iso: string): number {
    return firstIdAt(this.firstFrom, this.oldest(), this.newestKept(), iso);
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
   * `maxRows`, at most `batch` of them, in one short transaction. Returns how many ids
   * were released (0: nothing left to prune).
   */
  prune(olderThan: string, maxRows: number, batch: number): number {
    const oldest = this.oldest();
    if (oldest === undefined) return 0;
    const newest = this.newestKept();
    const byCount = newest - maxRows;
    const byAge = this.firstIdAt(olderThan) - 1;
    const upto = Math.min(Math.max(byCount, byAge), oldest + batch - 1);
    if (upto < oldest) return 0;
    this.db.transaction(() => {
      this.deleteRefs.run(upto);
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
