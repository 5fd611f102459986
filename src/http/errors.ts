import { STATUS_CODES } from 'node:http';
import type { z } from 'zod';
import type { MessageKey } from '../contract/messages.ts';
import { DomainError, validationError } from '../core/errors.ts';

// The two error bodies of the API conventions (README, "API"), built in one place.
//
// - API-declined: raised by validation and module rules (`DomainError` of core), body
//   `message, messageKey, obj, httpStatus, class`, type application/hal+json.
// - Server-declined: raised before a request is processed (`ServerDeclined`: no or
//   bad token, unknown path, body too large, unsupported media type, bad URL) and
//   for unknown failures; body `timestamp, status, error, message, path, requestId`.

export class ServerDeclined extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

/** A zod failure as the spec's validation error, naming every failing field. */
export function fromZodError(error: z.ZodError, where = 'body'): DomainError {
  const parts = error.issues.map((issue) => {
    const field = issue.path.length ? issue.path.join('.') : where;
    return `${field}: ${issue.message}`;
  });
  return validationError(`Validation failed: ${parts.join('; ')}`);
}

/**
 * The earlier revision's upper-case keys for the conditions that the spec lists in
 * both families. Sites whose clients still expect those set `api.messageKeys`. Keyed
 * by the catalogues' keys (src/contract/messages.ts): one renamed there fails `tsc`.
 */
const UPPER_CASE_KEYS: Readonly<Record<string, string>> = {
  'svc.common.common.tu.notFoundByBK': 'COMMON.BARCODE_NOT_FOUND',
  'svc.common.common.loc.notFoundByName': 'COMMON.LOCATION_NOT_FOUND',
  'svc.common.common.lg.notFoundByName': 'COMMON.LOCATION_GROUP_NOT_FOUND',
  'svc.common.common.tut.notFoundByName': 'COMMON.TRANSPORT_UNIT_TYPE_NOT_FOUND',
  'svc.common.common.account.notFound': 'COMMON.ACCOUNT_NOT_FOUND',
  'svc.common.common.account.noDefaultAccount': 'COMMON.ACCOUNT_NO_DEFAULT',
} satisfies Partial<Record<MessageKey, string>>;

export type MessageKeyFamily = 'dotted' | 'upper-case';

function messageKeyFor(key: string, family: MessageKeyFamily): string {
  return family === 'upper-case' ? (UPPER_CASE_KEYS[key] ?? key) : key;
}

export function apiDeclinedBody(error: DomainError, family: MessageKeyFamily): Record<string, unknown> {
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

/** A request path as a message names it: decoded where it decodes, as sent where it does not. */
export function displayPath(rawPath: string): string {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return rawPath;
  }
}
