import type { JetStreamClient, JetStreamManager, PubAck } from '@nats-io/jetstream';
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import type { EventLog } from '../core/event-log.ts';
import type { EventRecord } from '../core/event-catalogue.ts';
import type { Logger } from '../core/log.ts';
import type { FederationConfig } from './config.ts';
import type { SiteNames } from './names.ts';
import type { Cursor, FederationStore } from './store.ts';

// The export of the durable event log to the hall's stream (docs/federation.md,
// "Export"). Events go out in id order, as many as `maxInFlight` waiting for their
// acknowledgement at once, each with the message id `<site>-<eventId>`; the stream
// drops a resend of one it has (its duplicate window).
//
// The stream must hold every event once, in order. Each acknowledgement names the
// sequence the stream stored the event at; they must follow one another. After any
// failure (a publish refused or unanswered, a sequence out of line) the exporter waits
// for what is in flight, then reads the stream's tail after the last event it knows in
// line: the events stored there in order count as exported, and it goes on after
// them. At start the tail after the cursor kept in the database is read the same way
// (a crash may have cut off its last save). An event missing in the tail while later
// ones are there (a publish lost on the server's side while later ones got through) is
// the one case the order cannot be kept: the missing event is published and stored
// after them, those already there are not published again (counted as `reordered`);
// until it is stored the cursor saved stays before the hole, so a restart reads the
// same tail again. An event too large for the server (its max_payload) goes out as a
// stub without its data, counted as `truncated`, rather than stopping the export.
// Publishes carry no `Nats-Expected-*` header: a hub that sources the stream checks
// those against its own stream and would refuse the event.
//
// Events go out in rounds: a round's events but the last are published without asking
// for an answer, the last one is a JetStream publish, and its acknowledgement answers
// for the round. The stream stores one connection's messages in the order they come,
// so the last event's sequence is the round's first sequence plus the round's length
// exactly when every event of the round was stored, once and in order; any other
// sequence (an event refused or lost, one the stream had already) is a failure as
// above, and the tail read finds out which. One acknowledgement per round instead of
// one per event is most of what the export costs the appliance. While the tail has a
// hole, events go out one by one with an acknowledgement each, as the hole needs.
//
// It runs beside the PLC, not in its path: committed events only wake it, and it
// gathers the events of a few milliseconds into one round. It takes the events as the
// event bus hands them out after their commit (the live streams send the same
// records), and reads the log only for what the bus did not hand it: the backlog after
// a start or an outage. It reads no further than the newest event handed out after its
// commit: the writer's connection also sees the rows of a group commit still open,
// which may yet be rolled back and their ids given to other events.

/**
 * How often the cursor is written to the database at most. Each save is a commit of its
 * own on the disk the PLC's commits wait for; a cursor older than this only costs a
 * longer read of the stream's tail at the next start.
 */
const CURSOR_SAVE_MS = 5000;
/** How long the export works on before the event loop gets a turn (telegrams wait meanwhile). */
const SLICE_MS = 2;
/** The tail read after a failure, at most; a longer one is taken as it is. */
const TAIL_CHECK_MAX = 20_000;
/**
 * How long the exporter waits after a commit woke it, for the events of further commits
 * to go out in the same round: a few milliseconds more export lag for one acknowledgement
 * instead of several (at 1000 events/s, about five events a round).
 */
const GATHER_MS = 5;
/** Events the bus handed out that the exporter keeps, at most (about 10 s at 1000/s); past it, it reads the log. */
const FRESH_MAX = 10_000;

interface ExportCounters {
  published: number;
  /** Events the stream already had (a resend within its duplicate window). */
  duplicates: number;
  /** Times the exporter read the stream's tail again after a failure or at start. */
  resyncs: number;
  /** Events found stored ahead of one that was missing (a publish lost with its connection); the missing one follows them. */
  reordered: number;
  /** Events larger than the server takes (max_payload), published as a stub without their data. */
  truncated: number;
  /** Events pruned from the log before they could be exported (the log's hard limit, events.maxRows). */
  lost: number;
}

/** A round of publishes, answered by the acknowledgement of its last. */
interface InFlight {
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
const IN_STREAM = { stream: '', seq: 0, duplicate: true, domain: '' } as unknown as PubAck;

/** Room left in a message for its headers (the message id) below the server's max_payload. */
const PAYLOAD_HEADROOM = 1024;

export class Exporter {
  private readonly events: EventLog;
  private readonly store: FederationStore;
  private readonly names: SiteNames;
  private readonly config: FederationConfig;
  private readonly log: Logger;
  private readonly newestCommitted: () => number;
  /** Every event up to `eventId` is in the stream, whose messages up to `streamSeq` are accounted for. */
  private acked: Cursor;
  private saved: Cursor;
  private saveTimer: NodeJS.Timeout | undefined;
  /** The stream's last sequence as far as known: the next new event is stored after it. */
  private streamLast = 0;
  /** Events found in the stream's tail after a hole: not published again. */
  private readonly inStream = new Set<number>();
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
  private careful = true;
  /** Why events are not exported, when the stream and the log disagree (status). */
  conflict: string | undefined;
  /** The newest event id known committed (delivered by the unit of work after its commit). */
  private committedUpto = 0;
  /** Events as the bus handed them out after their commit, in id order: not read back from the log. */
  private readonly fresh: EventRecord[] = [];
  private wakeUp: (() => void) | undefined;
  private stopped = false;
  readonly counters: ExportCounters = { published: 0, duplicates: 0, resyncs: 0, reordered: 0, truncated: 0, lost: 0 };

