import type { EventInput } from '../../core/event-catalogue.ts';
import { type Listing } from '../../core/listing.ts';
import { mapListing } from '../../core/listing-ops.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { newPKey } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { checkVersion } from '../../core/versioned.ts';
import { notFound, validationError } from '../../core/errors.ts';
import { groupNotFoundByName } from '../common/location-groups/service.ts';
import { locationNotFoundByName } from '../common/locations/service.ts';
import type { CommonServices } from '../common/service.ts';
import { transportUnitNotFoundByBK } from '../common/transport-units/service.ts';
import { completedNotCancelled, completedNotMoved } from './errors.ts';
import type { CompletionInput, MovementPatchInput, NewMovementInput } from './schema.ts';
import {
  MOVEMENT_STATES,
  type MovementFields,
  type MovementMode,
  type MovementState,
  type MovementType,
  type MovementStore,
  type StoredMovement,
  type TargetKind,
} from './store.ts';

// The rules of the movements module (docs/movements.md and "States
// and transitions / Movement"; decisions in docs/movements.md). The transport unit,
// the locations and the groups belong to the common base module and are reached only
// through its services.

/** A movement as the API shows it: the names of the unit, locations and groups as they are now. */
export type Movement = StoredMovement;

export const DEFAULT_PRIORITY = 50;
const DEFAULT_TYPE: MovementType = 'MANUAL';
const DEFAULT_MODE: MovementMode = 'MANUAL';

