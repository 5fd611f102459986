import { reasonCode } from '../../src/modules/routing/decision.ts';
import { NO_ROUTE_PROBLEM } from '../../src/modules/transport-orders/service.ts';
import type { LocationRef, Reporter, ReportFacts, UnitOutcome, UnitRef } from '../port.ts';
import { findLocation, findUnit, type AdapterDeps, type TransportUnit } from './shared.ts';

// A transport unit seen at a location (docs/plc.md: REQ_, UPD_, UPDX): booked there,
// its orders finished and started, and — for an arrival at a decision point — where it
// goes next, with the problem text of an order that has no route onwards. The effects
// are one unit of work (joining the caller's when one runs: a batch, adapter.ts); its
// events go out after the commit. How the answer travels is the protocol's business.

/** The transport order named by the first of these order events (for the protocol's log). */
const orderOf = (events: readonly { data: unknown }[]) => (events[0]?.data as { pKey?: string } | undefined)?.pKey;

/** The problem text an order gets when its unit has no route onwards: `no route at <coordinate>`. */
const NO_ROUTE = NO_ROUTE_PROBLEM;

export function createUnitAtLocation(deps: AdapterDeps) {
  const { work, common, transportOrders, routing, log } = deps;

  /**
   * Books the unit and, for an arrival, decides its next location. The routing model is
   * prepared by the caller (built inside the transaction it would be thrown away).
   */
  function seen(at: LocationRef | undefined, ref: UnitRef | undefined, arrival: boolean, from: Reporter): UnitOutcome {
    if (ref === undefined) {
      const target = arrival ? from.noReadLocation : undefined;
      return { outcome: 'no-read', ...(target !== undefined ? { next: { location: target } } : {}) };
    }
    const location = findLocation(common, at);
    if (!location) return { outcome: 'unknown-location' };
    const known: TransportUnit | undefined = findUnit(common, ref);
    if (!known && from.createUnknownUnitsAs === undefined) return { outcome: 'unknown-tu' };
    // As stored: a known unit may carry the field's padding (findUnit).
    const barcode = known?.barcode ?? ref.barcode;
    const facts: ReportFacts = { barcode, location: location.locationId };

    let lockedWarning: Record<string, unknown> | undefined;
    const outcome = work.run((): UnitOutcome & { order?: string | undefined } => {
      const mark = work.mark();
      if (!known) {
        // A unit first seen by the PLC is created standing at L, in the same unit of work
        // as the rest of the report's effects: a failure later leaves no orphan unit.
        common.transportUnits.create({ barcode, actualLocation: location.locationId, transportUnitType: from.createUnknownUnitsAs! });
      } else if (common.transportUnits.moveTo(known, location) && !location.incomingActive) {
        // Physical facts win: a unit the PLC saw at L is booked there, locked or not.
        const warning = { barcode, locationId: location.locationId, channel: from.channel, telegram: from.said ?? (arrival ? 'arrival' : 'report') };
        work.emit({ type: 'plc.bookedOntoLockedLocation', key: barcode, data: warning, refs: [{ kind: 'location', key: location.locationId }] });
        lockedWarning = warning;
      }
      // What booking the unit did to its orders (the transport-order module reacted to the move).
      const settled = work.recordedSince(mark).filter((e) => e.type.startsWith('transportOrder.'));
      const finished = settled.find((e) => e.type === 'transportOrder.finished');
      if (!arrival) return { outcome: 'ok', order: orderOf(settled) ?? transportOrders.startedOrderOf(barcode)?.pKey };

      const decision = routing.decide(barcode, location.locationId);
      if (decision.kind === 'no-route' && decision.order) {
        transportOrders.recordProblem(decision.order.pKey, `${NO_ROUTE} ${location.locationId}`);
      } else if (decision.kind === 'next' && decision.order) {
        // On its way again: the problem this adapter recorded no longer holds.
        transportOrders.clearProblem(decision.order.pKey, (m) => m.startsWith(`${NO_ROUTE} `));
      }
      const order = decision.order?.pKey ?? orderOf(settled);
      // The arrival that finished the unit's last order: it is where it should be, not "without order".
      const decided = { kind: decision.kind, reasonCode: reasonCode(decision) };
      if (decision.kind === 'arrived' || (decision.kind === 'no-order' && finished !== undefined)) return { outcome: 'ok', decision: decided, order };
      if (decision.kind !== 'next') return { outcome: decision.kind, decision: decided, order };
      return { outcome: 'ok', next: { location: decision.next, group: decision.order?.targetLocationGroup ?? undefined }, decision: decided, order };
    });
    if (lockedWarning) log.warn(lockedWarning, 'PLC: transport unit booked onto a location that does not accept incoming units');

    const { order, ...result } = outcome;
    if (order) facts.order = order;
    return { ...result, facts };
  }

  return { seen };
}