  /** `newestCommitted`: the newest event id once whatever is open is committed (the unit of work's group). */
  constructor(events: EventLog, newestCommitted: () => number, store: FederationStore, names: SiteNames, config: FederationConfig, log: Logger) {
    this.events = events;
    this.newestCommitted = newestCommitted;
    this.store = store;
    this.names = names;
    this.config = config;
    this.log = log;
    this.acked = store.cursor(names.site);
    this.saved = this.acked;
  }

  /** The last event id the stream acknowledged. */
  get cursor(): number {
    return this.acked.eventId;
  }

  /** The newest committed event id (what has been exported or waits for it). */
  get newest(): number {
    return this.committedUpto;
  }

  /** An event was committed: go on if waiting. Cheap: it runs in the event bus's delivery. */
  committed(eventId: number): void {
    if (eventId > this.committedUpto) this.committedUpto = eventId;
    this.wake();
  }

  /** The event bus handed out a committed event: kept for the export, which need not read it back. */
  delivered(event: EventRecord): void {
    // Full: the export is behind (the server away) and reads the log when it goes on.
    if (this.fresh.length >= FRESH_MAX) this.fresh.length = 0;
    this.fresh.push(event);
    this.committed(event.id);
  }

  /**
   * The events after `sent`, up to `batch`: from what the bus handed out when they
   * follow `sent` without a gap (committed ids follow one another; a gap is where the
   * log was pruned, or what the bus handed out before the exporter heard of it), else
   * read from the log.
   */
  private next(sent: number): EventRecord[] {
    const fresh = this.fresh;
    let skip = 0;
    while (skip < fresh.length && fresh[skip]!.id <= sent) skip++;
    if (skip > 0) fresh.splice(0, skip);
    if (fresh.length > 0 && fresh[0]!.id === sent + 1) {
      let n = 1;
      while (n < fresh.length && n < this.config.batch && fresh[n]!.id === fresh[n - 1]!.id + 1) n++;
      return fresh.splice(0, n);
    }
    return sent >= this.committedUpto ? [] : this.events.after(sent, this.config.batch).filter((e) => e.id <= this.committedUpto);
  }

  /** Go on if waiting (a reconnect, a stop). */
  wake(): void {
    const resolve = this.wakeUp;
    this.wakeUp = undefined;
    resolve?.();
  }

  stop(): void {
    this.stopped = true;
    this.wake();
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.saveCursor();
  }

  /**
   * Reads the stream's tail after the last event known in line and counts what is
   * stored there in order as exported. The stream, not the database, knows what it
   * holds: a crash may have cut off the last save of the cursor, a publish may be lost.
   */
  async resync(jsm: JetStreamManager): Promise<void> {
    // Events committed before the bus told this exporter about them (at start, say).
    this.committed(this.newestCommitted());
    this.counters.resyncs++;
    const stream = this.names.stream;
    const { state } = await jsm.streams.info(stream);
    const from = this.acked;
    this.inStream.clear();
    this.holeAt = undefined;
    this.holeUntil = undefined;
    this.careful = true;
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
    this.conflict = undefined;
    if (this.acked.eventId > this.committedUpto) {
      this.conflict = `the stream ${stream} holds events up to ${this.acked.eventId}, beyond the newest of this database (${this.committedUpto}): a database restored from a backup, or another box with this site name? Events up to ${this.acked.eventId} are not exported`;
      this.log.error({ stream, inStream: this.acked.eventId, newest: this.committedUpto }, `hub link: ${this.conflict}`);
    }
    this.saveCursor();
  }

  /** The id of the event after `id` in the log (ids skip what was pruned); id + 1 when there is none yet. */
  private nextInLog(id: number): number {
    return this.events.after(id, 1)[0]?.id ?? id + 1;
  }

