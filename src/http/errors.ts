import { STATUS_CODES } from 'node:http';
import type { z } from 'zod';

// The two error bodies of spec Document 1, built in one place.
//
// - API-declined: raised by validation and module rules (`ApiError`), body
//   `message, messageKey, obj, httpStatus, class`, type application/hal+json.
// - Server-declined: raised before a request is processed (`ServerDeclined`: no or
//   bad token, unknown path, body too large, unsupported media type, bad URL) and
//   for unknown failures; body `timestamp, status, error, message, path, requestId`.

export interface ApiErrorOptions {
  /** Arguments of the message (`obj`); omitted from the body when absent. */
  obj?: readonly unknown[];
  /** Body with `message`, `messageKey` and `httpStatus` only, where the spec shows that shape. */
  minimal?: boolean;
}

export class ApiError extends Error {
  readonly status: number;
  readonly messageKey: string;
  readonly obj: readonly unknown[] | undefined;
  readonly minimal: boolean;

  constructor(status: number, messageKey: string, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.status = status;
    this.messageKey = messageKey;
    this.obj = options.obj;
    this.minimal = options.minimal ?? false;
  }
}

export class ServerDeclined extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

/** 404 with the shared key `not.found`; the message says what was looked for. */
export const notFound = (message: string, obj?: readonly unknown[]) =>
  new ApiError(404, 'not.found', message, obj ? { obj } : {});

/** 409 with the shared key `already.exists`. */
export const alreadyExists = (message: string, obj?: readonly unknown[]) =>
  new ApiError(409, 'already.exists', message, obj ? { obj } : {});

/** 400 with the shared key `core.validation.error`. */
export const validationError = (message: string) => new ApiError(400, 'core.validation.error', message);

/** 409 for an update carrying a stale `ol`: someone else changed the resource first. */
export const staleVersion = (what: string, pKey: string, sent: number, current: number) =>
  new ApiError(
    409,
    'core.optimistic.lock',
    `${what} [${pKey}] was changed by someone else: sent ol ${sent}, current ol ${current}; read it again and retry`,
    { obj: [pKey, sent, current] },
  );

/** 409 when a delete would leave other records pointing at nothing. */
export const inUse = (key: string, message: string, obj: readonly unknown[]) => new ApiError(409, key, message, { obj });

/** A zod failure as the spec's validation error, naming every failing field. */
export function fromZodError(error: z.ZodError, where = 'body'): ApiError {
  const parts = error.issues.map((issue) => {
    const field = issue.path.length ? issue.path.join('.') : where;
    return `${field}: ${issue.message}`;
  });
  return validationError(`Validation failed: ${parts.join('; ')}`);
}

/**
 * The earlier revision's upper-case keys for the conditions that the spec lists in
 * both families. Sites whose clients still expect those set `api.messageKeys`.
 */
const UPPER_CASE_KEYS: Record<string, string> = {
  'svc.common.common.tu.notFoundByBK': 'COMMON.BARCODE_NOT_FOUND',
  'svc.common.common.loc.notFoundByName': 'COMMON.LOCATION_NOT_FOUND',
  'svc.common.common.lg.notFoundByName': 'COMMON.LOCATION_GROUP_NOT_FOUND',
  'svc.common.common.tut.notFoundByName': 'COMMON.TRANSPORT_UNIT_TYPE_NOT_FOUND',
  'svc.common.common.account.notFound': 'COMMON.ACCOUNT_NOT_FOUND',
  'svc.common.common.account.noDefaultAccount': 'COMMON.ACCOUNT_NO_DEFAULT',
};

export type MessageKeyFamily = 'dotted' | 'upper-case';

export function messageKeyFor(key: string, family: MessageKeyFamily): string {
  return family === 'upper-case' ? (UPPER_CASE_KEYS[key] ?? key) : key;
}

export function apiDeclinedBody(error: ApiError, family: MessageKeyFamily): Record<string, unknown> {
  const body: Record<string, unknown> = {
    message: error.message,
    messageKey: messageKeyFor(error.messageKey, family),
  };
  if (!error.minimal && error.obj && error.obj.length > 0) {
    body.obj = error.obj.map((v) => (v === null || v === undefined ? v : String(v)));
    body.class = 'String';
  }
  body.httpStatus = String(error.status);
  return body;
}

export function serverDeclinedBody(status: number, message: string, path: string, requestId: string) {
  return {
    timestamp: Date.now(),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    path,
    requestId,
  };
}
