import type { Logger } from '../../../src/core/log.ts';
import type { PlcOperations, Reporter, UnitOutcome, UnitSighting } from '../../port.ts';
import { ERR_CODES, RES_REASONS } from '../codes.ts';
import type { ChannelContext, HandlingResult, ReplyInput } from '../port.ts';
import type { ReqTelegram, UpdTelegram, UpdxTelegram } from '../telegrams.ts';
import { errReply, groupField, locationField, locationRef, result, unitRef } from './fields.ts';

// REQ_, UPD_ and UPDX (docs/plc.md): transport unit B reported at location L, i.e. the
// adapter's unitArrived (REQ_) and unitReport (UPD_, UPDX). Here only what OSIP makes
// of it: the fields looked up as the channel says, and the answer — a RES_ naming the
// next hop for a REQ_, nothing for an UPD_, an ACK_ for an UPDX when the channel says so.

export type TuTelegram = ReqTelegram | UpdTelegram | UpdxTelegram;

export const isTuTelegram = (t: { type: string }): t is TuTelegram => t.type === 'REQ_' || t.type === 'UPD_' || t.type === 'UPDX';

/** The channel as the adapter's reporter of this telegram. */
export const reporter = (channel: ChannelContext, said: string): Reporter => ({
  channel: channel.name,
  createUnknownUnitsAs: channel.options.autoCreateTu ? channel.options.autoCreateTuType : undefined,
  noReadLocation: channel.options.noReadLocation,
  said,
});

export function createUnitTelegrams(adapter: PlcOperations, log: Logger) {
  /** The telegram as the adapter's sighting. */
  const sighting = (t: TuTelegram, channel: ChannelContext): UnitSighting => ({
    at: locationRef(channel.options.locationAddressing, t.actualLocation, t.rawActualLocation),
    unit: unitRef(t.barcode, t.rawBarcode),
    arrival: t.type === 'REQ_',
    said: t.type,
  });

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

  /** The RES_ of a REQ_: where the unit goes next, or why it stays. */
  function answerReq(t: ReqTelegram, channel: ChannelContext, done: UnitOutcome): HandlingResult {
    switch (done.outcome) {
      case 'no-read': {
        const reason = code(t, channel, RES_REASONS.noRead);
        if (done.next === undefined) return result('no-read', res(t, reason));
        const field = locationField(adapter, done.next.location);
        if (field === undefined) {
          log.warn(
            { channel: channel.name, noReadLocation: done.next.location },
            'PLC: the no-read location cannot be written as a 20-character location field; RES_ without target',
          );
          return result('no-read', res(t, reason));
        }
        return result('no-read', res(t, reason, { field, group: undefined }));
      }
      case 'unknown-location':
      case 'unknown-tu':
        // Refused before anything was booked: no decision, no facts.
        if (done.decision === undefined) return result(done.outcome, res(t, code(t, channel, RES_REASONS.unknownLocationOrTu)));
    }
    const facts = done.facts;
    if (done.outcome !== 'ok') return result(done.outcome, res(t, code(t, channel, done.decision!.reasonCode)), facts);
    if (done.next === undefined) return result('ok', res(t, code(t, channel, RES_REASONS.ok)), facts);
    const field = locationField(adapter, done.next.location);
    if (field === undefined) {
      log.warn(
        { channel: channel.name, barcode: facts?.barcode, at: facts?.location, next: done.next.location },
        'PLC: the next location has neither a coordinate of 5 × 4 characters nor a PLC code of up to 20; RES_ without target',
      );
      return result('target-not-writable', res(t, code(t, channel, RES_REASONS.noRoute)), facts);
    }
    const wantedGroup = done.next.group;
    const group = groupField(wantedGroup);
    if (wantedGroup && group === undefined) {
      log.warn({ channel: channel.name, group: wantedGroup }, 'PLC: the target group name does not fit 20 characters; RES_ without it');
    }
    return result('ok', res(t, code(t, channel, RES_REASONS.ok), { field, group }), facts);
  }

  /** The answer to a telegram once the adapter has handled it. */
  function answer(t: TuTelegram, channel: ChannelContext, done: UnitOutcome): HandlingResult {
    if (t.type === 'REQ_') return answerReq(t, channel, done);
    const ack = t.type === 'UPDX' && channel.options.updx ? ({ type: 'ACK_', errorCode: t.errorCode } as const) : undefined;
    switch (done.outcome) {
      case 'no-read':
        return result('no-read', ack);
      case 'unknown-location':
      case 'unknown-tu':
        return result(done.outcome, errReply(ERR_CODES.unknownEntity));
      default:
        return result(done.outcome, ack, done.facts);
    }
  }

  return {
    sighting,
    answer,
    /** One telegram alone (it throws when its unit of work failed; nothing was kept). */
    handle(t: TuTelegram, channel: ChannelContext): HandlingResult {
      const s = sighting(t, channel);
      const from = reporter(channel, t.type);
      return answer(t, channel, s.arrival ? adapter.unitArrived(s.at, s.unit, from) : adapter.unitReport(s.at, s.unit, from));
    },
  };
}
