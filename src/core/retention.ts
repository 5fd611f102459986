import type { Statement } from 'better-sqlite3';
import type { Logger } from './log.ts';

// Retention of the logs that grow with every change and telegram (events, telegram
// log, cleared alarms): their oldest rows are deleted in small batches, one short
// transaction each with a turn of the event loop in between, so pruning never holds
// up a PLC telegram or a request for more than a few milliseconds.

/** Rows deleted per batch: a few milliseconds of work on the box. */
export const PRUNE_BATCH = 2000;
const EVERY_MS = 60_000;

/** The instant `days` days before now (ISO): the limit of what a `keepDays` setting keeps. */
export const daysAgo = (days: number): string => new Date(Date.now() - days * 86_400_000).toISOString();

/** Deletes one batch of old rows; returns how many went (0: nothing left to prune). */
type PruneTask = { name: string; prune: (batch: number) => number | Promise<number> };

export class Retention {
  private readonly tasks: PruneTask[] = [];
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(log: Logger) {
    this.log = log;
  }

  add(task: PruneTask): void {
    this.tasks.push(task);
  }

  start(): void {
    this.stopped = false;
    this.schedule(5_000);
  }

  /** Stops the timer and waits for a pass under way to reach the end of its batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over every task until each has nothing left (tests, and the timer). */
  runOnce(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.runOnce().then(() => this.schedule(EVERY_MS));
    }, ms);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    for (const task of this.tasks) {
      let total = 0;
      try {
        for (;;) {
          if (this.stopped) break;
          const deleted = await task.prune(PRUNE_BATCH);
          total += deleted;
          if (deleted === 0) break;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      } catch (err) {
        this.log.error({ err, log: task.name }, 'retention: pruning failed; it is tried again at the next pass');
      }
      if (total > 0) this.log.info({ log: task.name, rows: total }, 'retention: old rows pruned');
    }
  }
}

/**
 * The first id whose `at` is at or after `iso`, by a binary search over the primary key
 * (`firstFrom`: `SELECT id, at FROM t WHERE id >= ? ORDER BY id LIMIT 1`): ids grow with
 * time, so no index on `at` is needed. `newest + 1` when no row is that recent.
 */
export function firstIdAt(firstFrom: Statement, oldest: number | undefined, newest: number, iso: string): number {
  if (oldest === undefined) return newest + 1;
  let lo = oldest;
  let hi = newest + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = firstFrom.get(mid) as { id: number; at: string } | undefined;
    if (!row || row.at >= iso) hi = mid;
    else lo = row.id + 1;
  }
  return lo;
}

/**
 * The last id a prune batch deletes: every id up to the newest `maxRows`, or older than
 * the cut (`firstYoung`: the first id young enough to stay), at most `batch` ids from the
 * oldest; below `oldest` when nothing is to go.
 */
export function pruneUpto(oldest: number, newest: number, maxRows: number, firstYoung: number, batch: number, keepAfter = Number.MAX_SAFE_INTEGER): number {
  return Math.min(Math.max(newest - maxRows, Math.min(firstYoung - 1, keepAfter)), oldest + batch - 1);
}
