import type { Db } from './db.ts';

// Rows that need not commit with the change that caused them but must not cost a disk
// flush of their own: the telegram log, and the index of what each event is about.
//
// They wait in memory and ride on a commit of the unit of work — usually the next PLC
// telegram's — at most every RIDE_MS or once RIDE_ROWS are waiting, so a busy line
// writes their pages once per RIDE_MS rather than once per telegram. When nothing
// commits for FLUSH_MS they are written in a small transaction of their own. Rows are
// dropped from memory only once the commit that wrote them succeeded. A crash loses at
// most FLUSH_MS of them (the index is rebuilt from the events at start).

const RIDE_MS = 50;
const RIDE_ROWS = 512;
const FLUSH_MS = 200;

/** What the unit of work asks of a rider at each commit. */
export interface Rider {
  /** Inside the committing transaction: writes what is due (or nothing). */
  ride(): void;
  /** After the transaction: whether what `ride` wrote was committed. */
  settled(committed: boolean): void;
}

export class RideAlong<T> implements Rider {
  private readonly db: Db;
  private readonly write: (rows: readonly T[]) => void;
  private readonly maxWaiting: number;
  private readonly waiting: T[] = [];
  /** Rows written by the transaction under way, not yet known to be committed. */
  private inFlight = 0;
  private lastRide = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Rows given up because the disk could not keep up (diagnostics). */
  dropped = 0;

  /** `write` inserts rows inside a transaction; past `maxWaiting` waiting rows the oldest are dropped. */
  constructor(db: Db, write: (rows: readonly T[]) => void, maxWaiting = 100_000) {
    this.db = db;
    this.write = write;
    this.maxWaiting = maxWaiting;
  }

  get size(): number {
    return this.waiting.length;
  }

  add(row: T): void {
    if (this.waiting.length >= this.maxWaiting) {
      this.waiting.splice(this.inFlight, 1);
      this.dropped++;
    }
    this.waiting.push(row);
    this.arm();
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.flush();
      } catch {
        // The disk refused (full?): the rows wait for the next commit or the next try.
        this.arm();
      }
    }, FLUSH_MS);
    this.timer.unref();
  }

  ride(): void {
    if (this.waiting.length === 0 || this.inFlight > 0) return;
    if (this.waiting.length < RIDE_ROWS && performance.now() - this.lastRide < RIDE_MS) return;
    this.writeWaiting();
  }

  settled(committed: boolean): void {
    if (this.inFlight === 0) return;
    if (committed) this.waiting.splice(0, this.inFlight);
    this.inFlight = 0;
    if (this.waiting.length === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Writes what waits now, in a transaction of its own: nothing else committed for a
   * while, the appliance stops, or a reader wants to see everything.
   */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0 || !this.db.open || this.db.inTransaction) return;
    let committed = false;
    try {
      this.db.transaction(() => this.writeWaiting())();
      committed = true;
    } finally {
      this.settled(committed);
    }
  }

  private writeWaiting(): void {
    this.inFlight = this.waiting.length;
    this.lastRide = performance.now();
    this.write(this.waiting);
  }
}
