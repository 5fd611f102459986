import type { Route } from '../http/router.ts';

/**
 * The route table as both threads must have it, one line per route in order: a request
 * handed over names its route by its place in the table, so the tables must match.
 */
export function routeSignatures(routes: readonly Route[]): string[] {
  return routes.map((r) => `${r.method} ${r.path}${r.query?.length ? `?${r.query.join('&')}` : ''}`);
}
