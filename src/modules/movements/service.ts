import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { newPKey } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { checkVersion } from '../../core/versioned.ts';
import { validationError } from '../../core/errors.ts';
import { groupNotFoundByName } from '../common/location-groups/service.ts';
import { locationNotFoundByName } from '../common/locations/service.ts';
import type { CommonServices } from '../common/service.ts';
import { createMovementCompletion, isCompleted } from './completion.ts';
import { completedNotCancelled, completedNotMoved } from './errors.ts';
import { createMovementLookups, type Movement } from './lookups.ts';
import { emitMovement, eventData } from './movement-events.ts';
import type { MovementPatchInput, NewMovementInput } from './schema.ts';
import type { MovementFields, MovementMode, MovementType, MovementStore, TargetKind } from './store.ts';

// The rules of the movements module (docs/movements.md and "States
// and transitions / Movement"; decisions in docs/movements.md). The transport unit,
// the locations and the groups belong to the common base module and are reached only
// through its services.
//
// Here: a movement's life up to its end — created INACTIVE, changed and switched
// between INACTIVE and ACTIVE, cancelled (also when its unit is deleted). Completing it,
// the move of the unit itself, is in completion.ts; finding movements in lookups.ts.

export type { Movement } from './lookups.ts';
export { isCompleted } from './completion.ts';

export const DEFAULT_PRIORITY = 50;
const DEFAULT_TYPE: MovementType = 'MANUAL';
const DEFAULT_MODE: MovementMode = 'MANUAL';

/** The fields a client sees; a PATCH that changes none of them writes nothing. */
const VISIBLE: readonly (keyof MovementFields)[] = [
  'transportUnitBk',
  'type',
  'initiator',
  'mode',
  'sku',
  'priority',
  'state',
  'sourceLocation',
  'sourceLocationGroupName',
  'target',
  'targetLocationGroup',
  'startedAt',
  'latestDueAt',
  'finishedAt',
];

interface Target {
  targetKind: TargetKind;
  targetPk: string;
  target: string;
  targetLocationGroup: string;
}

interface MovementServiceDeps {
  work: UnitOfWork;
  store: MovementStore;
  common: CommonServices;
}

