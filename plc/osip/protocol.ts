// OSIP on a link session (docs/plc.md): what a channel does with the frames its session
// reads — decode and check them, answer, and hand the valid ones to the telegram
// handler — and how it writes. Which connection is the PLC's, and the channel's state,
// are the session's (plc/link/session.ts); what a telegram means is the handler's
// (plc/osip/warehouse/, over the adapter's operations).
//
// - Telegrams are processed in arrival order; a SYNQ is answered with SYNC on arrival,
//   ahead of queued work (the heartbeat must not wait behind a burst). What queued up
//   meanwhile is handed to the handler together (up to MAX_BATCH), so a burst costs
//   one commit, not one each; every reply is written after its telegram's effects were
//   committed, in arrival order.
// - Bad telegrams as docs/plc.md says: ERR_ replies (rate-limited), counters by reason,
//   and the handler is never called for them.
// - An identical resend (same sender, sequence number and payload within
//   duplicateWindowMs) gets the cached reply bytes again without being processed twice.
// - Replies take the request's sequence number as replySeq says; our own telegrams
//   (unsolicited RES_) count with a sequence counter of their own.

import type { Logger } from '../../src/core/log.ts';
import type { ChannelConfig } from '../config.ts';
import { encodeFrame, type EncodeFrameOptions } from '../link/framing.ts';
import type { NoisyLog } from '../link/noisy-log.ts';
import type { LinkSession, Peer } from '../link/session.ts';
import { ERR_CODES } from './codes.ts';
import { decode, type ReplyAddress } from './decode.ts';
import { encode } from './encode.ts';
import type { OsipOptions } from './options.ts';
import type { ChannelContext, HandlingResult, ReplyInput, TelegramHandler } from './port.ts';
import { checkAddress, errorTelegram, replyHeader } from './reply.ts';
import type { Telegram, TelegramInput } from './telegrams.ts';

/** Why a telegram was rejected before the handler saw it. */
export const REJECT_REASONS = ['too-short', 'bad-header', 'non-ascii', 'unknown-type', 'wrong-host', 'wrong-peer'] as const;
export type ChannelRejectReason = (typeof REJECT_REASONS)[number];

/** The protocol's share of a channel's counters. */
export interface ProtocolCounters {
  /** Telegrams that passed the codec and the address check. */
  rxOk: number;
  rxRejected: Record<ChannelRejectReason, number>;
  /** What the handler said about the telegrams it handled (`ok`, `unknown-location`, …). */
  outcomes: Record<string, number>;
  /** Telegrams written (replies, cached replies, unsolicited, ERR_). */
  tx: number;
  /** Identical resends answered from the cache. */
  duplicates: number;
  /** ERR_ replies not sent because of errorRepliesPerSecond. */
  errorRepliesSuppressed: number;
  /** Replies not sent because their connection had gone. */
  repliesDropped: number;
  /** Date fields or length fields the codec tolerated. */
  warnings: number;
}

export const zeroProtocolCounters = (): ProtocolCounters => ({
  rxOk: 0,
  rxRejected: Object.fromEntries(REJECT_REASONS.map((r) => [r, 0])) as Record<ChannelRejectReason, number>,
  outcomes: {},
  tx: 0,
  duplicates: 0,
  errorRepliesSuppressed: 0,
  repliesDropped: 0,
  warnings: 0,
});

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
type EntryFacts = Pick<TelegramLogEntry, 'barcode' | 'location' | 'order' | 'latencyMs'>;

interface ProtocolOptions {
  config: ChannelConfig;
  osip: OsipOptions;
  frame: EncodeFrameOptions;
  log: Logger;
  noisy: NoisyLog;
  counters: ProtocolCounters;
  session: LinkSession;
  /** What the handler is told about the channel. */
  context: ChannelContext;
  /** Every telegram in and out, once its outcome is known. */
  logged(entry: TelegramLogEntry): void;
  /** A valid REQ_/UPD_/UPDX/LOCU reported this location (coordinate, and the field as sent). */
  locationReported?: ((channel: string, coordinate: string, rawField: string) => void) | undefined;
}

interface Inbound {
  peer: Peer;
  frame: string;
  /** performance.now() when the frame was read: replies measure their latency from it. */
  arrived: number;
  /** The same instant as wall-clock time, for the telegram log. */
  arrivedAt: number;
}

interface CachedReply {
  sender: string;
  seq: number;
  /** Type and payload as received. */
  payload: string;
  at: number;
  replies: { text: string; bytes: Buffer }[];
}

