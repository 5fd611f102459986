import { computed, signal } from '@preact/signals';
import { ApiFailure, type Page } from '../api.ts';

// A paged list that follows the live events: the movements and the tasks screens hold
// their lists in one. It reads page after page as the API orders them (`limit`/`after`),
// and an event changes only the one record it names: read afresh by its pKey and put in
// its place (or dropped when it is gone). A record that arrives live is shown only when
// it sorts among what was read: one that belongs on a page not read yet comes with
// `Show more`, as it would have without the event.

/** What every record of the appliance carries: its key and its update count. */
export interface Versioned {
  pKey: string;
  ol: number;
}

export interface LiveListSpec<T extends Versioned> {
  /** One page from the start (`after` undefined) or after a cursor. */
  read: (limit: number, after?: string) => Promise<Page<T>>;
  /** A record afresh; an ApiFailure 404 when it is gone. */
  readOne: (pKey: string) => Promise<T>;
  /** The order the API lists them in. */
  order: (a: T, b: T) => number;
  /**
   * Whether a record belongs in what is shown. `unknown`: only the appliance can tell
   * (a source group's subgroups): a new record of that kind makes the list read again.
   */
  shows: (item: T) => boolean | 'unknown';
  /** The filter is the page's own (the API has none): records it hides are kept, for when it changes. */
  keepsHidden?: boolean;
}

/** Records a read aims to show; a filter the API does not apply may take several pages. */
const PAGE_SIZE = 50;
/** Pages one read may take while a filter hides most of them: a bound on a button's work. */
const MAX_PAGES = 10;

export class LiveList<T extends Versioned> {
  /** What was read, in the list's order; undefined before the first read. */
  readonly items = signal<T[] | undefined>(undefined);
  readonly next = signal<string | undefined>(undefined);
  readonly error = signal<unknown>(undefined);
  readonly busy = signal(false);
  readonly shown = computed(() => this.items.value?.filter((item) => this.spec.shows(item) !== false));

  /** Counts reads from the start: a page read for an older one is dropped. */
  private generation = 0;
  /** Records named by events while a read was under way: read again after it. */
  private readonly missed = new Set<string>();
  /** Records being read again: a second event for one waits for the first read. */
  private readonly inFlight = new Map<string, boolean>();

  private readonly spec: LiveListSpec<T>;

  constructor(spec: LiveListSpec<T>) {
    this.spec = spec;
  }

  private visible(items: readonly T[]): number {
    return items.filter((i) => this.spec.shows(i) !== false).length;
  }

  /** Reads from the start: at first, after a filter change, when the stream asks to resync. */
  async reload(): Promise<void> {
    const mine = ++this.generation;
    // As many as were shown (a resync keeps the pages read), at least a page.
    const want = Math.max(PAGE_SIZE, this.shown.value?.length ?? 0);
    await this.take(mine, () => this.readPages(mine, undefined, () => [], want));
  }

  /** The next page(s): `Show more`, or a filter that now shows fewer than a page. */
  async more(): Promise<void> {
    const after = this.next.value;
    if (after === undefined || this.busy.value || !this.items.value) return;
    const mine = this.generation;
    const want = this.visible(this.items.value) + PAGE_SIZE;
    // Onto what is shown when the pages arrive: an action's answer put meanwhile stays.
    await this.take(mine, () => this.readPages(mine, after, () => this.items.value ?? [], want));
  }

  /** Reads further when a filter of the page's own leaves less than a page on screen. */
  fill(): void {
    const items = this.items.value;
    if (items && this.next.value !== undefined && !this.busy.value && this.visible(items) < PAGE_SIZE) void this.more();
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
      const page = await this.spec.read(PAGE_SIZE, cursor);
      if (mine !== this.generation) return undefined;
      read.push(...page.items);
      cursor = page.next;
      pages++;
    } while (cursor !== undefined && this.visible(start()) + this.visible(read) < want && pages < MAX_PAGES);
    // A record read again on a later page (it moved in the order meanwhile) is where the page says.
    const fresh = new Set(read.map((i) => i.pKey));
    return { items: [...start().filter((i) => !fresh.has(i.pKey)), ...read], next: cursor };
  }

  private settle(): void {
    this.busy.value = false;
    const missed = [...this.missed];
    this.missed.clear();
    for (const pKey of missed) this.touch(pKey);
  }

  /** An event named this record: read it afresh and put it where it belongs. */
  touch(pKey: string): void {
    if (this.busy.value) {
      this.missed.add(pKey);
      return;
    }
    if (this.inFlight.has(pKey)) {
      this.inFlight.set(pKey, true);
      return;
    }
    this.inFlight.set(pKey, false);
    this.spec
      .readOne(pKey)
      .then(
        (item) => this.put(item),
        (err) => {
          if (err instanceof ApiFailure && err.status === 404) this.drop(pKey);
        },
      )
      .finally(() => {
        const again = this.inFlight.get(pKey);
        this.inFlight.delete(pKey);
        if (again) this.touch(pKey);
      });
  }

  /** A record as the appliance has it now (an action's reply, or read after an event). */
  put(item: T): void {
    const list = this.items.value;
    if (!list) return;
    // A read under way may answer with an older state of it: read it once more after.
    if (this.busy.value) this.missed.add(item.pKey);
    const at = list.findIndex((i) => i.pKey === item.pKey);
    // An older answer than what is shown (two reads crossing) changes nothing.
    if (at >= 0 && list[at]!.ol > item.ol) return;
    const shows = this.spec.shows(item);
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

  drop(pKey: string): void {
    const list = this.items.value;
    if (list?.some((i) => i.pKey === pKey)) this.items.value = list.filter((i) => i.pKey !== pKey);
  }
}
