import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { EventRecord } from '../../core/event-catalogue.ts';
import type { EventLog } from '../../core/event-log.ts';
import type { EventBus } from '../../core/events.ts';
import type { Logger } from '../../core/log.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import type { Principal } from '../../http/context.ts';
import { FORGET_AFTER } from '../users/service.ts';
import type { StreamFilter } from './filter.ts';
import { frameOf } from './frames.ts';
import { REPLAY_LIMITS, ReplayScheduler, type Replay, type ReplayCounts, type ReplayLimits } from './replay.ts';

// Live event streams (Server-Sent Events) for HMI pages and integrations.
//
// - Every committed event is serialised once, whatever the number of streams (frames.ts).
// - A stream's frames go out once per turn of the event loop, in one write: all the
//   commits the turn heard of (on the HTTP thread, every commit the conveyor thread told
//   it of while it was busy). Quiet, that is each commit at once; under load the turns
//   grow and the writes do not: at 1,000 REQ_/s each of 50 streams was written once per
//   commit, and those writes took half of the HTTP thread (BENCHMARKS.md).
// - Streams with one filter (filter.ts shares it) that were sent the same events are
//   written the same bytes, encoded once.
// - A stream is sent the events its filter wants (filter.ts): types, and the subject
//   the events are about; live and replayed alike.
// - `id:` is the event's id in the durable log: a client that reconnects with
//   `Last-Event-ID` is replayed what it missed from the log, also after a restart of
//   the appliance; only an id older than the log keeps (pruned) or newer than it holds
//   (another box, a restored backup) gets `event: reset`, telling the client to reload.
// - Replays are paged off the log by one scheduler with bounds per client and in total
//   (replay.ts); a stream goes live when its replay has caught up, without a gap or a
//   double. Nothing is queued for a stream while it replays: the log holds it.
// - A client that does not read (a stalled socket) is disconnected once its unsent
//   data passes a bound, or, while it is replayed, once it has not taken a page for a
//   while, instead of being buffered without limit; it reconnects and is replayed.
// - A comment line every HEARTBEAT_MS keeps proxies and dead-peer detection honest.
// - A stream ends when its caller may no longer read events (locked, disabled,
//   deleted, revoked, or the grant taken away).

const HEARTBEAT_MS = 15_000;
const GRANT = 'events:read';

/** Tells a client that the log cannot say what it missed: it reloads what it shows, then goes on live. */
function reset(res: ServerResponse, lastEventId: string, oldest: number, newest: number): void {
  res.write(`event: reset\ndata: ${JSON.stringify({ lastEventId, oldest, newest })}\n\n`);
}

export interface StreamOptions {
  /** Unsent bytes at which a stream is given up (default 1 MiB). */
  maxBufferedBytes?: number;
  heartbeatMs?: number;
  /** Bounds of the replays (default REPLAY_LIMITS). */
  replay?: Partial<ReplayLimits>;
}

interface Stream {
  res: ServerResponse;
  principal: Principal;
  wanted: StreamFilter;
  /** While the stream is replayed from the log; undefined once it is live. */
  replay: Replay | undefined;
  /**
   * The last id its replay read from the log. On the HTTP thread the log can show a
   * commit before the streams hear of it: a replay may go live having read an event that
   * is delivered after, which the stream then already has.
   */
  replayedUpTo: number;
  closed: boolean;
  /** Frames of this turn, written together at its end. */
  pending: string;
  /**
   * The id of the first event in `pending`. Two streams of one filter with the same first
   * event have the same frames: a live stream is sent every event its filter wants, and
   * one that goes live during a turn starts later in it.
   */
  pendingFirst: number;
}

export class LiveStreams {
  private readonly streams = new Set<Stream>();
  private readonly log: EventLog;
  private readonly logger: Logger;
  private readonly current: (principal: Principal) => Principal | undefined;
  private readonly maxBuffered: number;
  private readonly stallMs: number;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unsubscribe: (() => void)[];
  private readonly replays: ReplayScheduler;
  /**
   * The id of the last event handed to the streams (at start, the newest in the log): a
   * replay reads up to it, and has caught up when it got there.
   */
  private delivered: number;
  /** Streams with frames of this turn. */
  private readonly unsent = new Set<Stream>();
  /** Streams given up because their client did not read (diagnostics, tests). */
  stalled = 0;

