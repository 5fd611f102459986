// Errors of the warehouse rules. Services throw them; they know nothing of HTTP. The
// HTTP edge (src/http/server.ts, with the bodies of src/http/errors.ts) turns a
// DomainError into the spec's API-declined body, an AuthenticationError into a
// server-declined 401 and TooManyAttempts into a server-declined 429 with Retry-After;
// the PLC adapter turns them into telegram answers; a hub command into an error result.

interface DomainErrorOptions {
  /** Arguments of the message (`obj`); omitted from the API body when absent. */
  obj?: readonly unknown[];
  /** Answer with `message`, `messageKey` and `httpStatus` only, where the spec shows that shape. */
  minimal?: boolean;
}

/**
 * A change or lookup refused by a rule. `status` is a hint in HTTP terms (404 not
 * found, 409 conflict, 400 invalid), because that is the vocabulary the spec's message
 * keys come with; `messageKey` names the condition for clients and translations.
 */
export class DomainError extends Error {
  readonly status: number;
  readonly messageKey: string;
  readonly obj: readonly unknown[] | undefined;
  readonly minimal: boolean;

  constructor(status: number, messageKey: string, message: string, options: DomainErrorOptions = {}) {
    super(message);
    this.status = status;
    this.messageKey = messageKey;
    this.obj = options.obj;
    this.minimal = options.minimal ?? false;
  }
}

/** The caller could not be identified (bad password, unknown or revoked key or token, locked account). */
export class AuthenticationError extends Error {}

/** Too many attempts from one client (logins from an address): it may try again in `retryAfterSeconds`. */
export class TooManyAttempts extends Error {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The message keys of src/core: those every module shares and the one core refuses
 * with itself (a backup while another is being taken). Core imports nothing above it,
 * so each module keeps its own keys in its own catalogue
 * (`src/modules/<module>/errors.ts`); src/contract/messages.ts joins them all into the
 * `MessageKey` of the wire contract, and docs/message-keys.md lists these.
 */
export const CORE_KEYS = {
  notFound: 'not.found',
  alreadyExists: 'already.exists',
  validationError: 'core.validation.error',
  optimisticLock: 'core.optimistic.lock',
  invalidParameter: 'core.invalid.parameter',
  backupInProgress: 'backup.inProgress',
} as const;

/** 404 with the shared key `not.found`; the message says what was looked for. */
export const notFound = (message: string, obj?: readonly unknown[]) => new DomainError(404, CORE_KEYS.notFound, message, obj ? { obj } : {});

/** 409 with the shared key `already.exists`. */
export const alreadyExists = (message: string, obj?: readonly unknown[]) => new DomainError(409, CORE_KEYS.alreadyExists, message, obj ? { obj } : {});

/** 400 with the shared key `core.validation.error`. */
export const validationError = (message: string) => new DomainError(400, CORE_KEYS.validationError, message);

/** 400 with the key `core.invalid.parameter`: a parameter's value is not one of those defined (no `obj`). */
export const invalidParameter = (message: string) => new DomainError(400, CORE_KEYS.invalidParameter, message);

/** 409 for an update carrying a stale `ol`: someone else changed the resource first. */
export const staleVersion = (what: string, pKey: string, sent: number, current: number) =>
  new DomainError(
    409,
    CORE_KEYS.optimisticLock,
    `${what} [${pKey}] was changed by someone else: sent ol ${sent}, current ol ${current}; read it again and retry`,
    { obj: [pKey, sent, current] },
  );

/** 409 when a delete would leave other records pointing at nothing. */
export const inUse = (key: string, message: string, obj: readonly unknown[]) => new DomainError(409, key, message, { obj });
