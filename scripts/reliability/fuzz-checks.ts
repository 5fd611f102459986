// How the fuzz suite judges a reply. Every reply: no 5xx, an `X-Request-Id` of the
// appliance's form, an error body in one of the two formats of the API conventions (README, "API")
// (API-declined or server-declined), no stack trace or source path. Some cases expect
// more (a 401, a refusal, no file content). Findings fall into categories, so that a
// known defect under repair is told apart from a new one.

import type { Outcome, Reply, Request } from './http.ts';

export const CATEGORIES = {
  'server-error': 'a 5xx reply',
  crash: 'the appliance exited or stopped answering',
  'error-format': 'an error reply of the appliance outside the spec error format',
  'node-reply': "a reply of Node's HTTP layer itself (no X-Request-Id) outside the error format, or none where one is due",
  'changed-on-refusal': 'a refused request changed state (an event, or a write to the database file)',
  'hostile-name-accepted': 'a name with NUL, a bidi control or a lone surrogate accepted',
  'bad-encoding-accepted': 'a body with bytes that are not UTF-8 accepted',
  auth: 'a request without valid credentials not refused with 401',
  leak: 'a stack trace, source path or file content in a reply',
  'header-injection': 'a header of the reply made from a CR LF in the request',
  'request-id': 'a reply without a well-formed X-Request-Id',
  'error-log': 'an error-level line in the log',
  unanswered: 'no reply (timeout or reset) to a request that is due one',
  status: 'a status other than the one the case expects',
  catalogue: "a valid body of the suite's catalogue refused: the suite no longer reaches that operation",
} as const;

export type Category = keyof typeof CATEGORIES;

export interface Expectation {
  /** The reply must have one of these statuses (when it comes: see `replyOptional`). */
  status?: readonly number[];
  /** The request must be refused (4xx). */
  refused?: boolean;
  /** The request must be accepted (2xx): a valid body. */
  accepted?: boolean;
  /** A 2xx must not carry a database file or a system file (traversal). */
  noFileContent?: boolean;
  /** The category of a broken expectation. */
  category: Category;
}

export interface FuzzCase {
  op: string;
  /** What is hostile about it. */
  label: string;
  request?: Request;
  raw?: {
    bytes: Buffer[];
    endAfterWrite?: boolean;
    /** No reply is no finding (the client gave up, or a reset raced the reply). */
    replyOptional?: boolean;
    /** Without a reply the request still cannot have been carried out (its body never came whole). */
    incomplete?: boolean;
  };
  /**
   * 5xx statuses this request is meant to get: 501 for a method no HTTP parser knows
   * (RFC 9110 §15.6.2: the server does not support the functionality).
   */
  intended?: readonly number[];
  /** May change state when accepted. */
  unsafe: boolean;
  expect?: Expectation;
}

export interface Finding {
  category: Category;
  op: string;
  label: string;
  request: string;
  reply: string;
}

/** The appliance's own request ids (src/http/server.ts); anything else was not set by it. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** A route that answers "nothing found" with an empty 404, as the spec shows (wildcard location search). */
const EMPTY_NOT_FOUND = new Set(['GET /v1/locations?area', 'GET /v1/locations']);

