import type { Logger } from '../core/log.ts';
import { RequestContext, type Principal } from './context.ts';
import { ServerDeclined, type MessageKeyFamily } from './errors.ts';
import { errorReply } from './handling.ts';
import { namesGrant, type Method, type Reply, type Router } from './router.ts';

// A request of the API run inside the process, without a socket: what a hub command
// does (src/federation). It takes the route a client's request would take, with the
// same validation, rules and reply body, so a command and a REST call cannot drift
// apart. The caller runs it as its actor (core/actor.ts) inside its unit of work.

export interface InternalRequest {
  method: Method;
  /** The path as a client would send it, parameters percent-encoded. */
  path: string;
  query?: URLSearchParams;
  /** The JSON body; undefined for none. */
  body?: unknown;
}

export interface InternalReply {
  status: number;
  /** The reply body, or the error body in the spec's format. */
  body: unknown;
  /** The new resource's path of a 201. */
  location?: string | undefined;
}

interface InvokeOptions {
  router: Router;
  principal: Principal;
  /** The origin links in reply bodies are built on. */
  baseUrl: string;
  messageKeys: MessageKeyFamily;
  log: Logger;
}

/**
 * Runs the handler of the route `request` matches and returns its reply; errors are
 * returned as the replies the API gives for them. Throws only for a route whose reply
 * is not a body (a stream, a file): those are not for internal calls.
 */
export function invoke(options: InvokeOptions, request: InternalRequest, requestId: string): InternalReply {
  const query = request.query ?? new URLSearchParams();
  try {
    const match = options.router.match(request.method, request.path, query);
    if (match.kind === 'not-found') throw new ServerDeclined(404, `No resource at ${request.path}`);
    if (match.kind === 'method-not-allowed') throw new ServerDeclined(405, `${request.method} is not supported at ${request.path}`);
    if (match.kind === 'query-missing') throw new ServerDeclined(400, `Missing query parameters: expected ${match.expected.map((e) => `?${e}`).join(' or ')}`);
    const route = match.route;
    if (namesGrant(route.grant) && !options.principal.grants.has(route.grant)) {
      throw new ServerDeclined(403, `Access denied: the grant ${route.grant} is needed for this operation`);
    }
    const ctx = new RequestContext({
      requestId,
      method: request.method,
      path: request.path,
      params: match.params,
      query,
      headers: {},
      baseUrl: options.baseUrl,
      clientAddress: 'internal',
      principal: options.principal,
      body: request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body)),
      contentType: request.body === undefined ? undefined : 'application/json',
      accept: ['application/json'],
    });
    const reply = route.handler(ctx);
    if (reply instanceof Promise) {
      // Its work would run outside the caller's unit of work: internal requests take synchronous routes only.
      reply.catch(() => undefined);
      throw new Error(`${route.method} ${route.path} answers asynchronously; it cannot be run as an internal request`);
    }
    return bodyOf(reply, route.method, route.path);
  } catch (err) {
    return declined(options, err, request.path, requestId);
  }
}

function bodyOf(reply: Reply, method: string, path: string): InternalReply {
  if (reply.items || reply.stream || reply.file || reply.raw) throw new Error(`${method} ${path} does not answer with a body`);
  return { status: reply.status, body: reply.body ?? null, location: reply.headers?.Location };
}

/** An error as the API answers it: the API-declined body of a rule, the server-declined body of the rest. */
export function declined(options: Pick<InvokeOptions, 'messageKeys' | 'log'>, err: unknown, path: string, requestId: string): InternalReply {
  const { status, body } = errorReply(err, options, { requestId, method: undefined, rawPath: path });
  return { status, body };
}
