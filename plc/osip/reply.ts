// Building the host's replies (docs/plc.md ("Bad telegrams")): the header turned around,
// and the ERR_ telegram for a frame we cannot or will not process.

import type { ReplyAddress } from './decode.ts';
import { encode } from './encode.ts';
import { OsipEncodeError } from './errors.ts';
import { DEFAULT_OSIP_OPTIONS, type OsipOptions } from './options.ts';
import type { ReplyInput } from './port.ts';
import type { HeaderInput, Telegram, TelegramInput } from './telegrams.ts';

/**
 * `plus-one`: the request's sequence number + 1 modulo 100000 (OpenWMS RES_, the
 * documented SYNC; our default). `echo`: unchanged (ACK_ always; `replySeq: echo`).
 */
export type SeqRule = 'plus-one' | 'echo';

/**
 * The header of a reply: from us (`options.hostName`, which for any accepted
 * telegram is its receiver) to the request's sender. A request whose sequence
 * number could not be read is answered with `00000` whatever the rule.
 */
export function replyHeader(request: ReplyAddress, seqRule: SeqRule, options: OsipOptions = DEFAULT_OSIP_OPTIONS): HeaderInput {
  const seq = request.seq === undefined ? 0 : seqRule === 'echo' ? request.seq : (request.seq + 1) % 100_000;
  return { sender: options.hostName, receiver: request.sender, seq };
}

/** A reply of the handler as telegram text, with its header turned around from the request's. */
export function encodeReply(reply: ReplyInput, request: Telegram, seqRule: SeqRule, options: OsipOptions): string {
  // ACK_ always echoes the sequence number; the others follow replySeq.
  const header = replyHeader(request.header, reply.type === 'ACK_' ? 'echo' : seqRule, options);
  return encode({ ...reply, header } as TelegramInput, options);
}

export interface ErrorTelegramExtras {
  /** Default `plus-one`. */
  seqRule?: SeqRule;
  /** Receiver when there is no readable request header (default `*****`). */
  peer?: string;
  /** Default: the options' clock. */
  created?: Date;
}

/**
 * An ERR_ from us with one of our codes (ERR_CODES) and no group (`*` × 20 with the
 * default filler), so an OpenWMS-style reader can parse it. Without a readable
 * request header the sequence number is `00000` and the receiver is `extras.peer`.
 */
export function errorTelegram(
  code: string,
  request: ReplyAddress | undefined,
  options: OsipOptions = DEFAULT_OSIP_OPTIONS,
  extras: ErrorTelegramExtras = {},
): string {
  if (!/^[0-9]{8}$/.test(code)) throw new OsipEncodeError('errorCode', 'bad-value', `ERR_ code must be 8 digits, got ${JSON.stringify(code)}`);
  const header = request ? replyHeader(request, extras.seqRule ?? 'plus-one', options) : { sender: options.hostName, receiver: extras.peer ?? '*****', seq: 0 };
  return encode({ type: 'ERR_', header, errorCode: code, created: extras.created }, options);
}

/**
 * Checks the addressing of an accepted telegram: the receiver must be our
 * host name, the sender the channel's peer (when the channel is bound to one).
 * Both cases are answered with ERR_CODES.wrongPeer.
 */
export function checkAddress(
  header: { sender: string; receiver: string },
  options: OsipOptions = DEFAULT_OSIP_OPTIONS,
  peer?: string,
): 'wrong-host' | 'wrong-peer' | undefined {
  if (header.receiver !== options.hostName) return 'wrong-host';
  if (peer !== undefined && header.sender !== peer) return 'wrong-peer';
  return undefined;
}
