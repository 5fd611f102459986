import { randomBytes } from 'node:crypto';

// Persistent keys are opaque to clients (spec: "pKey, persistent technical key").
// 12 random bytes in base64url give 16 URL-safe characters: unguessable, short in
// URLs, and never mistaken for a business key such as a barcode or a coordinate.

/** A new persistent key (`pKey`). */
export function newPKey(): string {
  return randomBytes(12).toString('base64url');
}

/** A new request id for tracing a reply back to its log lines. */
export function newRequestId(): string {
  return randomBytes(8).toString('hex');
}
