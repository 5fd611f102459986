import type { MessageKey } from '../../contract/messages.ts';
import { expire, sessionState, token } from './session.ts';

// The appliance's REST API as the HMI uses it. Every URL is relative to the page
// (served at <base>/hmi/), so the HMI also works behind a proxy that adds a prefix. A
// request refused with 401 while logged in shows the login and is sent again after it;
// a refusal becomes an ApiFailure carrying the body's `messageKey` (or the status) and
// its `obj` (the values the key is about: which thing was refused, in what state), for
// errorText() and the screens to say in the user's language. Bodies and stacks are
// never shown.

/** Where the API is: the parent of the page's folder. */
const ROOT = new URL('../', location.href.split('#')[0]);

export const apiUrl = (path: string): string => new URL(path.replace(/^\//, ''), ROOT).toString();

/**
 * What a failure is known by: the API-declined body's key (src/contract/messages.ts, so
 * that a screen comparing it with a key the appliance no longer has fails to compile);
 * `http.<status>` for refusals before processing; `net.unreachable` without an answer.
 */
export type FailureKey = MessageKey | `http.${number}` | 'net.unreachable';

export class ApiFailure extends Error {
  readonly status: number;
  readonly messageKey: FailureKey;
  /** The body's `obj`: the values of its message, e.g. `[sku, orderId]`; empty when the body has none. */
  readonly obj: readonly unknown[];

  constructor(status: number, messageKey: FailureKey, obj: readonly unknown[] = []) {
    super(`${status} ${messageKey}`);
    this.status = status;
    this.messageKey = messageKey;
    this.obj = obj;
  }
}

export interface Reply<T> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  /** JSON body. */
  body?: unknown;
  /** Form body (the token endpoint). */
  form?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  /** Without a token (the login itself). */
  anonymous?: boolean;
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
  const url = new URL(apiUrl(path));
  for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { Accept: 'application/json' };
  const sent = options.anonymous ? undefined : token.value;
  if (sent) headers.Authorization = `Bearer ${sent}`;
  let body: string | undefined;
  if (options.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body, cache: 'no-store' });
  } catch {
    throw new ApiFailure(0, 'net.unreachable');
  }
  if (res.status === 401 && sent !== undefined && sessionState.value !== 'anonymous') {
    // A token refused (expired, ended by a password change, the user locked): log in
    // again, then this request goes again as if nothing happened.
    if (token.value === sent) await expire();
    return request<T>(method, path, options);
  }
  if (!res.ok) throw await failureOf(res);
  const type = res.headers.get('content-type') ?? '';
  const parsed = res.status !== 204 && /json/.test(type) ? ((await res.json()) as T) : (undefined as T);
  return { status: res.status, body: parsed, headers: res.headers };
}

async function failureOf(res: Response): Promise<ApiFailure> {
  let body: { messageKey?: unknown; obj?: unknown } = {};
  try {
    body = ((await res.json()) as typeof body | null) ?? {};
  } catch {
    body = {};
  }
  // The body's key is taken for one of the contract's, as its representations are for
  // their types (on a site set to the upper-case family a few differ: no text has them).
  const key: FailureKey = typeof body.messageKey === 'string' && body.messageKey ? (body.messageKey as MessageKey) : `http.${res.status}`;
  return new ApiFailure(res.status, key, Array.isArray(body.obj) ? body.obj : []);
}

export const get = <T>(path: string, query?: RequestOptions['query']) => request<T>('GET', path, query ? { query } : {});
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, body === undefined ? {} : { body });
