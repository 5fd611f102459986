import type { EventRecord } from '../../src/core/event-catalogue.ts';
import { RES_REASONS } from '../osip/index.ts';
import type { ChannelDirectory, ReplyInput } from '../port.ts';
import { groupChainOf, groupField, locationField, type AdapterDeps } from './shared.ts';

// Unsolicited RES_ (docs/routing.md): when a transport unit gets a new route —
// an order created STARTED, an order started because the one before it ended, an order
// redirected — and the unit stands at a location a PLC channel owns, that channel is
// told where the unit goes next, without waiting for the PLC to ask. The PLC would ask
// at its next decision point anyway; this saves a unit waiting at a location whose PLC
// has nothing more to report (a buffer, a crane pick-up position).
//
// A telegram's own handling (a REQ_ that finished one order and started the next) is
// not echoed: its RES_ already carries the decision, and a UPD_'s unit is on its way to
// the next decision point. Events are taken up after the publishing code has finished
// (a microtask), once per unit however many of its events came together.

const TRIGGERS = ['transportOrder.created', 'transportOrder.started', 'transportOrder.redirected'] as const;

/** 20 characters, the barcode field. */
const BARCODE_WIDTH = 20;

export function createUnsolicited(deps: AdapterDeps) {
  const { common, routing, work, log } = deps;
  let directory: ChannelDirectory | undefined;
  /** Units whose events a telegram's handling is publishing right now. */
  const quiet = new Set<string>();
  /** Units with a send already queued. */
  const queued = new Set<string>();

  function onOrderEvent(event: EventRecord<(typeof TRIGGERS)[number]>): void {
    const barcode = event.data.transportUnitBK;
    if (!directory || quiet.has(barcode) || queued.has(barcode)) return;
    // Only a STARTED order is the one routing follows; a queued (INITIALIZED) one changes nothing yet.
    if (event.type !== 'transportOrder.started' && event.data.state !== 'STARTED') return;
    queued.add(barcode);
    queueMicrotask(() => {
      queued.delete(barcode);
      try {
        send(barcode);
      } catch (err) {
        log.error({ err, barcode }, 'PLC: unsolicited RES_ failed');
      }
    });
  }

  function send(barcode: string): void {
    const unit = common.transportUnits.findByBarcode(barcode);
    const location = unit && common.locations.findByPk(unit.actualLocationPk);
    if (!directory || !unit || !location) return;
    const channel = directory.ownerOf(location.locationId, groupChainOf(common, location));
    if (channel === undefined) return;
    const decision = routing.decide(unit.barcode, location.locationId);
    if (decision.kind !== 'next') {
      log.debug({ barcode, at: location.locationId, decision: decision.kind, channel }, 'PLC: no unsolicited RES_, the unit has no next hop');
      return;
    }
    const actual = locationField(common, location.locationId);
    const target = locationField(common, decision.next);
    if (actual === undefined || target === undefined || unit.barcode.length > BARCODE_WIDTH) {
      log.warn(
        { barcode, at: location.locationId, next: decision.next, channel },
        'PLC: no unsolicited RES_, the barcode or a location does not fit its telegram field',
      );
      return;
    }
    const telegram: ReplyInput = {
      type: 'RES_',
      // Written with the channel's barcode padding, as a PLC reads its own barcodes.
      barcode: unit.barcode,
      rawActualLocation: actual,
      rawTargetLocation: target,
      targetLocationGroup: groupField(decision.order?.targetLocationGroup),
      errorCode: RES_REASONS.ok,
    };
    const sent = directory.sendUnsolicited(channel, telegram);
    log.info({ barcode, at: location.locationId, next: decision.next, channel, sent }, sent ? 'PLC: unsolicited RES_ sent' : 'PLC: unsolicited RES_ not sent, the channel cannot send now');
  }

  const unsubscribe = TRIGGERS.map((type) => work.bus.on(type, onOrderEvent));

  return {
    attach(channels: ChannelDirectory): void {
      directory = channels;
    },

    /** Handles telegrams naming these units: the order events their commit delivers get no unsolicited RES_. */
    quietly<T>(barcodes: readonly string[], handle: () => T): T {
      for (const barcode of barcodes) quiet.add(barcode);
      try {
        return handle();
      } finally {
        for (const barcode of barcodes) quiet.delete(barcode);
      }
    },

    close(): void {
      for (const off of unsubscribe) off();
      directory = undefined;
    },
  };
}
