import { type Listing } from '../../core/listing.ts';
import { mapListing } from '../../core/listing-ops.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { newPKey } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { validationError } from '../../core/errors.ts';
import type { CommonServices } from '../common/service.ts';
import { alreadyAtTarget, endedNotChanged, notFoundPlain } from './errors.ts';
import { emitOrder, eventData } from './order-events.ts';
import { createOrderView, priorityOf, type TransportOrder } from './order-view.ts';
import type { NewTransportOrderInput } from './schema.ts';
import { createOrderTransitions, isEnded } from './transitions.ts';
import type { OrderState, Priority, StoredOrder, TransportOrderStore } from './store.ts';

// The rules of the transport-orders module (docs/transport-orders.md;
// docs/routing.md last paragraph and docs/plc.md; decisions and the transition table in
// docs/transport-orders.md). The transport unit, the locations and the groups belong to
// the common base module and are reached only through its services.
//
// Invariant kept by every write of this module: a transport unit has at most one
// STARTED order, and a unit without a STARTED order has no INITIALIZED one (the next
// order starts the moment the previous one ends). Orders are started, and finished on
// arrival, by `advance` (transitions.ts), the one routine every path ends with. A unit's
// arrival (`transportUnit.moved`) and deletion are reactions inside the unit of work that
// booked or deleted it: the same rule whether REST, a movement or a PLC telegram moved it.
//
// Here: creation, the lookups, those reactions and the problem texts the PLC adapter
// records; the transition table and the writes along it are in transitions.ts, the
// readings they share (names as they are now, where a unit stands) in order-view.ts.

export type { TransportOrder } from './order-view.ts';
export { isEnded, TRANSITIONS } from './transitions.ts';

export const DEFAULT_PRIORITY: Priority = 'NORMAL';

/** The start of the problem text of an order whose unit found no route onwards (`no route at <coordinate>`, written by the PLC adapter). */
export const NO_ROUTE_PROBLEM = 'no route at';

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

interface TransportOrderServiceDeps {
  work: UnitOfWork;
  store: TransportOrderStore;
  common: CommonServices;
}

export function createTransportOrderService({ work, store, common }: TransportOrderServiceDeps) {
  // Both built once: the booking reaction and `startedOrderOf` run per PLC telegram and
  // call these functions directly, with nothing built per call.
  const view = createOrderView({ store, common });
  const { live, byPKey, placeOf, reached, resolveTarget } = view;
  const { setState, advance, modify, cancel } = createOrderTransitions({ work, store, view });

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
        emitOrder(work, { type: 'transportOrder.created', data: { ...eventData(order), sourceLocation: order.sourceLocation } });
        if (startsNow) emitOrder(work, { type: 'transportOrder.started', data: { ...eventData(order), from: 'INITIALIZED' } });
        return byPKey(pk);
      });
    },

    /** PATCH along the transition table (transitions.ts). */
    modify,

    /** DELETE: an order that has not ended becomes CANCELED; the unit's next order starts (transitions.ts). */
    cancel,

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
        emitOrder(work, { type: 'transportOrder.changed', data: { ...eventData(written), from: current.state, fields: ['message'], message } });
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
        emitOrder(work, { type: 'transportOrder.changed', data: { ...eventData(written), from: current.state, fields: ['message'], message: null } });
      });
    },
  };
}

export type TransportOrderService = ReturnType<typeof createTransportOrderService>;
