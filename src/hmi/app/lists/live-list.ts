import { computed, signal } from '@preact/signals';
import { ApiFailure } from '../api.ts';
import { user } from '../session.ts';
import type { Page } from './pages.ts';

// A paged list that follows the live events: the movements, the tasks, the alarm
// journal, goods-in's open orders, commissioning's groups and routes (the orders board
// keeps lanes of its own: screens/orders/board.ts says why). It reads page after page
// as the API orders them (`limit`/`after`), and an event changes only the one record it
// names: read afresh by its key and put in its place (or dropped when it is gone). A
// record that arrives live is shown only when it sorts among what was read: one that
// belongs on a page not read yet comes with `Show more`, as it would have without the
// event. list-view.tsx follows the events and draws it.

export interface LiveListSpec<T> {
  /** One page from the start (`after` undefined) or after a cursor. */
  read: (limit: number, after?: string) => Promise<Page<T>>;
  /** A record afresh by its key; an ApiFailure 404 when it is gone. */
  readOne: (key: string) => Promise<T>;
  /** The record's identity in the list and in its events. */
  keyOf: (item: T) => string;
  /** Its update count (`ol`), where it has one: an older answer than the one shown changes nothing. */
  versionOf?: (item: T) => number;
  /** The order the API lists them in. */
  order: (a: T, b: T) => number;
  /**
   * Whether a record belongs in what is shown (default: all do). `unknown`: only the
   * appliance can tell (a source group's subgroups): a new record of that kind makes the
   * list read again.
   */
  shows?: (item: T) => boolean | 'unknown';
  /** The filter is the page's own (the API has none): records it hides are kept, for when it changes. */
  keepsHidden?: boolean;
  /** Records asked for per page (default 50). */
  pageSize?: number;
  /**
   * Records a read aims to show, more than shown already (default a page). A filter the
   * API does not apply may take several pages for it: open receiving orders behind a long
   * tail of processed ones.
   */
  step?: number;
  /** Pages one read may take while the filter hides most of them: a bound on a button's work (default 10). */
  maxPages?: number;
}

export class LiveList<T> {
  /** What was read, in the list's order; undefined before the first read. */
  readonly items = signal<T[] | undefined>(undefined);
  readonly next = signal<string | undefined>(undefined);
  readonly error = signal<unknown>(undefined);
  readonly busy = signal(false);
  readonly shown = computed(() => this.items.value?.filter((item) => this.shows(item) !== false));

  /** Counts reads from the start: a page read for an older one is dropped. */
  private generation = 0;
  /** Records named by events while a read was under way: read again after it. */
  private readonly missed = new Set<string>();
  /** Records being read again: a second event for one waits for the first read. */
  private readonly inFlight = new Map<string, boolean>();

  private readonly spec: LiveListSpec<T>;
  private readonly pageSize: number;
  private readonly step: number;
  private readonly maxPages: number;

  constructor(spec: LiveListSpec<T>) {
    this.spec = spec;
    this.pageSize = spec.pageSize ?? 50;
    this.step = spec.step ?? this.pageSize;
    this.maxPages = spec.maxPages ?? 10;
  }

  private shows(item: T): boolean | 'unknown' {
    return this.spec.shows ? this.spec.shows(item) : true;
  }

  private visible(items: readonly T[]): number {
    return items.filter((i) => this.shows(i) !== false).length;
  }

  /** Reads from the start: at first, after a filter change, when the stream asks to resync. */
  async reload(): Promise<void> {
    const mine = ++this.generation;
    // As many as were shown (a resync keeps the pages read), at least a step.
    const want = Math.max(this.step, this.shown.value?.length ?? 0);
    await this.take(mine, () => this.readPages(mine, undefined, () => [], want));
  }

  /** The next page(s): `Show more`, or a filter that now shows fewer than a page. */
  async more(): Promise<void> {
    const after = this.next.value;
    if (after === undefined || this.busy.value || !this.items.value) return;
    const mine = this.generation;
    const want = this.visible(this.items.value) + this.step;
    // Onto what is shown when the pages arrive: an action's answer put meanwhile stays.
    await this.take(mine, () => this.readPages(mine, after, () => this.items.value ?? [], want));
  }

  /** Reads further when a filter of the page's own leaves less than a page on screen. */
  fill(): void {
    const items = this.items.value;
    if (items && this.next.value !== undefined && !this.busy.value && this.visible(items) < this.pageSize) void this.more();
  }

