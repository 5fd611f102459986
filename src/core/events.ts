// In-process domain events. Services publish after their transaction committed, so
// a listener never sees a change that was rolled back. Listeners (routing caches,
// transport orders, the PLC adapter, live views) subscribe by type.

export interface DomainEvent {
  type: string;
  /** ISO timestamp of the change. */
  at: string;
  /** What changed, in API terms (business keys, not table rows). */
  data: Record<string, unknown>;
}

type Listener = (event: DomainEvent) => void;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly any = new Set<Listener>();
  private readonly onError: (err: unknown, event: DomainEvent) => void;

  constructor(onError: (err: unknown, event: DomainEvent) => void) {
    this.onError = onError;
  }

  /** Subscribes to one event type, or to every type with `*`; returns the unsubscribe function. */
  on(type: string, listener: Listener): () => void {
    const set = type === '*' ? this.any : (this.listeners.get(type) ?? new Set());
    if (type !== '*') this.listeners.set(type, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  publish(type: string, data: Record<string, unknown>): void {
    const event: DomainEvent = { type, at: new Date().toISOString(), data };
    // A failing listener must not undo the change that already committed, nor stop the others.
    for (const listener of [...(this.listeners.get(type) ?? []), ...this.any]) {
      try {
        listener(event);
      } catch (err) {
        this.onError(err, event);
      }
    }
  }
}
