// The active's lease (docs/ha.md): one key in a key-value bucket with three replicas on
// the pair's NATS cluster. JetStream's Raft gives the quorum; this file gives the rules:
//
// - Taking: a node takes the lease when there is none (create), when its holder gave it
//   up, or when it has seen the same revision for a whole TTL on its own clock
//   (compare-and-set on that revision, so that a renewal meanwhile wins).
// - Holding: the holder renews four times a TTL (compare-and-set on its last revision).
//   It holds the lease until a TTL after it *sent* its last renewal that succeeded, less a
//   margin. The other node saw that renewal no sooner than it was stored, so it cannot
//   take the lease before the holder's own clock has run out: a holder that cannot renew
//   (cut off, paused, its disk or the cluster slow) stops acting first.
// - The term: the revision at which the holder took the lease. Renewals carry it; so does
//   everything the active writes for the standby, and an entry of an older term is refused.
//
// `holds()` is what an acknowledgement asks, at the moment it leaves: after a pause
// (a stopped process, a long garbage collection) it is false before any timer has run.

/** What the lease key holds. */
export interface LeaseValue {
  /** The holder's name (`ha.node`). */
  node: string;
  /** The revision at which it took the lease; null in the write that takes it (its revision is the term). */
  term: number | null;
  /** The holder's clock at this write (for people: the rules use revisions and local clocks only). */
  at: string;
  /** Given up: the other node may take the lease at once (a planned stop or switchover). */
  released?: boolean;
  /** Where the holder serves (`server.publicUrl`): the standby names it when it refuses a write. */
  url?: string;
}

/** One revision of the lease key, as the store returns it. */
export interface LeaseEntry {
  revision: number;
  /** The value, or undefined for a deleted key. */
  value: LeaseValue | undefined;
}

/**
 * The part of a NATS key-value bucket the lease uses (kv-store.ts adapts the real one;
 * every call may fail: no quorum, a timeout).
 */
export interface LeaseStore {
  get(): Promise<LeaseEntry | null>;
  /** Writes only if the key is absent or deleted; the new revision. */
  create(value: LeaseValue): Promise<number>;
  /** Writes only if the key's last revision is `revision`; the new revision. */
  update(value: LeaseValue, revision: number): Promise<number>;
  /** True for the error of a compare-and-set that lost (the key moved on). */
  lostRace(error: unknown): boolean;
}

/** Where the lease stands, for this node. */
export type LeaseStatus =
  | { role: 'holder'; term: number; revision: number; validForMs: number }
  | {
      role: 'follower';
      holder: string | undefined;
      /** Where the holder serves, when it said. */
      holderUrl: string | undefined;
      term: number | undefined;
      revision: number | undefined;
      /** How long ago (own clock) this node first saw the lease's last revision: its holder renews four times a TTL. */
      renewedMsAgo: number | undefined;
      reachable: boolean;
    };

export interface LeaseChange {
  /** This node now holds the lease (true) or no longer does (false). */
  holds: boolean;
  term: number | undefined;
  /** Taken: the node that held it before, if any, and whether it had given it up (a switchover). */
  from?: { node: string; released: boolean };
  /** Why it changed: `taken`, `renewal failed for the TTL`, `taken by <node>`, `released`, `stopped`. */
  reason: string;
}

export interface LeaseOptions {
  store: LeaseStore;
  node: string;
  ttlMs: number;
  /** Told of every change of holding, at once (it runs before the next acknowledgement may ask holds()). */
  onChange: (change: LeaseChange) => void;
  /** Told of a store call that failed (not a lost race): the log. */
  onError?: (error: unknown, doing: string) => void;
  /** The monotonic clock in ms (tests pass their own only to check the arithmetic). */
  now?: () => number;
  /**
   * Whether this node may take the lease now: only a box whose copy can be brought to the
   * end of the change log may (one that waits for a copy of the active may not). Always, when absent.
   */
  mayTake?: () => boolean;
  /** Where this node serves, written into the lease while it holds it. */
  url?: string;
}

/** How much earlier than the other node could take it the holder stops: a tenth of the TTL, at least 100 ms. */
export function leaseMargin(ttlMs: number): number {
  return Math.max(100, Math.floor(ttlMs / 10));
}

export class Lease {
  private readonly options: LeaseOptions;
  private readonly now: () => number;
  /** How often the loop runs: a quarter of the TTL. */
  private readonly period: number;
  /** Holding: the term, the last revision written, and until when (own clock) it holds. */
  private held: { term: number; revision: number; until: number } | undefined;
  /** Following: the last revision seen, and when (own clock) it was first seen. */
  private seen: { revision: number; at: number; value: LeaseValue | undefined } | undefined;
  private reachable = false;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;

  constructor(options: LeaseOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
    this.period = Math.max(50, Math.floor(options.ttlMs / 4));
  }

  /** True while this node holds the lease, by its own clock: asked as each acknowledgement leaves. */
  holds(): boolean {
    return this.held !== undefined && this.now() < this.held.until;
  }

  /** The term of the lease this node holds, if it holds it. */
  get term(): number | undefined {
    return this.holds() ? this.held!.term : undefined;
  }

