import { Cell, isAfter } from './cells.ts';

// Where the commits of the conveyor thread stand against the disk, shared by every
// thread of the appliance (docs/realtime.md, "Answers after the flush"). The conveyor
// thread commits without waiting for the disk; the flush thread (flush.worker.ts)
// flushes the write-ahead log and says up to which commit it got. Nothing that tells
// the world outside of a change (a reply, an answer to a PLC, an event on a stream or to
// the hub) leaves before the flush that covers its commit; `after` is how each waits.
//
// The cells it reads are in cells.ts.

interface Waiter {
  seq: number;
  then: () => void;
}

/** One thread's view of the line: what it asks to run after a flush, in the order asked. */
export class FlushLine {
  readonly cells: Int32Array;
  private readonly failed: (err: unknown) => void;
  private readonly waiting: Waiter[] = [];
  /** A wait for the next flush is under way. */
  private armed = false;

  /** `failed` hears of a callback that threw (the others still run). */
  constructor(cells: Int32Array, failed: (err: unknown) => void) {
    this.cells = cells;
    this.failed = failed;
  }

  /** The last commit begun: what a read that starts now may see. */
  get begun(): number {
    return Atomics.load(this.cells, Cell.Begun);
  }

  get committed(): number {
    return Atomics.load(this.cells, Cell.Committed);
  }

  get flushed(): number {
    return Atomics.load(this.cells, Cell.Flushed);
  }

  /** True when nothing begun so far waits for a flush. */
  get clear(): boolean {
    return this.waiting.length === 0 && !isAfter(this.begun, this.flushed);
  }

  /**
   * Runs `then` once commit `seq` and every one before it are on disk: at once when they
   * are and nothing asked earlier still waits; otherwise after the callbacks asked before
   * it, in order.
   */
  after(seq: number, then: () => void): void {
    if (this.waiting.length === 0 && !isAfter(seq, this.flushed)) {
      then();
      return;
    }
    this.waiting.push({ seq, then });
    this.arm();
  }

  /** Resolves once everything begun so far is on disk; undefined when it already is. */
  covering(): Promise<void> | undefined {
    const seq = this.begun;
    if (this.waiting.length === 0 && !isAfter(seq, this.flushed)) return undefined;
    return new Promise((resolve) => this.after(seq, resolve));
  }

  private arm(): void {
    while (!this.armed && this.waiting.length > 0) {
      const flushed = this.flushed;
      this.release(flushed);
      if (this.waiting.length === 0) return;
      // Woken when the flush thread stores a new value (it notifies after each flush).
      const wait = Atomics.waitAsync(this.cells, Cell.Flushed, flushed);
      if (!wait.async) continue; // it moved meanwhile: release again
      this.armed = true;
      void wait.value.then(() => {
        this.armed = false;
        this.arm();
      });
    }
  }

  private release(flushed: number): void {
    const waiting = this.waiting;
    let n = 0;
    while (n < waiting.length && !isAfter(waiting[n]!.seq, flushed)) n++;
    if (n === 0) return;
    for (const waiter of waiting.splice(0, n)) {
      try {
        waiter.then();
      } catch (err) {
        this.failed(err);
      }
    }
  }
}

/**
 * The conveyor thread's end of a line: it tells the line of commits (`begin`, and
 * `end` as each kind of line needs) and waits on it. Whatever moves the line's
 * "flushed" cell (the flush thread; the pair's change log, src/ha/gate.ts) builds on it.
 */
export abstract class LineEnd {
  readonly line: FlushLine;
  protected readonly cells: Int32Array;

  protected constructor(cells: Int32Array, callbackFailed: (err: unknown) => void) {
    this.cells = cells;
    this.line = new FlushLine(cells, callbackFailed);
  }

  /** A COMMIT begins: a read from now on may see it, and must not answer before it counts. */
  begin(): void {
    Atomics.store(this.cells, Cell.Begun, (Atomics.load(this.cells, Cell.Begun) + 1) | 0);
  }

  /** The COMMIT begun last returned or failed. */
  abstract end(): void;

  /** The last commit that ended. */
  get committed(): number {
    return this.line.committed;
  }

  /** Runs `then` once everything committed so far counts (at once when it does), in the order asked. */
  after(then: () => void): void {
    this.line.after(this.line.committed, then);
  }

  /** Resolves once everything begun so far counts; undefined when it already does. */
  covering(): Promise<void> | undefined {
    return this.line.covering();
  }
}