export function createMovementService({ work, store, common }: MovementServiceDeps) {
  const lookups = createMovementLookups({ store, common });
  const { byPKey } = lookups;
  const { complete } = createMovementCompletion({ work, store, common, byPKey });

  // A deleted transport unit cannot be moved any more: its INACTIVE and ACTIVE movements
  // are CANCELLED (as its open transport orders are), so no one is sent to fetch it; in
  // the unit of work that deleted it.
  work.react('transportUnit.deleted', (deleted) => {
    const now = nowIso();
    for (const current of store.forUnit(deleted.data.pKey, undefined, ['INACTIVE', 'ACTIVE'])) {
      store.update(current.pk, { ...current, state: 'CANCELLED', finishedAt: now }, now);
      const movement = byPKey(current.pk);
      emitMovement(
        work,
        movement,
        { type: 'movement.cancelled', data: { ...eventData(movement), from: current.state } },
        `TransportUnit [${deleted.data.barcode}] was deleted`,
      );
    }
  });

  /** A target: a location by coordinate, else a location group by name. */
  function resolveTarget(value: string): Target {
    const location = common.locations.findByLocationId(value);
    if (location) {
      return { targetKind: 'LOCATION', targetPk: location.pk, target: location.locationId, targetLocationGroup: location.groupName };
    }
    const group = common.locationGroups.byNames([value])[0];
    if (group) return { targetKind: 'GROUP', targetPk: group.pk, target: group.name, targetLocationGroup: group.name };
    // Neither: a value with a slash was meant as a coordinate, anything else as a group name.
    throw value.includes('/') ? locationNotFoundByName(value) : groupNotFoundByName(value);
  }

  function sourceFields(locationId: string): Pick<MovementFields, 'sourceLocationPk' | 'sourceLocation' | 'sourceLocationGroupName'> {
    const source = common.locations.resolve(locationId);
    return { sourceLocationPk: source.pk, sourceLocation: source.locationId, sourceLocationGroupName: source.groupName };
  }

  const changedFields = (before: MovementFields, after: MovementFields) => VISIBLE.filter((f) => before[f] !== after[f]);

  return {
    ...lookups,

    /** A new movement of the unit, INACTIVE. */
    create(barcode: string, input: NewMovementInput): Movement {
      if (input.transportUnitBk !== undefined && input.transportUnitBk !== barcode) {
        throw validationError(`Validation failed: transportUnitBk: [${input.transportUnitBk}] differs from the transport unit of the path [${barcode}]`);
      }
      return work.run(() => {
        const unit = common.transportUnits.byBarcode(barcode);
        const fields: MovementFields = {
          transportUnitPk: unit.pk,
          transportUnitBk: unit.barcode,
          type: input.type ?? DEFAULT_TYPE,
          initiator: input.initiator ?? null,
          mode: input.mode ?? DEFAULT_MODE,
          sku: input.sku ?? null,
          priority: input.priority ?? DEFAULT_PRIORITY,
          state: 'INACTIVE',
          ...sourceFields(input.sourceLocation),
          ...resolveTarget(input.target),
          startedAt: null,
          latestDueAt: input.latestDueAt ?? null,
          finishedAt: null,
        };
        const pk = newPKey();
        store.insert(pk, fields, nowIso());
        const movement = byPKey(pk);
        emitMovement(work, movement, {
          type: 'movement.created',
          data: { ...eventData(movement), sourceLocation: movement.sourceLocation, target: movement.target },
        });
        return movement;
      });
    },

    /**
     * Changes the given fields. `state` moves INACTIVE → ACTIVE (startedAt set) or
     * ACTIVE → INACTIVE (startedAt cleared); DONE is reached by complete, CANCELLED by
     * cancel (400 here). A completed movement: 409 `completedNotMoved`. A stale `ol`:
     * 409. A PATCH that changes nothing writes nothing (ol stays).
     */
    modify(pKey: string, patch: MovementPatchInput): Movement {
      return work.run(() => {
        const current = byPKey(pKey);
        checkVersion('Movement', current, patch.ol);
        if (isCompleted(current.state)) throw completedNotMoved(current);
        const now = nowIso();
        const next: MovementFields = { ...current };
        if (patch.state !== undefined && patch.state !== current.state) {
          if (patch.state !== 'ACTIVE' && patch.state !== 'INACTIVE') {
            const how = patch.state === 'DONE' ? 'POST /v1/movements/{pKey}/complete' : 'DELETE /v1/movements/{pKey}';
            throw validationError(`Validation failed: state: a movement becomes ${patch.state} by ${how}, not by PATCH`);
          }
          next.state = patch.state;
          next.startedAt = patch.state === 'ACTIVE' ? now : null;
        }
        if (patch.transportUnitBk !== undefined && patch.transportUnitBk !== current.transportUnitBk) {
          const unit = common.transportUnits.byBarcode(patch.transportUnitBk);
          next.transportUnitPk = unit.pk;
          next.transportUnitBk = unit.barcode;
        }
        if (patch.sourceLocation !== undefined && patch.sourceLocation !== current.sourceLocation) {
          Object.assign(next, sourceFields(patch.sourceLocation));
        }
        if (patch.target !== undefined && patch.target !== current.target) Object.assign(next, resolveTarget(patch.target));
        if (patch.type !== undefined) next.type = patch.type;
        if (patch.mode !== undefined) next.mode = patch.mode;
        if (patch.priority !== undefined) next.priority = patch.priority;
        if (patch.initiator !== undefined) next.initiator = patch.initiator;
        if (patch.sku !== undefined) next.sku = patch.sku;
        if (patch.latestDueAt !== undefined) next.latestDueAt = patch.latestDueAt;
        const fields = changedFields(current, next);
        if (fields.length === 0) return current;
        store.update(current.pk, next, now);
        const movement = byPKey(pKey);
        emitMovement(work, movement, { type: 'movement.changed', data: { ...eventData(movement), from: current.state, fields } });
        return movement;
      });
    },

    /** DELETE: an INACTIVE or ACTIVE movement becomes CANCELLED (finishedAt set). */
    cancel(pKey: string): Movement {
      return work.run(() => {
        const current = byPKey(pKey);
        if (isCompleted(current.state)) throw completedNotCancelled(current);
        const now = nowIso();
        store.update(current.pk, { ...current, state: 'CANCELLED', finishedAt: now }, now);
        const movement = byPKey(pKey);
        emitMovement(work, movement, { type: 'movement.cancelled', data: { ...eventData(movement), from: current.state } });
        return movement;
      });
    },

    /** Books the unit onto where it was put down and marks the movement DONE (completion.ts). */
    complete,
  };
}

export type MovementService = ReturnType<typeof createMovementService>;
