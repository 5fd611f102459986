import type { IncomingMessage, ServerResponse } from 'node:http';
import { displayPath, ServerDeclined } from './errors.ts';
import type { HttpOptions } from './server.ts';

// Cross-origin requests (the HMI served from elsewhere, an integrator's page): the
// origins of `server.corsOrigins` are allowed, and a preflight is answered from the
// route table, naming the methods a path serves and the headers the appliance reads.

export const VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
const EXPOSED = 'Location, X-Request-Id, Link';
const ALLOWED_HEADERS = ['authorization', 'content-type', 'accept', 'x-request-id', 'last-event-id'];

/** Sets the CORS headers of a reply; false when the request's origin is not allowed. */
export function applyCors(options: HttpOptions, req: IncomingMessage, headers: Record<string, string>): boolean {
  headers['Access-Control-Expose-Headers'] = EXPOSED;
  const origin = req.headers.origin;
  if (!origin) return true;
  const allowed = options.corsOrigins.includes('*') || options.corsOrigins.includes(origin);
  if (allowed) headers['Access-Control-Allow-Origin'] = origin;
  return allowed;
}

/** Answers a preflight (OPTIONS) from the route table: 404 for a path without routes, 403 for an origin not allowed. */
export function preflight(
  options: HttpOptions,
  req: IncomingMessage,
  res: ServerResponse,
  rawPath: string,
  headers: Record<string, string>,
  originAllowed: boolean,
): void {
  const methods = options.router.methodsAt(rawPath);
  if (methods.length === 0) throw new ServerDeclined(404, `No resource at ${displayPath(rawPath)}`);
  if (!originAllowed) throw new ServerDeclined(403, `Origin ${req.headers.origin} is not allowed`);
  const allow = allowedMethods(methods);
  headers.Allow = allow;
  if (req.headers['access-control-request-method']) {
    headers['Access-Control-Allow-Methods'] = allow;
    const requested = (req.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    headers['Access-Control-Allow-Headers'] = [...new Set([...ALLOWED_HEADERS, ...requested.filter((h) => ALLOWED_HEADERS.includes(h))])].join(', ');
    headers['Access-Control-Max-Age'] = '600';
  }
  res.writeHead(204, headers);
  res.end();
}

/** The `Allow` list of a path: its routes' methods, HEAD wherever GET is served, and OPTIONS (preflight). */
export function allowedMethods(methods: readonly string[]): string {
  return [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
}
