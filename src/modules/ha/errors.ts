import { DomainError } from '../../core/errors.ts';

// The message keys of the pair's operations (docs/ha.md).

export const HA_KEYS = {
  notActive: 'ha.notActive',
} as const;

/** 409: a switchover asked of a box that is not the active of a pair. */
export const notActive = (role: string) =>
  new DomainError(409, HA_KEYS.notActive, `Only the active box of a pair hands over; this box is ${role}`, { obj: [role] });
