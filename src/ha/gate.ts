import type { CommitCapture } from '../core/commit-capture.ts';
import { Cell, newLineCells } from '../core/durability/cells.ts';
import { LineEnd } from '../core/durability/line.ts';
import type { Flushes } from '../core/after-commit.ts';
import type { EventRecord } from '../core/event-catalogue.ts';
import type { ChangeSet } from './capture.ts';

// Nothing acknowledged before the standby can have it (docs/ha.md): on the active, a
// commit counts (its reply, its PLC answer, its events on the streams, a read that may
// have seen it) only once its change-log entry is stored on a quorum of the pair's
// cluster. This is the flush line of the appliance (core/durability) with "on disk"
// read as "in the change log": the line's cells are shared with the HTTP thread as the
// flush thread's are, and everything that waits on the line waits for the quorum.
//
// A commit with no row changes has no entry; it counts once every commit before it
// does. A commit that failed has neither: it counts with the next commit that is
// decided. Once an entry could not be stored, nothing more counts on this box. It has
// no flush statistics: the disk's flushes are the commits' own (the pair runs with
// `storage.flush: commit`), and entries are not flushes.

/** What the gate hands the change log: the entry of commit `seq` to publish. */
export type Publish = (seq: number, changes: ChangeSet, events: readonly EventRecord[]) => void;

export class ReplicationGate extends LineEnd implements Flushes, CommitCapture<ChangeSet> {
  private readonly source: Pick<CommitCapture<ChangeSet>, 'collect'>;
  private readonly publish: Publish;
  /** The commits whose entries were published and are not stored yet, in order. */
  private readonly inFlight: number[] = [];
  /** The last commit whose entry was published or which has none. */
  private decided = 0;
  private brokenBy: unknown;

  /**
   * `source` collects each transaction's changes (capture.ts); `publish` sends an entry
   * and must call `stored` or `failed` for it, in commit order.
   */
  private readonly holds: () => boolean;

  /**
   * `holds`: asked before anything more counts (the lease, lease.ts): once it says no,
   * nothing more is acknowledged on this box.
   */
  constructor(source: Pick<CommitCapture<ChangeSet>, 'collect'>, publish: Publish, callbackFailed: (err: unknown) => void, holds: () => boolean = () => true) {
    super(newLineCells(), callbackFailed);
    this.source = source;
    this.publish = publish;
    this.holds = holds;
  }

  /** Set once an entry could not be stored: this box acknowledges nothing more. */
  get broken(): unknown {
    return this.brokenBy;
  }

  // ---- the line (Flushes) ------------------------------------------------------------

  end(): void {
    const seq = Atomics.load(this.cells, Cell.Begun);
    Atomics.store(this.cells, Cell.Committed, seq);
    // A COMMIT that succeeded is decided before this turn's code ends (afterCommit(),
    // below); one that failed never is, and is decided here, with nothing to store.
    queueMicrotask(() => {
      if (((seq - this.decided) | 0) > 0) this.decide(seq);
    });
  }

  // ---- the capture (CommitCapture) ---------------------------------------------------

  collect(): ChangeSet | undefined {
    return this.source.collect();
  }

  afterCommit(changes: ChangeSet | undefined, events: readonly EventRecord[]): void {
    const seq = this.line.committed;
    if (changes) {
      this.inFlight.push(seq);
      this.publish(seq, changes, events);
    }
    this.decide(seq);
  }

  // ---- the change log's answers ------------------------------------------------------

  /** The entry of commit `seq` is stored on a quorum. */
  stored(seq: number): void {
    if (this.inFlight[0] !== seq) throw new Error(`entry of commit ${seq} stored out of order (expected ${String(this.inFlight[0])})`);
    this.inFlight.shift();
    this.advance();
  }

  /** The entry of commit `seq` could not be stored: nothing from it on may count. */
  failed(seq: number, error: unknown): void {
    this.brokenBy ??= error ?? new Error(`the entry of commit ${seq} was not stored`);
  }

  private decide(seq: number): void {
    if (((seq - this.decided) | 0) > 0) this.decided = seq;
    this.advance();
  }

  /** Moves the line's "flushed" cell to the last commit that counts, and wakes whoever waits on it. */
  private advance(): void {
    if (this.brokenBy !== undefined || !this.holds()) return;
    const counts = this.inFlight.length > 0 ? (this.inFlight[0]! - 1) | 0 : this.decided;
    if (counts === Atomics.load(this.cells, Cell.Flushed)) return;
    Atomics.store(this.cells, Cell.Flushed, counts);
    Atomics.notify(this.cells, Cell.Flushed);
  }
}
