import type { JetStreamClient, JetStreamManager, PubAck } from '@nats-io/jetstream';
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import type { EventLog } from '../core/event-log.ts';
import type { EventRecord } from '../core/event-catalogue.ts';
import type { Logger } from '../core/log.ts';
import type { FederationConfig } from './config.ts';
import { ExportFeed } from './feed.ts';
import type { SiteNames } from './names.ts';
import { IN_STREAM, StreamPosition, type InFlight } from './position.ts';
import type { FederationStore } from './store.ts';

// The export of the durable event log to the hall's stream (docs/federation.md,
// "Export"). Events go out in id order, as many as `maxInFlight` waiting for their
// acknowledgement at once, each with the message id `<site>-<eventId>`; the stream
// drops a resend of one it has (its duplicate window).
//
// The stream must hold every event once, in order: where the export stands in it, how
// its acknowledgements are checked, and how its tail is read again after a failure or at
// start is position.ts. An event too large for the server (its max_payload) goes out as
// a stub without its data, counted as `truncated`, rather than stopping the export.
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
// gathers the events of a few milliseconds into one round. Which events it takes, from
// the event bus or the log, is feed.ts.

/** How long the export works on before the event loop gets a turn (telegrams wait meanwhile). */
const SLICE_MS = 2;
/**
 * How long the exporter waits after a commit woke it, for the events of further commits
 * to go out in the same round: a few milliseconds more export lag for one acknowledgement
 * instead of several (at 1000 events/s, about five events a round).
 */
const GATHER_MS = 5;

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

/** Room left in a message for its headers (the message id) below the server's max_payload. */
const PAYLOAD_HEADROOM = 1024;

export class Exporter {
  private readonly names: SiteNames;
  private readonly config: FederationConfig;
  private readonly log: Logger;
  private readonly newestCommitted: () => Promise<number>;
  /** The committed events to export: the event bus hands them to it. */
  readonly feed: ExportFeed;
  private readonly position: StreamPosition;
  /** Why events are not exported, when the stream and the log disagree (status). */
  conflict: string | undefined;
  private stopped = false;
  readonly counters: ExportCounters = { published: 0, duplicates: 0, resyncs: 0, reordered: 0, truncated: 0, lost: 0 };

  /** `newestCommitted`: the newest event id once whatever is open is committed (the unit of work's group) and flushed. */
  constructor(events: EventLog, newestCommitted: () => Promise<number>, store: FederationStore, names: SiteNames, config: FederationConfig, log: Logger) {
    this.newestCommitted = newestCommitted;
    this.names = names;
    this.config = config;
    this.log = log;
    this.feed = new ExportFeed(events, config);
    this.position = new StreamPosition(events, store, names, log, this.counters);
  }

  /** The last event id the stream acknowledged. */
  get cursor(): number {
    return this.position.cursor;
  }

  /** The newest committed event id (what has been exported or waits for it). */
  get newest(): number {
    return this.feed.newest;
  }

  stop(): void {
    this.stopped = true;
    this.feed.stop();
    this.position.stop();
  }

  /** Reads the stream's tail again (position.ts), and finds out whether the stream holds events this database does not. */
  async resync(jsm: JetStreamManager): Promise<void> {
    // Events committed before the bus told this exporter about them (at start, say).
    this.feed.committed(await this.newestCommitted());
    await this.position.resync(jsm);
    const stream = this.names.stream;
    const inStream = this.position.cursor;
    const newest = this.feed.newest;
    this.conflict = undefined;
    if (inStream > newest) {
      this.conflict = `the stream ${stream} holds events up to ${inStream}, beyond the newest of this database (${newest}): a database restored from a backup, or another box with this site name? Events up to ${inStream} are not exported`;
      this.log.error({ stream, inStream, newest }, `hub link: ${this.conflict}`);
    }
    this.position.saveCursor();
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
      await this.position.settle(round);
    };
    let sent = this.position.cursor;
    try {
      while (!this.stopped) {
        const batch = this.feed.next(sent);
        if (batch.length === 0) {
          while (inFlight.length > 0) await settleFirst();
          // What was committed while the acknowledgements came in goes out now, not at the next wake.
          if (sent < this.feed.newest) continue;
          await this.feed.idle();
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
          const size = this.position.inStream.size > 0 || this.position.careful ? 1 : Math.min(roundMax, batch.length - at);
          while (inFlight.length > 0 && unanswered + size > this.config.maxInFlight) await settleFirst();
          if (!connected()) throw new Error('the connection to NATS is down');
          const round = batch.slice(at, at + size);
          const last = round[round.length - 1]!;
          let count = round.length;
          let ack: Promise<PubAck>;
          if (this.position.inStream.delete(last.id)) {
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
}