/** "CANCELLED or higher": the final states. */
export const isCompleted = (state: MovementState): boolean => MOVEMENT_STATES.indexOf(state) >= MOVEMENT_STATES.indexOf('CANCELLED');

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
  const unitByPk = (pk: string) => common.transportUnits.findByPk(pk);

  /** A list of movements as they are shown, each with what it names as it is now. */
  const shown = (listing: Listing<StoredMovement>): Listing<Movement> => mapListing(listing, (stored) => stored.map(live));

  /**
   * The movement with the current names of what it refers to: a renamed unit, location
   * or group shows its new name; a deleted one the name recorded when the movement was
   * last written.
   */
  function live(m: StoredMovement): Movement {
    const unit = unitByPk(m.transportUnitPk);
    const source = common.locations.findByPk(m.sourceLocationPk);
    let target: Pick<Movement, 'target' | 'targetLocationGroup'> = m;
    if (m.targetKind === 'LOCATION') {
      const location = common.locations.findByPk(m.targetPk);
      if (location) target = { target: location.locationId, targetLocationGroup: location.groupName };
    } else {
      const group = common.locationGroups.findByPk(m.targetPk);
      if (group) target = { target: group.name, targetLocationGroup: group.name };
    }
    return {
      ...m,
      transportUnitBk: unit?.barcode ?? m.transportUnitBk,
      sourceLocation: source?.locationId ?? m.sourceLocation,
      sourceLocationGroupName: source?.groupName ?? m.sourceLocationGroupName,
      target: target.target,
      targetLocationGroup: target.targetLocationGroup,
    };
  }

  function stored(pKey: string): StoredMovement {
    const movement = store.byPk(pKey);
    if (!movement) throw notFound(`Movement with pKey [${pKey}] does not exist`, [pKey]);
    return movement;
  }

  const byPKey = (pKey: string): Movement => live(stored(pKey));

  // A deleted transport unit cannot be moved any more: its INACTIVE and ACTIVE movements
  // are CANCELLED (as its open transport orders are), so no one is sent to fetch it; in
  // the unit of work that deleted it.
  work.react('transportUnit.deleted', (deleted) => {
    const now = nowIso();
    for (const current of store.forUnit(deleted.data.pKey, undefined, ['INACTIVE', 'ACTIVE'])) {
      store.update(current.pk, { ...current, state: 'CANCELLED', finishedAt: now }, now);
      const movement = byPKey(current.pk);
      emitMovement(
        movement,
        { type: 'movement.cancelled', data: { ...event(movement), from: current.state } },
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

  /** Where a completed movement put its unit down: a coordinate, else an ERP code. */
  function completionLocation(value: string) {
    const location = common.locations.findByLocationId(value) ?? common.locations.findByErpCode(value);
    if (location) return location;
    if (common.locationGroups.byNames([value])[0]) {
      throw validationError(`Validation failed: target: [${value}] is a location group; a movement is completed onto a location (coordinate or ERP code)`);
    }
    throw locationNotFoundByName(value);
  }

  function sourceFields(locationId: string): Pick<MovementFields, 'sourceLocationPk' | 'sourceLocation' | 'sourceLocationGroupName'> {
    const source = common.locations.resolve(locationId);
    return { sourceLocationPk: source.pk, sourceLocation: source.locationId, sourceLocationGroupName: source.groupName };
  }

  const changedFields = (before: MovementFields, after: MovementFields) => VISIBLE.filter((f) => before[f] !== after[f]);

  const event = (m: Movement) => ({ pKey: m.pk, transportUnitBk: m.transportUnitBk, type: m.type, state: m.state });

  /** A movement event: about the movement, naming its unit. */
  const emitMovement = (m: Movement, e: Pick<Extract<EventInput, { type: `movement.${string}` }>, 'type' | 'data'>, reason?: string) =>
    work.emit({ ...e, key: m.pk, refs: [{ kind: 'transportUnit', key: m.transportUnitBk }], reason } as EventInput);

  return {
    /** Every movement, oldest first: pages, or the whole list streamed. */
    list: (): Listing<Movement> => shown(store.list()),
    byPKey,

    /** The movement at `/v1/transport-units/{bk}/movements/{pKey}`: it must belong to that unit. */
    byUnitAndPKey(barcode: string, pKey: string): Movement {
      const movement = byPKey(pKey);
      if (movement.transportUnitBk !== barcode) {
        throw notFound(`Movement with pKey [${pKey}] does not exist for TransportUnit [${barcode}]`, [pKey]);
      }
      return movement;
    },

    /**
     * The movements of a transport unit of those types and in those states (`undefined`
     * = any). A barcode that names no unit lists the movements recorded for it (of a
     * unit since deleted) — usually none.
     */
    forUnit(barcode: string, types?: readonly string[], states?: readonly string[]): Listing<Movement> {
      const unit = common.transportUnits.findByBarcode(barcode);
      return shown(unit ? store.listForUnit(unit.pk, types, states) : store.listForBarcode(barcode, types, states));
    },

    /**
     * Movements in those states and of those types whose source is the location named
     * by `source` (a coordinate), or lies in the group named by `source` or in a group
     * below it; in work order (priority, latestDueAt, age). A source that names
     * nothing lists nothing.
     */
    forSource(states?: readonly string[], types?: readonly string[], source?: string): Listing<Movement> {
      let sourcePks: string[] | undefined;
      if (source !== undefined) {
        const location = common.locations.findByLocationId(source);
        const group = location ? undefined : common.locationGroups.byNames([source])[0];
        sourcePks = location ? [location.pk] : group ? common.locations.inGroupTree(group.pk).map((l) => l.pk) : [];
      }
      return shown(store.listForSources(states, types, sourcePks));
    },

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
        emitMovement(movement, {
          type: 'movement.created',
          data: { ...event(movement), sourceLocation: movement.sourceLocation, target: movement.target },
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
        emitMovement(movement, { type: 'movement.changed', data: { ...event(movement), from: current.state, fields } });
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
        emitMovement(movement, { type: 'movement.cancelled', data: { ...event(movement), from: current.state } });
        return movement;
      });
    },

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
        const unit = unitByPk(current.transportUnitPk);
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
        emitMovement(movement, { type: 'movement.completed', data: { ...event(movement), from: current.state, target: movement.target } });
        return movement;
      });
    },
  };
}

export type MovementService = ReturnType<typeof createMovementService>;
