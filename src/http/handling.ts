import { asActor, type Actor } from '../core/actor.ts';
import { AuthenticationError, DomainError, TooManyAttempts } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { Principal, RequestContext } from './context.ts';
import { apiDeclinedBody, displayPath, ServerDeclined, serverDeclinedBody, type MessageKeyFamily } from './errors.ts';
import { HAL_JSON, JSON_TYPE } from './negotiation.ts';
import type { Reply, Route } from './router.ts';

// A route's handler run for a request, and a failure turned into the reply the API
// gives for it. One implementation for both places a handler runs: the server of the
// HTTP thread (reads) and the conveyor thread (changes handed over to it,
// docs/realtime.md), so a refusal reads the same wherever the handler ran.

/** The group commit a handler's writes join (core/unit-of-work.ts); absent where nothing is written. */
export interface Commits {
  /** Runs a handler's synchronous part so that its writes join the group commit. */
  grouped<T>(fn: () => T): T;
  /** The open group commit a reply must wait for, if any. */
  pendingCommit(): Promise<void> | undefined;
}

/**
 * Runs the handler as its caller (the events it causes name them) and hands the reply
 * on once what it wrote, or may have read of others' writes, is on disk. Synchronous
 * handlers without a pending commit reply in the same turn, without a detour through
 * the microtask queue.
 */
export function runHandler(
  route: Route,
  ctx: RequestContext,
  commits: Commits | undefined,
  onReply: (reply: Reply) => void,
  onError: (err: unknown) => void,
): void {
  const afterCommit = (reply: Reply) => {
    const commit = commits?.pendingCommit();
    if (!commit) return onReply(reply);
    commit.then(
      () => onReply(reply),
      (err: unknown) => {
        // A list that will not be written gives its snapshot's read connection back.
        void reply.items?.[Symbol.asyncIterator]().return?.(undefined);
        onError(err);
      },
    );
  };
  try {
    const principal = ctx.principal;
    const invoke = () => (principal ? asActor(actorOf(principal), () => route.handler(ctx)) : route.handler(ctx));
    const reply = commits ? commits.grouped(invoke) : invoke();
    if (reply instanceof Promise) reply.then(afterCommit, onError);
    else afterCommit(reply);
  } catch (err) {
    onError(err);
  }
}

/** The actor of the events a caller causes: a user by name, an API key by its name. */
export function actorOf(principal: Principal): Actor {
  return principal.kind === 'api-key' ? { kind: 'apiKey', name: principal.username.replace(/^api-key:/, '') } : { kind: 'user', name: principal.username };
}

/** A failure as the API answers it. */
export interface ErrorReply {
  status: number;
  body: unknown;
  /** Content type of the body. */
  type: string;
  /** Headers the refusal adds (`Allow`, `Retry-After`). */
  headers: Record<string, string>;
}

interface Failed {
  requestId: string;
  method: string | undefined;
  rawPath: string;
}

/**
 * A failure as its reply: a rule's refusal in the API-declined body, a refusal before
 * processing in the server-declined body, anything else a 500 that names the request
 * id under which the log holds the details.
 */
export function errorReply(err: unknown, options: { messageKeys: MessageKeyFamily; log: Logger }, request: Failed): ErrorReply {
  const { log } = options;
  const { requestId, rawPath } = request;
  // Refusals of the caller's identity, and of a client trying too often, are refusals before processing.
  if (err instanceof AuthenticationError) err = new ServerDeclined(401, err.message);
  if (err instanceof TooManyAttempts) err = new ServerDeclined(429, err.message, { 'Retry-After': String(err.retryAfterSeconds) });
  if (err instanceof DomainError) {
    log.debug({ requestId, status: err.status, messageKey: err.messageKey }, err.message);
    return { status: err.status, body: apiDeclinedBody(err, options.messageKeys), type: HAL_JSON, headers: {} };
  }
  if (err instanceof ServerDeclined) {
    log.debug({ requestId, status: err.status }, err.message);
    return { status: err.status, body: serverDeclinedBody(err.status, err.message, displayPath(rawPath), requestId), type: JSON_TYPE, headers: err.headers };
  }
  log.error({ requestId, method: request.method, path: rawPath, err }, 'request failed');
  const message = `The request could not be processed; the log holds the details under request id ${requestId}`;
  return { status: 500, body: serverDeclinedBody(500, message, displayPath(rawPath), requestId), type: JSON_TYPE, headers: {} };
}
