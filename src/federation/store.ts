import type { Db } from '../core/db.ts';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import { nowIso } from '../core/time.ts';

// All SQL of the hub link (db/migrations/0160-federation.sql): the export's cursor and
// the commands already answered.

/** How far the export got: an event id and the sequence the hall's stream stored it at. */
export interface Cursor {
  eventId: number;
  streamSeq: number;
}

interface AnsweredCommand {
  commandId: string;
  kind: string;
  status: number;
  /** The answer as first published. */
  answer: unknown;
}

export function createFederationStore(db: Db, work: UnitOfWork) {
  const cursorOf = db.prepare('SELECT event_id AS eventId, stream_seq AS streamSeq FROM federation_cursor WHERE site = ?');
  const saveCursor = db.prepare(
    `INSERT INTO federation_cursor (site, event_id, stream_seq, at) VALUES (?, ?, ?, ?)
     ON CONFLICT (site) DO UPDATE SET event_id = excluded.event_id, stream_seq = excluded.stream_seq, at = excluded.at`,
  );
  const answered = db.prepare('SELECT command_id, kind, status, answer FROM hub_commands WHERE command_id = ?');
  const remember = db.prepare('INSERT INTO hub_commands (command_id, kind, status, answer, answered_at) VALUES (?, ?, ?, ?, ?)');
  const prune = db.prepare(
    'DELETE FROM hub_commands WHERE command_id IN (SELECT command_id FROM hub_commands WHERE answered_at < ? ORDER BY answered_at LIMIT ?)',
  );
  const eventAt = db.prepare('SELECT at FROM events WHERE id > ? ORDER BY id LIMIT 1').pluck();

  return {
    /** The last event id the site's stream acknowledged and its sequence there; zeros before the first. */
    cursor: (site: string): Cursor => (cursorOf.get(site) as Cursor | undefined) ?? { eventId: 0, streamSeq: 0 },

    /** Keeps the cursor: a unit of work of its own (no events), so it never joins another one's transaction. */
    saveCursor(site: string, cursor: Cursor): void {
      work.run(() => saveCursor.run(site, cursor.eventId, cursor.streamSeq, nowIso()));
    },

    /** The first answer to a command, when it was answered before. */
    answered(commandId: string): AnsweredCommand | undefined {
      const row = answered.get(commandId) as { command_id: string; kind: string; status: number; answer: string } | undefined;
      return row && { commandId: row.command_id, kind: row.kind, status: row.status, answer: JSON.parse(row.answer) as unknown };
    },

    /** Remembers a command's answer (inside the unit of work that ran it). */
    remember(command: AnsweredCommand): void {
      remember.run(command.commandId, command.kind, command.status, JSON.stringify(command.answer), nowIso());
    },

    /** The time of the oldest event after `eventId` (not yet exported); undefined when there is none. */
    firstAfter: (eventId: number): string | undefined => (eventAt.get(eventId) as string | undefined) ?? undefined,

    /** Forgets answers older than `before`, a batch at a time (retention). */
    prune: (before: string, batch: number): number => work.run(() => prune.run(before, batch).changes),
  };
}

export type FederationStore = ReturnType<typeof createFederationStore>;
