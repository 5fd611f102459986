import { signal, type Signal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { ApiFailure, get, page } from '../../api.ts';
import { subscribe, type EventType, type LiveEvent } from '../../live.ts';
import { user } from '../../session.ts';

// A list that grows with the site (location groups, routes), read a page at a time
// (`limit`/`after`) in the API's order, by name, and kept live: an event names one
// record, which alone is read again (or dropped when it is gone); a resync reads the
// first page afresh.

const PAGE = 50;

export interface PagedList<T> {
  items: Signal<T[] | undefined>;
  /** Cursor of the next page; undefined on the last. */
  next: Signal<string | undefined>;
  error: Signal<unknown>;
  busy: Signal<boolean>;
  reload: () => Promise<void>;
  more: () => Promise<void>;
}

interface PagedListSpec<T, E extends EventType = EventType> {
  path: string;
  /** The record's identity in the list and in its events. */
  idOf: (item: T) => string;
  nameOf: (item: T) => string;
  /** The path one record is read from by its identity. */
  onePath: (id: string) => string;
  /** Event types that change a record of the list. */
  events: readonly E[];
  /** The identity an event names. */
  idOfEvent: (event: LiveEvent<E>) => string | undefined;
}

/**
 * The list of `spec.path` for this page, kept while other screens are shown: opened
 * again, the screen shows what it held at once while the first page is read again (no
 * event was followed meanwhile).
 */
export function usePagedList<T, E extends EventType>(spec: PagedListSpec<T, E>): PagedList<T> {
  const list = useMemo(() => sharedList(spec), []);
  useEffect(() => list.attach(), [list]);
  return list.api;
}

const lists = new Map<string, { owner: string; list: Listed<unknown, EventType> }>();

function sharedList<T, E extends EventType>(spec: PagedListSpec<T, E>): Listed<T, E> {
  const u = user.peek();
  const owner = u ? `${u.username}\n${[...u.grants].sort().join(' ')}` : '';
  let held = lists.get(spec.path);
  if (!held || held.owner !== owner) lists.set(spec.path, (held = { owner, list: new Listed(spec) as unknown as Listed<unknown, EventType> }));
  return held.list as unknown as Listed<T, E>;
}

class Listed<T, E extends EventType> {
  readonly api: PagedList<T>;
  private readonly items = signal<T[] | undefined>(undefined);
  private readonly next = signal<string | undefined>(undefined);
  private readonly error = signal<unknown>(undefined);
  private readonly busy = signal(false);
  private readonly spec: PagedListSpec<T, E>;

  constructor(spec: PagedListSpec<T, E>) {
    this.spec = spec;
    this.api = { items: this.items, next: this.next, error: this.error, busy: this.busy, reload: () => this.reload(), more: () => this.more() };
  }

  attach(): () => void {
    void this.reload();
    return subscribe(
      this.spec.events,
      (event) => {
        const id = this.spec.idOfEvent(event);
        if (id === undefined) void this.reload();
        else void this.refreshOne(id);
      },
      () => void this.reload(),
    );
  }

  private merge(fresh: T[], replace: boolean): void {
    const { idOf, nameOf } = this.spec;
    const byId = new Map((replace ? [] : (this.items.value ?? [])).map((i) => [idOf(i), i]));
    for (const i of fresh) byId.set(idOf(i), i);
    const list = [...byId.values()].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
    // Read again and found the same: nothing to redraw.
    if (JSON.stringify(list) !== JSON.stringify(this.items.value)) this.items.value = list;
  }

  private async reload(): Promise<void> {
    try {
      const first = await page<T>(this.spec.path, {}, PAGE);
      this.next.value = first.next;
      this.merge(first.items, true);
      this.error.value = undefined;
    } catch (err) {
      this.error.value = err;
    }
  }

  private async more(): Promise<void> {
    if (!this.next.value) return;
    this.busy.value = true;
    try {
      const further = await page<T>(this.spec.path, {}, PAGE, this.next.value);
      this.next.value = further.next;
      this.merge(further.items, false);
      this.error.value = undefined;
    } catch (err) {
      this.error.value = err;
    } finally {
      this.busy.value = false;
    }
  }

  private async refreshOne(id: string): Promise<void> {
    try {
      this.merge([(await get<T>(this.spec.onePath(id))).body], false);
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 404) this.items.value = (this.items.value ?? []).filter((i) => this.spec.idOf(i) !== id);
      else this.error.value = err;
    }
  }
}
