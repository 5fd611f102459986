import type { Versioned } from '../core/versioned.ts';
import type { RequestContext } from './context.ts';
import { hrefTemplate, type Reply, type Route } from './router.ts';

// Hypermedia helpers. Indexes are HAL (`_links` keyed by link name); resources carry
// `links` arrays of `{rel, href}` as the spec's examples show. Hrefs are absolute,
// built from the address the client used (or `server.publicUrl`). An index href that
// holds `{placeholder}` words is a URI template (RFC 6570) and says so with
// `templated: true`, as HAL links do: a generic HAL client expands it instead of
// following the braces literally.

export interface Link {
  rel: string;
  href: string;
}

/** A link of an index: its href, and `templated` where the href is a URI template. */
export type IndexLink = { href: string; templated?: true };

export type IndexBody = { _links: Record<string, IndexLink> };

export const link = (ctx: RequestContext, rel: string, path: string): Link => ({ rel, href: ctx.baseUrl + path });

/** An index reply from link names to paths (paths may hold `{placeholder}` words). */
export function indexReply(ctx: RequestContext, links: Record<string, string>): Reply {
  const body: IndexBody = { _links: {} };
  for (const [name, path] of Object.entries(links)) {
    const href = ctx.baseUrl + path;
    body._links[name] = path.includes('{') ? { href, templated: true } : { href };
  }
  return { status: 200, body };
}

/** Link name → href template for every route of a table that names a link. */
function linksOf(routes: readonly Route[]): Record<string, string> {
  const links: Record<string, string> = {};
  for (const route of routes) {
    if (!route.link) continue;
    for (const name of typeof route.link === 'string' ? [route.link] : route.link) links[name] = hrefTemplate(route);
  }
  return links;
}

/** The `GET …/index` route of a module, its links taken from the module's route table. */
export function indexRoute(path: string, grant: string, routes: readonly Route[], summary: string): Route {
  const links = linksOf(routes);
  return {
    method: 'GET',
    path,
    grant,
    summary,
    index: true,
    handler: (ctx) => indexReply(ctx, links),
  };
}

/** `201 Created` with the `Location` header the spec requires on every create. */
export function created(ctx: RequestContext, path: string, body?: unknown, type?: string): Reply {
  const reply: Reply = { status: 201, headers: { Location: ctx.baseUrl + path } };
  if (body !== undefined) reply.body = body;
  if (type) reply.type = type;
  return reply;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const noContent = (): Reply => ({ status: 204 });

/** `pKey`, `ol`, `createDt`, `lastModifiedDt` and the links of a representation. */
export const technical = (entity: Versioned, links: Link[]) => ({
  pKey: entity.pk,
  ol: entity.ol,
  createDt: entity.createDt,
  lastModifiedDt: entity.lastModifiedDt,
  links,
});

/** Copies the defined values only: optional JSON fields that are absent stay absent. */
export function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/**
 * A page of a list: the items as a JSON array and, while more exist, a
 * `Link: <…>; rel="next"` header repeating the request's query with the next cursor.
 */
export function pageReply(ctx: RequestContext, items: unknown[], nextCursor: string | undefined): Reply {
  const reply: Reply = { status: 200, body: items };
  if (nextCursor !== undefined) {
    const query = new URLSearchParams(ctx.query);
    query.set('after', nextCursor);
    reply.headers = { Link: `<${ctx.baseUrl}${ctx.path}?${query.toString()}>; rel="next"` };
  }
  return reply;
}
