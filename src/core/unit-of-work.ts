import { currentActor, type Actor } from './actor.ts';
import type { Db } from './db.ts';
import { AfterCommit } from './after-commit.ts';
import { cachesOver, type CacheSet } from './cache.ts';
import { SUBJECT_OF, type EventInput, type EventRecord, type EventType } from './event-catalogue.ts';
import type { EventLog } from './event-log.ts';
import { EventBus } from './events.ts';
import { nowIso } from './time.ts';

// The one transaction runner of the appliance. Every change runs inside `run`:
//
//   work.run(() => {
//     store.update(…);
//     work.emit({ type: 'location.changed', key: locationId, data: { … } });
//   });
//
// - Events are written to the event log in the same transaction as the change: a
//   committed change always has its events, a rolled-back one never has.
// - Reactions (`react`) run inside the transaction, at the moment the event is emitted:
//   the rules that follow from a change (a unit that arrives finishes its order; a
//   deleted unit's orders are cancelled) hold whoever made the change, REST, a PLC
//   telegram or a hub command, and fail or commit with it.
// - After the commit the events go to the subscribers of `bus` (live streams, caches,
//   unsolicited PLC telegrams), in order; never before, never for a rollback.
// - A `run` inside a `run` joins it: one commit, and a failure anywhere fails the whole
//   unit. A caller that wants to catch the failure of a part and go on (one telegram of
//   a PLC burst) runs that part with `isolated`: a savepoint, whose failure undoes the
//   part's writes and drops its events.
//
// The actor of the events is the one the caller runs as (core/actor.ts).
//
// Group commit (`grouped`, used by the HTTP edge): the writes of requests handled in one
// turn of the event loop share one transaction and one fsync, each in a savepoint of
// its own (a failing one is rolled back alone and answered at once). The group commits
// in the next check phase; every reply handled meanwhile, a write's or a read's, waits
// for that commit, so nothing is answered before it is on disk. A unit of work that
// starts outside a request (a PLC telegram batch, a timer) commits the open group first
// and then runs as before, so a PLC reply never waits for, nor is sent before, a commit.
//
// What follows a commit (`after`, after-commit.ts): inside the appliance at once, the
// world outside (replies, the PLC's answers, event streams, the hub) once it is on disk.
//
// Both the unit's transaction and the group's begin IMMEDIATE, taking the write lock as
// they begin. A unit reads before it writes, and SQLite does not wait (nor call the busy
// handler) for a write lock that a read transaction must be raised to: it answers
// SQLITE_BUSY at once. Another connection holds that lock for an instant when it reads
// the log's index while a commit is writing it (a reader, or the checkpoints'
// connection, reading it again under the lock), and a unit that wrote in that instant
// failed: about one create in 100,000 under the mixed load. Taken as the transaction
// begins, the lock is waited for (storage.busyTimeoutMs; docs/realtime.md).

type Reaction = (event: EventRecord) => void;

export class UnitOfWork {
  readonly bus: EventBus;
  private readonly db: Db;
  private readonly log: EventLog;
  private readonly reactions = new Map<string, Reaction[]>();
  /** Events of the unit running now; undefined outside a unit. */
  private pending: EventRecord[] | undefined;
  private actor: Actor | undefined;
  /** A failure inside the running unit that a caller caught: the unit cannot commit. */
  private failed: { error: unknown } | undefined;
  private readonly outer: <T>(fn: () => T) => T;
  private readonly savepoint: <T>(fn: () => T) => T;
  /** Told how long each COMMIT took (metrics); while unset, commits are not timed at all. */
  private commitObserver: ((seconds: number) => void) | undefined;
  /** When the running unit's COMMIT began (process.hrtime.bigint()), while commits are timed. */
  private commitStarted = 0n;
  /** The running unit reached its COMMIT (the flush line was told it began). */
  private commitBegun = false;
  /** True while a request handler of the HTTP edge runs: its units join the group commit. */
  private grouping = false;
  /** The open group commit: its transaction is open, its events wait for the commit. */
  private group: Group | undefined;
  /** What follows each commit: the other thread told, the bus, the flush thread's line. */
  readonly after: AfterCommit;
  /** The entity caches over the connection: told when a unit's transaction opens and ends. */
  private readonly caches: CacheSet;