  constructor(
    log: EventLog,
    reads: ReadPool,
    bus: EventBus,
    current: (principal: Principal) => Principal | undefined,
    logger: Logger,
    options: StreamOptions = {},
  ) {
    this.log = log;
    this.logger = logger;
    this.current = current;
    this.maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
    this.delivered = log.newest();
    const limits = { ...REPLAY_LIMITS, ...options.replay };
    this.stallMs = limits.stallMs;
    this.replays = new ReplayScheduler(log, reads, () => this.delivered, limits);
    this.heartbeat = setInterval(() => this.beat(), options.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeat.unref();
    this.unsubscribe = [bus.onAnyDurable((event) => this.deliver(event)), ...FORGET_AFTER.map((type) => bus.on(type, () => this.recheck()))];
  }

  get size(): number {
    return this.streams.size;
  }

  /** Replays served now, waiting for their turn, held up by their client (diagnostics, tests). */
  get replaying(): ReplayCounts {
    return this.replays.counts;
  }

  /**
   * Serves a stream on an open response: replays what the client missed after
   * `lastEventId` (when given), then every new event its filter wants.
   */
  open(res: ServerResponse, principal: Principal, wanted: StreamFilter, lastEventId: string | undefined): void {
    // The client may have left while the request waited for the group commit: its
    // 'close' has been and gone, and a stream kept now would never be forgotten.
    if (res.destroyed) return;
    const stream: Stream = { res, principal, wanted, replay: undefined, replayedUpTo: 0, closed: false, pending: '', pendingFirst: 0 };
    this.streams.add(stream);
    res.on('close', () => this.forget(stream));
    res.write('retry: 3000\n\n');
    if (lastEventId === undefined) return;
    const last = /^\d{1,15}$/.test(lastEventId) ? Number(lastEventId) : undefined;
    const newest = this.log.newest();
    const oldest = this.log.oldest() ?? newest + 1;
    if (last === undefined || last > newest || last + 1 < oldest) {
      // The log cannot say what was missed: the client reloads what it shows.
      reset(res, lastEventId, oldest, newest);
      return;
    }
    stream.replay = {
      res,
      wanted,
      cursor: last,
      caughtUp: () => {
        stream.replayedUpTo = stream.replay?.cursor ?? last;
        stream.replay = undefined;
      },
      outrun: (pruned) => {
        // The last id read, not the one asked for: what the client has been sent so far.
        const read = stream.replay?.cursor ?? last;
        stream.replay = undefined;
        reset(res, String(read), pruned, this.log.newest());
      },
      failed: (err) => {
        this.logger.error({ err }, 'event stream: replay failed; the stream is closed');
        this.forget(stream);
        res.destroy();
      },
    };
    this.replays.add(stream.replay);
  }

  /** Ends every stream (the appliance stops; open streams would keep the HTTP server waiting). */
  shutdown(): void {
    clearInterval(this.heartbeat);
    for (const off of this.unsubscribe) off();
    this.replays.stop();
    for (const stream of [...this.streams]) {
      this.send(stream);
      stream.closed = true;
      stream.res.end();
    }
    this.streams.clear();
    this.unsent.clear();
  }

  private deliver(event: EventRecord): void {
    this.delivered = event.id;
    for (const stream of this.streams) {
      // A stream still replaying reads this event from the log when its replay gets there.
      if (stream.closed || stream.replay || event.id <= stream.replayedUpTo || !stream.wanted(event.type, event.subject.kind, event.subject.key)) continue;
      if (stream.pending === '') stream.pendingFirst = event.id;
      stream.pending += frameOf(event);
      if (this.unsent.size === 0) setImmediate(() => this.flush());
      this.unsent.add(stream);
    }
  }

  /**
   * At the end of a turn: each stream's frames in one write (one chunk, one system call).
   * A stream that went live during the turn has fewer frames than the others of its
   * filter, and a first id of its own.
   */
  private flush(): void {
    const encoded = new Map<StreamFilter, { first: number; bytes: Buffer }>();
    for (const stream of this.unsent) {
      if (stream.closed || stream.pending === '') continue;
      let same = encoded.get(stream.wanted);
      if (!same || same.first !== stream.pendingFirst) {
        same = { first: stream.pendingFirst, bytes: Buffer.from(stream.pending) };
        encoded.set(stream.wanted, same);
      }
      stream.pending = '';
      this.write(stream, same.bytes);
    }
    this.unsent.clear();
  }

  /** Writes a stream's frames of this turn now (before it ends, or before it is told why it ends). */
  private send(stream: Stream): void {
    const frames = stream.pending;
    stream.pending = '';
    if (frames !== '' && !stream.closed) this.write(stream, frames);
  }

  private write(stream: Stream, frame: string | Buffer): void {
    stream.res.write(frame);
    if (stream.res.writableLength > this.maxBuffered) this.giveUp(stream);
  }

  private forget(stream: Stream): void {
    stream.closed = true;
    this.streams.delete(stream);
    if (stream.replay) this.replays.remove(stream.replay);
  }

  private giveUp(stream: Stream): void {
    this.stalled++;
    this.logger.warn(
      { user: stream.principal.username, unsent: stream.res.writableLength, replaying: !!stream.replay },
      'event stream: the client does not read; disconnected (it reconnects and is replayed from the log)',
    );
    this.forget(stream);
    stream.res.destroy();
  }

  private beat(): void {
    const now = performance.now();
    for (const stream of [...this.streams]) {
      const replay = stream.replay;
      if (!replay) this.write(stream, ': keep-alive\n\n');
      else if (replay.blockedSince !== undefined && now - replay.blockedSince > this.stallMs) this.giveUp(stream);
      // A replay waiting for its turn shows it is alive; one being served is busy enough.
      else if (!this.replays.isServing(replay)) stream.res.write(': keep-alive\n\n');
    }
  }

  /** After a change to users, roles, grants or keys: streams whose caller may no longer read events end. */
  private recheck(): void {
    for (const stream of [...this.streams]) {
      const now = this.current(stream.principal);
      if (now?.grants.has(GRANT)) {
        stream.principal = now;
        continue;
      }
      const reason = now ? `the grant ${GRANT} was taken away` : 'the caller may no longer sign in';
      // What it was sent before the change, then why it ends.
      this.send(stream);
      stream.res.write(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
      this.forget(stream);
      stream.res.end();
    }
  }
}
