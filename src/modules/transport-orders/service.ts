import type { EventInput } from '../../core/event-catalogue.ts';
import { type Listing } from '../../core/listing.ts';
import { mapListing } from '../../core/listing-ops.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { newPKey } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { checkVersion } from '../../core/versioned.ts';
import { DomainError, invalidParameter, validationError } from '../../core/errors.ts';
import type { CommonServices } from '../common/service.ts';
import {
  alreadyAtTarget,
  alreadyStartedForTu,
  endedNotCancelled,
  endedNotChanged,
  endedNotRedirected,
  notFoundPlain,
  orderNotFound,
  TRANSPORT_ORDER_KEYS,
} from './errors.ts';
import type { NewTransportOrderInput, TransportOrderPatchInput } from './schema.ts';
import { ENDED_STATES, PRIORITIES, type OrderFields, type OrderState, type Priority, type StoredOrder, type TransportOrderStore } from './store.ts';

// The rules of the transport-orders module (docs/transport-orders.md;
// docs/routing.md last paragraph and docs/plc.md; decisions and the transition table in
// docs/transport-orders.md). The transport unit, the locations and the groups belong to
// the common base module and are reached only through its services.
//
// Invariant kept by every write of this module: a transport unit has at most one
// STARTED order, and a unit without a STARTED order has no INITIALIZED one (the next
// order starts the moment the previous one ends). Orders are started, and finished on
// arrival, by `advance`, the one routine every path ends with. A unit's arrival
// (`transportUnit.moved`) and deletion are reactions inside the unit of work that
// booked or deleted it: the same rule whether REST, a movement or a PLC telegram moved it.

/** An order as the API shows it: the names of the unit, locations and group as they are now. */
export type TransportOrder = StoredOrder;

export const DEFAULT_PRIORITY: Priority = 'NORMAL';

/** The start of the problem text of an order whose unit found no route onwards (`no route at <coordinate>`, written by the PLC adapter). */
export const NO_ROUTE_PROBLEM = 'no route at';

/**
 * Moves the table allows (PATCH; DELETE is CANCELED). CREATED → INITIALIZED →
 * STARTED also happen on their own: an order is validated when it is created and
 * starts when its unit has no STARTED order. The four last states end an order.
 */
export const TRANSITIONS: Record<OrderState, readonly OrderState[]> = {
  CREATED: ['INITIALIZED', 'ONFAILURE', 'CANCELED'],
  INITIALIZED: ['STARTED', 'ONFAILURE', 'CANCELED'],
  STARTED: ['INTERRUPTED', 'ONFAILURE', 'CANCELED', 'FINISHED'],
  INTERRUPTED: [],
  ONFAILURE: [],
  CANCELED: [],
  FINISHED: [],
};

export const isEnded = (state: OrderState): boolean => ENDED_STATES.includes(state);

