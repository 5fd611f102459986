// The shared memory of the flush line (line.ts) and of the flush thread's statistics:
// what the conveyor thread, the flush thread (flush.worker.ts) and the HTTP thread read
// and write with Atomics. Kept apart so that the flush thread's code is this and nothing
// more.
//
// The line's cells are commits' sequence numbers. They wrap around past 2^31 (about 25
// days at a thousand commits a second), so they are compared as TCP compares its
// sequence numbers: by the sign of the difference.

/** The cells of the line, by index. */
export const Cell = {
  /** The last commit the conveyor thread began: a reader's snapshot may hold any commit up to it. */
  Begun: 0,
  /** The last commit whose COMMIT returned (or failed): what a flush started now covers. */
  Committed: 1,
  /** The last commit on disk. */
  Flushed: 2,
  /** Set while a diagnostic holds the flush thread (no flush starts); the thread waits on it. */
  Held: 3,
  /** Set to make the flush thread end. */
  Stop: 4,
  /**
   * Counted up by whatever wakes the flush thread (a commit ended, the stop). The thread
   * reads it before it looks at the other cells and sleeps only while it is unchanged,
   * so a wake that comes between its look and its sleep is never lost.
   */
  Wake: 5,
} as const;

const CELLS = 6;

/** True when sequence number `a` comes after `b`. */
export function isAfter(a: number, b: number): boolean {
  return ((a - b) | 0) > 0;
}

/** The shared cells of a new line, to hand to the threads that use it. */
export function newLineCells(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(CELLS * Int32Array.BYTES_PER_ELEMENT));
}

/** What the flush thread starts with. */
export interface FlushThreadData {
  /** The write-ahead log to flush. */
  file: string;
  cells: Int32Array;
  /** What the flushes took (`Stat`), kept by the flush thread, read by the metrics. */
  stats: BigInt64Array;
}

/** The cells of the flush statistics, by index (nanoseconds). */
export const Stat = {
  /** Flushes done. */
  Flushes: 0,
  /** Their time added up. */
  Nanos: 1,
  /** The longest since the last read (`WalFlusher.stats`). */
  MaxNanos: 2,
} as const;

/** What the flushes took so far. */
export interface FlushStats {
  flushes: number;
  seconds: number;
  /** The longest flush since the previous call. */
  maxSeconds: number;
}

/** Flush thread → conveyor thread. */
export type FlushThreadMessage = { kind: 'ready' } | { kind: 'failed'; message: string };
