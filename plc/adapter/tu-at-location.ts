import { nowIso } from '../../src/core/time.ts';
import { reasonCode } from '../../src/modules/routing/decision.ts';
import type { RoutingDecision } from '../../src/modules/routing/service.ts';
import type { Arrival, Pending } from '../../src/modules/transport-orders/service.ts';
import { ERR_CODES, RES_REASONS } from '../osip/index.ts';
import type { ReqTelegram, UpdTelegram, UpdxTelegram } from '../osip/index.ts';
import type { ChannelContext, HandlingResult, ReplyInput } from '../port.ts';
import {
  errReply, findLocation, findUnit, groupField, locationField, publishAll, result,
  type AdapterDeps, type AfterCommit, type Location, type TransportUnit,
} from './shared.ts';

// REQ_, UPD_ and UPDX: transport unit B reported at location L (plc-osip.md §B4.1).
// The effects — B booked onto L, its orders finished and started, the problem text of
// an order without route — are written in one transaction; the events go out after
// the commit. Only REQ_ is answered with a RES_; UPD_ never is; UPDX gets an ACK_
// when the channel says so.

export type TuTelegram = ReqTelegram | UpdTelegram | UpdxTelegram;

/** The problem text an order gets when its unit has no route onwards: `no route at <coordinate>`. */
const NO_ROUTE = 'no route at';

/** Marks the barcodes whose order events a telegram's own handling announces (unsolicited.ts). */
export type Quietly = (barcode: string, publish: () => void) => void;

/** A telegram's reply, and its events to publish once its effects are committed. */
export interface Booked {
  result: HandlingResult;
  publish: () => void;
}

interface Booking {
  /** The RES_ of a REQ_. */
  res?: ReplyInput;
  outcome: string;
}

