import { randomBytes } from 'node:crypto';
import type { DomainEvent, EventBus } from './events.ts';

// The recent domain events, numbered, for live views (`GET /v1/events`, Server-Sent
// Events). A view that lost its connection reconnects with the id of the last event it
// saw (`Last-Event-ID`) and gets what it missed from the journal, as long as the journal
// still holds it. Ids carry the process's boot id: after a restart an old id cannot be
// mistaken for a new one.

export interface JournalEntry {
  id: string;
  event: DomainEvent;
}

export interface Subscriber {
  deliver(entry: JournalEntry): void;
  /** The appliance is stopping: end the stream. */
  end(): void;
}

export class EventJournal {
  readonly bootId = randomBytes(4).toString('hex');
  private readonly capacity: number;
  private readonly entries: JournalEntry[] = [];
  private readonly subscribers = new Set<Subscriber>();
  private seq = 0;

  constructor(bus: EventBus, capacity = 1000) {
    this.capacity = capacity;
    bus.on('*', (event) => this.append(event));
  }

  private append(event: DomainEvent): void {
    const entry = { id: `${this.bootId}-${++this.seq}`, event };
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.shift();
    for (const subscriber of this.subscribers) subscriber.deliver(entry);
  }

  /**
   * The entries after `lastId`. `complete` is false when the journal cannot tell what
   * was missed (an id of an earlier boot, or one older than the journal holds): the view
   * should then reload what it shows.
   */
  since(lastId: string | undefined): { entries: JournalEntry[]; complete: boolean } {
    if (lastId === undefined) return { entries: [], complete: true };
    const [boot, seqText] = lastId.split('-');
    const seq = Number(seqText);
    if (boot !== this.bootId || !Number.isInteger(seq)) return { entries: [...this.entries], complete: false };
    const oldest = this.entries.length ? Number(this.entries[0]!.id.split('-')[1]) : this.seq + 1;
    const complete = seq >= oldest - 1;
    return { entries: this.entries.filter((e) => Number(e.id.split('-')[1]) > seq), complete };
  }

  subscribe(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** Ends every stream (before the HTTP server closes; open streams would keep it waiting). */
  shutdown(): void {
    for (const subscriber of [...this.subscribers]) subscriber.end();
    this.subscribers.clear();
  }
}
