import type { z } from 'zod';
import type { RequestContext } from './context.ts';
import { ServerDeclined } from './errors.ts';

// Routes are data. Many lookups of the spec share a path and differ only by the
// query parameters they require (`GET /v1/locations?locationId=` vs `?plcCode=` vs
// `?area=…`), so a route names the parameters that select it. The table is checked
// when the appliance starts: a malformed or duplicate route, or one that names no
// grant, stops the start instead of surfacing as a wrong answer at 3 a.m.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** What a route takes as request body. */
export type BodyKind = 'json' | 'form' | 'octets' | 'none';

export interface Reply {
  status: number;
  body?: unknown;
  /** Ready bytes (e.g. an image); sent as they are with `type`. */
  raw?: Buffer;
  /** A file streamed as it is with `type` (large downloads, e.g. a database backup). */
  file?: { path: string; size: number };
  /**
   * A JSON array written as its items come, chunk by chunk (a list too long to build in
   * memory): the socket's back-pressure is honoured, and the event loop turns between
   * chunks. An error after the first byte cuts the connection (the client sees an
   * unfinished array, never a wrong complete one).
   */
  items?: AsyncIterable<readonly unknown[]>;
  /** A reply that stays open and is written over time (Server-Sent Events): called after the head is sent. */
  stream?: (res: import('node:http').ServerResponse) => void;
  /** Content type; set for `raw`, otherwise negotiated. */
  type?: string;
  headers?: Record<string, string>;
  /** A 201 that names no single new resource (a bulk create of several): sent without `Location`. */
  withoutLocation?: boolean;
}

export interface Route {
  method: Method;
  /** `/v1/locations/{pKey}`: literal segments and `{name}` parameters. */
  path: string;
  /** Query parameters that select this route among those sharing method and path; `op=change-state` also requires the value. */
  query?: readonly string[];
  /** Further parameters the route reads; they appear in the index link's template. */
  optionalQuery?: readonly string[];
  /** The grant a caller needs; `authenticated`: any caller with a valid token or API key, whatever it holds; or `public`. */
  grant: string;
  /** One line for the API description. */
  summary: string;
  /** Link name(s) of this operation in its module index. */
  link?: string | readonly string[];
  /** Index href when the spec shows one that differs from the route's own template. */
  linkHref?: string;
  /** Accepted body kinds; default `json` for POST/PUT/PATCH, `none` for GET/DELETE. */
  body?: BodyKind | readonly BodyKind[];
  /** Vendor media types this route can answer with (first = its main one). */
  vendorTypes?: readonly string[];
  /** Index resources may answer XML when asked for it. */
  index?: boolean;
  /** A Server-Sent Events stream: answered whatever the `Accept` header says. */
  eventStream?: boolean;
  /**
   * The caller may authenticate with `?ticket=` instead of an `Authorization` header
   * (a browser's EventSource cannot set headers); see POST /v1/events/tickets.
   */
  ticket?: boolean;
  /**
   * The thread that runs the handler (docs/realtime.md). By default a GET runs on the
   * HTTP thread, from read connections, and every other method on the conveyor thread,
   * which owns the one write connection. A GET that needs the conveyor thread's live
   * state (PLC links, the hub link, the log store's buffered rows) names `conveyor`; a
   * change that touches no database (an in-memory ticket of the HTTP thread) names `http`.
   */
  thread?: Thread;
  // What the API description (/openapi.json, src/http/openapi.ts) says of the route.
  // None of these change how the route is served.
  /** The request body: the zod schema the handler parses it with (its input form is described). */
  requestSchema?: ApiSchema;
  /** The query parameters as the handler parses them (`ctx.queryAs`), for their types. */
  querySchema?: z.ZodType;
  /** The JSON body of a successful reply: a zod schema of the representation, or a JSON Schema; `null`: a reply without body (a 204 never has one). */
  responseSchema?: ApiSchema | null;
  /** Statuses of a successful reply; default 200. */
  status?: number | readonly number[];
  /** Media type of a successful reply that is not JSON (an image, a file, metrics text). */
  replyType?: string;
  /**
   * Refusals by a rule (the API-declined body) beyond those the description infers from
   * the route (400 for what it validates, 404 for what a path or selector names): e.g.
   * 409 for a version or uniqueness conflict, 403 for a change a rule forbids.
   */
  errors?: readonly number[];
  /**
   * Refusals the handler gives in the server-declined body, beyond those the server gives
   * before it (401/403, 406, 413, 415, 400 for a malformed request): e.g. 404 of a file
   * that does not exist, 429 of a login throttle. A status named here is not inferred as
   * a rule refusal.
   */
  serverDeclined?: readonly number[];
  handler: (ctx: RequestContext) => Reply | Promise<Reply>;
}

