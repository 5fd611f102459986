import type { JetStreamManager, PubAck } from '@nats-io/jetstream';
import type { EventLog } from '../core/event-log.ts';
import type { Logger } from '../core/log.ts';
import type { SiteNames } from './names.ts';
import type { Cursor, FederationStore } from './store.ts';

// Where the export stands in the hall's stream (docs/federation.md, "Export"): the last
// event the stream holds in line and the sequence it is stored at, kept in the database.
// The stream must hold every event once, in order. Each acknowledgement names the
// sequence the stream stored the event at; they must follow one another. After any
// failure (a publish refused or unanswered, a sequence out of line) the exporter
// (exporter.ts) waits for what is in flight, then the stream's tail after the last event
// known in line is read here: the events stored there in order count as exported, and
// the export goes on after them. At start the tail after the cursor kept in the database
// is read the same way (a crash may have cut off its last save). An event missing in the
// tail while later ones are there (a publish lost on the server's side while later ones
// got through) is the one case the order cannot be kept: the missing event is published
// and stored after them, those already there are not published again (counted as
// `reordered`); until it is stored the cursor saved stays before the hole, so a restart
// reads the same tail again.

/**
 * How often the cursor is written to the database at most. Each save is a commit of its
 * own on the disk the PLC's commits wait for; a cursor older than this only costs a
 * longer read of the stream's tail at the next start.
 */
const CURSOR_SAVE_MS = 5000;
/** The tail read after a failure, at most; a longer one is taken as it is. */
const TAIL_CHECK_MAX = 20_000;

/** A round of publishes, answered by the acknowledgement of its last. */
export interface InFlight {
  /** The round's last event. */
  id: number;
  /** The event before the round in the log (ids have gaps where events were pruned before export). */
  previous: number;
  /** Messages the round published: the stream stores them at the sequences before the acknowledged one. */
  count: number;
  ack: Promise<PubAck>;
}

/** A publish acknowledged out of line: the stream's tail is read again. */
class OutOfLine extends Error {}

/** What settle() is handed for an event found in the stream's tail after a hole. */
export const IN_STREAM = { stream: '', seq: 0, duplicate: true, domain: '' } as unknown as PubAck;

/** The export's counters that the stream's answers move. */
interface PositionCounters {
  published: number;
  duplicates: number;
  resyncs: number;
  reordered: number;
}

export class StreamPosition {
  private readonly events: EventLog;
  private readonly store: FederationStore;
  private readonly names: SiteNames;
  private readonly log: Logger;
  private readonly counters: PositionCounters;
  /** Every event up to `eventId` is in the stream, whose messages up to `streamSeq` are accounted for. */
  private acked: Cursor;
  private saved: Cursor;
  private saveTimer: NodeJS.Timeout | undefined;
  /** The stream's last sequence as far as known: the next new event is stored after it. */
  private streamLast = 0;
  /** Events found in the stream's tail after a hole: not published again. */
  readonly inStream = new Set<number>();
  /** While the tail has a hole: the sequence before it, which the saved cursor keeps. */
  private holeAt: number | undefined;
  /**
   * The last event found after the hole: the hole is closed once its round has settled
   * (events ahead of it leave `inStream` when their rounds go out, before they settle).
   */
  private holeUntil: number | undefined;
  /**
   * After a start or a failure, events go out one at a time until one is acknowledged in
   * line. A publish of before the failure whose answer was lost may be stored late, after
   * the tail was read: a round's count would not tell it from an event of the round that
   * was refused, a single event's sequence does.
   */
  private carefulNow = true;

  constructor(events: EventLog, store: FederationStore, names: SiteNames, log: Logger, counters: PositionCounters) {
    this.events = events;
    this.store = store;
    this.names = names;
    this.log = log;
    this.counters = counters;
    this.acked = store.cursor(names.site);
    this.saved = this.acked;
  }

  /** The last event id the stream acknowledged. */
  get cursor(): number {
    return this.acked.eventId;
  }

  /** Events go out one at a time: after a start or a failure, until one is acknowledged in line. */
  get careful(): boolean {
    return this.carefulNow;
  }

