import { randomBytes } from 'node:crypto';

// Persistent keys are opaque to clients (spec: "pKey, persistent technical key").
// 12 random bytes in base64url give 16 URL-safe characters: unguessable, short in
// URLs, and never mistaken for a business key such as a barcode or a coordinate.

/** A new persistent key (`pKey`). */
export function newPKey(): string {
  return randomBytes(12).toString('base64url');
}

// Request ids only need to be unique within the logs of one box: a random prefix per
// process start and a counter, instead of asking the kernel for randomness per request.
const REQUEST_PREFIX = randomBytes(4).toString('hex');
let requestCounter = 0;

/** A new request id for tracing a reply back to its log lines. */
export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${REQUEST_PREFIX}-${requestCounter.toString(36)}`;
}
