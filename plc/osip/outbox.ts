// What an OSIP channel writes, and its telegram log (docs/plc.md). The protocol
// (protocol.ts) decides what to answer and when; here a telegram is framed, written to
// its connection and counted, and every telegram in and out is logged once its outcome
// is known: the last HISTORY kept for the diagnostics, each one handed on (the channel's
// `telegram` event). Our own telegrams (unsolicited RES_) take their sequence numbers
// from the counter kept here; replies take the request's (reply.ts). ERR_ replies are
// rate-limited here (errorRepliesPerSecond): a PLC sending garbage in a loop must not
// get an answer to each.

import type { Logger } from '../../src/core/log.ts';
import type { ChannelConfig } from '../config.ts';
import { encodeFrame, type EncodeFrameOptions } from '../link/framing.ts';
import type { Peer } from '../link/peers.ts';
import { encode } from './encode.ts';
import type { OsipOptions } from './options.ts';
import type { ReplyInput } from './port.ts';
import type { ProtocolCounters } from './protocol.ts';
import type { TelegramInput } from './telegrams.ts';

export interface TelegramLogEntry {
  direction: 'in' | 'out';
  /** ISO time. */
  at: string;
  /** The telegram without its framing (a rejected frame as received, one character per byte). */
  text: string;
  /** in: `ok`, the handler's outcome, `duplicate`, `sync`, or the reject reason; out: `reply`, `cached-reply`, `unsolicited`, `error-reply`, `not-sent` … */
  outcome: string;
  connection?: number;
  /** What the telegram was about, as the adapter resolved it (barcode, coordinate, transport order). */
  barcode?: string;
  location?: string;
  order?: string;
  /** A reply: milliseconds from its telegram's arrival to the reply's write. */
  latencyMs?: number;
}

/** Facts of a log entry besides its text and outcome. */
export type EntryFacts = Pick<TelegramLogEntry, 'barcode' | 'location' | 'order' | 'latencyMs'>;

interface OutboxOptions {
  config: ChannelConfig;
  osip: OsipOptions;
  frame: EncodeFrameOptions;
  log: Logger;
  counters: ProtocolCounters;
  /** Every telegram in and out, once its outcome is known. */
  logged(entry: TelegramLogEntry): void;
}

const HISTORY = 100;
/** Our own sequence counter wraps 32767 → 1, so a Java (short) peer can parse it. */
const MAX_OWN_SEQ = 32_767;

/** At most `rate` per second, bursts up to `rate`. */
class TokenBucket {
  private tokens: number;
  private last = Date.now();
  private readonly rate: number;

  constructor(rate: number) {
    this.rate = rate;
    this.tokens = rate;
  }

  take(now = Date.now()): boolean {
    if (this.rate <= 0) return false;
    this.tokens = Math.min(this.rate, this.tokens + ((now - this.last) * this.rate) / 1000);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export class TelegramOutbox {
  private readonly options: OutboxOptions;
  private readonly counters: ProtocolCounters;
  private readonly log: Logger;
  private readonly history: TelegramLogEntry[] = [];
  private lastTxAt: number | undefined;
  private ownSeq = 1;
  private readonly errorBucket: TokenBucket;

  constructor(options: OutboxOptions) {
    this.options = options;
    this.counters = options.counters;
    this.log = options.log;
    this.errorBucket = new TokenBucket(options.config.errorRepliesPerSecond);
  }

  get lastTx(): number | undefined {
    return this.lastTxAt;
  }

  /** The last telegrams in and out, oldest first (copies). */
  recent(): TelegramLogEntry[] {
    return this.history.map((e) => ({ ...e }));
  }

  /** The next sequence number of our own telegrams. */
  get nextOwnSeq(): number {
    return this.ownSeq;
  }

  set nextOwnSeq(seq: number) {
    this.ownSeq = seq;
  }

  /** May an ERR_ reply be written now? Counted as suppressed when not. */
  errorReplyAllowed(): boolean {
    if (this.errorBucket.take()) return true;
    this.counters.errorRepliesSuppressed++;
    return false;
  }

  /** Writes a telegram (framed here unless `bytes` are given); returns the framed bytes. */
  write(peer: Peer, text: string, bytes: Buffer | undefined, outcome: string, facts?: EntryFacts): Buffer {
    const framed = bytes ?? encodeFrame(text, this.options.frame);
    if (peer.conn.write(framed)) {
      this.counters.tx++;
      this.lastTxAt = Date.now();
      this.logTelegram('out', text, outcome, peer.conn.id, facts);
    } else {
      this.counters.repliesDropped++;
      this.logTelegram('out', text, 'not-sent', peer.conn.id, facts);
    }
    return framed;
  }

  /** A received telegram, logged once its outcome is known, at the time it arrived. */
  received(peer: Peer, frame: string, outcome: string, arrivedAt: number, facts?: EntryFacts): void {
    this.logTelegram('in', frame, outcome, peer.conn.id, facts, arrivedAt);
  }

  /**
   * Writes a telegram of our own with the channel's sequence counter; false when the
   * connection took nothing. Throws when the telegram cannot be encoded (a programming
   * error of the caller).
   */
  sendOwn(peer: Peer, telegram: ReplyInput): boolean {
    const { osip } = this.options;
    const seq = this.ownSeq;
    const text = encode({ ...telegram, header: { sender: osip.hostName, receiver: this.options.config.name, seq } } as TelegramInput, osip);
    this.ownSeq = seq >= MAX_OWN_SEQ ? 1 : seq + 1;
    const framed = encodeFrame(text, this.options.frame);
    if (!peer.conn.write(framed)) return false;
    this.counters.tx++;
    this.lastTxAt = Date.now();
    const barcode = 'barcode' in telegram && typeof telegram.barcode === 'string' ? { barcode: telegram.barcode } : {};
    this.logTelegram('out', text, 'unsolicited', peer.conn.id, barcode);
    return true;
  }

  private logTelegram(
    direction: 'in' | 'out',
    text: string,
    outcome: string,
    connection: number | undefined,
    facts?: EntryFacts,
    at: number = Date.now(),
  ): void {
    const entry: TelegramLogEntry = { direction, at: new Date(at).toISOString(), text, outcome, ...facts };
    if (connection !== undefined) entry.connection = connection;
    this.history.push(entry);
    if (this.history.length > HISTORY) this.history.shift();
    this.log.debug({ direction, telegram: text, outcome, connection }, 'telegram');
    this.options.logged(entry);
  }
}