/** The two threads of the appliance (docs/realtime.md). */
export type Thread = 'http' | 'conveyor';

/** Where a route's handler runs: its `thread`, else the HTTP thread for reads and the conveyor thread for changes. */
export const threadOf = (route: Pick<Route, 'method' | 'thread'>): Thread => route.thread ?? (route.method === 'GET' ? 'http' : 'conveyor');

/** A schema for the API description: zod, or JSON Schema (draft 2020-12, as OpenAPI 3.1 speaks it). */
export type ApiSchema = z.ZodType | { readonly [keyword: string]: unknown };

interface QueryRequirement {
  name: string;
  value?: string;
}

interface CompiledRoute {
  route: Route;
  segments: readonly string[];
  paramNames: readonly (string | null)[];
  required: readonly QueryRequirement[];
}

export type Match =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; allow: Method[] }
  | { kind: 'query-missing'; expected: string[] };

const SEGMENT = /^[A-Za-z0-9._-]+$/;
const PARAM = /^\{([A-Za-z][A-Za-z0-9]*)\}$/;
const GRANT = /^[a-z][a-z-]*:[a-z][a-z-]*$/;

/** The grant of a route open to everyone. */
export const PUBLIC = 'public';
/** The grant of a route open to every caller the token check lets in (who am I), whatever it holds. */
export const AUTHENTICATED = 'authenticated';

/** Whether a route's grant names a grant a caller must hold (not `public` or `authenticated`). */
export const namesGrant = (grant: string) => grant !== PUBLIC && grant !== AUTHENTICATED;

/** The grants the routes of a table name, sorted: the catalogue roles choose from. */
export const grantsOf = (routes: readonly Route[]): string[] => [...new Set(routes.map((r) => r.grant).filter(namesGrant))].sort();

export class RouteTableError extends Error {}

export class Router {
  readonly routes: readonly Route[];
  /** Path shape (params as `{}`) → method → variants ordered most specific first. */
  private readonly byShape = new Map<string, Map<Method, CompiledRoute[]>>();
  /** Literal paths, the common case, answered by one map lookup. */
  private readonly literal = new Map<string, Map<Method, CompiledRoute[]>>();
  private readonly parametrised: { segments: readonly string[]; methods: Map<Method, CompiledRoute[]> }[] = [];

  constructor(routes: readonly Route[]) {
    this.routes = routes;
    const seen = new Set<string>();
    for (const route of routes) {
      const compiled = compile(route);
      const shape = compiled.segments.map((s, i) => (compiled.paramNames[i] ? '{}' : s)).join('/');
      const key = `${route.method} /${shape} ?${compiled.required.map(formatRequirement).sort().join('&')}`;
      if (seen.has(key)) throw new RouteTableError(`duplicate route ${route.method} ${route.path} ${route.query ?? ''}`);
      seen.add(key);
      let methods = this.byShape.get(shape);
      if (!methods) {
        methods = new Map();
        this.byShape.set(shape, methods);
        if (compiled.paramNames.some((p) => p !== null)) {
          this.parametrised.push({ segments: compiled.segments.map((s, i) => (compiled.paramNames[i] ? '' : s)), methods });
        } else {
          this.literal.set('/' + shape, methods);
        }
      }
      const list = methods.get(route.method) ?? [];
      list.push(compiled);
      list.sort((a, b) => b.required.length - a.required.length);
      methods.set(route.method, list);
    }
    // Literal segments win over parameters: `/v1/locations/index` is never a pKey.
    this.parametrised.sort((a, b) => paramCount(a.segments) - paramCount(b.segments));
  }