  /**
   * Reads the stream's tail after the last event known in line and counts what is
   * stored there in order as exported. The stream, not the database, knows what it
   * holds: a crash may have cut off the last save of the cursor, a publish may be lost.
   */
  async resync(jsm: JetStreamManager): Promise<void> {
    this.counters.resyncs++;
    const stream = this.names.stream;
    const { state } = await jsm.streams.info(stream);
    const from = this.acked;
    this.inStream.clear();
    this.holeAt = undefined;
    this.holeUntil = undefined;
    this.carefulNow = true;
    this.streamLast = state.last_seq;
    const tailKnown = from.streamSeq > 0 && from.streamSeq >= state.first_seq - 1 && from.streamSeq <= state.last_seq;
    if (!tailKnown || state.last_seq - from.streamSeq > TAIL_CHECK_MAX) {
      // A stream that is new, emptied or recreated, or a cursor from before it: its last
      // event (if it has one of ours) says where to go on, else the database's cursor.
      const last = state.messages > 0 ? await jsm.streams.getMessage(stream, { seq: state.last_seq }) : null;
      const inStream = this.names.eventIdOf(last?.header?.get('Nats-Msg-Id') || undefined);
      this.acked = { eventId: inStream ?? from.eventId, streamSeq: state.last_seq };
    } else {
      // Every event in the tail; the cursor moves over those that follow it without a hole.
      let lastInLine = from.streamSeq;
      let eventId = from.eventId;
      for (let seq = from.streamSeq + 1; seq <= state.last_seq; seq++) {
        const message = await jsm.streams.getMessage(stream, { seq });
        const stored = this.names.eventIdOf(message?.header?.get('Nats-Msg-Id') || undefined);
        // Not ours, or one stored twice (beyond the duplicate window): nothing to go on from.
        if (stored === undefined || stored <= eventId) continue;
        if (this.holeAt === undefined && stored === this.nextInLog(eventId)) {
          eventId = stored;
          lastInLine = seq;
        } else {
          this.holeAt ??= lastInLine;
          this.inStream.add(stored);
        }
      }
      // Events after the hole may close it (stored out of order before a crash).
      for (let next = this.nextInLog(eventId); this.inStream.delete(next); next = this.nextInLog(eventId)) eventId = next;
      if (this.inStream.size === 0) this.holeAt = undefined;
      else {
        for (const ahead of this.inStream) if (ahead > (this.holeUntil ?? 0)) this.holeUntil = ahead;
        this.log.warn(
          { stream, missing: this.nextInLog(eventId), ahead: this.inStream.size },
          'hub link: an event is missing before the end of the stream; it is published now and follows the ones stored ahead of it',
        );
      }
      this.acked = { eventId, streamSeq: this.holeAt ?? state.last_seq };
    }
  }

  /** The id of the event after `id` in the log (ids skip what was pruned); id + 1 when there is none yet. */
  private nextInLog(id: number): number {
    return this.events.after(id, 1)[0]?.id ?? id + 1;
  }

  /** A round's acknowledgement: the cursor moves over it when it is in line, else OutOfLine is thrown. */
  async settle(flight: InFlight): Promise<void> {
    const ack = await flight.ack;
    const { eventId } = this.acked;
    // A duplicate is in the stream already, wherever, but it answers only for itself; a
    // round's new last event must come its length after the stream's last.
    const expected = this.streamLast + flight.count;
    if (flight.previous !== eventId || (ack.duplicate ? flight.count > 1 : ack.seq !== expected)) {
      throw new OutOfLine(
        ack.duplicate
          ? `event ${flight.id}, the last of ${flight.count} published together, was in the stream already`
          : `event ${flight.id} was stored at sequence ${ack.seq}; expected it after event ${eventId} at ${expected}`,
      );
    }
    if (ack === IN_STREAM) {
      // Found in the tail after a hole: not published again; counted once, when passed
      // (the tail may be read several times while the hole stays).
      this.counters.reordered++;
    } else if (ack.duplicate) this.counters.duplicates++;
    else {
      this.counters.published += flight.count;
      this.streamLast = ack.seq;
      this.carefulNow = false;
    }
    // The hole is closed once the last event found after it has been passed.
    if (this.holeUntil !== undefined && flight.id >= this.holeUntil) {
      this.holeAt = undefined;
      this.holeUntil = undefined;
    }
    this.acked = { eventId: flight.id, streamSeq: this.holeAt ?? this.streamLast };
    this.scheduleSave();
  }

  /** No more saves later: the cursor is saved now. */
  stop(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.saveCursor();
  }

  /** Saves the cursor within CURSOR_SAVE_MS (one save for all the events of that time). */
  private scheduleSave(): void {
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      this.saveCursor();
    }, CURSOR_SAVE_MS);
    this.saveTimer.unref();
  }

  saveCursor(): void {
    if (this.acked.eventId === this.saved.eventId && this.acked.streamSeq === this.saved.streamSeq) return;
    this.store.saveCursor(this.names.site, this.acked);
    this.saved = this.acked;
  }
}