  constructor(db: Db, log: EventLog, onListenerError: (err: unknown, event: EventRecord) => void) {
    this.db = db;
    this.log = log;
    this.bus = new EventBus(onListenerError);
    this.after = new AfterCommit(log, this.bus);
    this.caches = cachesOver(db);
    const outer = db.transaction((fn: () => unknown) => {
      const result = fn();
      // Half of a unit must not commit because someone caught the failure of the other half.
      if (this.failed) throw this.failed.error;
      // better-sqlite3 runs COMMIT as this returns: from here to `outer` returning is the commit.
      if (this.commitObserver) this.commitStarted = process.hrtime.bigint();
      this.commitBegun = true;
      this.after.begin();
      return result;
    });
    // IMMEDIATE, as the group's BEGIN: the write lock taken as the transaction begins (above).
    this.outer = outer.immediate as <T>(fn: () => T) => T;
    this.savepoint = db.transaction((fn: () => unknown) => fn()) as <T>(fn: () => T) => T;
  }

  /**
   * Times every COMMIT from now on and tells `observer` the seconds it took (undefined:
   * no more). It runs after the commit, before the events are delivered; it must be quick.
   */
  observeCommits(observer: ((seconds: number) => void) | undefined): void {
    this.commitObserver = observer;
  }

  /**
   * Runs `then` once everything committed so far is on disk, behind whatever asked
   * before it: whatever acknowledges a change to the world outside goes through here.
   */
  afterFlush(then: () => void): void {
    this.after.afterFlush(then);
  }

  /** Resolves once everything committed so far is on disk. */
  flushed(): Promise<void> {
    return new Promise((resolve) => this.after.afterFlush(resolve));
  }

  /** True inside a unit of work. */
  get active(): boolean {
    return this.pending !== undefined;
  }

  /** False when SQLite gave up the running transaction (disk full, I/O error): nothing of the unit can be kept. */
  get transactionOpen(): boolean {
    return this.db.inTransaction;
  }

  /** Runs `fn` as one unit of work, or as part of the one running (its failure fails that one). */
  run<T>(fn: () => T): T {
    if (this.pending) {
      try {
        return fn();
      } catch (err) {
        this.failed ??= { error: err };
        throw err;
      }
    }
    if (this.grouping) return this.runInGroup(fn);
    // A unit outside the requests (PLC, timers) does not wait for the group, nor joins it.
    if (this.group) this.commitGroup();
    if (this.db.inTransaction) throw new Error('a unit of work cannot start inside a transaction it does not own');
    const events: EventRecord[] = [];
    this.pending = events;
    this.actor = currentActor();
    this.failed = undefined;
    let result: T;
    this.caches.began();
    let committed = false;
    try {
      result = this.outer(fn);
      committed = true;
    } finally {
      this.caches.ended(committed);
      this.pending = undefined;
      this.actor = undefined;
      this.failed = undefined;
      if (this.commitBegun) {
        this.commitBegun = false;
        this.after.end();
      }
    }
    if (this.commitStarted !== 0n) {
      this.commitObserver?.(Number(process.hrtime.bigint() - this.commitStarted) / 1e9);
      this.commitStarted = 0n;
    }
    this.after.committed(events);
    return result;
  }

  /**
   * Runs a request handler (its synchronous part): the units of work it runs join the
   * group commit of this turn of the event loop.
   */
  grouped<T>(fn: () => T): T {
    this.grouping = true;
    try {
      return fn();
    } finally {
      this.grouping = false;
    }
  }

  /**
   * What a reply handled now waits for: the open group commit, or the flush of what was
   * committed before (a read may have seen it); undefined: answer at once.
   */
  pendingCommit(): Promise<void> | undefined {
    return this.group?.committed ?? this.after.covering();
  }

