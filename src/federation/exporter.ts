import type { JetStreamClient, JetStreamManager, PubAck } from '@nats-io/jetstream';
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
// It runs beside the PLC, not in its path: committed events only wake it, and it reads
// the log in batches between other work. It reads no further than the newest event
// handed out after its commit: the writer's connection also sees the rows of a group
// commit still open, which may yet be rolled back and their ids given to other events.

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

export interface ExportCounters {
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

interface InFlight {
  id: number;
  /** The event before it in the log (ids have gaps where events were pruned before export). */
  previous: number;
  ack: Promise<PubAck>;
}

/** A publish acknowledged out of line: the stream's tail is read again. */
export class OutOfLine extends Error {}

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
  /** Why events are not exported, when the stream and the log disagree (status). */
  conflict: string | undefined;
  /** The newest event id known committed (delivered by the unit of work after its commit). */
  private committedUpto = 0;
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
        this.counters.reordered += this.inStream.size;
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
  async run(js: JetStreamClient, connected: () => boolean, maxPayload: number): Promise<void> {
    const inFlight: InFlight[] = [];
    let sent = this.acked.eventId;
    try {
      while (!this.stopped) {
        const batch = sent >= this.committedUpto ? [] : this.events.after(sent, this.config.batch).filter((e) => e.id <= this.committedUpto);
        if (batch.length === 0) {
          while (inFlight.length > 0) await this.settle(inFlight.shift()!);
          // What was committed while the acknowledgements came in goes out now, not at the next wake.
          if (sent < this.committedUpto) continue;
          await this.idle();
          continue;
        }
        const first = batch[0]!.id;
        if (first > sent + 1 && sent > 0) {
          this.counters.lost += first - sent - 1;
          this.log.warn({ from: sent + 1, to: first - 1 }, 'hub link: events were pruned from the log before they were exported');
        }
        let slice = performance.now();
        for (const event of batch) {
          if (this.stopped) break;
          // Catching up on a backlog, the loop turns every few milliseconds: acknowledgements
          // arriving together would otherwise keep PLC telegrams waiting for the whole batch.
          if (performance.now() - slice > SLICE_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            slice = performance.now();
          }
          while (inFlight.length >= this.config.maxInFlight) await this.settle(inFlight.shift()!);
          if (!connected()) throw new Error('the connection to NATS is down');
          // One found in the stream after a hole is there already.
          const ack = this.inStream.delete(event.id) ? Promise.resolve(IN_STREAM) : this.publish(js, event, maxPayload);
          inFlight.push({ id: event.id, previous: sent, ack });
          sent = event.id;
        }
        // Take what is acknowledged already, and let the loop turn before the next batch.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      while (inFlight.length > 0) await this.settle(inFlight.shift()!);
    } finally {
      // A failure leaves later publishes going nowhere useful: let them settle unheard.
      await Promise.allSettled(inFlight.map((f) => f.ack));
    }
  }

  private publish(js: JetStreamClient, event: EventRecord, maxPayload: number): Promise<PubAck> {
    const subject = event.type === 'hubCommand.answered' ? this.names.resultSubject(event.data.commandId) : this.names.eventSubject(event.type);
    let payload = JSON.stringify({ site: this.names.site, ...event });
    if (Buffer.byteLength(payload) > maxPayload - PAYLOAD_HEADROOM) {
      // Its data stays in the appliance's history; the stream learns that it happened.
      const { data: _data, ...head } = event;
      payload = JSON.stringify({ site: this.names.site, ...head, truncated: true, bytes: Buffer.byteLength(payload) });
      this.counters.truncated++;
      this.log.warn({ id: event.id, type: event.type, bytes: payload.length, maxPayload }, 'hub link: an event larger than the NATS server takes is exported without its data');
    }
    const ack = js.publish(subject, payload, { msgID: this.names.msgId(event.id) });
    // Awaited in order by settle(); until then a rejection must not count as unhandled.
    ack.catch(() => undefined);
    return ack;
  }

  private async settle(flight: InFlight): Promise<void> {
    const ack = await flight.ack;
    const { eventId } = this.acked;
    // A duplicate is in the stream already, wherever; a new one must come right after the last.
    if (flight.previous !== eventId || (!ack.duplicate && ack.seq !== this.streamLast + 1)) {
      throw new OutOfLine(`event ${flight.id} was stored at sequence ${ack.seq}; expected it after event ${eventId} at ${this.streamLast + 1}`);
    }
    if (ack === IN_STREAM) {
      // Found in the tail after a hole: neither published nor counted again.
    } else if (ack.duplicate) this.counters.duplicates++;
    else {
      this.counters.published++;
      this.streamLast = ack.seq;
    }
    // The hole is closed once every event found after it has been passed.
    if (this.inStream.size === 0) this.holeAt = undefined;
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
