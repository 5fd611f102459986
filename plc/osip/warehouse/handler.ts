import type { Logger } from '../../../src/core/log.ts';
import type { PlcAdapter, UnitOutcome } from '../../port.ts';
import { ERR_CODES } from '../codes.ts';
import type { ChannelContext, ChannelDirectory, HandlingResult, ReplyInput, TelegramHandler } from '../port.ts';
import type { Telegram } from '../telegrams.ts';
import { errReply, result } from './fields.ts';
import { createStateTelegrams } from './states.ts';
import { createUnitTelegrams, isTuTelegram, reporter, type TuTelegram } from './units.ts';
import { unsolicitedRes } from './unsolicited.ts';

// What an OSIP telegram means for the warehouse: each valid telegram a channel hands
// over is mapped onto the adapter's operations (plc/port.ts) and their result back onto
// reply telegrams. Nothing is decided here that the adapter decides for every protocol;
// here are only OSIP's rules — which telegram is which operation, the field lookups,
// the reply codes, and how an internal failure is answered (docs/plc.md).
//
//   REQ_ / UPD_ / UPDX  → warehouse/units.ts (unitArrived, unitReport; bursts: unitSightings)
//   LOCU / SYSU / ERR_  → warehouse/states.ts (locationState, groupState, plcError)
//   new routes          → warehouse/unsolicited.ts (an unsolicited RES_)

export interface OsipHandler extends TelegramHandler {
  handleBatch(telegrams: readonly Telegram[], channel: ChannelContext): HandlingResult[];
  /** Connects the channels, for unsolicited RES_; until then none are sent. */
  attach(directory: ChannelDirectory): void;
  /** Closes the adapter (it stops listening to domain events). */
  close(): void;
}

interface OsipHandlerDeps {
  adapter: PlcAdapter;
  log: Logger;
  /** With the channels it is attached at once (the composition root); otherwise call `attach`. */
  channels?: ChannelDirectory | undefined;
}

export function createOsipHandler({ adapter, log, channels }: OsipHandlerDeps): OsipHandler {
  const units = createUnitTelegrams(adapter, log);
  const states = createStateTelegrams(adapter);
  const attach = (directory: ChannelDirectory) => adapter.attach(unsolicitedRes(adapter, directory, log));
  if (channels) attach(channels);

  function dispatch(telegram: Telegram, channel: ChannelContext): HandlingResult {
    switch (telegram.type) {
      case 'REQ_':
      case 'UPD_':
      case 'UPDX':
        return units.handle(telegram, channel);
      case 'LOCU':
        return states.locu(telegram, channel);
      case 'SYSU':
      case 'ERR_':
        return states.sysu(telegram, channel);
      case 'SYNQ':
        // The channel answers SYNQ on its fast path; should one come here, it still gets its SYNC.
        return result('ok', { type: 'SYNC', time: adapter.heartbeat(channel.name).time });
      case 'RES_':
      case 'SYNC':
      case 'ACK_':
        // Host-to-PLC types: a PLC sending them is not speaking our dialect (docs/plc.md, unknown type).
        return result('unexpected-type', errReply(ERR_CODES.unknownType));
    }
  }

  /** docs/plc.md, internal failure: nothing was kept; REQ_ → RES_ without target, others → ERR_ 00000099. */
  function failed(telegram: Telegram, channel: ChannelContext): HandlingResult {
    if (telegram.type !== 'REQ_') return result('internal', errReply(ERR_CODES.internal));
    const res: ReplyInput = {
      type: 'RES_',
      rawBarcode: telegram.rawBarcode,
      rawActualLocation: telegram.rawActualLocation,
      errorCode: channel.options.resReasonCodes ? ERR_CODES.internal : telegram.errorCode,
    };
    return result('internal', res);
  }

  function logFailure(err: unknown, telegram: Telegram, channel: ChannelContext): void {
    try {
      log.error({ err, telegram, channel: channel.name }, 'PLC telegram failed; its effects were rolled back');
    } catch {
      // The answer to the PLC matters more than the log line.
    }
  }

  function handle(telegram: Telegram, channel: ChannelContext): HandlingResult {
    try {
      return dispatch(telegram, channel);
    } catch (err) {
      logFailure(err, telegram, channel);
      return failed(telegram, channel);
    }
  }

  /** A run of REQ_/UPD_/UPDX: the adapter's sightings together, one commit for the run. */
  function handleRun(run: readonly TuTelegram[], channel: ChannelContext): HandlingResult[] {
    if (run.length === 1) return [handle(run[0]!, channel)];
    const done = adapter.unitSightings(
      run.map((t) => units.sighting(t, channel)),
      reporter(channel, run[0]!.type),
    );
    return run.map((telegram, i) => {
      const outcome = done[i]!;
      if (outcome.outcome !== 'internal') return units.answer(telegram, channel, outcome as UnitOutcome);
      if ('error' in outcome) logFailure(outcome.error, telegram, channel);
      return failed(telegram, channel);
    });
  }

  return {
    handle,
    handleBatch(telegrams, channel) {
      // Runs of unit reports go together; a state telegram (LOCU, SYSU, ERR_) is handled
      // on its own, so that its events (a locked group, say) reach routing before the
      // next REQ_ decides.
      const results: HandlingResult[] = [];
      let run: TuTelegram[] = [];
      const flush = () => {
        if (run.length > 0) results.push(...handleRun(run, channel));
        run = [];
      };
      for (const telegram of telegrams) {
        if (isTuTelegram(telegram)) run.push(telegram);
        else {
          flush();
          results.push(handle(telegram, channel));
        }
      }
      flush();
      return results;
    },
    afterFlush: adapter.afterFlush,
    attach,
    close: adapter.close,
  };
}