  /** Commits the open group now (before a unit outside it, at stop). */
  commitGroup(): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    clearImmediate(group.timer);
    const started = this.commitObserver ? process.hrtime.bigint() : 0n;
    try {
      this.after.begin();
      this.db.exec('COMMIT');
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.caches.ended(false);
      group.reject(err);
      return;
    } finally {
      this.after.end();
    }
    this.caches.ended(true);
    if (started !== 0n) this.commitObserver?.(Number(process.hrtime.bigint() - started) / 1e9);
    this.after.committed(group.events, group.resolve);
  }

  private runInGroup<T>(fn: () => T): T {
    let group = this.group;
    if (!group) {
      if (this.db.inTransaction) throw new Error('a unit of work cannot start inside a transaction it does not own');
      this.db.exec('BEGIN IMMEDIATE');
      this.caches.began();
      group = openGroup(() => this.commitGroup());
      this.group = group;
    }
    const events: EventRecord[] = [];
    this.pending = events;
    this.actor = currentActor();
    this.failed = undefined;
    try {
      // A savepoint of its own: a failing request is undone alone, the group goes on.
      const result = this.savepoint(() => {
        const value = fn();
        if (this.failed) throw this.failed.error;
        return value;
      });
      group.events.push(...events);
      return result;
    } catch (err) {
      this.caches.undone();
      throw err;
    } finally {
      this.pending = undefined;
      this.actor = undefined;
      this.failed = undefined;
    }
  }

  /**
   * Runs a part of the running unit of work that may fail on its own: when `fn` throws,
   * its writes are undone (a savepoint) and its events dropped, the rest of the unit
   * stands, and the error goes to the caller.
   */
  isolated<T>(fn: () => T): T {
    const pending = this.pending;
    if (!pending) throw new Error('isolated() runs inside a unit of work');
    const mark = pending.length;
    const failed = this.failed;
    try {
      return this.savepoint(fn);
    } catch (err) {
      // Undone as a whole: what failed inside it no longer stands in the way of the rest.
      this.caches.undone();
      pending.length = mark;
      this.failed = failed;
      throw err;
    }
  }

  /** How many events the running unit has recorded so far (a mark for `recordedSince`). */
  mark(): number {
    return this.pending?.length ?? 0;
  }

  /** The events the running unit recorded after a mark: what a part of it caused (its reactions included). */
  recordedSince(mark: number): readonly EventRecord[] {
    return this.pending?.slice(mark) ?? [];
  }

  /** Records an event of the running unit; its reactions run now, its subscribers after the commit. */
  emit(input: EventInput): EventRecord {
    const pending = this.pending;
    if (!pending) throw new Error(`event ${input.type} emitted outside a unit of work`);
    const record = recordOf(input, this.actor!);
    record.id = this.log.insert(record, input.refs);
    pending.push(record);
    const reactions = this.reactions.get(input.type);
    if (reactions) for (const reaction of reactions) reaction(record);
    return record;
  }

  /**
   * A rule that follows from an event, run inside the emitting transaction. It may
   * write and emit; when it throws, the whole unit rolls back.
   */
  react<T extends EventType>(type: T, reaction: (event: EventRecord<T>) => void): void {
    const list = this.reactions.get(type) ?? [];
    list.push(reaction as Reaction);
    this.reactions.set(type, list);
  }
}

/** The record of an event emitted now (its id comes from the log). */
function recordOf(input: EventInput, actor: Actor): EventRecord {
  return {
    id: 0,
    type: input.type,
    at: nowIso(),
    actor,
    subject: { kind: SUBJECT_OF[input.type], key: input.key },
    data: input.data,
    ...(input.reason ? { reason: input.reason } : {}),
  } as EventRecord;
}

interface Group {
  /** Events of the group's units, in order, delivered after the commit. */
  events: EventRecord[];
  /** Resolves when the group is on disk; rejects when its commit failed (everything in it is undone). */
  committed: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Immediate;
}

function openGroup(commit: () => void): Group {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const committed = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting (the writes of a request whose reply failed): not an unhandled rejection.
  committed.catch(() => undefined);
  // The check phase after this poll phase: every request read in this turn has joined.
  return { events: [], committed, resolve, reject, timer: setImmediate(commit) };
}
