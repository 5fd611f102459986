import type { CommitCapture } from './commit-capture.ts';
import type { FlushStats } from './durability/cells.ts';
import type { EventRecord } from './event-catalogue.ts';
import type { EventLog } from './event-log.ts';
import type { EventBus } from './events.ts';

// What follows each commit of the unit of work (unit-of-work.ts), in this order:
//
// - inside the appliance, at once: the other thread is told (`onCommitted`: its caches
//   forget what changed), the event index hears of the events, the subscribers of
//   `bus` hear of them (caches, routing models, rules that act);
// - outside, once the commit is on disk: the durable subscribers (event streams, the
//   hub export), then the answers that waited for it (the group commit's replies).
//
// With a pair (src/ha/, `captureWith`), the row changes of each transaction are collected
// as its COMMIT begins, inside it, and handed on first of all once it succeeded.
//
// "On disk" is at once when every COMMIT flushes itself (synchronous=FULL, the
// default). With a flush thread (`flushWith`, core/durability; `storage.flush: apart`)
// it is when the flush that covers the commit is done: docs/realtime.md, "Answers
// after the flush".

/** The flush thread's line as the unit of work tells it of commits (core/durability WalFlusher). */
export interface Flushes {
  /** A COMMIT begins. */
  begin(): void;
  /** The COMMIT begun last returned or failed. */
  end(): void;
  /** The last commit that ended (its sequence number on the line). */
  readonly committed: number;
  /** Runs `then` once everything committed so far is on disk, in the order asked. */
  after(then: () => void): void;
  /** Resolves once everything begun so far is on disk; undefined when it already is. */
  covering(): Promise<void> | undefined;
  /** What the flushes took so far (metrics); none for a line that does not flush the disk (the pair's gate). */
  stats?(): FlushStats;
}

export class AfterCommit {
  private readonly log: EventLog;
  private readonly bus: EventBus;
  /** Told of every commit, before the bus (src/threads hands it to the HTTP thread). */
  private committedHook: ((events: readonly EventRecord[], seq: number) => void) | undefined;
  /** The flush thread's line; undefined: every COMMIT flushes itself. */
  private flushes: Flushes | undefined;
  /** The pair's capture of each commit's row changes; undefined on a box alone. */
  private capture: CommitCapture | undefined;
  /** What it collected for the COMMIT under way. */
  private captured: unknown;

  constructor(log: EventLog, bus: EventBus) {
    this.log = log;
    this.bus = bus;
  }

  /**
   * Tells `hook` of every commit from now on, with its events (none for a commit that
   * only wrote) and its place on the flush line, right after the commit, before the
   * subscribers of the bus hear of it and before any reply that waited for it. It must
   * be quick and must not throw.
   */
  onCommitted(hook: ((events: readonly EventRecord[], seq: number) => void) | undefined): void {
    this.committedHook = hook;
  }

  /**
   * From now on commits do not wait for the disk: `flushes` flushes the write-ahead log
   * on another thread, and what acknowledges a change waits for it. The connection must
   * commit with synchronous=NORMAL for that to gain anything (db.ts `flushElsewhere`).
   */
  flushWith(flushes: Flushes | undefined): void {
    this.flushes = flushes;
  }

  /** What the flush thread's flushes took so far; undefined when every COMMIT flushes itself (its time is the commit's). */
  flushStats(): FlushStats | undefined {
    return this.flushes?.stats?.();
  }

  /** From now on, collects every transaction's row changes as its COMMIT begins and hands them on after it (the pair); undefined: no more. */
  captureWith(capture: CommitCapture | undefined): void {
    this.capture = capture;
  }

  /**
   * A COMMIT begins: a read from now on may see it. Called inside the transaction, just
   * before the COMMIT: the capture collects its changes here, and a failure fails it.
   */
  begin(): void {
    this.flushes?.begin();
    this.captured = this.capture?.collect();
  }

  /** The COMMIT begun last returned or failed. */
  end(): void {
    this.flushes?.end();
  }

  /** Runs `then` once everything committed so far is on disk (at once when it is), behind whatever asked before it. */
  afterFlush(then: () => void): void {
    if (this.flushes) this.flushes.after(then);
    else then();
  }

  /** Resolves once everything begun so far is on disk; undefined when it already is. */
  covering(): Promise<void> | undefined {
    return this.flushes?.covering();
  }

  /** After a commit with these events: inside at once, outside (and then `answer`) once on disk. */
  committed(events: readonly EventRecord[], answer?: () => void): void {
    if (this.capture) {
      const changes = this.captured;
      this.captured = undefined;
      this.capture.afterCommit(changes, events);
    }
    const flushes = this.flushes;
    this.committedHook?.(events, flushes?.committed ?? 0);
    if (events.length > 0) this.log.committed(events);
    if (!flushes) {
      // On disk already: every subscriber hears of each event in turn, as one delivery.
      if (events.length > 0) this.bus.deliver(events, true);
      answer?.();
      return;
    }
    // Asked before the subscribers run: a unit of work one of them runs commits after
    // this one, and its events and answers go out after these.
    if (events.length > 0 || answer) {
      flushes.after(() => {
        if (events.length > 0) this.bus.deliverDurable(events);
        answer?.();
      });
    }
    if (events.length > 0) this.bus.deliver(events);
  }
}
