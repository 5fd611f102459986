import { asActor, type Actor } from '../src/core/actor.ts';
import { ERR_CODES } from './osip/index.ts';
import type { Telegram } from './osip/index.ts';
import type { ChannelContext, ChannelDirectory, HandlingResult, ReplyInput, TelegramHandler } from './port.ts';
import { errReply, result, type AdapterDeps } from './adapter/shared.ts';
import { createStates } from './adapter/states.ts';
import { createTuAtLocation, type TuTelegram } from './adapter/tu-at-location.ts';
import { createUnsolicited } from './adapter/unsolicited.ts';

// The PLC adapter (docs/routing.md): turns each telegram a channel hands over
// into effects on the module services and says what to answer. Each telegram's effects
// are one unit of work (all or nothing), done as the channel's PLC (actor `plc`); its
// events are delivered after the commit; an internal failure rolls back, is logged with
// the telegram, and is answered as docs/plc.md says. Unit reports that queued up together
// (handleBatch) share one commit, each still all or nothing in a savepoint of its own:
// under load the fsync, not the work, is what a telegram costs most. The channels
// (plc/channel.ts) own framing, decoding, sequence numbers, duplicates and SYNQ; the
// adapter owns what a telegram means.
//
//   REQ_ / UPD_ / UPDX  → adapter/tu-at-location.ts (book the unit, its orders, next hop)
//   LOCU / SYSU / ERR_  → adapter/states.ts (location and group states)
//   order events        → adapter/unsolicited.ts (RES_ to the channel owning the unit's location)

export type { AdapterDeps } from './adapter/shared.ts';

export interface PlcAdapter extends TelegramHandler {
  /** Connects the channels, for unsolicited RES_; until then none are sent. */
  attach(directory: ChannelDirectory): void;
  /** Stops listening to domain events. */
  close(): void;
}

/**
 * The adapter over the module services. With `channels` it is attached at once (the
 * composition root passes the PLC channels); otherwise call `attach` when they exist.
 */
export function createAdapter(deps: AdapterDeps & { channels?: ChannelDirectory | undefined }): PlcAdapter {
  const { log } = deps;
  const unsolicited = createUnsolicited(deps);
  const tuAtLocation = createTuAtLocation(deps);
  const states = createStates(deps);
  const plc = (channel: ChannelContext): Actor => ({ kind: 'plc', name: channel.name });
  /** The barcodes a telegram names: their order events are its own, answered by its RES_ (unsolicited.ts). */
  const barcodesOf = (telegrams: readonly Telegram[]) =>
    telegrams.flatMap((t) => ((t.type === 'REQ_' || t.type === 'UPD_' || t.type === 'UPDX') && t.barcode !== undefined ? [t.barcode, t.rawBarcode] : []));
  if (deps.channels) unsolicited.attach(deps.channels);

  function dispatch(telegram: Telegram, channel: ChannelContext): HandlingResult {
    switch (telegram.type) {
      case 'REQ_':
      case 'UPD_':
      case 'UPDX':
        return tuAtLocation.book(telegram, channel);
      case 'LOCU':
        return states.locu(telegram, channel);
      case 'SYSU':
      case 'ERR_':
        return states.sysu(telegram, channel);
      case 'SYNQ':
        // The channel answers SYNQ on its fast path; should one come here, it still gets its SYNC.
        return result('ok', { type: 'SYNC' });
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

  function handleOne(telegram: Telegram, channel: ChannelContext): HandlingResult {
    try {
      return dispatch(telegram, channel);
    } catch (err) {
      logFailure(err, telegram, channel);
      return failed(telegram, channel);
    }
  }

  function handle(telegram: Telegram, channel: ChannelContext): HandlingResult {
    return asActor(plc(channel), () => unsolicited.quietly(barcodesOf([telegram]), () => handleOne(telegram, channel)));
  }

  /**
   * A run of REQ_/UPD_/UPDX in one transaction, each in a savepoint of its own: one
   * commit (one fsync) for the run; the events of all after it. These telegrams change
   * nothing the routing model holds, so each still decides as if handled alone.
   */
  function bookTogether(run: readonly TuTelegram[], channel: ChannelContext): HandlingResult[] {
    if (run.length === 1) return [handleOne(run[0]!, channel)];
    deps.routing.prepare();
    try {
      return deps.work.run(() =>
        run.map((telegram) => {
          try {
            return deps.work.isolated(() => tuAtLocation.book(telegram, channel));
          } catch (err) {
            // Its savepoint is rolled back; the others stand. Unless SQLite gave up the
            // whole transaction (disk full, I/O error): then nothing of the run may be kept.
            if (!deps.work.transactionOpen) throw err;
            logFailure(err, telegram, channel);
            return failed(telegram, channel);
          }
        }),
      );
    } catch (err) {
      log.error({ err, telegrams: run.length, channel: channel.name }, 'PLC: committing a batch of telegrams failed; none of them was kept');
      return run.map((telegram) => failed(telegram, channel));
    }
  }

  return {
    handle,
    handleBatch(telegrams, channel) {
      // Runs of unit reports go together; a state telegram (LOCU, SYSU, ERR_) is handled
      // on its own, so that its events (a locked group, say) reach routing before the
      // next REQ_ decides.
      return asActor(plc(channel), () =>
        unsolicited.quietly(barcodesOf(telegrams), () => {
          const results: HandlingResult[] = [];
          let run: TuTelegram[] = [];
          const flush = () => {
            if (run.length > 0) results.push(...bookTogether(run, channel));
            run = [];
          };
          for (const telegram of telegrams) {
            if (telegram.type === 'REQ_' || telegram.type === 'UPD_' || telegram.type === 'UPDX') run.push(telegram);
            else {
              flush();
              results.push(handleOne(telegram, channel));
            }
          }
          flush();
          return results;
        }),
      );
    },
    attach: unsolicited.attach,
    close: unsolicited.close,
  };
}
