import type { EventLog } from '../core/event-log.ts';
import type { EventRecord } from '../core/event-catalogue.ts';
import type { FederationConfig } from './config.ts';

// The events the export takes (docs/federation.md, "Export"): as the event bus hands
// them out after their commit (the live streams send the same records), and from the
// log only what the bus did not hand out: the backlog after a start or an outage. Never
// further than the newest event handed out after its commit: the writer's connection
// also sees the rows of a group commit still open, which may yet be rolled back and
// their ids given to other events. Committed events only wake the exporter
// (exporter.ts), which waits here when there is nothing to export.

/** Events the bus handed out that the exporter keeps, at most (about 10 s at 1000/s); past it, it reads the log. */
const FRESH_MAX = 10_000;

export class ExportFeed {
  private readonly events: EventLog;
  private readonly config: FederationConfig;
  /** The newest event id known committed (delivered by the unit of work after its commit). */
  private committedUpto = 0;
  /** Events as the bus handed them out after their commit, in id order: not read back from the log. */
  private readonly fresh: EventRecord[] = [];
  private wakeUp: (() => void) | undefined;
  private stopped = false;

  constructor(events: EventLog, config: FederationConfig) {
    this.events = events;
    this.config = config;
  }

  /** The newest committed event id (what has been exported or waits for it). */
  get newest(): number {
    return this.committedUpto;
  }

  /** An event was committed: go on if waiting. Cheap: it runs in the event bus's delivery. */
  committed(eventId: number): void {
    if (eventId > this.committedUpto) this.committedUpto = eventId;
    this.wake();
  }

  /** The event bus handed out a committed event: kept for the export, which need not read it back. */
  delivered(event: EventRecord): void {
    // Full: the export is behind (the server away) and reads the log when it goes on.
    if (this.fresh.length >= FRESH_MAX) this.fresh.length = 0;
    this.fresh.push(event);
    this.committed(event.id);
  }

  /**
   * The events after `sent`, up to `batch`: from what the bus handed out when they
   * follow `sent` without a gap (committed ids follow one another; a gap is where the
   * log was pruned, or what the bus handed out before the exporter heard of it), else
   * read from the log.
   */
  next(sent: number): EventRecord[] {
    const fresh = this.fresh;
    let skip = 0;
    while (skip < fresh.length && fresh[skip]!.id <= sent) skip++;
    if (skip > 0) fresh.splice(0, skip);
    if (fresh.length > 0 && fresh[0]!.id === sent + 1) {
      let n = 1;
      while (n < fresh.length && n < this.config.batch && fresh[n]!.id === fresh[n - 1]!.id + 1) n++;
      return fresh.splice(0, n);
    }
    return sent >= this.committedUpto ? [] : this.events.after(sent, this.config.batch).filter((e) => e.id <= this.committedUpto);
  }

  /** Go on if waiting (a reconnect, a stop). */
  wake(): void {
    const resolve = this.wakeUp;
    this.wakeUp = undefined;
    resolve?.();
  }

  stop(): void {
    this.stopped = true;
    this.wake();
  }

  /** Waits for a commit, at most a second (a commit of another process, a missed wake). */
  idle(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wake(), 1000);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