  status(): LeaseStatus {
    if (this.held && this.holds())
      return { role: 'holder', term: this.held.term, revision: this.held.revision, validForMs: Math.round(this.held.until - this.now()) };
    const value = this.seen?.value;
    return {
      role: 'follower',
      holder: value && !value.released ? value.node : undefined,
      holderUrl: value && !value.released ? value.url : undefined,
      term: value ? (value.term ?? this.seen!.revision) : undefined,
      revision: this.seen?.revision,
      renewedMsAgo: this.seen ? Math.round(this.now() - this.seen.at) : undefined,
      reachable: this.reachable,
    };
  }

  /** Starts taking part: follows the lease, takes it when it may. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /**
   * Stops taking part. A holder gives the lease up (`release`: the other node takes it at
   * once) or, when `release` is false, lets it run out.
   */
  async stop(release = true): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.loop;
    const held = this.held;
    if (!held) return;
    this.lose('stopped');
    if (!release) return;
    try {
      await this.options.store.update({ node: this.options.node, term: held.term, at: new Date().toISOString(), released: true }, held.revision);
    } catch (error) {
      this.options.onError?.(error, 'releasing the lease');
    }
  }

  private schedule(delay: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.loop = this.turn().finally(() => {
        this.loop = undefined;
        this.schedule(this.period);
      });
    }, delay);
  }

  private async turn(): Promise<void> {
    if (this.held) await this.renew();
    else await this.follow();
  }

  private async renew(): Promise<void> {
    const held = this.held!;
    const sent = this.now();
    try {
      const revision = await this.options.store.update(this.value(held.term), held.revision);
      this.reachable = true;
      if (this.held !== held) return;
      this.hold({ term: held.term, revision, until: sent + this.validity() });
    } catch (error) {
      if (!this.options.store.lostRace(error)) {
        this.reachable = false;
        this.options.onError?.(error, 'renewing the lease');
        if (this.held === held && !this.holds()) this.lose('renewal failed for the TTL');
        return;
      }
      // The key moved on. It may be this node's own renewal whose reply was lost.
      const entry = await this.read();
      if (this.held !== held) return;
      if (entry?.value?.node === this.options.node && entry.value.term === held.term && !entry.value.released) {
        // Adopted; it holds until the next renewal confirms it (its own clock, from `sent`, is not known for it).
        this.held = { ...held, revision: entry.revision };
        return;
      }
      this.lose(entry?.value ? `taken by ${entry.value.node}` : 'the lease key was deleted');
    }
  }

  private async follow(): Promise<void> {
    const entry = await this.read();
    if (entry === undefined || !this.running) return;
    const now = this.now();
    if (this.options.mayTake && !this.options.mayTake()) {
      // Watching only: what it saw counts from now once it may take part.
      if (entry?.value && (!this.seen || this.seen.revision !== entry.revision)) this.seen = { revision: entry.revision, at: now, value: entry.value };
      return;
    }
    if (entry === null || entry.value === undefined) return this.take(() => this.options.store.create(this.value(null)));
    const from = { node: entry.value.node, released: entry.value.released === true };
    if (entry.value.released) return this.take(() => this.options.store.update(this.value(null), entry.revision), from);
    if (!this.seen || this.seen.revision !== entry.revision) {
      this.seen = { revision: entry.revision, at: now, value: entry.value };
      return;
    }
    // The same revision for a whole TTL by this node's clock: its holder has stopped acting.
    if (now - this.seen.at >= this.options.ttlMs) return this.take(() => this.options.store.update(this.value(null), entry.revision), from);
  }

  /** Tries a write that takes the lease; the revision it returns is the term. */
  private async take(write: () => Promise<number>, from?: LeaseChange['from']): Promise<void> {
    const sent = this.now();
    let revision: number;
    try {
      revision = await write();
    } catch (error) {
      if (!this.options.store.lostRace(error)) this.options.onError?.(error, 'taking the lease');
      this.seen = undefined;
      return;
    }
    this.reachable = true;
    this.seen = undefined;
    this.hold({ term: revision, revision, until: sent + this.validity() });
    this.options.onChange({ holds: true, term: revision, reason: 'taken', ...(from ? { from } : {}) });
  }

  /** The key's last revision; null when there is none, undefined when the store did not answer. */
  private async read(): Promise<LeaseEntry | null | undefined> {
    try {
      const entry = await this.options.store.get();
      this.reachable = true;
      return entry;
    } catch (error) {
      this.reachable = false;
      this.options.onError?.(error, 'reading the lease');
      return undefined;
    }
  }

  /** How long a write sent now lets the holder act: the TTL less the margin. */
  private validity(): number {
    return this.options.ttlMs - leaseMargin(this.options.ttlMs);
  }

  private hold(held: { term: number; revision: number; until: number }): void {
    this.held = held;
    // Step down when the time runs out, even if no renewal's answer ever comes.
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = setTimeout(
      () => {
        if (this.held === held) this.lose('renewal failed for the TTL');
      },
      Math.max(0, held.until - this.now()),
    );
    this.expiry.unref();
  }

  private lose(reason: string): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = undefined;
    this.seen = undefined;
    this.options.onChange({ holds: false, term: held.term, reason });
  }

  private value(term: number | null): LeaseValue {
    const value: LeaseValue = { node: this.options.node, term, at: new Date().toISOString() };
    if (this.options.url !== undefined) value.url = this.options.url;
    return value;
  }
}
