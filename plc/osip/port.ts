import type { ReportFacts } from '../port.ts';
import type { Telegram, TelegramInput } from './telegrams.ts';

// The seam between an OSIP channel and what its telegrams mean: a channel
// (plc/channel.ts, with the protocol in plc/osip/protocol.ts) reads frames, decodes and
// checks them, answers SYNQ itself, and hands every other valid telegram to its
// handler — plc/osip/warehouse/, which maps it onto the adapter's warehouse operations
// (plc/port.ts) and their results back onto reply telegrams.

/** A reply as the handler describes it: type and payload; the channel writes the header. */
export type ReplyInput = TelegramInput extends infer T ? (T extends { header: unknown } ? Omit<T, 'header'> : never) : never;

/** The per-channel options the handler acts on (all from the channel's configuration). */
export interface AdapterOptions {
  /** RES_ error code: the REQ_'s echoed (false, OpenWMS-like) or our reason codes. */
  resReasonCodes: boolean;
  /** Answer UPDX with ACK_. */
  updx: boolean;
  /** Create an unknown TU at the reporting location; the type it gets. */
  autoCreateTu: boolean;
  autoCreateTuType: string;
  /** How the location field is looked up. */
  locationAddressing: 'coordinate' | 'plcCode' | 'coordinateThenPlcCode';
  /** Where a no-read (absent barcode) is sent, as a coordinate; none when unset. */
  noReadLocation: string | undefined;
}

export interface ChannelContext {
  /** The channel's name: the PLC's 5-character name in the sender field. */
  name: string;
  options: AdapterOptions;
}

/** What a telegram was about, as the adapter resolved it: kept in the telegram log. */
export type TelegramFacts = ReportFacts;

export interface HandlingResult {
  /** Sent on the same channel, in order. */
  replies: ReplyInput[];
  /** For counters and the telegram log: `ok`, or why nothing or less happened (`unknown-location`, `no-route`, `internal`, …). */
  outcome: string;
  facts?: TelegramFacts;
}

/**
 * The handler's side. `handle` processes one valid telegram that is not SYNQ/SYNC,
 * runs its effects as one unit of work (all or nothing; its events are delivered after
 * the commit), and never throws: an internal failure rolls back and answers as docs/plc.md says
 * (REQ_: RES_ without target; others: ERR_ 00000099).
 */
export interface TelegramHandler {
  handle(telegram: Telegram, channel: ChannelContext): HandlingResult;
  /**
   * Telegrams of one channel that queued up together, in arrival order: one result each,
   * as if each had been handled alone (one failing rolls back only its own effects), but
   * committed together where that is safe, so a burst costs one commit. Optional: without
   * it the channel calls `handle` for each.
   */
  handleBatch?(telegrams: readonly Telegram[], channel: ChannelContext): HandlingResult[];
  /**
   * Runs `answer` once what the telegrams handled so far committed is on disk, behind
   * whatever asked before it (at once when nothing waits). Optional: without it the
   * channel answers as soon as the handler returns.
   */
  afterFlush?(answer: () => void): void;
}

/** The OSIP channels as the handler sees them, for unsolicited telegrams. */
export interface ChannelDirectory {
  /** The channel owning a location: the one that last reported it, else one configured for its group. */
  ownerOf(locationId: string, groupNames: readonly string[]): string | undefined;
  /**
   * Sends an unsolicited telegram on a channel (its own sequence counter). False when
   * the channel is not linked or does not send unsolicited telegrams (half-duplex lines):
   * nothing is queued, the PLC asks again.
   */
  sendUnsolicited(channelName: string, telegram: ReplyInput): boolean;
}
