import { invalidParameter, validationError } from '../../core/errors.ts';
import type { CommonServices } from '../common/service.ts';
import { notFoundPlain, orderNotFound } from './errors.ts';
import { PRIORITIES, type OrderFields, type Priority, type StoredOrder, type TransportOrderStore } from './store.ts';

// How the transport-orders module reads an order and what it names: the order with the
// names of its unit, locations and group as they are now, where the unit stands, and
// whether it has reached the target. Creation, the transitions and the lookups all read
// through here; it writes nothing. The common module's services answer every name.

/** An order as the API shows it: the names of the unit, locations and group as they are now. */
export type TransportOrder = StoredOrder;

export type Target = Pick<OrderFields, 'targetLocationPk' | 'targetLocation' | 'targetGroupPk' | 'targetLocationGroup'>;

/** Where a unit stands, as far as reaching a target goes. */
export interface Place {
  pk: string;
  locationId: string;
  groupPk: string;
}

/** The spec: 400 `core.invalid.parameter` when the priority level is not defined; no `obj`. */
export function priorityOf(value: unknown): Priority {
  if (typeof value === 'string' && (PRIORITIES as readonly string[]).includes(value)) return value as Priority;
  // Shown as sent when it is a word; anything else by its kind (an object may nest deeper than a message should reach).
  const shown =
    typeof value === 'string'
      ? value.slice(0, 64)
      : value === null || typeof value !== 'object'
        ? String(value)
        : Array.isArray(value)
          ? 'a list'
          : 'an object';
  throw invalidParameter(`Priority level [${shown}] is not defined; use one of ${PRIORITIES.join(', ')}`);
}

interface OrderViewDeps {
  store: TransportOrderStore;
  common: CommonServices;
}

/**
 * The readings every part of the module shares. Built once with the service; the PLC's
 * booking path calls them per telegram, so they are plain functions that allocate no
 * more than the order they return.
 */
export function createOrderView({ store, common }: OrderViewDeps) {
  const unitByPk = (pk: string) => common.transportUnits.findByPk(pk);

  /** Where a unit stands now; `undefined` when the unit is gone. */
  function placeOf(unitPk: string): Place | undefined {
    const unit = unitByPk(unitPk);
    const location = unit && common.locations.findByPk(unit.actualLocationPk);
    return location && { pk: location.pk, locationId: location.locationId, groupPk: location.groupPk };
  }

  /**
   * The order with the current names of what it refers to: a renamed unit, location or
   * group shows its new name; a deleted one the name recorded when the order was last written.
   */
  function live(o: StoredOrder): TransportOrder {
    const unit = unitByPk(o.transportUnitPk);
    const source = common.locations.findByPk(o.sourceLocationPk);
    const target = o.targetLocationPk === null ? undefined : common.locations.findByPk(o.targetLocationPk);
    const group = o.targetGroupPk === null ? undefined : common.locationGroups.findByPk(o.targetGroupPk);
    return {
      ...o,
      transportUnitBK: unit?.barcode ?? o.transportUnitBK,
      sourceLocation: source?.locationId ?? o.sourceLocation,
      targetLocation: target?.locationId ?? o.targetLocation,
      targetLocationGroup: group?.name ?? o.targetLocationGroup,
    };
  }

  function byPKey(pKey: string): TransportOrder {
    const order = store.byPk(pKey);
    if (!order) throw orderNotFound(pKey);
    return live(order);
  }

  /** True when a location lies in the group or in a group below it. */
  const inGroupTree = (locationGroupPk: string, groupPk: string) =>
    locationGroupPk === groupPk || common.locationGroups.ancestors(locationGroupPk).includes(groupPk);

  /**
   * True when a unit standing at `place` has reached the order's target: the target
   * location itself, or (an order with only a group target) any location in the group's subtree.
   */
  function reached(target: Target, place: Place): boolean {
    if (target.targetLocationPk !== null) return target.targetLocationPk === place.pk;
    return target.targetGroupPk !== null && inGroupTree(place.groupPk, target.targetGroupPk);
  }

  /** A target by coordinate and/or group name (404 `not.found` for an unknown one; both: the location must lie in the group). */
  function resolveTarget(locationId: string | null, groupName: string | null): Target {
    if (locationId === null && groupName === null) {
      throw validationError('Validation failed: targetLocation, targetLocationGroup: name at least one target');
    }
    const location = locationId === null ? undefined : common.locations.findByLocationId(locationId);
    if (locationId !== null && !location) throw notFoundPlain();
    const group = groupName === null ? undefined : common.locationGroups.byNames([groupName])[0];
    if (groupName !== null && !group) throw notFoundPlain();
    if (location && group && !inGroupTree(location.groupPk, group.pk)) {
      throw validationError(
        `Validation failed: targetLocation: [${location.locationId}] does not lie in targetLocationGroup [${group.name}] or a group below it`,
      );
    }
    return {
      targetLocationPk: location?.pk ?? null,
      targetLocation: location?.locationId ?? null,
      targetGroupPk: group?.pk ?? null,
      targetLocationGroup: group?.name ?? null,
    };
  }

  return { placeOf, live, byPKey, reached, resolveTarget };
}

export type OrderView = ReturnType<typeof createOrderView>;
