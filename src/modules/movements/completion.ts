import { validationError } from '../../core/errors.ts';
import { nowIso } from '../../core/time.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { checkVersion } from '../../core/versioned.ts';
import { locationNotFoundByName } from '../common/locations/service.ts';
import type { CommonServices } from '../common/service.ts';
import { transportUnitNotFoundByBK } from '../common/transport-units/service.ts';
import { completedNotMoved } from './errors.ts';
import type { Movement } from './lookups.ts';
import { emitMovement, eventData } from './movement-events.ts';
import type { CompletionInput } from './schema.ts';
import { MOVEMENT_STATES, type MovementState, type MovementStore } from './store.ts';

// The move itself: completing a movement books its transport unit onto the location
// where it was put down, in the same unit of work as the movement's DONE, so that the
// unit's transport orders settle with it (the common module's `transportUnit.moved`).
// Apart from the rest of a movement's life because it is the one write that changes
// where a unit stands.

/** "CANCELLED or higher": the final states. */
export const isCompleted = (state: MovementState): boolean => MOVEMENT_STATES.indexOf(state) >= MOVEMENT_STATES.indexOf('CANCELLED');

interface MovementCompletionDeps {
  work: UnitOfWork;
  store: MovementStore;
  common: CommonServices;
  byPKey: (pKey: string) => Movement;
}

export function createMovementCompletion({ work, store, common, byPKey }: MovementCompletionDeps) {
  /** Where a completed movement put its unit down: a coordinate, else an ERP code. */
  function completionLocation(value: string) {
    const location = common.locations.findByLocationId(value) ?? common.locations.findByErpCode(value);
    if (location) return location;
    if (common.locationGroups.byNames([value])[0]) {
      throw validationError(`Validation failed: target: [${value}] is a location group; a movement is completed onto a location (coordinate or ERP code)`);
    }
    throw locationNotFoundByName(value);
  }

  return {
    /**
     * Completes an INACTIVE or ACTIVE movement: books the unit onto the location the
     * caller names (or the movement's own target location) in the same transaction,
     * sets that location as `target`, state DONE and `finishedAt`; the unit's move
     * settles its transport orders in the same unit of work.
     */
    complete(pKey: string, input: CompletionInput): Movement {
      return work.run(() => {
        const current = byPKey(pKey);
        checkVersion('Movement', current, input?.ol);
        if (isCompleted(current.state)) throw completedNotMoved(current);
        if (input?.target !== undefined && input.targetLocation !== undefined && input.target !== input.targetLocation) {
          throw validationError(`Validation failed: target [${input.target}] and targetLocation [${input.targetLocation}] differ; send one of them`);
        }
        const wanted = input?.target ?? input?.targetLocation;
        let location;
        if (wanted !== undefined) {
          location = completionLocation(wanted);
        } else if (current.targetKind === 'LOCATION') {
          location = common.locations.findByPk(current.targetPk);
          if (!location) throw locationNotFoundByName(current.target);
        } else {
          throw validationError(
            `Validation failed: target: required, the movement's target [${current.target}] is a location group; name the location the unit was put on`,
          );
        }
        const unit = common.transportUnits.findByPk(current.transportUnitPk);
        if (!unit) throw transportUnitNotFoundByBK(current.transportUnitBk);
        const now = nowIso();
        common.transportUnits.moveTo(unit, location);
        store.update(
          current.pk,
          {
            ...current,
            targetKind: 'LOCATION',
            targetPk: location.pk,
            target: location.locationId,
            targetLocationGroup: location.groupName,
            state: 'DONE',
            finishedAt: now,
          },
          now,
        );
        const movement = byPKey(pKey);
        emitMovement(work, movement, { type: 'movement.completed', data: { ...eventData(movement), from: current.state, target: movement.target } });
        return movement;
      });
    },
  };
}
