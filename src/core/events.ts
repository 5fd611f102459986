import type { EventRecord, EventType } from './event-catalogue.ts';

// Subscribers of committed events: live streams, caches, unsolicited PLC telegrams,
// the alarm timers. The unit of work (core/unit-of-work.ts) delivers a unit's events
// here after its commit, so a subscriber never sees a change that was rolled back.
// Rules that must hold together with the change are reactions of the unit of work, not
// subscribers here.
//
// Two moments: `on` and `onAny` hear of the events right after the commit (what the
// appliance itself keeps: caches, routing models, rules that act by a unit of work of
// their own); `onAnyDurable` once the commit is on disk (core/durability: what tells
// the world outside, the event streams and the hub export, never reports a change that
// a power cut could still take back).

type Listener = (event: EventRecord) => void;

/** Who hears of an event handed out: the subscribers of the commit, the durable ones, or both at once. */
type Audience = 'committed' | 'durable' | 'all';

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly any = new Set<Listener>();
  private readonly onError: (err: unknown, event: EventRecord) => void;
  /** Events waiting while a delivery is under way: a subscriber that starts a unit of work of its own
   *  does not get its events ahead of the ones being delivered. */
  private readonly queue: { event: EventRecord; to: Audience }[] = [];
  private delivering = false;
  private readonly durable = new Set<Listener>();

  constructor(onError: (err: unknown, event: EventRecord) => void) {
    this.onError = onError;
  }

  /** Subscribes to one event type; returns the unsubscribe function. */
  on<T extends EventType>(type: T, listener: (event: EventRecord<T>) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    const l = listener as Listener;
    set.add(l);
    return () => set.delete(l);
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  onAny(listener: (event: EventRecord) => void): () => void {
    this.any.add(listener);
    return () => this.any.delete(listener);
  }

  /** Subscribes to every event once its commit is on disk; returns the unsubscribe function. */
  onAnyDurable(listener: (event: EventRecord) => void): () => void {
    this.durable.add(listener);
    return () => this.durable.delete(listener);
  }

  /** Hands events whose commit is on disk to the durable subscribers, in order. */
  deliverDurable(events: readonly EventRecord[]): void {
    this.hand(events, 'durable');
  }

  /**
   * Hands committed events to the subscribers, in order; `durable`: their commit is on
   * disk already (every commit flushes itself), the durable subscribers hear of each in
   * the same turn.
   */
  deliver(events: readonly EventRecord[], durable = false): void {
    this.hand(events, durable ? 'all' : 'committed');
  }

  /**
   * One queue for both moments: a subscriber that commits a unit of work of its own
   * meanwhile has its events queued behind these, whoever hears of them.
   */
  private hand(events: readonly EventRecord[], to: Audience): void {
    for (const event of events) this.queue.push({ event, to });
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let i = 0; i < this.queue.length; i++) {
        const { event, to } = this.queue[i]!;
        if (to !== 'durable') {
          const typed = this.listeners.get(event.type);
          if (typed) for (const listener of [...typed]) this.call(listener, event);
          for (const listener of [...this.any]) this.call(listener, event);
        }
        if (to !== 'committed') for (const listener of [...this.durable]) this.call(listener, event);
      }
    } finally {
      this.queue.length = 0;
      this.delivering = false;
    }
  }

  private call(listener: Listener, event: EventRecord): void {
    // A failing subscriber must not undo what committed, nor keep the others from hearing of it.
    try {
      listener(event);
    } catch (err) {
      this.onError(err, event);
    }
  }
}
