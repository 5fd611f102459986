import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import { validationError } from '../core/errors.ts';
import { ServerDeclined, fromZodError } from './errors.ts';

/** Who is calling: resolved from the bearer token before the handler runs. */
export interface Principal {
  /** pKey of the user (for API keys: of the key's owner user, if any). */
  id: string;
  username: string;
  kind: 'user' | 'api-key';
  grants: ReadonlySet<string>;
  roleNames: readonly string[];
}

export interface RequestContextInit {
  requestId: string;
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  baseUrl: string;
  /** The TCP peer's address (a reverse proxy's, behind one). */
  clientAddress: string;
  principal: Principal | undefined;
  body: Buffer | undefined;
  contentType: string | undefined;
  accept: readonly string[];
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Levels of arrays and objects a JSON body may have. */
const MAX_DEPTH = 32;

/** Walks a parsed JSON value without recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * What a handler sees of a request: parameters, the caller, and the body parsed and
 * validated on demand. Handlers never touch the node:http objects.
 */
export class RequestContext {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly params: Record<string, string>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** `http://host:port` as the client reached us, for absolute links. */
  readonly baseUrl: string;
  /** The TCP peer's address (a reverse proxy's, behind one). */
  readonly clientAddress: string;
  readonly principal: Principal | undefined;
  private readonly rawBody: Buffer | undefined;
  private readonly contentType: string | undefined;
  /** Media types named in `Accept`, lower case, parameters stripped. */
  readonly accept: readonly string[];

  constructor(init: RequestContextInit) {
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.params = init.params;
    this.query = init.query;
    this.headers = init.headers;
    this.baseUrl = init.baseUrl;
    this.clientAddress = init.clientAddress;
    this.principal = init.principal;
    this.rawBody = init.body;
    this.contentType = init.contentType;
    this.accept = init.accept;
  }

  /** The caller; routes that are not public always have one. */
  get caller(): Principal {
    if (!this.principal) throw new ServerDeclined(401, 'Authentication required');
    return this.principal;
  }

  /** A path parameter (already percent-decoded). */
  param(name: string): string {
    const value = this.params[name];
    if (value === undefined) throw new Error(`route has no path parameter {${name}}`);
    return value;
  }

  /** True when the client's `Accept` names this media type explicitly. */
  accepts(mediaType: string): boolean {
    return this.accept.includes(mediaType);
  }

  /** Raw request bytes (octet-stream uploads). */
  bytes(): Buffer {
    return this.rawBody ?? Buffer.alloc(0);
  }

  /**
   * The body as JSON (or, for form posts, as an object of its fields), validated
   * with the schema. Malformed JSON is refused before any rule runs.
   */
  body<S extends z.ZodType>(schema: S): z.infer<S> {
    const result = schema.safeParse(this.fields());
    if (!result.success) throw fromZodError(result.error);
    return result.data;
  }

  /** The body as a plain value, without validation; `undefined` when empty. */
  fields(): unknown {
    const raw = this.rawBody;
    if (!raw || raw.length === 0) return undefined;
    // Bytes that are not UTF-8 would be read as U+FFFD and stored as something the client
    // never sent: refused instead.
    let text: string;
    try {
      text = UTF8.decode(raw);
    } catch {
      throw new ServerDeclined(400, 'Request body is not valid UTF-8');
    }
    if (this.contentType === 'application/x-www-form-urlencoded') {
      const form = new URLSearchParams(text);
      if (text.includes('%') && [...form].some(([k, v]) => k.includes('\uFFFD') || v.includes('\uFFFD'))) {
        throw new ServerDeclined(400, 'Request body has a percent-encoding that is not UTF-8');
      }
      return Object.fromEntries(form);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ServerDeclined(400, `Malformed JSON in request body: ${(err as Error).message}`);
    }
    // No body of the API nests deep; one that does would only reach code that walks it
    // recursively (stringifying, validating) and exhaust its stack.
    if (nestedDeeperThan(value, MAX_DEPTH)) throw new ServerDeclined(400, `Request body nests deeper than ${MAX_DEPTH} levels`);
    return value;
  }

  /** Query parameters validated with a schema (single values; repeated ones as arrays). */
  queryAs<S extends z.ZodType>(schema: S): z.infer<S> {
    const plain: Record<string, string | string[]> = {};
    for (const key of new Set(this.query.keys())) {
      const all = this.query.getAll(key);
      plain[key] = all.length === 1 ? all[0]! : all;
    }
    const result = schema.safeParse(plain);
    if (!result.success) throw fromZodError(result.error, 'query');
    return result.data;
  }

  /** One required query parameter (the router already checked presence for selecting ones). */
  queryValue(name: string): string {
    const value = this.query.get(name);
    if (value === null) throw validationError(`Validation failed: query parameter ${name} is required`);
    return value;
  }
}