  /**
   * Publishes until stopped or a publish fails (thrown, after the ones in flight settled).
   * Stops publishing as soon as the connection is down: what the client would buffer
   * for the reconnect could get through ahead of a publish lost with the connection.
   */
  async run(js: JetStreamClient, nc: NatsConnection, headers: () => MsgHdrs, connected: () => boolean, maxPayload: number): Promise<void> {
    const inFlight: InFlight[] = [];
    /** Messages published and not yet answered for. */
    let unanswered = 0;
    // A quarter of what may be in flight: the next rounds go out while one is answered.
    const roundMax = Math.max(1, Math.floor(this.config.maxInFlight / 4));
    const settleFirst = async () => {
      const round = inFlight.shift()!;
      unanswered -= round.count;
      await this.settle(round);
    };
    let sent = this.acked.eventId;
    try {
      while (!this.stopped) {
        const batch = this.next(sent);
        if (batch.length === 0) {
          while (inFlight.length > 0) await settleFirst();
          // What was committed while the acknowledgements came in goes out now, not at the next wake.
          if (sent < this.committedUpto) continue;
          await this.idle();
          // The commits of the next few milliseconds go out in the same round.
          if (!this.stopped) await new Promise<void>((resolve) => setTimeout(resolve, GATHER_MS));
          continue;
        }
        const first = batch[0]!.id;
        if (first > sent + 1 && sent > 0) {
          this.counters.lost += first - sent - 1;
          this.log.warn({ from: sent + 1, to: first - 1 }, 'hub link: events were pruned from the log before they were exported');
        }
        let slice = performance.now();
        for (let at = 0; at < batch.length && !this.stopped;) {
          // Catching up on a backlog, the loop turns every few milliseconds: acknowledgements
          // arriving together would otherwise keep PLC telegrams waiting for the whole batch.
          if (performance.now() - slice > SLICE_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            slice = performance.now();
          }
          // One event at a time while the tail has a hole (one found in the stream is there
          // already), and until one is acknowledged in line after a start or a failure.
          const size = this.inStream.size > 0 || this.careful ? 1 : Math.min(roundMax, batch.length - at);
          while (inFlight.length > 0 && unanswered + size > this.config.maxInFlight) await settleFirst();
          if (!connected()) throw new Error('the connection to NATS is down');
          const round = batch.slice(at, at + size);
          const last = round[round.length - 1]!;
          let count = round.length;
          let ack: Promise<PubAck>;
          if (this.inStream.delete(last.id)) {
            ack = Promise.resolve(IN_STREAM);
            count = 0;
          } else {
            for (let i = 0; i < round.length - 1; i++) {
              const event = round[i]!;
              const h = headers();
              h.set('Nats-Msg-Id', this.names.msgId(event.id));
              nc.publish(this.subject(event), this.payload(event, maxPayload), { headers: h });
            }
            ack = js.publish(this.subject(last), this.payload(last, maxPayload), { msgID: this.names.msgId(last.id) });
            // Awaited in order by settle(); until then a rejection must not count as unhandled.
            ack.catch(() => undefined);
          }
          inFlight.push({ id: last.id, previous: sent, count, ack });
          unanswered += count;
          sent = last.id;
          at += size;
        }
        // Take what is acknowledged already, and let the loop turn before the next batch.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      while (inFlight.length > 0) await settleFirst();
    } finally {
      // A failure leaves later publishes going nowhere useful: let them settle unheard.
      await Promise.allSettled(inFlight.map((f) => f.ack));
    }
  }

  private subject(event: EventRecord): string {
    return event.type === 'hubCommand.answered' ? this.names.resultSubject(event.data.commandId) : this.names.eventSubject(event.type);
  }

  private payload(event: EventRecord, maxPayload: number): string {
    const payload = JSON.stringify({ site: this.names.site, ...event });
    if (Buffer.byteLength(payload) <= maxPayload - PAYLOAD_HEADROOM) return payload;
    // Its data stays in the appliance's history; the stream learns that it happened.
    const { data: _data, ...head } = event;
    const stub = JSON.stringify({ site: this.names.site, ...head, truncated: true, bytes: Buffer.byteLength(payload) });
    this.counters.truncated++;
    this.log.warn(
      { id: event.id, type: event.type, bytes: payload.length, maxPayload },
      'hub link: an event larger than the NATS server takes is exported without its data',
    );
    return stub;
  }

  private async settle(flight: InFlight): Promise<void> {
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
      this.careful = false;
    }
    // The hole is closed once the last event found after it has been passed.
    if (this.holeUntil !== undefined && flight.id >= this.holeUntil) {
      this.holeAt = undefined;
      this.holeUntil = undefined;
    }
    this.acked = { eventId: flight.id, streamSeq: this.holeAt ?? this.streamLast };
    this.scheduleSave();
  }

  /** Saves the cursor within CURSOR_SAVE_MS (one save for all the events of that time). */
  private scheduleSave(): void {
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      this.saveCursor();
    }, CURSOR_SAVE_MS);
    this.saveTimer.unref();
  }

  private saveCursor(): void {
    if (this.acked.eventId === this.saved.eventId && this.acked.streamSeq === this.saved.streamSeq) return;
    this.store.saveCursor(this.names.site, this.acked);
    this.saved = this.acked;
  }

  /** Waits for a commit, at most a second (a commit of another process, a missed wake). */
  private idle(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wake(), 1000);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
