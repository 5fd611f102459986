import type { EventRecord } from '../../src/core/event-catalogue.ts';
import type { RouteListeners, RouteNotice } from '../port.ts';
import { groupChainOf, type AdapterDeps } from './shared.ts';

// A new route without being asked (docs/routing.md): when a transport unit gets a new
// route — an order created STARTED, an order started because the one before it ended,
// an order redirected — and the unit stands at a location a PLC channel owns, that
// channel is told where the unit goes next, without waiting for the PLC to ask. The PLC
// would ask at its next decision point anyway; this saves a unit waiting at a location
// whose PLC has nothing more to report (a buffer, a crane pick-up position).
//
// A report's own handling (an arrival that finished one order and started the next) is
// not echoed: its answer already carries the decision, and a reported unit is on its
// way to the next decision point. Events are taken up after the publishing code has
// finished (a microtask) and their commit is on disk (the unit of work's `afterFlush`: a
// PLC is never told of a route a power cut could take back), once per unit however
// many of its events came together.

const TRIGGERS = ['transportOrder.created', 'transportOrder.started', 'transportOrder.redirected'] as const;

export function createUnsolicited(deps: AdapterDeps) {
  const { common, routing, work, log } = deps;
  let listeners: RouteListeners | undefined;
  /** Units whose events a report's handling is publishing right now (a count: reports may nest). */
  const quiet = new Map<string, number>();
  /** Units with a notice already queued. */
  const queued = new Set<string>();

  function onOrderEvent(event: EventRecord<(typeof TRIGGERS)[number]>): void {
    const barcode = event.data.transportUnitBK;
    if (!listeners || quiet.has(barcode) || queued.has(barcode)) return;
    // Only a STARTED order is the one routing follows; a queued (INITIALIZED) one changes nothing yet.
    if (event.type !== 'transportOrder.started' && event.data.state !== 'STARTED') return;
    queued.add(barcode);
    // Decided after the code that published has finished (the rest of the commit's
    // events), on the state of this commit; told once it is on disk. A later change is
    // decided and told after it, in turn.
    queueMicrotask(() => {
      queued.delete(barcode);
      try {
        const told = notice(barcode);
        if (told) work.afterFlush(() => listeners?.routeChanged(told.channel, told.notice));
      } catch (err) {
        log.error({ err, barcode }, 'PLC: telling a channel of a new route failed');
      }
    });
  }

  /** Which channel to tell of the unit's new route, and what; undefined: none (no owner, no next hop). */
  function notice(barcode: string): { channel: string; notice: RouteNotice } | undefined {
    const unit = common.transportUnits.findByBarcode(barcode);
    const location = unit && common.locations.findByPk(unit.actualLocationPk);
    if (!listeners || !unit || !location) return undefined;
    const channel = listeners.ownerOf(location.locationId, groupChainOf(common, location));
    if (channel === undefined) return undefined;
    const decision = routing.decide(unit.barcode, location.locationId);
    if (decision.kind !== 'next') {
      log.debug({ barcode, at: location.locationId, decision: decision.kind, channel }, 'PLC: no new route to tell, the unit has no next hop');
      return undefined;
    }
    return {
      channel,
      notice: { barcode: unit.barcode, at: location.locationId, next: decision.next, group: decision.order?.targetLocationGroup ?? undefined },
    };
  }

  const unsubscribe = TRIGGERS.map((type) => work.bus.on(type, onOrderEvent));

  return {
    attach(to: RouteListeners): void {
      listeners = to;
    },

    /** Runs a report naming these units: the order events its commit delivers are its own, answered by it. */
    quietly<T>(barcodes: readonly string[], handle: () => T): T {
      for (const barcode of barcodes) quiet.set(barcode, (quiet.get(barcode) ?? 0) + 1);
      try {
        return handle();
      } finally {
        for (const barcode of barcodes) {
          const n = quiet.get(barcode)! - 1;
          if (n === 0) quiet.delete(barcode);
          else quiet.set(barcode, n);
        }
      }
    },

    close(): void {
      for (const off of unsubscribe) off();
      listeners = undefined;
    },
  };
}