  /** Busy while `read` runs; shows what it read, or its failure, unless a newer read has begun. */
  private async take(mine: number, read: () => Promise<{ items: T[]; next: string | undefined } | undefined>): Promise<void> {
    this.busy.value = true;
    try {
      const pages = await read();
      if (!pages) return;
      this.items.value = pages.items;
      this.next.value = pages.next;
      this.error.value = undefined;
    } catch (err) {
      if (mine === this.generation) this.error.value = err;
    } finally {
      if (mine === this.generation) this.settle();
    }
  }

  private async readPages(mine: number, after: string | undefined, start: () => readonly T[], want: number) {
    const read: T[] = [];
    let cursor = after;
    let pages = 0;
    do {
      const page = await this.spec.read(this.pageSize, cursor);
      if (mine !== this.generation) return undefined;
      read.push(...page.items);
      cursor = page.next;
      pages++;
    } while (cursor !== undefined && this.visible(start()) + this.visible(read) < want && pages < this.maxPages);
    // A record read again on a later page (it moved in the order meanwhile) is where the page says.
    const fresh = new Set(read.map(this.spec.keyOf));
    return { items: [...start().filter((i) => !fresh.has(this.spec.keyOf(i))), ...read], next: cursor };
  }

  private settle(): void {
    this.busy.value = false;
    const missed = [...this.missed];
    this.missed.clear();
    for (const key of missed) this.touch(key);
  }

  /** An event named this record: read it afresh and put it where it belongs. */
  touch(key: string): void {
    if (this.busy.value) {
      this.missed.add(key);
      return;
    }
    if (this.inFlight.has(key)) {
      this.inFlight.set(key, true);
      return;
    }
    this.inFlight.set(key, false);
    this.spec
      .readOne(key)
      .then(
        (item) => this.put(item),
        (err) => {
          if (err instanceof ApiFailure && err.status === 404) this.drop(key);
        },
      )
      .finally(() => {
        const again = this.inFlight.get(key);
        this.inFlight.delete(key);
        if (again) this.touch(key);
      });
  }

  /** A record as the appliance has it now (an action's reply, or read after an event). */
  put(item: T): void {
    const list = this.items.value;
    if (!list) return;
    const key = this.spec.keyOf(item);
    // A read under way may answer with an older state of it: read it once more after.
    if (this.busy.value) this.missed.add(key);
    const at = list.findIndex((i) => this.spec.keyOf(i) === key);
    // An older answer than what is shown (two reads crossing) changes nothing.
    const version = this.spec.versionOf;
    if (at >= 0 && version && version(list[at]!) > version(item)) return;
    const shows = this.shows(item);
    if (at < 0 && shows === 'unknown') {
      void this.reload();
      return;
    }
    if (at < 0 && !shows && !this.spec.keepsHidden) return;
    const rest = at < 0 ? list : list.filter((_, i) => i !== at);
    let pos = rest.findIndex((i) => this.spec.order(item, i) < 0);
    if (pos < 0) {
      // After everything read: shown only when nothing more is to be read.
      if (this.next.value !== undefined) {
        if (at >= 0) this.items.value = rest;
        return;
      }
      pos = rest.length;
    }
    this.items.value = [...rest.slice(0, pos), item, ...rest.slice(pos)];
  }

  drop(key: string): void {
    const list = this.items.value;
    if (list?.some((i) => this.spec.keyOf(i) === key)) this.items.value = list.filter((i) => this.spec.keyOf(i) !== key);
  }
}

const kept = new Map<string, { owner: string; value: unknown }>();

/** A live list kept while other screens are shown (keptFor). */
export const keptList = <T>(name: string, spec: LiveListSpec<T>): LiveList<T> => keptFor(name, () => new LiveList(spec));

/**
 * What a screen keeps while others are shown, one per name for the page (a list, the
 * orders board): opened again, the screen shows what it held at once while it reads
 * afresh (no event was followed meanwhile). Another user, or other grants, get one of
 * their own.
 */
export function keptFor<V>(name: string, make: () => V): V {
  const u = user.peek();
  const owner = u ? `${u.username}\n${[...u.grants].sort().join(' ')}` : '';
  let held = kept.get(name);
  if (!held || held.owner !== owner) kept.set(name, (held = { owner, value: make() }));
  return held.value as V;
}
