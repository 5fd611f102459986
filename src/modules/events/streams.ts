import type { ServerResponse } from 'node:http';
import type { EventRecord } from '../../core/event-catalogue.ts';
import type { EventLog } from '../../core/event-log.ts';
import type { EventBus } from '../../core/events.ts';
import type { Logger } from '../../core/log.ts';
import type { Principal } from '../../http/context.ts';
import { FORGET_AFTER } from '../users/authentication.ts';

// Live event streams (Server-Sent Events) for HMI pages and integrations.
//
// - Every committed event is serialised once, whatever the number of streams.
// - `id:` is the event's id in the durable log: a client that reconnects with
//   `Last-Event-ID` is replayed what it missed from the log, also after a restart of
//   the appliance; only an id older than the log keeps (pruned) or newer than it holds
//   (another box, a restored backup) gets `event: reset`, telling the client to reload.
// - Replay reads the log in chunks, waits for the socket to drain and yields between
//   chunks; live events arriving meanwhile queue behind it, in order, without doubles.
// - A client that does not read (a stalled socket) is disconnected once its unsent
//   data passes a bound, instead of being buffered without limit; it reconnects and
//   is replayed.
// - A comment line every HEARTBEAT_MS keeps proxies and dead-peer detection honest.
// - A stream ends when its caller may no longer read events (locked, disabled,
//   deleted, revoked, or the grant taken away).

const HEARTBEAT_MS = 15_000;
const REPLAY_CHUNK = 500;
/** Live events held behind a replay that long: past it the client is too slow to catch up and reconnects. */
const MAX_QUEUED = 20_000;
const GRANT = 'events:read';

export interface StreamOptions {
  /** Unsent bytes at which a stream is given up (default 1 MiB). */
  maxBufferedBytes?: number;
  heartbeatMs?: number;
}

interface Stream {
  res: ServerResponse;
  principal: Principal;
  wanted: (type: string) => boolean;
  /** Events that arrived while the replay was still reading the log. */
  queued: EventRecord[] | undefined;
  closed: boolean;
}

const frames = new WeakMap<EventRecord, string>();

/** The SSE frame of an event, built once. */
export function frameOf(event: EventRecord): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(event, frame);
  }
  return frame;
}

export class LiveStreams {
  private readonly streams = new Set<Stream>();
  private readonly log: EventLog;
  private readonly logger: Logger;
  private readonly current: (principal: Principal) => Principal | undefined;
  private readonly maxBuffered: number;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unsubscribe: (() => void)[];
  /** Streams given up because their client did not read (diagnostics, tests). */
  stalled = 0;

  constructor(
    log: EventLog,
    bus: EventBus,
    current: (principal: Principal) => Principal | undefined,
    logger: Logger,
    options: StreamOptions = {},
  ) {
    this.log = log;
    this.logger = logger;
    this.current = current;
    this.maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
    this.heartbeat = setInterval(() => this.beat(), options.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeat.unref();
    this.unsubscribe = [
      bus.onAny((event) => this.deliver(event)),
      ...FORGET_AFTER.map((type) => bus.on(type, () => this.recheck())),
    ];
  }

  get size(): number {
    return this.streams.size;
  }

  /**
   * Serves a stream on an open response: replays what the client missed after
   * `lastEventId` (when given), then every new event its filter wants.
   */
  open(res: ServerResponse, principal: Principal, wanted: (type: string) => boolean, lastEventId: string | undefined): void {
    const stream: Stream = { res, principal, wanted, queued: undefined, closed: false };
    this.streams.add(stream);
    res.on('close', () => {
      stream.closed = true;
      this.streams.delete(stream);
    });
    res.write('retry: 3000\n\n');
    if (lastEventId === undefined) return;
    const last = /^\d{1,15}$/.test(lastEventId) ? Number(lastEventId) : undefined;
    const newest = this.log.newest();
    const oldest = this.log.oldest() ?? newest + 1;
    if (last === undefined || last > newest || last + 1 < oldest) {
      // The log cannot say what was missed: the client reloads what it shows.
      res.write(`event: reset\ndata: ${JSON.stringify({ lastEventId, oldest, newest })}\n\n`);
      return;
    }
    stream.queued = [];
    void this.replay(stream, last).catch((err: unknown) => {
      this.logger.error({ err }, 'event stream: replay failed; the stream is closed');
      res.destroy();
    });
  }

  /** Ends every stream (the appliance stops; open streams would keep the HTTP server waiting). */
  shutdown(): void {
    clearInterval(this.heartbeat);
    for (const off of this.unsubscribe) off();
    for (const stream of [...this.streams]) stream.res.end();
    this.streams.clear();
  }

  private async replay(stream: Stream, after: number): Promise<void> {
    let cursor = after;
    for (;;) {
      const chunk = this.log.after(cursor, REPLAY_CHUNK);
      if (stream.closed) return;
      for (const event of chunk) if (stream.wanted(event.type)) stream.res.write(frameOf(event));
      if (chunk.length > 0) cursor = chunk[chunk.length - 1]!.id;
      if (chunk.length < REPLAY_CHUNK) break;
      if (stream.res.writableNeedDrain) await new Promise((resolve) => stream.res.once('drain', resolve));
      else await new Promise<void>((resolve) => setImmediate(resolve));
      if (stream.closed) return;
    }
    // What committed while the log was read: the part the log did not show yet.
    const queued = stream.queued ?? [];
    stream.queued = undefined;
    for (const event of queued) if (event.id > cursor) this.write(stream, frameOf(event));
  }

  private deliver(event: EventRecord): void {
    for (const stream of this.streams) {
      if (stream.closed || !stream.wanted(event.type)) continue;
      if (!stream.queued) this.write(stream, frameOf(event));
      else if (stream.queued.push(event) > MAX_QUEUED) this.giveUp(stream);
    }
  }

  private write(stream: Stream, frame: string): void {
    stream.res.write(frame);
    if (stream.res.writableLength > this.maxBuffered) this.giveUp(stream);
  }

  private giveUp(stream: Stream): void {
    this.stalled++;
    this.logger.warn(
      { user: stream.principal.username, unsent: stream.res.writableLength },
      'event stream: the client does not read; disconnected (it reconnects and is replayed from the log)',
    );
    stream.closed = true;
    this.streams.delete(stream);
    stream.res.destroy();
  }

  private beat(): void {
    for (const stream of this.streams) if (!stream.queued) this.write(stream, ': keep-alive\n\n');
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
      stream.res.write(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
      stream.closed = true;
      this.streams.delete(stream);
      stream.res.end();
    }
  }
}