export function describeRequest(c: FuzzCase): string {
  if (c.raw) {
    const text = Buffer.concat(c.raw.bytes).toString('latin1');
    return `raw: ${JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}… (${text.length} bytes)` : text)}`;
  }
  const r = c.request!;
  const headers = (r.headers ?? []).map(
    ([n, v]) => `${n}: ${n.toLowerCase() === 'authorization' ? v.slice(0, 24) + (v.length > 24 ? '…' : '') : clip(v, 120)}`,
  );
  const body =
    r.body === undefined ? '' : ` body ${clip(typeof r.body === 'string' ? r.body : r.body.toString('latin1'), 300)} (${Buffer.byteLength(r.body)} bytes)`;
  return `${r.method} ${clip(r.path, 300)} [${headers.join('; ')}]${body}`;
}

export function describeOutcome(o: Outcome): string {
  if (o.kind === 'none') return `no reply: ${o.error}`;
  return `${o.status} [content-type: ${o.headers['content-type'] ?? '-'}; x-request-id: ${o.headers['x-request-id'] ?? '-'}] ${clip(o.text, 400) || '(empty body)'}`;
}

const clip = (s: string, n: number) => {
  const printable = JSON.stringify(s).slice(1, -1);
  return printable.length > n ? `${printable.slice(0, n)}…(${s.length} chars)` : printable;
};

/** What is wrong with an error reply's body, or undefined when it is one of the spec's two. */
function errorFormatProblem(reply: Reply): string | undefined {
  const type = String(reply.headers['content-type'] ?? '');
  const b = reply.json as Record<string, unknown> | undefined;
  if (!b || typeof b !== 'object' || Array.isArray(b)) return 'the body is not a JSON object';
  if ('messageKey' in b) {
    if (!type.startsWith('application/hal+json')) return `API-declined body with content type ${type}`;
    if (typeof b.message !== 'string' || typeof b.messageKey !== 'string' || b.httpStatus !== String(reply.status)) {
      return 'API-declined body without message, messageKey or a matching httpStatus';
    }
    return undefined;
  }
  if (!type.startsWith('application/json')) return `server-declined body with content type ${type}`;
  const ok =
    b.status === reply.status &&
    typeof b.timestamp === 'number' &&
    typeof b.error === 'string' &&
    typeof b.message === 'string' &&
    typeof b.path === 'string' &&
    typeof b.requestId === 'string';
  if (!ok) return 'not the server-declined shape (timestamp, status, error, message, path, requestId)';
  if (b.requestId !== reply.headers['x-request-id']) return 'requestId differs from X-Request-Id';
  return undefined;
}

/** Signs of the inside of the appliance: stack frames, source files, the machine's paths. */
function leakIn(text: string, root: string): string | undefined {
  if (/\n\s+at [^\n]+[(:]/.test(text) || text.includes('node:internal')) return 'a stack trace';
  if (/\.(ts|js|cjs):\d+/.test(text)) return 'a source location';
  if (text.includes(root)) return `a path of the machine (${root})`;
  return undefined;
}

export function judge(c: FuzzCase, outcome: Outcome, root: string): Finding[] {
  const findings: Finding[] = [];
  const add = (category: Category, why: string) =>
    findings.push({ category, op: c.op, label: `${c.label}: ${why}`, request: describeRequest(c), reply: describeOutcome(outcome) });
  if (outcome.kind === 'none') {
    if (c.raw?.replyOptional) return findings;
    if (c.raw) add('node-reply', 'the connection ended without a reply');
    else add('unanswered', 'no reply');
    return findings;
  }
  const status = outcome.status;
  const method = c.request?.method ?? '';
  if (status >= 500 && !c.intended?.includes(status)) add('server-error', `status ${status}`);
  const requestId = outcome.headers['x-request-id'];
  if (requestId === undefined) {
    if (status >= 400) add('node-reply', "a reply without the appliance's headers (X-Request-Id), so from Node's HTTP layer");
    else add('request-id', 'no X-Request-Id');
  } else {
    if (typeof requestId !== 'string' || !REQUEST_ID.test(requestId))
      add('request-id', `X-Request-Id ${JSON.stringify(requestId)} is not of the appliance's form`);
    const emptyNotFound = status === 404 && outcome.body.length === 0 && EMPTY_NOT_FOUND.has(c.op);
    if (status >= 400 && method !== 'HEAD' && !emptyNotFound) {
      const problem = errorFormatProblem(outcome);
      if (problem) add('error-format', problem);
    }
  }
  if (outcome.headers['x-injected'] !== undefined) add('header-injection', 'the reply carries the header X-Injected');
  if (status >= 400) {
    const leak = leakIn(outcome.text, root);
    if (leak) add('leak', leak);
  }
  const e = c.expect;
  if (e) {
    if (e.status && !e.status.includes(status)) add(e.category, `status ${status}, expected ${e.status.join(' or ')}`);
    if (e.refused && status < 400) add(e.category, `accepted with ${status}`);
    if (e.accepted && (status < 200 || status >= 300)) add(e.category, `refused with ${status}`);
    if (e.noFileContent && status < 300 && /SQLite format 3|root:x:0:0/.test(outcome.body.subarray(0, 4096).toString('latin1'))) {
      add('leak', 'file content in the reply to a hostile path');
    }
  }
  return findings;
}
