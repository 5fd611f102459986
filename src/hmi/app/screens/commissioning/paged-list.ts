import { useSignal, type Signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiFailure, get, page } from '../../api.ts';
import { subscribe, type LiveEvent } from '../../live.ts';

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

export interface PagedListSpec<T> {
  path: string;
  /** The record's identity in the list and in its events. */
  idOf: (item: T) => string;
  nameOf: (item: T) => string;
  /** The path one record is read from by its identity. */
  onePath: (id: string) => string;
  /** Event types that change a record of the list. */
  events: readonly string[];
  /** The identity an event names. */
  idOfEvent: (event: LiveEvent) => string | undefined;
}

export function usePagedList<T>(spec: PagedListSpec<T>): PagedList<T> {
  const items = useSignal<T[] | undefined>(undefined);
  const next = useSignal<string | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  const busy = useSignal(false);

  const sorted = (list: T[]) => list.sort((a, b) => (spec.nameOf(a) < spec.nameOf(b) ? -1 : spec.nameOf(a) > spec.nameOf(b) ? 1 : 0));
  const merge = (fresh: T[], replace: boolean) => {
    const byId = new Map((replace ? [] : (items.value ?? [])).map((i) => [spec.idOf(i), i]));
    for (const i of fresh) byId.set(spec.idOf(i), i);
    items.value = sorted([...byId.values()]);
  };

  const reload = async () => {
    try {
      const first = await page<T>(spec.path, {}, PAGE);
      next.value = first.next;
      merge(first.items, true);
      error.value = undefined;
    } catch (err) {
      error.value = err;
    }
  };

  const more = async () => {
    if (!next.value) return;
    busy.value = true;
    try {
      const further = await page<T>(spec.path, {}, PAGE, next.value);
      next.value = further.next;
      merge(further.items, false);
      error.value = undefined;
    } catch (err) {
      error.value = err;
    } finally {
      busy.value = false;
    }
  };

  const refreshOne = async (id: string) => {
    try {
      merge([(await get<T>(spec.onePath(id))).body], false);
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 404) items.value = (items.value ?? []).filter((i) => spec.idOf(i) !== id);
      else error.value = err;
    }
  };

  useEffect(() => {
    void reload();
    return subscribe(
      spec.events,
      (event) => {
        const id = spec.idOfEvent(event);
        if (id === undefined) void reload();
        else void refreshOne(id);
      },
      () => void reload(),
    );
  }, []);

  return { items, next, error, busy, reload, more };
}