export function createTuAtLocation(deps: AdapterDeps, quietly: Quietly) {
  const { db, common, transportOrders, routing, bus, log } = deps;

  /** A RES_ echoing the request's barcode and location fields exactly (§A5.2). */
  function res(t: ReqTelegram, errorCode: string, target?: { field: string; group: string | undefined }): ReplyInput {
    return {
      type: 'RES_',
      rawBarcode: t.rawBarcode,
      rawActualLocation: t.rawActualLocation,
      ...(target ? { rawTargetLocation: target.field, targetLocationGroup: target.group } : {}),
      errorCode,
    };
  }

  /** The RES_ error code: the REQ_'s own, echoed (OpenWMS), or our reason code. */
  const code = (t: ReqTelegram, channel: ChannelContext, reason: string) => (channel.options.resReasonCodes ? reason : t.errorCode);

  /** The reply when nothing could be booked: REQ_ → RES_ without target; UPD_/UPDX → ERR_. */
  function refused(t: TuTelegram, channel: ChannelContext, outcome: string, reason: string, err: string): HandlingResult {
    return t.type === 'REQ_' ? result(outcome, res(t, code(t, channel, reason))) : result(outcome, errReply(err));
  }

  function noRead(t: TuTelegram, channel: ChannelContext): HandlingResult {
    if (t.type === 'UPD_') return result('no-read');
    if (t.type === 'UPDX') return channel.options.updx ? result('no-read', { type: 'ACK_', errorCode: t.errorCode }) : result('no-read');
    const reason = code(t, channel, RES_REASONS.noRead);
    const target = channel.options.noReadLocation;
    if (target === undefined) return result('no-read', res(t, reason));
    const field = locationField(common, target);
    if (field === undefined) {
      log.warn({ channel: channel.name, noReadLocation: target }, 'PLC: the no-read location cannot be written as a 20-character location field; RES_ without target');
      return result('no-read', res(t, reason));
    }
    return result('no-read', res(t, reason, { field, group: undefined }));
  }

  /** The RES_ for a routing decision made after the unit was booked. */
  function answer(t: ReqTelegram, channel: ChannelContext, location: Location, decision: RoutingDecision, arrival: Arrival): Booking {
    // The request that finished the order: the unit is where it should be, not "without order".
    const arrived = decision.kind === 'arrived' || (decision.kind === 'no-order' && arrival.finished.length > 0);
    if (arrived) return { res: res(t, code(t, channel, RES_REASONS.ok)), outcome: 'ok' };
    if (decision.kind !== 'next') return { res: res(t, code(t, channel, reasonCode(decision))), outcome: decision.kind };
    const field = locationField(common, decision.next);
    if (field === undefined) {
      log.warn(
        { channel: channel.name, barcode: t.barcode, at: location.locationId, next: decision.next },
        'PLC: the next location has neither a coordinate of 5 × 4 characters nor a PLC code of up to 20; RES_ without target',
      );
      return { res: res(t, code(t, channel, RES_REASONS.noRoute)), outcome: 'target-not-writable' };
    }
    const wantedGroup = decision.order?.targetLocationGroup;
    const group = groupField(wantedGroup);
    if (wantedGroup && group === undefined) {
      log.warn({ channel: channel.name, group: wantedGroup }, 'PLC: the target group name does not fit 20 characters; RES_ without it');
    }
    return { res: res(t, code(t, channel, RES_REASONS.ok), { field, group }), outcome: 'ok' };
  }

  /**
   * The telegram's effects in one transaction — a savepoint when the caller has one open
   * (a batch, adapter.ts) — and its reply; `publish` sends the events: call it after the
   * commit, never when the caller's transaction rolls back.
   */
  function book(t: TuTelegram, channel: ChannelContext): Booked {
    if (t.barcode === undefined) return unpublished(noRead(t, channel));
    const location = findLocation(common, channel.options.locationAddressing, t.actualLocation, t.rawActualLocation);
    if (!location) {
      return unpublished(refused(t, channel, 'unknown-location', RES_REASONS.unknownLocationOrTu, ERR_CODES.unknownEntity));
    }

    const known: TransportUnit | undefined = findUnit(common, t.barcode, t.rawBarcode);
    if (!known && !channel.options.autoCreateTu) {
      return unpublished(refused(t, channel, 'unknown-tu', RES_REASONS.unknownLocationOrTu, ERR_CODES.unknownEntity));
    }
    // As stored: a known unit may carry the field's zero padding (findUnit).
    const barcode = known?.barcode ?? t.barcode;

    // The routing model from committed data, cached: built inside the transaction it
    // would be thrown away. (Inside a batch this does nothing; the batch prepared it.)
    if (t.type === 'REQ_') routing.prepare();
    const after: AfterCommit = [];
    const booking = db.transaction((): Booking => {
      if (!known) {
        // A unit first seen by the PLC is created standing at L, in the same transaction
        // as the rest of the telegram's effects: a failure later leaves no orphan unit.
        const created = common.transportUnits.createInTransaction({
          barcode,
          actualLocation: location.locationId,
          transportUnitType: channel.options.autoCreateTuType,
        });
        after.push(created.publish);
      } else {
        // Physical facts win: a unit the PLC saw at L is booked there, locked or not (§B4.1 step 3).
        const moved = common.transportUnits.moveInTransaction(known, location.pk, location.locationId, nowIso());
        if (moved) {
          // Its orders are settled below, in this transaction (arrivedInTransaction).
          after.push(() => bus.publish('transportUnit.moved', { ...moved, ordersSettled: true }));
          if (!location.incomingActive) {
            const warning = { barcode, locationId: location.locationId, channel: channel.name, telegram: t.type };
            after.push(() => {
              log.warn(warning, 'PLC: transport unit booked onto a location that does not accept incoming units');
              bus.publish('plc.bookedOntoLockedLocation', warning);
            });
          }
        }
      }
      const arrival = transportOrders.arrivedInTransaction(barcode, location.locationId);
      after.push(() => transportOrders.announce(arrival));
      if (t.type !== 'REQ_') return { outcome: 'ok' };

      const decision = routing.decide(barcode, location.locationId);
      if (decision.kind === 'no-route' && decision.order) {
        const problem: Pending = transportOrders.recordProblemInTransaction(decision.order.pKey, `${NO_ROUTE} ${location.locationId}`);
        after.push(() => transportOrders.announce(problem));
      } else if (decision.kind === 'next' && decision.order) {
        // On its way again: the problem this adapter recorded no longer holds.
        const solved: Pending = transportOrders.clearProblemInTransaction(decision.order.pKey, (m) => m.startsWith(`${NO_ROUTE} `));
        after.push(() => transportOrders.announce(solved));
      }
      return answer(t, channel, location, decision, arrival);
    })();

    // The unit's order events are this telegram's own: the RES_ (or the next REQ_) answers them.
    const publish = () => quietly(barcode, () => publishAll(after, log));
    if (t.type === 'REQ_') return { result: result(booking.outcome, booking.res!), publish };
    if (t.type === 'UPDX' && channel.options.updx) return { result: result(booking.outcome, { type: 'ACK_', errorCode: t.errorCode }), publish };
    return { result: result(booking.outcome), publish };
  }

  return {
    book,
    /** One telegram on its own: booked, committed, published. */
    handle(t: TuTelegram, channel: ChannelContext): HandlingResult {
      const booked = book(t, channel);
      booked.publish();
      return booked.result;
    },
  };
}

const unpublished = (handled: HandlingResult): Booked => ({ result: handled, publish: () => {} });
