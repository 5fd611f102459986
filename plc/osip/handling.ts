// The telegram handler's share of a batch (plc/osip/port.ts): its verdicts, one per
// telegram, and their replies as telegram texts. A handler should neither throw nor
// describe a reply that cannot be encoded; when one does, its telegram is answered as an
// internal failure (docs/plc.md) and the channel goes on.

import type { Logger } from '../../src/core/log.ts';
import { ERR_CODES } from './codes.ts';
import type { OsipOptions } from './options.ts';
import type { ChannelContext, HandlingResult, ReplyInput, TelegramHandler } from './port.ts';
import { encodeReply, type SeqRule } from './reply.ts';
import type { Telegram } from './telegrams.ts';

/** The handler's verdicts, one per telegram; a throwing handler (it should not) is answered as an internal failure. */
export function handleAll(handler: TelegramHandler, telegrams: readonly Telegram[], context: ChannelContext, log: Logger): HandlingResult[] {
  if (telegrams.length > 1 && handler.handleBatch) {
    try {
      const results = handler.handleBatch(telegrams, context);
      if (results.length !== telegrams.length) throw new Error(`${results.length} results for ${telegrams.length} telegrams`);
      return results;
    } catch (err) {
      log.error({ err, telegrams: telegrams.length }, 'telegram handler failed');
      return telegrams.map(internalFailure);
    }
  }
  return telegrams.map((telegram) => {
    try {
      return handler.handle(telegram, context);
    } catch (err) {
      log.error({ err, type: telegram.type, seq: telegram.header.seq }, 'telegram handler failed');
      return internalFailure(telegram);
    }
  });
}

/** The replies as telegram texts; one that cannot be written is a handler bug, answered as an internal failure. */
export function encodeReplies(
  request: Telegram,
  result: HandlingResult,
  seqRule: SeqRule,
  osip: OsipOptions,
  log: Logger,
): { texts: string[]; outcome: string } {
  try {
    return { texts: result.replies.map((r) => encodeReply(r, request, seqRule, osip)), outcome: result.outcome };
  } catch (err) {
    log.error({ err, replies: result.replies }, 'reply of the telegram handler cannot be encoded');
    return { texts: internalFailureReplies(request).map((r) => encodeReply(r, request, seqRule, osip)), outcome: 'internal' };
  }
}

const internalFailure = (telegram: Telegram): HandlingResult => ({ replies: internalFailureReplies(telegram), outcome: 'internal' });

/** docs/plc.md "internal failure": REQ_ → RES_ without target (the PLC holds and asks again); others → ERR_ 00000099. */
function internalFailureReplies(telegram: Telegram): ReplyInput[] {
  if (telegram.type === 'REQ_') {
    return [{ type: 'RES_', rawBarcode: telegram.rawBarcode, rawActualLocation: telegram.rawActualLocation, errorCode: telegram.errorCode }];
  }
  return [{ type: 'ERR_', errorCode: ERR_CODES.internal }];
}
