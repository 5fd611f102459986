import { STATUS_CODES } from 'node:http';
import { HAL_JSON, JSON_TYPE } from '../negotiation.ts';
import { namesGrant, PUBLIC, type Method, type Route } from '../router.ts';
import type { JsonSchema } from './schemas.ts';

// The refusals an operation can give, each with the body it really has.
//
// The two error bodies go out under two media types (http/errors.ts): a refusal by a
// rule or by validation is `ApiDeclined` as application/hal+json; a refusal before
// processing (no or bad token, missing grant, unknown path or method, oversize body,
// media type, malformed URL or JSON) and a failure are `ServerDeclined` as
// application/json. A status lists the media types that are really sent with it, each
// with its one schema: a 401 on most operations is application/json only, so client
// generators type it as the server-declined body and a validating proxy checks it
// against that; a 400 of an operation that validates what it reads has both.

type RefusalBody = 'api' | 'server';

/** Names of the reusable responses in components.responses, by status. */
const NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

const HEADERS: Record<number, Record<string, { description: string; schema: JsonSchema }>> = {
  405: { Allow: { description: 'The methods this path serves.', schema: { type: 'string' } } },
  429: { 'Retry-After': { description: 'Seconds until another attempt is taken.', schema: { type: 'integer' } } },
  503: { 'Retry-After': { description: 'Seconds until the pair has an active box to write to again.', schema: { type: 'integer' } } },
};

interface RefusalResponse {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content: Record<string, { schema: JsonSchema }>;
}

/**
 * What an operation can refuse with, inferred from its routes as the server treats them.
 * `shadowed`: a literal path of the table fits the operation's template but does not
 * serve its method (`DELETE /v1/locations/index` beside `DELETE /v1/locations/{pKey}`),
 * which the router answers with 405.
 */
export function refusalsOf(variants: readonly Route[], takesBody: boolean, readsQuery: boolean, shadowed: boolean): Map<number, Set<RefusalBody>> {
  const refusals = new Map<number, Set<RefusalBody>>();
  const add = (body: RefusalBody, ...statuses: number[]) => {
    for (const status of statuses) refusals.set(status, (refusals.get(status) ?? new Set()).add(body));
  };
  // Before processing, any request can be refused 400 (a URL with bad percent-encoding,
  // no query parameter that selects a variant, malformed JSON in its body); any can fail.
  add('server', 400, 500);
  if (takesBody) add('server', 413, 415);
  if (shadowed) add('server', 405);
  for (const v of variants) {
    if (v.grant !== PUBLIC) add('server', 401);
    if (namesGrant(v.grant)) add('server', 403);
    if (!v.eventStream) add('server', 406);
    add('server', ...(v.serverDeclined ?? []));
    // The standby of a pair refuses every request that may write (docs/ha.md).
    if (v.method !== 'GET') add('server', 503);
    // What the handler checks by rule: the body and query it validates, the resource a path or selector names.
    const ownServer = new Set(v.serverDeclined ?? []);
    const params = v.path.includes('{');
    if ((takesBody || readsQuery || params) && !ownServer.has(400)) add('api', 400);
    if ((params || (v.method === 'GET' && !!v.query?.length)) && !ownServer.has(404)) add('api', 404);
    add('api', ...(v.errors ?? []));
  }
  return refusals;
}

/**
 * The reusable responses of the refusals the operations use, one per status and set
 * of bodies: `NotFound` (either body, by media type), `NotFoundApiDeclined`,
 * `NotFoundServerDeclined`.
 */
export class RefusalResponses {
  readonly responses: Record<string, RefusalResponse> = {};
  private readonly schemas: Record<RefusalBody, JsonSchema>;

  constructor(schemas: Record<RefusalBody, JsonSchema>) {
    this.schemas = schemas;
  }

  /** A reference to the response of `status` with these bodies, registered on first use. */
  ref(status: number, bodies: ReadonlySet<RefusalBody>, where: string): { $ref: string } {
    const base = NAMES[status];
    if (!base) throw new Error(`API description: ${where} names the refusal ${status}, which has no response described`);
    const both = bodies.has('api') && bodies.has('server');
    const name = both ? base : `${base}${bodies.has('api') ? 'ApiDeclined' : 'ServerDeclined'}`;
    if (!this.responses[name]) {
      const reason = STATUS_CODES[status] ?? String(status);
      const content: Record<string, { schema: JsonSchema }> = {};
      if (bodies.has('api')) content[HAL_JSON] = { schema: this.schemas.api };
      if (bodies.has('server')) content[JSON_TYPE] = { schema: this.schemas.server };
      const response: RefusalResponse = {
        description: both
          ? `${reason}: refused by a rule (ApiDeclined, ${HAL_JSON}) or before processing (ServerDeclined, ${JSON_TYPE}).`
          : bodies.has('api')
            ? `${reason}: refused by a rule or by validation (ApiDeclined).`
            : `${reason}: refused before processing, or failed (ServerDeclined).`,
        content,
      };
      if (HEADERS[status]) response.headers = HEADERS[status];
      this.responses[name] = response;
    }
    return { $ref: `#/components/responses/${name}` };
  }
}

/**
 * `path method` of every operation a literal path shadows: the router tries a literal
 * path before any template it also fits, and answers 405 when the literal one does not
 * serve the method.
 */
export function shadowedOperations(routes: readonly Route[]): Set<string> {
  const methodsAt = new Map<string, Set<Method>>();
  for (const r of routes) methodsAt.set(r.path, (methodsAt.get(r.path) ?? new Set()).add(r.method));
  const literals = [...methodsAt.keys()].filter((p) => !p.includes('{'));
  const shadowed = new Set<string>();
  for (const r of routes) {
    if (!r.path.includes('{')) continue;
    const pattern = new RegExp(
      `^${r.path
        .split('/')
        .map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/\./g, '\\.')))
        .join('/')}$`,
    );
    if (literals.some((l) => pattern.test(l) && !methodsAt.get(l)!.has(r.method))) shadowed.add(`${r.path} ${r.method}`);
  }
  return shadowed;
}
