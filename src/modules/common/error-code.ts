import { validationError } from '../../core/errors.ts';

// The 8-character state bitmap of the API and docs/plc.md: each
// character is `0` (active / available), `1` (locked / not available) or `*`
// (leave unchanged), counted from the right starting at 0.

export type GroupState = 'AVAILABLE' | 'NOT_AVAILABLE';
export const GROUP_STATES = ['AVAILABLE', 'NOT_AVAILABLE'] as const;

const FORMAT = /^[*01]{8}$/;

/** Checks the format: exactly 8 characters, each `*`, `0` or `1`. */
export function checkErrorCode(code: string): string {
  if (!FORMAT.test(code)) {
    throw validationError(`Validation failed: errorCode must be exactly 8 characters, each one of *, 0, 1; got "${code}"`);
  }
  return code;
}

/** Position `i` from the right as a flag: true = active, false = locked, undefined = unchanged. */
export function activeAt(code: string, i: number): boolean | undefined {
  const ch = code[code.length - 1 - i];
  return ch === '0' ? true : ch === '1' ? false : undefined;
}

/** Position `i` from the right as a group state; undefined = unchanged. */
export function groupStateAt(code: string, i: number): GroupState | undefined {
  const active = activeAt(code, i);
  return active === undefined ? undefined : active ? 'AVAILABLE' : 'NOT_AVAILABLE';
}
