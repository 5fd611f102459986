import { get } from '../api.ts';

// The API's lists, read a page at a time (`limit`, `after`) by the cursors of their
// `Link: <…>; rel="next"` headers (docs/common-module.md). Every list of the HMI reads
// through here: a live list (live-list.ts), a log followed at its end (tail.ts), a list
// read whole, the orders board's lanes.

export type Query = Record<string, string | number | undefined>;

export interface Page<T> {
  items: T[];
  /** The cursor of the next page (from `Link: <…>; rel="next"`); undefined on the last. */
  next: string | undefined;
}

/**
 * One page of a list. The next page is taken from the `Link` header by its cursor
 * only, and asked for at the same path: the link's own host may be the one behind a
 * proxy.
 */
export async function page<T>(path: string, query: Query, limit: number, after?: string): Promise<Page<T>> {
  const reply = await get<T[]>(path, { ...query, limit, after });
  return { items: reply.body ?? [], next: nextCursor(reply.headers.get('link')) };
}

/** The pages of one list, as a live list or a log tail reads them. */
export const pagesOf =
  <T>(path: string, query: Query = {}) =>
  (limit: number, after?: string): Promise<Page<T>> =>
    page<T>(path, query, limit, after);

function nextCursor(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return new URL(m[1]!, location.href).searchParams.get('after') ?? undefined;
  }
  return undefined;
}

/** Every page of a list that stays small (a unit's orders, a site's routes), in the API's order. */
export async function readAll<T>(path: string, query: Query = {}, limit = 1000): Promise<T[]> {
  const all: T[] = [];
  let after: string | undefined;
  do {
    const p = await page<T>(path, query, limit, after);
    all.push(...p.items);
    after = p.next;
  } while (after);
  return all;
}
