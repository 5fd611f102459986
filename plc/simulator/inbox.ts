// What the simulated PLC receives (docs/plc.md ("The simulator")): each link's bytes cut
// into frames and decoded into a log of received telegrams (what the framing dropped into
// a log of its own), and the callers waiting on that log: a reply to a request, a
// telegram of a type, silence. The link and what is sent over it are the session's
// (session.ts), which builds on this.

import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { decode, DecodeError, type Telegram, type TelegramOf, type TelegramType } from './encoder.ts';
import type { Deframer, FramingOptions } from './framing.ts';
import type { Link } from './link.ts';
import type { SentTelegram } from './session.ts';

export interface ReceivedTelegram {
  /** Position in the received log; see mark(). */
  index: number;
  link: number;
  /** performance.now() when the frame was complete. */
  at: number;
  time: Date;
  /** The frame's text without framing. */
  text: string;
  /** The decoded telegram; undefined when it could not be read (see error). */
  telegram: Telegram | undefined;
  error: string | undefined;
}

interface DroppedBytes {
  link: number;
  bytes: Buffer;
  reason: string;
}

export interface LinkInfo {
  id: number;
  description: string;
}

export type SimulatorEvents = {
  sent: [SentTelegram];
  received: [ReceivedTelegram];
  dropped: [DroppedBytes];
  connected: [LinkInfo];
  disconnected: [LinkInfo & { reason: string }];
};

interface Waiter {
  match(received: ReceivedTelegram): boolean;
  resolve(received: ReceivedTelegram): void;
  reject(err: Error): void;
  /** A reply can satisfy one exclusive waiter (two identical REQ_ need two RES_), and any number of others. */
  exclusive: boolean;
}

/** The received and dropped logs of the simulator, and those waiting on them. */
export class SimulatorInbox extends EventEmitter<SimulatorEvents> {
  readonly received: ReceivedTelegram[] = [];
  readonly dropped: DroppedBytes[] = [];

  protected readonly framing: FramingOptions;
  protected readonly logLimit: number;
  protected receivedCount = 0;
  /** Per open link, what cuts its bytes into frames. */
  protected readonly deframers = new Map<number, Deframer>();
  protected readonly waiters = new Set<Waiter>();
  protected readonly byteListeners = new Set<(link: number, chunk: Buffer) => void>();

  constructor(framing: FramingOptions, logLimit: number) {
    super();
    this.framing = framing;
    this.logLimit = logLimit;
  }

  protected onData(link: Link, chunk: Buffer): void {
    for (const listener of [...this.byteListeners]) listener(link.id, chunk);
    const deframer = this.deframers.get(link.id);
    if (!deframer) return;
    for (const event of deframer.push(chunk)) {
      if (event.kind === 'dropped') {
        const dropped = { link: link.id, bytes: event.bytes, reason: event.reason };
        this.dropped.push(dropped);
        if (this.dropped.length > this.logLimit) this.dropped.shift();
        this.emit('dropped', dropped);
        continue;
      }
      const text = event.bytes.toString('latin1');
      let telegram: Telegram | undefined;
      let error: string | undefined;
      try {
        telegram = decode(text, { sync: this.framing.sync });
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        error = err.message;
      }
      this.record({ index: this.receivedCount++, link: link.id, at: performance.now(), time: new Date(), text, telegram, error });
    }
  }

  protected record(received: ReceivedTelegram): void {
    this.received.push(received);
    if (this.received.length > this.logLimit) this.received.shift();
    let exclusiveTaken = false;
    for (const waiter of [...this.waiters]) {
      if (waiter.exclusive && exclusiveTaken) continue;
      if (!waiter.match(received)) continue;
      if (waiter.exclusive) exclusiveTaken = true;
      waiter.resolve(received);
    }
    this.emit('received', received);
  }

  /** The index the next received telegram gets: pass it as `since` to expect() to include replies that already arrived. */
  mark(): number {
    return this.receivedCount;
  }

  /** Received telegrams of one type, oldest first. */
  receivedOf<T extends TelegramType>(type: T): TelegramOf<T>[] {
    return this.received.flatMap((r) => (r.telegram?.type === type ? [r.telegram as TelegramOf<T>] : []));
  }

  protected wait(
    match: (received: ReceivedTelegram) => boolean,
    timeoutMs: number,
    what: string,
    options: { exclusive?: boolean; since?: number } = {},
  ): Promise<ReceivedTelegram> {
    if (options.since !== undefined) {
      const earlier = this.received.find((r) => r.index >= options.since! && match(r));
      if (earlier) return Promise.resolve(earlier);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        exclusive: options.exclusive ?? false,
        resolve: (r) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(r);
        },
        reject: (err) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          reject(err);
        },
      };
      const timer = setTimeout(() => waiter.reject(new Error(`no ${what} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** The next telegram of a type (that the predicate accepts) within the timeout; rejects otherwise. */
  async expect<T extends TelegramType>(
    type: T,
    predicate: (telegram: TelegramOf<T>) => boolean = () => true,
    timeoutMs = 1000,
    options: { since?: number } = {},
  ): Promise<TelegramOf<T>> {
    const received = await this.wait((r) => r.telegram?.type === type && predicate(r.telegram as TelegramOf<T>), timeoutMs, type, options);
    return received.telegram as TelegramOf<T>;
  }

  /** Resolves when nothing at all (no byte) arrives for `ms`; rejects with what came. */
  expectSilence(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const listener = (link: number, chunk: Buffer) => {
        clearTimeout(timer);
        this.byteListeners.delete(listener);
        reject(new Error(`expected silence, link ${link} received ${JSON.stringify(chunk.toString('latin1'))}`));
      };
      const timer = setTimeout(() => {
        this.byteListeners.delete(listener);
        resolve();
      }, ms);
      this.byteListeners.add(listener);
    });
  }
}
