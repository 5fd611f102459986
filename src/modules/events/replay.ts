import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Db } from '../../core/db.ts';
import type { EventLog } from '../../core/event-log.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import { storedFrameOf } from './frames.ts';

// Replay of the event log to the streams that reconnect with a Last-Event-ID: what they
// missed, read from the log page by page, before they go on live.
//
// A replay grows with the log (an id from the start of a busy day is a hundred thousand
// events) and any holder of `events:read` can ask for one, so its cost is bounded, on
// the thread that also answers the PLCs:
// - One scheduler for every replay, not a loop per stream: each turn of the event loop
//   it serves pages round robin until `turnMs` of work is done, then yields; the next
//   turn comes after the loop has polled its sockets. However many replays run, a
//   telegram waits for at most one turn (plus the one page that ends it), never for a
//   page of every stream.
// - Per client: a page (`pageSize` events) is written at once; once more waits unsent
//   than the socket's buffer (its high-water mark) the next is read only after the
//   socket took it ('drain'), so a slow client slows only its own replay and holds
//   about a page in memory. A client that takes nothing for `stallMs` is given up (by
//   the heartbeat of the streams); it reconnects and is replayed again.
// - In total: `concurrent` replays are served at once; the others wait their turn in
//   order of arrival, keeping their place in the log and nothing else. Every replay's
//   first page is served on arrival, outside the bound, so a view that missed a few
//   events (the usual reconnect) goes live at once instead of waiting behind replays
//   from the start of the log.
// - Nothing committed during a replay is held for it: live events are not queued for a
//   stream that replays, they are in the log and the replay reads them there. It goes
//   live when a page reaches the end of what is committed and nothing newer has been
//   delivered meanwhile (`newest()`, the last id the streams were handed): the read and
//   the switch happen in one synchronous step, so every event committed after the read
//   is delivered to it live. A client too slow to catch up lags behind in the log; its
//   memory does not grow.
// - Pages are read on a read connection (one per turn, from the read pool): a replay
//   never sees a change the writer has not committed yet (an open group commit), and
//   never holds the writer. Frames are built from the stored rows (frames.ts).

export interface ReplayLimits {
  /** Events read from the log per page. */
  pageSize: number;
  /** Work per turn of the event loop, all replays together, ms. */
  turnMs: number;
  /** Replays served at once beyond their first page; the others wait. */
  concurrent: number;
  /** A client that has not taken its last page for this long is given up, ms. */
  stallMs: number;
}

export const REPLAY_LIMITS: ReplayLimits = { pageSize: 128, turnMs: 1, concurrent: 8, stallMs: 30_000 };

/** One stream's replay: where it stands in the log, and what to call when it has caught up. */
export interface Replay {
  res: ServerResponse;
  wanted: (type: string) => boolean;
  /** The last id read from the log (of every type: the stream's filter applies to what was read). */
  cursor: number;
  /** Since when (performance.now()) the client has not taken the last page written; undefined while it keeps up. */
  blockedSince?: number | undefined;
  /** Called once the replay has caught up: the stream goes live. */
  caughtUp: () => void;
  failed: (err: unknown) => void;
}

export interface ReplayCounts {
  serving: number;
  waiting: number;
  blocked: number;
}

export class ReplayScheduler {
  private readonly log: EventLog;
  private readonly reads: ReadPool;
  private readonly newest: () => number;
  private readonly limits: ReplayLimits;
  /** Arrived, their first page not yet served. */
  private readonly arrived: Replay[] = [];
  /** Served at once (at most `concurrent`). */
  private readonly serving = new Set<Replay>();
  /** Of those served, the ones whose client took their last page: the round robin. */
  private readonly ready: Replay[] = [];
  /** Waiting for a place among those served, in order of arrival. */
  private readonly waiting: Replay[] = [];
  private scheduled = false;
  private stopped = false;

  constructor(log: EventLog, reads: ReadPool, newest: () => number, limits: ReplayLimits) {
    this.log = log;
    this.reads = reads;
    this.newest = newest;
    this.limits = limits;
  }

  /** Replays served now, waiting for their turn, and of all these the ones held up by their client (diagnostics, tests). */
  get counts(): ReplayCounts {
    let blocked = 0;
    for (const replay of [...this.serving, ...this.waiting]) if (replay.blockedSince !== undefined) blocked++;
    return { serving: this.serving.size, waiting: this.waiting.length + this.arrived.length, blocked };
  }

  /** True while the replay is among those served (not arrived, not waiting for its turn). */
  isServing(replay: Replay): boolean {
    return this.serving.has(replay);
  }

  add(replay: Replay): void {
    this.arrived.push(replay);
    this.schedule();
  }

  /** The stream ended (closed by its client, given up, shut down): its replay is forgotten. */
  remove(replay: Replay): void {
    for (const list of [this.arrived, this.ready, this.waiting]) {
      const i = list.indexOf(replay);
      if (i >= 0) list.splice(i, 1);
    }
    if (this.serving.delete(replay)) this.admit();
  }

  stop(): void {
    this.stopped = true;
    this.arrived.length = 0;
    this.ready.length = 0;
    this.waiting.length = 0;
    this.serving.clear();
  }

  private admit(): void {
    while (this.serving.size < this.limits.concurrent && this.waiting.length > 0) this.serve(this.waiting.shift()!);
  }

  private serve(replay: Replay): void {
    this.serving.add(replay);
    if (replay.blockedSince === undefined) this.ready.push(replay);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.stopped || (this.arrived.length === 0 && this.ready.length === 0)) return;
    this.scheduled = true;
    setImmediate(() => void this.turn());
  }

  private async turn(): Promise<void> {
    let snapshot;
    try {
      snapshot = await this.reads.snapshot();
    } catch (err) {
      // No read connection (the pool is closed: the appliance stops): the replays cannot go on.
      this.scheduled = false;
      for (const replay of [...this.arrived, ...this.serving, ...this.waiting]) replay.failed(err);
      return;
    }
    try {
      const until = performance.now() + this.limits.turnMs;
      do {
        // Newcomers first: their one page may be all they need.
        const replay = this.arrived.shift() ?? this.ready.shift();
        if (!replay) break;
        try {
          this.page(replay, snapshot.db);
        } catch (err) {
          this.remove(replay);
          replay.failed(err);
        }
      } while (performance.now() < until && !this.stopped);
    } finally {
      snapshot.close();
      this.scheduled = false;
    }
    this.schedule();
  }

  /** Reads and writes one page of a replay, then files it where it goes next. */
  private page(replay: Replay, db: Db): void {
    const first = !this.serving.has(replay);
    const rows = this.log.storedAfter(db, replay.cursor, this.limits.pageSize);
    let frames = '';
    for (const row of rows) if (replay.wanted(row.type)) frames += storedFrameOf(row);
    if (rows.length > 0) replay.cursor = rows[rows.length - 1]!.id;
    const taken = frames === '' || replay.res.write(frames);
    // The end of what is committed, and nothing delivered since that this read did not see.
    if (rows.length < this.limits.pageSize && this.newest() <= replay.cursor) {
      if (this.serving.delete(replay)) this.admit();
      replay.caughtUp();
      return;
    }
    if (!taken) {
      replay.blockedSince = performance.now();
      replay.res.once('drain', () => {
        replay.blockedSince = undefined;
        if (this.serving.has(replay)) {
          this.ready.push(replay);
          this.schedule();
        }
      });
    }
    if (!first) {
      if (!taken) return;
      this.ready.push(replay);
    } else if (this.serving.size < this.limits.concurrent) this.serve(replay);
    else this.waiting.push(replay);
  }
}
