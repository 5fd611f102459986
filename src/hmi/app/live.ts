import { effect, signal } from '@preact/signals';
import { ApiFailure, apiUrl, post } from './api.ts';
import { can, sessionState } from './session.ts';
import type { EventRecord, EventType } from '../../contract/events.ts';

// The live event client (docs/events.md, "Live events"): one EventSource for the whole
// page, opened with a single-use ticket and narrowed to the event types the screens
// shown subscribe to. A ticket is good once, so the browser's own reconnect is refused;
// this client reconnects by itself instead (a new ticket, `lastEventId` of the last
// event it saw), and the appliance replays what was missed. Its state is a signal the
// shell always shows: a lost connection is never hidden.

/**
 * off: no stream (not logged in, no subscriber, or no grant events:read) · connecting:
 * opening the first time · live: open · lost: was open or failed; reconnecting.
 */
type LiveState = 'off' | 'connecting' | 'live' | 'lost';

export type { EventType };

/** An event as the stream sends it: the server's record of its type (src/contract/events.ts). */
export type LiveEvent<T extends EventType = EventType> = EventRecord<T>;

/** The event types whose data carries the field `K` (`pKey`, `key`, …). */
export type EventWith<K extends string> = { [T in EventType]: K extends keyof EventRecord<T>['data'] ? T : never }[EventType];

interface Subscription {
  types: readonly EventType[];
  onEvent: (event: LiveEvent) => void;
  /** Reload what is shown: the stream opened fresh, or the appliance could not say what was missed (`reset`). */
  onResync?: (() => void) | undefined;
}

export const liveState = signal<LiveState>('off');

const subscriptions = new Set<Subscription>();
/** Back-off between attempts: quick at first, then every 10 s. */
const RETRY_MS = [1000, 2000, 5000, 10_000];

let source: EventSource | undefined;
let openTypes = '';
let lastEventId: string | undefined;
let attempt = 0;
let retryTimer: number | undefined;
let reopenQueued = false;
/** Counts connects; a late answer of an older one is dropped. */
let generation = 0;

/**
 * Receives the events of the given types (exact names) as they are committed; returns
 * the unsubscribe. `onResync` runs when the subscriber should reload from REST.
 */
export function subscribe<T extends EventType>(types: readonly T[], onEvent: (event: LiveEvent<T>) => void, onResync?: () => void): () => void {
  // The stream hands a subscriber only the types it named.
  const subscription: Subscription = { types, onEvent: onEvent as (event: LiveEvent) => void, onResync };
  subscriptions.add(subscription);
  queueReopen();
  return () => {
    subscriptions.delete(subscription);
    queueReopen();
  };
}

/** Closes the stream (logout); the next subscription after a login opens it again, with nothing to replay. */
export function stopLive(): void {
  suspendLive();
  lastEventId = undefined;
}

// A login (also after an expiry, perhaps as another user with other grants) decides anew.
// A session that ended under the page ends its stream too (the appliance would go on
// sending to it): what the page shows stops being live, and says so; after the next
// login the stream opens again and is replayed from the last event seen.
effect(() => {
  const state = sessionState.value;
  if (state === 'active' && can('events:read')) queueReopen();
  else if (state === 'expired') suspendLive();
});

/** Closes the stream and stops reconnecting; the last event seen is kept for a replay after the next login. */
function suspendLive(): void {
  generation++;
  close();
  clearTimeout(retryTimer);
  retryTimer = undefined;
  openTypes = '';
  attempt = 0;
  liveState.value = 'off';
}

/** Re-evaluates the stream once the current turn of subscribing and unsubscribing is over. */
function queueReopen(): void {
  if (reopenQueued) return;
  reopenQueued = true;
  setTimeout(() => {
    reopenQueued = false;
    const wanted = wantedTypes();
    if (wanted === openTypes && (source || retryTimer !== undefined)) return;
    void connect();
  }, 0);
}

function wantedTypes(): string {
  return [...new Set([...subscriptions].flatMap((s) => s.types))].sort().join(',');
}

function close(): void {
  source?.close();
  source = undefined;
}

async function connect(): Promise<void> {
  const mine = ++generation;
  clearTimeout(retryTimer);
  retryTimer = undefined;
  const types = wantedTypes();
  if (!types || sessionState.value !== 'active' || !can('events:read')) {
    close();
    openTypes = '';
    liveState.value = 'off';
    return;
  }
  if (liveState.value === 'off') liveState.value = 'connecting';
  let ticket: string;
  try {
    ticket = (await post<{ ticket: string }>('/v1/events/tickets')).body.ticket;
  } catch (err) {
    if (mine !== generation) return;
    // A grant taken away: nothing to retry until the user changes.
    if (err instanceof ApiFailure && err.status === 403) {
      close();
      liveState.value = 'off';
      return;
    }
    return retryLater(mine);
  }
  if (mine !== generation) return;
  close();
  const query = new URLSearchParams({ ticket, types });
  if (lastEventId !== undefined) query.set('lastEventId', lastEventId);
  // Without a last id there is nothing to replay from: what the screens hold may be older
  // than the stream, so they reload once it is open.
  const fresh = lastEventId === undefined;
  const es = new EventSource(`${apiUrl('/v1/events')}?${query}`);
  source = es;
  openTypes = types;
  es.onopen = () => {
    if (source !== es) return;
    attempt = 0;
    liveState.value = 'live';
    if (fresh) resyncAll();
  };
  for (const type of types.split(',')) es.addEventListener(type, (e) => dispatch(es, e as MessageEvent<string>));
  es.addEventListener('reset', () => {
    if (source !== es) return;
    resyncAll();
  });
  // The appliance ends the stream of a caller that may no longer read; a new ticket
  // says why (401: log in again; 403: the grant is gone).
  es.addEventListener('closed', () => {
    if (source !== es) return;
    close();
    retryLater(mine);
  });
  es.onerror = () => {
    if (source !== es) return;
    close();
    retryLater(mine);
  };
}

function dispatch(es: EventSource, message: MessageEvent<string>): void {
  if (source !== es) return;
  let event: LiveEvent;
  try {
    event = JSON.parse(message.data) as LiveEvent;
  } catch {
    return;
  }
  lastEventId = message.lastEventId || String(event.id);
  for (const s of [...subscriptions]) if ((s.types as readonly string[]).includes(message.type)) s.onEvent(event);
}

function resyncAll(): void {
  for (const s of [...subscriptions]) s.onResync?.();
}

function retryLater(mine: number): void {
  if (mine !== generation) return;
  liveState.value = 'lost';
  const wait = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!;
  attempt++;
  clearTimeout(retryTimer);
  retryTimer = window.setTimeout(() => void connect(), wait);
}
