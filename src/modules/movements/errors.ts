import { DomainError } from '../../core/errors.ts';
import type { StoredMovement } from './store.ts';

// The message keys of the movements module (docs/movements.md, "Errors"), and the
// refusals of a movement that is completed already.

export const MOVEMENT_KEYS = {
  completedNotMoved: 'svc.wms.mov.mov.completedNotMoved',
  completedNotCancelled: 'svc.wms.mov.mov.completedNotCancelled',
} as const;

export const completedNotMoved = (m: StoredMovement) =>
  new DomainError(409, MOVEMENT_KEYS.completedNotMoved, `Movement [${m.pk}] is already completed (state ${m.state}) and cannot be changed or moved`, {
    obj: [m.pk],
  });

export const completedNotCancelled = (m: StoredMovement) =>
  new DomainError(409, MOVEMENT_KEYS.completedNotCancelled, `Movement [${m.pk}] is already completed (state ${m.state}) and cannot be cancelled`, {
    obj: [m.pk],
  });