/** The spec: 400 `core.invalid.parameter` when the priority level is not defined; no `obj`. */
function priorityOf(value: unknown): Priority {
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

const invalidTransition = (o: TransportOrder, to: OrderState) => {
  const allowed = TRANSITIONS[o.state];
  return new DomainError(
    409,
    TRANSPORT_ORDER_KEYS.invalidStateTransition,
    `TransportOrder [${o.pk}] cannot go from ${o.state} to ${to}; from ${o.state} it can go to ${allowed.join(', ') || 'nothing (it has ended)'}`,
    { obj: [o.pk, o.state, to] },
  );
};

type Target = Pick<OrderFields, 'targetLocationPk' | 'targetLocation' | 'targetGroupPk' | 'targetLocationGroup'>;

/** Where a unit stands, as far as reaching a target goes. */
interface Place {
  pk: string;
  locationId: string;
  groupPk: string;
}

/** The STARTED order of a unit as routing reads it. */
interface StartedOrder {
  pKey: string;
  /** Coordinate of the location the unit stood at when the order was created: where its route starts. */
  sourceLocation: string | null;
  /** Coordinate of the target location. */
  targetLocation: string | null;
  /** Name of the target location group. */
  targetLocationGroup: string | null;
}

/** The fields a client sees; a PATCH that changes none of them writes nothing. */
const VISIBLE: readonly (keyof OrderFields)[] = ['priority', 'state', 'targetLocation', 'targetLocationGroup', 'startDate', 'endDate', 'message'];
const TARGET_FIELDS: readonly (keyof OrderFields)[] = ['targetLocation', 'targetLocationGroup'];
const STATE_FIELDS: readonly (keyof OrderFields)[] = ['state', 'startDate', 'endDate'];

/** An event of this module as it is emitted: about the order, naming its unit. */
type OrderEvent =
  Extract<EventInput, { type: `transportOrder.${string}` }> extends infer E
    ? E extends { type: infer T; data: infer D }
      ? { type: T; data: D }
      : never
    : never;

/** States with an event of their own; INTERRUPTED and ONFAILURE are announced as `transportOrder.changed`. */
const STATE_EVENTS: Partial<Record<OrderState, 'transportOrder.started' | 'transportOrder.finished' | 'transportOrder.canceled'>> = {
  STARTED: 'transportOrder.started',
  FINISHED: 'transportOrder.finished',
  CANCELED: 'transportOrder.canceled',
};

interface TransportOrderServiceDeps {
  work: UnitOfWork;
  store: TransportOrderStore;
  common: CommonServices;
}

export function createTransportOrderService({ work, store, common }: TransportOrderServiceDeps) {
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

  const eventData = (o: TransportOrder) => ({
    pKey: o.pk,
    transportUnitBK: o.transportUnitBK,
    state: o.state,
    priority: o.priority,
    targetLocation: o.targetLocation,
    targetLocationGroup: o.targetLocationGroup,
  });

  /** Records an order event; it is about the order and names its unit. */
  function emitOrder(event: OrderEvent) {
    work.emit({ ...event, key: event.data.pKey, refs: [{ kind: 'transportUnit', key: event.data.transportUnitBK }] } as EventInput);
  }

  /** Writes a new state (with its dates) and records the event; inside a unit of work. */
  function setState(current: TransportOrder, to: OrderState, now: string, message?: string): TransportOrder {
    const next: OrderFields = {
      ...current,
      state: to,
      startDate: to === 'STARTED' ? now : current.startDate,
      endDate: isEnded(to) ? now : current.endDate,
      message: message ?? current.message,
    };
    store.update(current.pk, next, now);
    const written = live(store.byPk(current.pk)!);
    const own = STATE_EVENTS[to];
    const messageData = message !== undefined ? { message } : {};
    if (own) emitOrder({ type: own, data: { ...eventData(written), from: current.state, ...messageData } });
    else emitOrder({ type: 'transportOrder.changed', data: { ...eventData(written), from: current.state, fields: ['state', 'endDate'], ...messageData } });
    return written;
  }

  /**
   * Sets a unit's orders going from where it stands: without a STARTED order the next
   * INITIALIZED one starts (highest priority, then oldest); a STARTED order whose
   * target the unit has reached is FINISHED, and the next one starts — repeatedly.
   */
  function advance(unitPk: string, place: Place | undefined, now: string): void {
    for (;;) {
      // The target as stored decides; the names are looked up only for what is written.
      let started: StoredOrder | undefined = store.startedOf(unitPk);
      if (!started) {
        const next = store.nextInitializedOf(unitPk);
        if (!next) return;
        started = setState(live(next), 'STARTED', now);
      }
      if (!place || !reached(started, place)) return;
      setState(live(started), 'FINISHED', now);
    }
  }

  // A unit that arrives somewhere finishes the order whose target it reached and starts
  // the next, in the unit of work that booked it.
  work.react('transportUnit.moved', (event) => {
    const location = common.locations.findByLocationId(event.data.to);
    advance(event.data.pKey, location && { pk: location.pk, locationId: location.locationId, groupPk: location.groupPk }, nowIso());
  });

  // A deleted unit's open orders cannot be carried out any more: CANCELED, with a message saying why.
  work.react('transportUnit.deleted', (event) => {
    const now = nowIso();
    // The STARTED one last: no INITIALIZED order may start in between.
    const open = store.openOf(event.data.pKey).sort((a, b) => Number(a.state === 'STARTED') - Number(b.state === 'STARTED'));
    for (const order of open) setState(live(order), 'CANCELED', now, `TransportUnit [${event.data.barcode}] was deleted`);
  });

  /** A list of orders as they are shown, each with what it names as it is now. */
  const shown = (listing: Listing<StoredOrder>): Listing<TransportOrder> => mapListing(listing, (stored) => stored.map(live));

  return {
    /** Every order, oldest first: pages, or the whole list streamed. */
    list: (): Listing<TransportOrder> => shown(store.list()),
    byPKey,

    /** Orders in one of the states, oldest first. */
    inStates: (states: readonly OrderState[]): Listing<TransportOrder> => shown(store.inStates(states)),

    /**
     * The orders of a transport unit (in those states; `undefined` = any), oldest first.
     * A barcode that names no unit lists the orders recorded for it (of a unit since
     * deleted) — usually none.
     */
    forBarcode(barcode: string, states?: readonly OrderState[]): Listing<TransportOrder> {
      const unit = common.transportUnits.findByBarcode(barcode);
      return shown(unit ? store.forUnit(unit.pk, states) : store.forBarcode(barcode, states));
    },

    /**
     * A new order for the unit, from where it stands to the target. It is validated
     * (CREATED → INITIALIZED) and STARTED at once when the unit has no STARTED order;
     * then the unit must not stand at the target already (400).
     */
    create(input: NewTransportOrderInput): TransportOrder {
      const priority = input.priority === undefined ? DEFAULT_PRIORITY : priorityOf(input.priority);
      const wanted = { location: input.targetLocation ?? null, group: input.targetLocationGroup ?? null };
      if (wanted.location === null && wanted.group === null) {
        throw validationError('Validation failed: targetLocation, targetLocationGroup: name at least one target');
      }
      return work.run(() => {
        const unit = common.transportUnits.findByBarcode(input.barcode);
        if (!unit) throw notFoundPlain();
        const target = resolveTarget(wanted.location, wanted.group);
        const source = placeOf(unit.pk)!;
        const startsNow = store.startedOf(unit.pk) === undefined;
        if (startsNow && reached(target, source)) throw alreadyAtTarget(unit.barcode, source.locationId);
        const now = nowIso();
        const pk = newPKey();
        store.insert(
          pk,
          {
            transportUnitPk: unit.pk,
            transportUnitBK: unit.barcode,
            priority,
            state: startsNow ? 'STARTED' : 'INITIALIZED',
            sourceLocationPk: source.pk,
            sourceLocation: source.locationId,
            ...target,
            startDate: startsNow ? now : null,
            endDate: null,
            message: input.problem ?? null,
          },
          now,
        );
        const order = live(store.byPk(pk)!);
        emitOrder({ type: 'transportOrder.created', data: { ...eventData(order), sourceLocation: order.sourceLocation } });
        if (startsNow) emitOrder({ type: 'transportOrder.started', data: { ...eventData(order), from: 'INITIALIZED' } });
        return byPKey(pk);
      });
    },

    /**
     * PATCH: changes priority, target (redirect), state (along the table) and the
     * problem text (`message`). Ended orders cannot change (409); a PATCH that changes
     * nothing writes nothing, also for an ended order.
     */
    modify(pKey: string, patch: TransportOrderPatchInput): TransportOrder {
      const priority = patch.priority === undefined ? undefined : priorityOf(patch.priority);
      return work.run(() => {
        const current = byPKey(pKey);
        if (patch.pKey != null && patch.pKey !== current.pk) {
          throw validationError(`Validation failed: pKey: [${patch.pKey}] differs from the order of the path [${current.pk}]`);
        }
        if (patch.barcode !== undefined && patch.barcode !== current.transportUnitBK) {
          throw validationError(
            `Validation failed: barcode: [${patch.barcode}] differs from the order's transport unit [${current.transportUnitBK}]; an order keeps its unit`,
          );
        }
        const wantedLocation = patch.targetLocation === undefined ? current.targetLocation : patch.targetLocation;
        const wantedGroup = patch.targetLocationGroup === undefined ? current.targetLocationGroup : patch.targetLocationGroup;
        if (wantedLocation === null && wantedGroup === null) {
          throw validationError('Validation failed: targetLocation, targetLocationGroup: an order keeps at least one target');
        }
        checkVersion('TransportOrder', current, patch.ol);

        const state = patch.state ?? current.state;
        const stateChange = state !== current.state;
        const redirect = wantedLocation !== current.targetLocation || wantedGroup !== current.targetLocationGroup;
        const message = patch.problem === undefined ? current.message : patch.problem;
        if (stateChange && !TRANSITIONS[current.state].includes(state)) throw invalidTransition(current, state);
        if (isEnded(current.state)) {
          if (redirect) throw endedNotRedirected(current);
          if ((priority !== undefined && priority !== current.priority) || message !== current.message) throw endedNotChanged(current);
          return current;
        }

        const next: TransportOrder = { ...current, priority: priority ?? current.priority, message };
        if (redirect) Object.assign(next, resolveTarget(wantedLocation, wantedGroup));
        const now = nowIso();
        if (stateChange) {
          if (state === 'STARTED') {
            const started = store.startedOf(current.transportUnitPk);
            if (started) throw alreadyStartedForTu(current, started);
            next.startDate = now;
          }
          if (isEnded(state)) next.endDate = now;
          next.state = state;
        }
        const place = placeOf(current.transportUnitPk);
        // A STARTED order heads for its target: one the unit stands at already is refused, as at creation.
        if (next.state === 'STARTED' && (redirect || stateChange) && place && reached(next, place)) {
          throw alreadyAtTarget(next.transportUnitBK, place.locationId);
        }
        const fields = VISIBLE.filter((f) => next[f] !== current[f]);
        if (fields.length === 0) return current;
        store.update(current.pk, next, now);
        const written = live(store.byPk(current.pk)!);
        if (redirect) {
          emitOrder({
            type: 'transportOrder.redirected',
            data: { ...eventData(written), from: { targetLocation: current.targetLocation, targetLocationGroup: current.targetLocationGroup } },
          });
        }
        const stateEvent = stateChange ? STATE_EVENTS[state] : undefined;
        if (stateEvent) emitOrder({ type: stateEvent, data: { ...eventData(written), from: current.state } });
        const others = fields.filter((f) => !TARGET_FIELDS.includes(f) && !(stateEvent && STATE_FIELDS.includes(f)));
        if (others.length > 0) {
          emitOrder({ type: 'transportOrder.changed', data: { ...eventData(written), from: current.state, fields: others, message: written.message } });
        }
        // The unit's STARTED order ended: the next one starts.
        if (current.state === 'STARTED' && isEnded(state)) advance(current.transportUnitPk, place, now);
        return byPKey(pKey);
      });
    },

    /** DELETE: an order that has not ended becomes CANCELED (endDate set); the unit's next order starts. */
    cancel(pKey: string): TransportOrder {
      return work.run(() => {
        const current = byPKey(pKey);
        if (isEnded(current.state)) throw endedNotCancelled(current);
        const now = nowIso();
        setState(current, 'CANCELED', now);
        if (current.state === 'STARTED') advance(current.transportUnitPk, placeOf(current.transportUnitPk), now);
        return byPKey(pKey);
      });
    },

    /** The STARTED order of a unit (routing, the PLC adapter); `undefined` for none or an unknown barcode. */
    startedOrderOf(transportUnitBK: string): StartedOrder | undefined {
      const unit = common.transportUnits.findByBarcode(transportUnitBK);
      const stored = unit && store.startedOf(unit.pk);
      if (!stored) return undefined;
      const order = live(stored);
      return {
        pKey: order.pk,
        sourceLocation: order.sourceLocation,
        targetLocation: order.targetLocation,
        targetLocationGroup: order.targetLocationGroup,
      };
    },

    /**
     * Records a problem text as the order's `message` (routing: "no route at L").
     * An ended order: 409 `svc.tms.to.endedNotChanged`. Joins a running unit of work.
     */
    recordProblem(pKey: string, message: string | null): void {
      work.run(() => {
        const current = byPKey(pKey);
        if (current.message === message) return;
        if (isEnded(current.state)) throw endedNotChanged(current);
        store.update(current.pk, { ...current, message }, nowIso());
        const written = live(store.byPk(current.pk)!);
        emitOrder({ type: 'transportOrder.changed', data: { ...eventData(written), from: current.state, fields: ['message'], message } });
      });
    },

    /**
     * Clears the order's problem text when `ours` says the caller wrote it (the PLC
     * adapter's "no route at L", once the unit has a next hop again); a text an
     * operator wrote stays. Joins a running unit of work.
     */
    clearProblem(pKey: string, ours: (message: string) => boolean): void {
      work.run(() => {
        const current = store.byPk(pKey);
        if (!current?.message || !ours(current.message) || isEnded(current.state)) return;
        store.update(current.pk, { ...current, message: null }, nowIso());
        const written = live(store.byPk(current.pk)!);
        emitOrder({ type: 'transportOrder.changed', data: { ...eventData(written), from: current.state, fields: ['message'], message: null } });
      });
    },
  };
}

export type TransportOrderService = ReturnType<typeof createTransportOrderService>;
