import { z } from 'zod';
import { validationError } from '../core/errors.ts';
import { mapChunks, type Listing } from '../core/listing.ts';
import { decodeKeyCursor, encodeKeyCursor, MAX_PAGE } from '../core/paging.ts';
import { listParams } from '../core/schema.ts';
import type { RequestContext } from './context.ts';
import { ok, pageReply } from './hal.ts';
import type { Reply } from './router.ts';

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
