import { reasonCode } from '../../src/modules/routing/decision.ts';
import type { RoutingDecision } from '../../src/modules/routing/service.ts';
import { NO_ROUTE_PROBLEM } from '../../src/modules/transport-orders/service.ts';
import { ERR_CODES, RES_REASONS } from '../osip/index.ts';
import type { ReqTelegram, UpdTelegram, UpdxTelegram } from '../osip/index.ts';
import type { ChannelContext, HandlingResult, ReplyInput, TelegramFacts } from '../port.ts';
import {
  errReply, findLocation, findUnit, groupField, locationField, result,
  type AdapterDeps, type Location, type TransportUnit,
} from './shared.ts';

// REQ_, UPD_ and UPDX: transport unit B reported at location L (docs/plc.md).
// The effects — B booked onto L, its orders finished and started, the problem text of
// an order without route — are one unit of work; its events go out after the commit.
// Only REQ_ is answered with a RES_; UPD_ never is; UPDX gets an ACK_ when the channel
// says so.

export type TuTelegram = ReqTelegram | UpdTelegram | UpdxTelegram;

/** The transport order named by the first of these order events (for the telegram log). */
const orderOf = (events: readonly { data: unknown }[]) => (events[0]?.data as { pKey?: string } | undefined)?.pKey;

/** The problem text an order gets when its unit has no route onwards: `no route at <coordinate>`. */
const NO_ROUTE = NO_ROUTE_PROBLEM;

interface Booking {
  /** The RES_ of a REQ_. */
  res?: ReplyInput;
  outcome: string;
  /** The transport order the telegram touched, for the telegram log. */
  order?: string | undefined;
}

export function createTuAtLocation(deps: AdapterDeps) {
  const { work, common, transportOrders, routing, log } = deps;

  /** A RES_ echoing the request's barcode and location fields exactly. */
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

  /** The RES_ for a routing decision made after the unit was booked; `finishedLast`: the booking finished its last order. */
  function answer(t: ReqTelegram, channel: ChannelContext, location: Location, decision: RoutingDecision, finishedLast: boolean): Booking {
    const arrived = decision.kind === 'arrived' || finishedLast;
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
   * The telegram's effects in one unit of work — joining the caller's when one runs (a
   * batch, adapter.ts) — and its reply. Booking the unit settles its orders in the same
   * unit of work (the transport-orders module reacts to the move), as for any move.
   */
  function book(t: TuTelegram, channel: ChannelContext): HandlingResult {
    if (t.barcode === undefined) return noRead(t, channel);
    const location = findLocation(common, channel.options.locationAddressing, t.actualLocation, t.rawActualLocation);
    if (!location) {
      return refused(t, channel, 'unknown-location', RES_REASONS.unknownLocationOrTu, ERR_CODES.unknownEntity);
    }

    const known: TransportUnit | undefined = findUnit(common, t.barcode, t.rawBarcode);
    if (!known && !channel.options.autoCreateTu) {
      return refused(t, channel, 'unknown-tu', RES_REASONS.unknownLocationOrTu, ERR_CODES.unknownEntity);
    }
    // As stored: a known unit may carry the field's zero padding (findUnit).
    const barcode = known?.barcode ?? t.barcode;
    const facts: TelegramFacts = { barcode, location: location.locationId };

    // The routing model from committed data, cached: built inside the transaction it
    // would be thrown away. (Inside a batch this does nothing; the batch prepared it.)
    if (t.type === 'REQ_') routing.prepare();
    let lockedWarning: Record<string, unknown> | undefined;
    const booking = work.run((): Booking => {
      const mark = work.mark();
      if (!known) {
        // A unit first seen by the PLC is created standing at L, in the same unit of work
        // as the rest of the telegram's effects: a failure later leaves no orphan unit.
        common.transportUnits.create({ barcode, actualLocation: location.locationId, transportUnitType: channel.options.autoCreateTuType });
      } else if (common.transportUnits.moveTo(known, location) && !location.incomingActive) {
        // Physical facts win: a unit the PLC saw at L is booked there, locked or not.
        const warning = { barcode, locationId: location.locationId, channel: channel.name, telegram: t.type };
        work.emit({ type: 'plc.bookedOntoLockedLocation', key: barcode, data: warning, refs: [{ kind: 'location', key: location.locationId }] });
        lockedWarning = warning;
      }
      // What booking the unit did to its orders (the transport-order module reacted to the move).
      const settled = work.recordedSince(mark).filter((e) => e.type.startsWith('transportOrder.'));
      const finished = settled.find((e) => e.type === 'transportOrder.finished');
      if (t.type !== 'REQ_') return { outcome: 'ok', order: orderOf(settled) ?? transportOrders.startedOrderOf(barcode)?.pKey };

      const decision = routing.decide(barcode, location.locationId);
      if (decision.kind === 'no-route' && decision.order) {
        transportOrders.recordProblem(decision.order.pKey, `${NO_ROUTE} ${location.locationId}`);
      } else if (decision.kind === 'next' && decision.order) {
        // On its way again: the problem this adapter recorded no longer holds.
        transportOrders.clearProblem(decision.order.pKey, (m) => m.startsWith(`${NO_ROUTE} `));
      }
      // The request that finished the unit's last order: it is where it should be, not "without order".
      const arrived = decision.kind === 'no-order' && finished !== undefined;
      return { ...answer(t, channel, location, decision, arrived), order: decision.order?.pKey ?? orderOf(settled) };
    });
    if (lockedWarning) log.warn(lockedWarning, 'PLC: transport unit booked onto a location that does not accept incoming units');

    if (booking.order) Object.assign(facts, { order: booking.order });
    if (t.type === 'REQ_') return result(booking.outcome, booking.res!, facts);
    if (t.type === 'UPDX' && channel.options.updx) return result(booking.outcome, { type: 'ACK_', errorCode: t.errorCode }, facts);
    return result(booking.outcome, undefined, facts);
  }

  return { book };
}
