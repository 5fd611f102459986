import { z } from 'zod';
import { validationError } from '../core/errors.ts';
import { mapChunks, type Listing } from '../core/listing.ts';
import { decodeKeyCursor, encodeKeyCursor, MAX_PAGE } from '../core/paging.ts';
import { listParams } from '../core/schema.ts';
import type { RequestContext } from '../http/context.ts';
import { ok, pageReply } from '../http/hal.ts';
import type { Reply } from '../http/router.ts';

// Lists as the modules hand them out (`Listing`, core/listing.ts) and how every list
// route answers them: with `limit`, a page of at most that many items after the cursor
// `after`, and `Link: <…>; rel="next"` while more exist; without `limit`, the whole
// array the spec promises — streamed chunk by chunk from a snapshot when the list grows
// with the site, read at once when it is small by nature.

/** `limit` and `after` of a list; a route whose filters come from the query extends its own schema with `listQuery.shape`. */
export const listQuery = z.object(listParams(MAX_PAGE));

interface ListRequest {
  limit: number | undefined;
  after: readonly (string | number)[] | undefined;
}

/** `limit` and the decoded `after` of the request; a cursor without `limit`, or one of another list, is refused. */
function listRequest(ctx: RequestContext, listing: Listing<unknown>): ListRequest {
  const q = ctx.queryAs(listQuery);
  if (q.after !== undefined && q.limit === undefined) {
    throw validationError('Validation failed: after: a cursor goes with limit; follow the Link header of a page as it is');
  }
  return { limit: q.limit, after: q.after === undefined ? undefined : decodeKeyCursor(q.after, listing.kinds) };
}

function pageOf<T>(ctx: RequestContext, listing: Listing<T>, request: ListRequest & { limit: number }, vo: (item: T) => unknown): Reply {
  const page = listing.page(request.after, request.limit);
  return pageReply(ctx, page.items.map(vo), page.next === undefined ? undefined : encodeKeyCursor(page.next));
}

/** The reply of a list route: a page with `limit`, otherwise the whole list. */
export function listReply<T>(ctx: RequestContext, listing: Listing<T>, vo: (item: T) => unknown): Reply {
  const request = listRequest(ctx, listing as Listing<unknown>);
  if (request.limit !== undefined) return pageOf(ctx, listing, { ...request, limit: request.limit }, vo);
  const whole = listing.whole();
  if (Array.isArray(whole)) return ok(whole.map(vo));
  return { status: 200, items: mapChunks(whole, vo) };
}

/**
 * A list the spec answers in another way when it is empty (the location wildcard
 * search: 404 with an empty body; the tasks: 204): the first chunk of the whole list is
 * read before the answer is chosen. A page is a page: an empty one (nothing there, or
 * nothing after the cursor) is `200 []`.
 */
export async function listReplyUnlessEmpty<T>(ctx: RequestContext, listing: Listing<T>, vo: (item: T) => unknown, empty: Reply): Promise<Reply> {
  const request = listRequest(ctx, listing as Listing<unknown>);
  if (request.limit !== undefined) return pageOf(ctx, listing, { ...request, limit: request.limit }, vo);
  const whole = listing.whole();
  if (Array.isArray(whole)) return whole.length === 0 ? empty : ok(whole.map(vo));
  const found = await firstChunkRead(whole);
  return found ? { status: 200, items: mapChunks(found, vo) } : empty;
}

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

/**
 * The first chunk of a stream read now (a reply that depends on whether the list is
 * empty): `undefined` when it is, otherwise the stream again, that chunk first. The
 * caller must iterate what it gets (a reply's items are written, or closed when the
 * client goes away), as it holds the stream's snapshot.
 */
async function firstChunkRead<T>(chunks: AsyncIterable<T[]>): Promise<AsyncIterable<T[]> | undefined> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return undefined;
  async function* again(): AsyncGenerator<T[]> {
    try {
      yield first.value;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }
  return again();
}
