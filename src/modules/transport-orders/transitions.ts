import { DomainError, validationError } from '../../core/errors.ts';
import { nowIso } from '../../core/time.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { checkVersion } from '../../core/versioned.ts';
import { alreadyAtTarget, alreadyStartedForTu, endedNotCancelled, endedNotChanged, endedNotRedirected, TRANSPORT_ORDER_KEYS } from './errors.ts';
import { emitOrder, eventData } from './order-events.ts';
import { priorityOf, type OrderView, type Place, type TransportOrder } from './order-view.ts';
import type { TransportOrderPatchInput } from './schema.ts';
import { ENDED_STATES, type OrderFields, type OrderState, type StoredOrder, type TransportOrderStore } from './store.ts';

// The state transitions of a transport order (the transition table of
// docs/transport-orders.md): the ones a client asks for (PATCH, DELETE) and the ones the
// module makes by itself — an order starts when its unit has no STARTED order and
// finishes when the unit reaches its target (`advance`). Kept apart from creation and
// the lookups so that the table and every write that follows it stand together.

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

const invalidTransition = (o: TransportOrder, to: OrderState) => {
  const allowed = TRANSITIONS[o.state];
  return new DomainError(
    409,
    TRANSPORT_ORDER_KEYS.invalidStateTransition,
    `TransportOrder [${o.pk}] cannot go from ${o.state} to ${to}; from ${o.state} it can go to ${allowed.join(', ') || 'nothing (it has ended)'}`,
    { obj: [o.pk, o.state, to] },
  );
};

/** The fields a client sees; a PATCH that changes none of them writes nothing. */
const VISIBLE: readonly (keyof OrderFields)[] = ['priority', 'state', 'targetLocation', 'targetLocationGroup', 'startDate', 'endDate', 'message'];
const TARGET_FIELDS: readonly (keyof OrderFields)[] = ['targetLocation', 'targetLocationGroup'];
const STATE_FIELDS: readonly (keyof OrderFields)[] = ['state', 'startDate', 'endDate'];

/** States with an event of their own; INTERRUPTED and ONFAILURE are announced as `transportOrder.changed`. */
const STATE_EVENTS: Partial<Record<OrderState, 'transportOrder.started' | 'transportOrder.finished' | 'transportOrder.canceled'>> = {
  STARTED: 'transportOrder.started',
  FINISHED: 'transportOrder.finished',
  CANCELED: 'transportOrder.canceled',
};

interface OrderTransitionDeps {
  work: UnitOfWork;
  store: TransportOrderStore;
  view: OrderView;
}

/**
 * The transitions, built once with the service: `advance` runs on every booking of a
 * unit (the PLC's telegrams among them), so the readings it needs are taken from the
 * view here rather than on each call.
 */
export function createOrderTransitions({ work, store, view }: OrderTransitionDeps) {
  const { live, byPKey, placeOf, reached, resolveTarget } = view;

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
    if (own) emitOrder(work, { type: own, data: { ...eventData(written), from: current.state, ...messageData } });
    else
      emitOrder(work, { type: 'transportOrder.changed', data: { ...eventData(written), from: current.state, fields: ['state', 'endDate'], ...messageData } });
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

  return {
    setState,
    advance,

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
          emitOrder(work, {
            type: 'transportOrder.redirected',
            data: { ...eventData(written), from: { targetLocation: current.targetLocation, targetLocationGroup: current.targetLocationGroup } },
          });
        }
        const stateEvent = stateChange ? STATE_EVENTS[state] : undefined;
        if (stateEvent) emitOrder(work, { type: stateEvent, data: { ...eventData(written), from: current.state } });
        const others = fields.filter((f) => !TARGET_FIELDS.includes(f) && !(stateEvent && STATE_FIELDS.includes(f)));
        if (others.length > 0) {
          emitOrder(work, {
            type: 'transportOrder.changed',
            data: { ...eventData(written), from: current.state, fields: others, message: written.message },
          });
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
  };
}
