import type { Listing } from './listing.ts';

// Lists changed on their way out of a service, page by page and chunk by chunk alike:
// items mapped (names a store does not know), filtered by a test made in code, cut to
// the first `amount`, or a list already in memory. What a list route then answers:
// src/http/lists.ts.

/** The same list with its items changed chunk by chunk (a service adding what its store does not know). */
export function mapListing<A, B>(listing: Listing<A>, map: (items: A[]) => B[]): Listing<B> {
  return {
    kinds: listing.kinds,
    page(after, limit) {
      const { items, next } = listing.page(after, limit);
      return { items: map(items), next };
    },
    whole() {
      const whole = listing.whole();
      return Array.isArray(whole) ? map(whole) : mapEachChunk(whole, map);
    },
  };
}

async function* mapEachChunk<A, B>(chunks: AsyncIterable<A[]>, map: (items: A[]) => B[]): AsyncGenerator<B[]> {
  for await (const chunk of chunks) yield map(chunk);
}

/**
 * A list already in memory, in the order it has (one the request bounds, e.g. the
 * groups it names): the key is the position, so a cursor goes on after the item it
 * names as long as the list is the same.
 */
export function arrayListing<T>(items: T[]): Listing<T> {
  return {
    kinds: ['number'],
    page(after, limit) {
      const start = after === undefined ? 0 : (after[0] as number) + 1;
      const end = start + limit;
      return { items: items.slice(start, end), next: end < items.length ? [end - 1] : undefined };
    },
    whole: () => items,
  };
}

/**
 * The items of a list that pass a test made in code (one that needs what another module
 * knows). A page reads the list on, page by page, until it is full, the list ends, or
 * `scanRows` items were tested; then it answers what it has with the cursor where it
 * stopped — a page may be short, even empty, and still name a next one.
 */
export function filterListing<T>(listing: Listing<T>, keep: (items: T[]) => T[], scanRows = 5000): Listing<T> {
  return {
    kinds: listing.kinds,
    page(after, limit) {
      const items: T[] = [];
      let at = after;
      for (let scanned = 0; ;) {
        // Never more than the page still needs: the cursor is where the reading stopped.
        const page = listing.page(at, limit - items.length);
        items.push(...keep(page.items));
        scanned += page.items.length;
        at = page.next;
        if (at === undefined || items.length >= limit || scanned >= scanRows) return { items, next: at };
      }
    },
    whole() {
      const whole = listing.whole();
      return Array.isArray(whole) ? keep(whole) : keptChunks(whole, keep);
    },
  };
}

async function* keptChunks<T>(chunks: AsyncIterable<T[]>, keep: (items: T[]) => T[]): AsyncGenerator<T[]> {
  for await (const chunk of chunks) {
    const kept = keep(chunk);
    if (kept.length > 0) yield kept;
  }
}

/**
 * The first `amount` items of a list (`?amount=`), across pages: the cursor carries, as
 * its last part, how many items the pages before it gave.
 */
export function firstOf<T>(listing: Listing<T>, amount: number): Listing<T> {
  return {
    kinds: [...listing.kinds, 'number'],
    page(after, limit) {
      const given = after === undefined ? 0 : (after.at(-1) as number);
      const left = amount - given;
      if (left <= 0) return { items: [], next: undefined };
      const page = listing.page(after?.slice(0, -1), Math.min(limit, left));
      const total = given + page.items.length;
      return { items: page.items, next: page.next && total < amount ? [...page.next, total] : undefined };
    },
    whole() {
      const whole = listing.whole();
      return Array.isArray(whole) ? whole.slice(0, amount) : firstChunks(whole, amount);
    },
  };
}

async function* firstChunks<T>(chunks: AsyncIterable<T[]>, amount: number): AsyncGenerator<T[]> {
  let left = amount;
  // Leaving the loop early closes the source (and the snapshot it reads).
  for await (const chunk of chunks) {
    if (left <= 0) return;
    yield chunk.length > left ? chunk.slice(0, left) : chunk;
    left -= chunk.length;
    if (left <= 0) return;
  }
}
