import { DomainError } from '../../core/errors.ts';
import { ServerDeclined } from '../../http/errors.ts';
import type { PairStatus } from '../../ha/status.ts';

// The message keys of the pair's operations (docs/ha.md).

export const HA_KEYS = {
  notActive: 'ha.notActive',
  noStandby: 'ha.noStandby',
} as const;

/** 409: a switchover asked of a box that is not the active of a pair. */
export const notActive = (role: string) =>
  new DomainError(409, HA_KEYS.notActive, `Only the active box of a pair hands over; this box is ${role}`, { obj: [role] });

/** 409: a switchover asked while no standby follows: nobody would take the lease, and the hall would stand. */
export const noStandby = (why: string) => new DomainError(409, HA_KEYS.noStandby, `No standby follows to hand over to: ${why}`, { obj: [why] });

/** 503 from the floating address's check: this box does not act (it is not the lease's holder, or no longer by its clock). */
export const notActing = (status: PairStatus) =>
  new ServerDeclined(
    503,
    `This box (${status.node}) is ${status.role} and does not act` + (status.lease.holder ? `; the active is ${status.lease.holder}` : ''),
    { 'Retry-After': '1' },
  );