  /** Finds the route for a request; `path` is the raw (still encoded) path without query. */
  match(method: string, rawPath: string, query: URLSearchParams): Match {
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const wanted = (method === 'HEAD' ? 'GET' : method) as Method;
    const literal = this.literal.get(path);
    if (literal) return choose(literal, wanted, query, undefined);
    const segments = path.split('/').slice(1);
    let first: Map<Method, CompiledRoute[]> | undefined;
    for (const candidate of this.parametrised) {
      if (!fits(candidate.segments, segments)) continue;
      first ??= candidate.methods;
      // Two shapes can fit one path; the first that serves the method wins.
      if (candidate.methods.has(wanted)) return choose(candidate.methods, wanted, query, segments);
    }
    if (!first) return { kind: 'not-found' };
    return { kind: 'method-not-allowed', allow: [...first.keys()] };
  }

  /** Methods served at a path (for CORS preflight and 405 `Allow`). */
  methodsAt(rawPath: string): Method[] {
    const m = this.match('OPTIONS', rawPath, new URLSearchParams());
    return m.kind === 'method-not-allowed' ? m.allow : [];
  }
}

function compile(route: Route): CompiledRoute {
  const where = `${route.method} ${route.path}`;
  if (!route.path.startsWith('/') || (route.path.length > 1 && route.path.endsWith('/'))) {
    throw new RouteTableError(`${where}: a path starts with / and has no trailing /`);
  }
  // The root `/` is the one path of no segment.
  const segments = route.path === '/' ? [] : route.path.split('/').slice(1);
  const paramNames: (string | null)[] = [];
  for (const segment of segments) {
    const param = PARAM.exec(segment);
    if (param) {
      if (paramNames.includes(param[1]!)) throw new RouteTableError(`${where}: parameter {${param[1]}} appears twice`);
      paramNames.push(param[1]!);
    } else if (SEGMENT.test(segment)) {
      paramNames.push(null);
    } else {
      throw new RouteTableError(`${where}: malformed segment "${segment}"`);
    }
  }
  if (namesGrant(route.grant) && !GRANT.test(route.grant)) {
    throw new RouteTableError(`${where}: grant "${route.grant}" is neither "public", "authenticated" nor of the form resource:action`);
  }
  const required = (route.query ?? []).map((q) => {
    const [name, value] = q.split('=', 2) as [string, string | undefined];
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new RouteTableError(`${where}: malformed query parameter "${q}"`);
    return value === undefined ? { name } : { name, value };
  });
  return { route, segments, paramNames, required };
}

function choose(methods: Map<Method, CompiledRoute[]>, method: Method, query: URLSearchParams, segments: readonly string[] | undefined): Match {
  const variants = methods.get(method);
  if (!variants) return { kind: 'method-not-allowed', allow: [...methods.keys()] };
  const chosen = variants.find((v) => v.required.every((r) => satisfied(r, query)));
  if (!chosen) {
    return { kind: 'query-missing', expected: variants.map((v) => v.required.map(formatRequirement).join('&')) };
  }
  const params: Record<string, string> = {};
  if (segments) {
    chosen.paramNames.forEach((name, i) => {
      if (name) params[name] = decodeSegment(segments[i]!);
    });
  }
  return { kind: 'route', route: chosen.route, params };
}

const paramCount = (segments: readonly string[]) => segments.filter((s) => s === '').length;

function fits(pattern: readonly string[], segments: readonly string[]): boolean {
  if (pattern.length !== segments.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const actual = segments[i]!;
    if (p === '' ? actual === '' : p !== actual) return false;
  }
  return true;
}

function satisfied(requirement: QueryRequirement, query: URLSearchParams): boolean {
  if (!query.has(requirement.name)) return false;
  return requirement.value === undefined || query.get(requirement.name) === requirement.value;
}

const formatRequirement = (r: QueryRequirement) => (r.value === undefined ? r.name : `${r.name}=${r.value}`);

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ServerDeclined(400, `Bad percent-encoding in the path segment "${segment}"`);
  }
}

/** The href template of a route as shown in an index: `{name}` placeholders stay. */
export function hrefTemplate(route: Route): string {
  if (route.linkHref) return route.linkHref;
  const names = [...(route.query ?? []), ...(route.optionalQuery ?? [])];
  const query = names.map((q) => (q.includes('=') ? q : `${q}={${q}}`)).join('&');
  return route.path + (query ? `?${query}` : '');
}
