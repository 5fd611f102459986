import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Db } from '../../core/db.ts';
import type { EventLog } from '../../core/event-log.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import { FramedPage, FramedPages } from './framed-pages.ts';
import type { StreamFilter } from './filter.ts';

// Replay of the event log to the streams that reconnect with a Last-Event-ID: what they
// missed, read from the log page by page, before they go on live.
//
// A replay grows with the log (an id from the start of a busy day is a hundred thousand
// events) and any holder of `events:read` can ask for one, so its cost is bounded, on
// the thread that also answers the PLCs:
// - One scheduler for every replay, not a loop per stream: each turn of the event loop
//   it serves pages round robin until `turnMs` of work is done, then yields; the next
//   turn comes after the loop has polled its sockets, and after a rest. However many
//   replays run, a telegram waits for at most one turn (plus the one page that ends
//   it), never for a page of every stream.
// - The rest keeps the loop from being busier than `loopBusy` with the replays counted
//   in: they take what the rest of the appliance (the PLCs first) leaves below it, as
//   measured over the last turn and rest (event-loop utilization), and never less than
//   a twentieth. A loop kept busy to the full would queue every telegram behind the
//   replays' turns and, on a box whose two cores are in use, cost each wake-up for a
//   telegram its wait for the processor.
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
//   stream that replays, they are in the log and the replay reads them there, up to
//   the last id the streams were handed (`newest()`): what is committed but not handed
//   out yet may not be on disk (docs/realtime.md, "Answers after the flush"). It goes
//   live when a page reaches that id: the read and the switch happen in one synchronous
//   step, so every event handed out after the read is delivered to it live. A client too slow to catch up lags behind in the log; its
//   memory does not grow.
// - Pages are read on a read connection (one per turn, from the read pool): a replay
//   never sees a change the writer has not committed yet (an open group commit), and
//   never holds the writer. Frames are built from the stored rows (frames.ts), and a
//   full page's frames are kept a while (FramedPages, `framedPages` bytes at most):
//   replays from the same id, many views after a restart or clients replaying from
//   the start of the log, read, frame and encode each page once, not once per client.

export interface ReplayLimits {
  /** Events read from the log per page. */
  pageSize: number;
  /** Work per turn of the event loop, all replays together, ms. */
  turnMs: number;
  /** How busy the event loop may be, replays counted in (0 to 1): they take what the rest of the appliance leaves below it. */
  loopBusy: number;
  /** Replays served at once beyond their first page; the others wait. */
  concurrent: number;
  /** A client that has not taken its last page for this long is given up, ms. */
  stallMs: number;
  /** Frames of full pages kept for replays that read the same pages, bytes. */
  framedPages: number;
}

/** The share of the loop's time replays get however busy it is: they go on, slowly. */
const MIN_SHARE = 0.05;

export const REPLAY_LIMITS: ReplayLimits = { pageSize: 128, turnMs: 1, loopBusy: 0.6, concurrent: 8, stallMs: 30_000, framedPages: 4 * 1024 * 1024 };

/** One stream's replay: where it stands in the log, and what to call when it has caught up. */
export interface Replay {
  res: ServerResponse;
  wanted: StreamFilter;
  /** The last id read from the log (of every type: the stream's filter applies to what was read). */
  cursor: number;
  /** Since when (performance.now()) the client has not taken the last page written; undefined while it keeps up. */
  blockedSince?: number | undefined;
  /** Called once the replay has caught up: the stream goes live. */
  caughtUp: () => void;
  /**
   * Called instead when retention pruned events the replay had yet to send (it waited
   * or read slowly while the log reached its limit): the client is told to reset, and
   * the stream goes live.
   */
  outrun: (oldest: number) => void;
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
  private readonly pages: FramedPages;
  private scheduled = false;
  /** Rest owed before the next turn, ms (a timer waits whole milliseconds: less is carried on). */
  private owed = 0;
  /** When the last turn ended, and the loop's utilization counters then. */
  private since = { at: performance.now(), loop: performance.eventLoopUtilization() };
  private stopped = false;

  constructor(log: EventLog, reads: ReadPool, newest: () => number, limits: ReplayLimits) {
    this.log = log;
    this.reads = reads;
    this.newest = newest;
    this.limits = limits;
    this.pages = new FramedPages(limits.framedPages);
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
    this.pages.clear();
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

  /** The next turn: after the loop polled its sockets, and after the rest owed. */
  private schedule(): void {
    if (this.scheduled || this.stopped || (this.arrived.length === 0 && this.ready.length === 0)) return;
    this.scheduled = true;
    const rest = this.owed;
    if (rest < 1) return void setImmediate(() => void this.turn());
    this.owed = 0;
    setTimeout(() => void this.turn(), rest);
  }

  /** After a turn that worked `worked` ms: the rest that keeps the loop within `loopBusy`. */
  private rest(worked: number): void {
    const now = performance.now();
    const loop = performance.eventLoopUtilization();
    const window = now - this.since.at;
    // What the rest of the appliance kept the loop busy with since the last turn ended.
    const others = window > 0 ? Math.max(0, loop.active - this.since.loop.active - worked) / window : 0;
    const share = Math.max(MIN_SHARE, this.limits.loopBusy - others);
    this.owed += worked * (1 / share - 1);
    this.since = { at: now, loop };
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
    const started = performance.now();
    try {
      const until = started + this.limits.turnMs;
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
      this.rest(performance.now() - started);
    }
    this.schedule();
  }

  /** Reads and writes one page of a replay, then files it where it goes next. */
  private page(replay: Replay, db: Db): void {
    const first = !this.serving.has(replay);
    // A page kept framed holds the events after the cursor whatever was pruned since; a
    // read from the log would skip the pruned ones without a word.
    const kept = this.pages.after(replay.cursor);
    const oldest = kept ? undefined : this.log.oldest(db);
    if (oldest !== undefined && replay.cursor + 1 < oldest) {
      if (this.serving.delete(replay)) this.admit();
      replay.outrun(oldest);
      return;
    }
    const page = kept ?? this.read(db, replay.cursor);
    if (page.count > 0) replay.cursor = page.lastId;
    const frames = page.framesFor(replay.wanted);
    const taken = frames.length === 0 || this.write(replay.res, frames);
    // The end of what is committed, and nothing delivered since that this read did not see.
    if (page.count < this.limits.pageSize && this.newest() <= replay.cursor) {
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

  /**
   * Writes a page now: node:http corks a response's socket at each write and sends it in
   * a tick after the turn, where its cost would escape the turn's budget; uncorked, the
   * page goes to the socket here. Returns false when the client has more unsent than its
   * socket's buffer (wait for 'drain').
   */
  private write(res: ServerResponse, frames: Buffer): boolean {
    const taken = res.write(frames);
    res.socket?.uncork();
    return taken;
  }

  private read(db: Db, after: number): FramedPage {
    // Up to what the streams were handed, no further: an event committed but not yet
    // handed out may not be on disk yet (storage.flush: apart); it comes live.
    const page = new FramedPage(this.log.storedAfter(db, after, this.limits.pageSize, this.newest()));
    if (page.count === this.limits.pageSize) this.pages.keep(after, page);
    return page;
  }
}