/** One frame's way through the protocol: checked first, then (after the handler) answered. */
type Step = { kind: 'done'; finish: () => void } | { kind: 'handle'; telegram: Telegram; finish: (result: HandlingResult) => void };

const HISTORY = 100;
/** Queued telegrams handed to the handler at once, at most (a SYNQ waits for at most one such batch). */
const MAX_BATCH = 32;
const DUPLICATE_CACHE = 32;
/** Our own sequence counter wraps 32767 → 1, so a Java (short) peer can parse it. */
const MAX_OWN_SEQ = 32_767;
const HEADER_LENGTH = 23;
const TYPE_END = 27;

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

export class OsipProtocol {
  private readonly name: string;
  private readonly config: ChannelConfig;
  private readonly osip: OsipOptions;
  private readonly log: Logger;
  private readonly counters: ProtocolCounters;
  private readonly session: LinkSession;
  private readonly options: ProtocolOptions;
  private readonly errorBucket: TokenBucket;
  private handler: TelegramHandler | undefined;
  private readonly queue: Inbound[] = [];
  private drain: NodeJS.Immediate | undefined;
  private ownSeq = 1;
  private readonly cache: CachedReply[] = [];
  private readonly history: TelegramLogEntry[] = [];
  private lastTxAt: number | undefined;
  private stopped = false;

  constructor(options: ProtocolOptions) {
    this.options = options;
    this.name = options.config.name;
    this.config = options.config;
    this.osip = options.osip;
    this.log = options.log;
    this.counters = options.counters;
    this.session = options.session;
    this.errorBucket = new TokenBucket(options.config.errorRepliesPerSecond);
  }

  /** The handler the valid telegrams go to, from now on. */
  use(handler: TelegramHandler): void {
    this.handler = handler;
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

  /**
   * Answers what has arrived, then takes nothing more. A stop is not a crash: the PLC
   * should not have to resend what it already sent. Bounded: nothing is read once the
   * session stops, and the queue holds only what came before.
   */
  stop(): void {
    if (this.drain) clearImmediate(this.drain);
    this.drain = undefined;
    while (this.queue.length > 0 && this.handler) this.processBatch(this.queue.splice(0, MAX_BATCH));
    this.stopped = true;
    this.queue.length = 0;
  }

  /** Frames the session read on a connection. */
  received(peer: Peer, frames: readonly string[], arrived: number, arrivedAt: number): void {
    for (const frame of frames) {
      // The heartbeat goes first: a SYNQ is answered on arrival, ahead of queued work.
      if (frame.slice(HEADER_LENGTH, TYPE_END) === 'SYNQ') this.processBatch([{ peer, frame, arrived, arrivedAt }]);
      else this.queue.push({ peer, frame, arrived, arrivedAt });
    }
    this.scheduleDrain();
  }

  // ---- processing ----------------------------------------------------------------

  private scheduleDrain(): void {
    if (this.drain || this.queue.length === 0 || this.stopped) return;
    // What queued up until this turn of the event loop goes together; a SYNQ arriving
    // meanwhile is read and answered before the next batch.
    this.drain = setImmediate(() => {
      this.drain = undefined;
      this.processBatch(this.queue.splice(0, MAX_BATCH));
      this.scheduleDrain();
    });
  }

  /**
   * Checks every frame (codec, addresses, duplicates), hands the valid telegrams to the
   * handler in one call, then answers each frame in arrival order. Nothing is written
   * before the handler returns, i.e. before the effects are committed.
   */
  private processBatch(batch: readonly Inbound[]): void {
    const steps = batch.map((inbound) => this.check(inbound));
    const handled = steps.flatMap((step) => (step.kind === 'handle' ? [step.telegram] : []));
    const results = handled.length > 0 ? this.handleAll(handled) : [];
    let i = 0;
    for (const step of steps) {
      if (step.kind === 'handle') step.finish(results[i++]!);
      else step.finish();
    }
  }

  /** The first half of a frame's processing: what to do with it, and how to answer it afterwards. */
  private check({ peer, frame, arrived, arrivedAt }: Inbound): Step {
    const received = (outcome: string, facts?: EntryFacts) => this.receivedEntry(peer, frame, outcome, arrivedAt, facts);
    const since = (): EntryFacts => ({ latencyMs: Math.round((performance.now() - arrived) * 1000) / 1000 });
    const decoded = decode(frame, this.osip);
    if (!decoded.ok) {
      return { kind: 'done', finish: () => this.reject(peer, frame, decoded.reason, decoded.detail, decoded.code, decoded.header, since, arrivedAt) };
    }
    const telegram = decoded.telegram;
    const wrong = checkAddress(telegram.header, this.osip, this.name);
    if (wrong) {
      const detail =
        wrong === 'wrong-host'
          ? `receiver ${JSON.stringify(telegram.header.receiver)} is not ${this.osip.hostName}`
          : `sender ${JSON.stringify(telegram.header.sender)} is not ${this.name}`;
      return {
        kind: 'done',
        finish: () => {
          this.reject(peer, frame, wrong, detail, ERR_CODES.wrongPeer, telegram.header, since, arrivedAt);
          // A connection whose first telegram is not from our PLC is someone else's.
          if (wrong === 'wrong-peer' && !peer.bound) this.session.dropPeer(peer, 'first telegram from another sender');
        },
      };
    }
    if (decoded.warnings.length > 0) {
      this.counters.warnings += decoded.warnings.length;
      this.options.noisy.warn('codec-warning', { connection: peer.conn.id, warnings: decoded.warnings, telegram: frame }, 'telegram accepted with warnings');
    }
    this.counters.rxOk++;
    this.session.validFrom(peer);
    this.noteLocation(telegram);

    if (telegram.type === 'SYNQ') {
      return {
        kind: 'done',
        finish: () => {
          received('sync');
          this.sendReply(peer, { type: 'SYNC' }, telegram, 'reply', since());
        },
      };
    }
    if (telegram.type === 'SYNC') return { kind: 'done', finish: () => received('ignored') };

    const header = telegram.header;
    const payload = frame.slice(HEADER_LENGTH);
    const window = this.config.duplicateWindowMs;
    let entry: CachedReply | undefined;
    if (window > 0) {
      const now = Date.now();
      const i = this.cache.findIndex((c) => c.sender === header.sender && c.seq === header.seq && now - c.at <= window);
      const cached = i >= 0 ? this.cache[i]! : undefined;
      if (cached && cached.payload === payload) {
        // Its replies are known by the time this step is answered, also when the
        // original is in the same batch: steps are answered in order.
        return {
          kind: 'done',
          finish: () => {
            this.counters.duplicates++;
            received('duplicate');
            this.log.info({ seq: header.seq, type: telegram.type, replies: cached.replies.length }, 'identical resend: cached reply sent again');
            for (const r of cached.replies) this.write(peer, r.text, r.bytes, 'cached-reply', since());
          },
        };
      }
      if (cached) {
        this.log.warn({ seq: header.seq, type: telegram.type }, 'same sequence number, different telegram: handled as new (PLC counter reset?)');
        this.cache.splice(i, 1);
      }
      // Remembered now, so that a resend later in this batch is recognised; the replies follow.
      entry = { sender: header.sender, seq: header.seq, payload, at: now, replies: [] };
      this.cache.push(entry);
      if (this.cache.length > DUPLICATE_CACHE) this.cache.shift();
    }

    return {
      kind: 'handle',
      telegram,
      finish: (result) => {
        const { texts, outcome } = this.encodeReplies(telegram, result);
        this.counters.outcomes[outcome] = (this.counters.outcomes[outcome] ?? 0) + 1;
        const facts: EntryFacts = { ...result.facts };
        received(outcome, facts);
        for (const text of texts) {
          if (text.slice(HEADER_LENGTH, TYPE_END) === 'ERR_' && !this.errorBucket.take()) {
            this.counters.errorRepliesSuppressed++;
            continue;
          }
          const bytes = this.write(peer, text, undefined, 'reply', { ...facts, ...since() });
          entry?.replies.push({ text, bytes });
        }
      },
    };
  }

  /** The handler's verdicts, one per telegram; a throwing handler (it should not) is answered as an internal failure. */
  private handleAll(telegrams: readonly Telegram[]): HandlingResult[] {
    const handler = this.handler!;
    const context = this.options.context;
    if (telegrams.length > 1 && handler.handleBatch) {
      try {
        const results = handler.handleBatch(telegrams, context);
        if (results.length !== telegrams.length) throw new Error(`${results.length} results for ${telegrams.length} telegrams`);
        return results;
      } catch (err) {
        this.log.error({ err, telegrams: telegrams.length }, 'telegram handler failed');
        return telegrams.map(internalFailure);
      }
    }
    return telegrams.map((telegram) => {
      try {
        return handler.handle(telegram, context);
      } catch (err) {
        this.log.error({ err, type: telegram.type, seq: telegram.header.seq }, 'telegram handler failed');
        return internalFailure(telegram);
      }
    });
  }

  /** The replies as telegram texts; one that cannot be written is a handler bug, answered as an internal failure. */
  private encodeReplies(request: Telegram, result: HandlingResult): { texts: string[]; outcome: string } {
    try {
      return { texts: result.replies.map((r) => this.encodeReply(r, request)), outcome: result.outcome };
    } catch (err) {
      this.log.error({ err, replies: result.replies }, 'reply of the telegram handler cannot be encoded');
      return { texts: internalFailureReplies(request).map((r) => this.encodeReply(r, request)), outcome: 'internal' };
    }
  }

  private encodeReply(reply: ReplyInput, request: Telegram): string {
    // ACK_ always echoes the sequence number; the others follow replySeq.
    const header = replyHeader(request.header, reply.type === 'ACK_' ? 'echo' : this.config.replySeq, this.osip);
    return encode({ ...reply, header } as TelegramInput, this.osip);
  }

  private sendReply(peer: Peer, reply: ReplyInput, request: Telegram, outcome: string, facts: EntryFacts): void {
    const text = this.encodeReply(reply, request);
    this.write(peer, text, undefined, outcome, facts);
  }

  private reject(
    peer: Peer,
    frame: string,
    reason: ChannelRejectReason,
    detail: string,
    code: string,
    address: ReplyAddress | undefined,
    since: () => EntryFacts,
    arrivedAt: number,
  ): void {
    this.counters.rxRejected[reason]++;
    this.receivedEntry(peer, frame, reason, arrivedAt);
    this.options.noisy.warn(`reject-${reason}`, { connection: peer.conn.id, reason, detail, telegram: frame }, 'telegram rejected');
    if (!address) return; // nobody to answer
    if (!this.errorBucket.take()) {
      this.counters.errorRepliesSuppressed++;
      return;
    }
    const text = errorTelegram(code, address, this.osip, { seqRule: this.config.replySeq });
    this.write(peer, text, undefined, 'error-reply', since());
  }

  private noteLocation(telegram: Telegram): void {
    const reported = this.options.locationReported;
    if (!reported) return;
    switch (telegram.type) {
      case 'REQ_':
      case 'UPD_':
      case 'UPDX':
        if (telegram.actualLocation) reported(this.name, telegram.actualLocation, telegram.rawActualLocation);
        return;
      case 'LOCU':
        if (telegram.location) reported(this.name, telegram.location, telegram.rawLocation);
        return;
      default:
        return;
    }
  }

  // ---- writing and the telegram log --------------------------------------------------

  /** Writes a telegram (framed here unless `bytes` are given); returns the framed bytes. */
  private write(peer: Peer, text: string, bytes: Buffer | undefined, outcome: string, facts?: EntryFacts): Buffer {
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
  private receivedEntry(peer: Peer, frame: string, outcome: string, arrivedAt: number, facts?: EntryFacts): void {
    this.logTelegram('in', frame, outcome, peer.conn.id, facts, arrivedAt);
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

  // ---- the host's own telegrams ----------------------------------------------------

  /**
   * Sends a telegram of our own (an unsolicited RES_, say) with the channel's sequence
   * counter. False when the channel has no connection or sends no unsolicited
   * telegrams (half-duplex); nothing is queued. Throws when the telegram cannot be
   * encoded (a programming error of the caller).
   */
  sendUnsolicited(telegram: ReplyInput): boolean {
    const peer = this.session.active;
    if (!this.config.unsolicited || this.stopped || !peer?.conn.isOpen) return false;
    const seq = this.ownSeq;
    const text = encode({ ...telegram, header: { sender: this.osip.hostName, receiver: this.name, seq } } as TelegramInput, this.osip);
    this.ownSeq = seq >= MAX_OWN_SEQ ? 1 : seq + 1;
    const framed = encodeFrame(text, this.options.frame);
    if (!peer.conn.write(framed)) return false;
    this.counters.tx++;
    this.lastTxAt = Date.now();
    const barcode = 'barcode' in telegram && typeof telegram.barcode === 'string' ? { barcode: telegram.barcode } : {};
    this.logTelegram('out', text, 'unsolicited', peer.conn.id, barcode);
    return true;
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
