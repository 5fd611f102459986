// OSIP on a link session (docs/plc.md): what a channel does with the frames its session
// reads — decode and check them, answer, and hand the valid ones to the telegram
// handler — and how it writes. Which connection is the PLC's, and the channel's state,
// are the session's (plc/link/session.ts, its connections in plc/link/peers.ts); what
// a telegram means is the handler's (plc/osip/warehouse/, over the adapter's operations).
//
// - Telegrams are processed in arrival order; a SYNQ is answered with SYNC on arrival,
//   ahead of queued work (the heartbeat must not wait behind a burst). What queued up
//   meanwhile is handed to the handler together (up to MAX_BATCH), so a burst costs
//   one commit, not one each; every reply is written after its telegram's effects were
//   committed and flushed to disk (the handler's `afterFlush`), in arrival order.
// - Bad telegrams as docs/plc.md says: ERR_ replies (rate-limited), counters by reason,
//   and the handler is never called for them.
// - An identical resend (same sender, sequence number and payload within
//   duplicateWindowMs) gets the cached reply bytes again without being processed twice.
// - Replies take the request's sequence number as replySeq says; our own telegrams
//   (unsolicited RES_) count with a sequence counter of their own.
//
// What is written and logged, and our own sequence counter: outbox.ts; the duplicate
// cache: resends.ts; the handler's verdicts and their encoding: handling.ts. This class
// is the dispatch between them: the queue, the batches, the checks, the answers.

import type { Logger } from '../../src/core/log.ts';
import type { ChannelConfig } from '../config.ts';
import type { EncodeFrameOptions } from '../link/framing.ts';
import type { NoisyLog } from '../link/noisy-log.ts';
import type { Peer, Peers } from '../link/peers.ts';
import { ERR_CODES } from './codes.ts';
import { decode, type ReplyAddress } from './decode.ts';
import { encodeReplies, handleAll } from './handling.ts';
import type { OsipOptions } from './options.ts';
import { TelegramOutbox, type EntryFacts, type TelegramLogEntry } from './outbox.ts';
import type { ChannelContext, HandlingResult, ReplyInput, TelegramHandler } from './port.ts';
import { checkAddress, encodeReply, errorTelegram } from './reply.ts';
import { ResendCache, type CachedReply, type ResendKeeper } from './resends.ts';
import type { Telegram } from './telegrams.ts';

export type { TelegramLogEntry } from './outbox.ts';

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

interface ProtocolOptions {
  config: ChannelConfig;
  osip: OsipOptions;
  frame: EncodeFrameOptions;
  log: Logger;
  noisy: NoisyLog;
  counters: ProtocolCounters;
  /** The channel's connections (plc/link/peers.ts): told which telegrams were valid, asked for the PLC's. */
  peers: Peers;
  /** What the handler is told about the channel. */
  context: ChannelContext;
  /** Every telegram in and out, once its outcome is known. */
  logged(entry: TelegramLogEntry): void;
  /** A valid REQ_/UPD_/UPDX/LOCU reported this location (coordinate, and the field as sent). */
  locationReported?: ((channel: string, coordinate: string, rawField: string) => void) | undefined;
  /** A box of a pair: the duplicate cache kept in the database too (resends.ts). */
  keeper?: ResendKeeper | undefined;
}

interface Inbound {
  peer: Peer;
  frame: string;
  /** performance.now() when the frame was read: replies measure their latency from it. */
  arrived: number;
  /** The same instant as wall-clock time, for the telegram log. */
  arrivedAt: number;
}

/** One frame's way through the protocol: checked first, then (after the handler) answered. */
type Step = { kind: 'done'; finish: () => void } | { kind: 'handle'; telegram: Telegram; entry: CachedReply | undefined; finish: (handled: Handled) => void };

/** The handler's result, its replies as telegram texts, and the outcome they count as (handling.ts). */
type Handled = ReturnType<typeof encodeReplies> & { result: HandlingResult };

/** Queued telegrams handed to the handler at once, at most (a SYNQ waits for at most one such batch). */
const MAX_BATCH = 32;
const HEADER_LENGTH = 23;
const TYPE_END = 27;

export class OsipProtocol {
  private readonly name: string;
  private readonly config: ChannelConfig;
  private readonly osip: OsipOptions;
  private readonly log: Logger;
  private readonly counters: ProtocolCounters;
  private readonly peers: Peers;
  private readonly options: ProtocolOptions;
  private readonly outbox: TelegramOutbox;
  private readonly resends: ResendCache;
  private handler: TelegramHandler | undefined;
  private readonly queue: Inbound[] = [];
  private drain: NodeJS.Immediate | undefined;
  private stopped = false;

  constructor(options: ProtocolOptions) {
    this.options = options;
    this.name = options.config.name;
    this.config = options.config;
    this.osip = options.osip;
    this.log = options.log;
    this.counters = options.counters;
    this.peers = options.peers;
    this.outbox = new TelegramOutbox(options);
    this.resends = new ResendCache(options.log);
    if (options.keeper) this.resends.seed(options.keeper.load(this.name));
  }

  /** The handler the valid telegrams go to, from now on. */
  use(handler: TelegramHandler): void {
    this.handler = handler;
  }

  get lastTx(): number | undefined {
    return this.outbox.lastTx;
  }

  /** The last telegrams in and out, oldest first (copies). */
  recent(): TelegramLogEntry[] {
    return this.outbox.recent();
  }

  /** The next sequence number of our own telegrams. */
  get nextOwnSeq(): number {
    return this.outbox.nextOwnSeq;
  }

  set nextOwnSeq(seq: number) {
    this.outbox.nextOwnSeq = seq;
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
   * before the effects are committed and on disk: the answers wait for the flush that
   * covers them, behind the batches before (a batch without effects, a SYNQ, a resend,
   * waits only for those, so that no answer overtakes another).
   */
  private processBatch(batch: readonly Inbound[]): void {
    const steps = batch.map((inbound) => this.check(inbound));
    const handled = steps.flatMap((step) => (step.kind === 'handle' ? [step.telegram] : []));
    const results = handled.length > 0 ? handleAll(this.handler!, handled, this.options.context, this.log) : [];
    // Encoded once: what a box of a pair keeps (below) is what is sent.
    const done = results.map((result, i) => ({ result, ...encodeReplies(handled[i]!, result, this.config.replySeq, this.osip, this.log) }));
    if (this.options.keeper) this.keep(this.options.keeper, steps, done);
    const answer = () => {
      let i = 0;
      for (const step of steps) {
        if (step.kind === 'handle') step.finish(done[i++]!);
        else step.finish();
      }
    };
    if (this.handler?.afterFlush) this.handler.afterFlush(answer);
    else answer();
  }

  /**
   * A box of a pair keeps the batch's telegrams with their replies in the database, in a
   * commit of its own right after the batch's: the answers wait for both to be stored.
   */
  private keep(keeper: ResendKeeper, steps: readonly Step[], done: readonly Handled[]): void {
    const kept: { entry: CachedReply; texts: string[] }[] = [];
    let i = 0;
    for (const step of steps) {
      if (step.kind !== 'handle') continue;
      const { texts } = done[i++]!;
      if (step.entry) kept.push({ entry: step.entry, texts });
    }
    if (kept.length > 0) keeper.keep(this.name, kept);
  }

  /** Resolves once every answer of what was processed is written (or dropped with its connection). */
  answered(): Promise<void> {
    const handler = this.handler;
    if (!handler?.afterFlush) return Promise.resolve();
    return new Promise((resolve) => handler.afterFlush!(resolve));
  }

  /** The first half of a frame's processing: what to do with it, and how to answer it afterwards. */
  private check({ peer, frame, arrived, arrivedAt }: Inbound): Step {
    const received = (outcome: string, facts?: EntryFacts) => this.outbox.received(peer, frame, outcome, arrivedAt, facts);
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
          if (wrong === 'wrong-peer' && !peer.bound) this.peers.dropPeer(peer, 'first telegram from another sender');
        },
      };
    }
    if (decoded.warnings.length > 0) {
      this.counters.warnings += decoded.warnings.length;
      this.options.noisy.warn('codec-warning', { connection: peer.conn.id, warnings: decoded.warnings, telegram: frame }, 'telegram accepted with warnings');
    }
    this.counters.rxOk++;
    this.peers.validFrom(peer);
    noteLocation(telegram, this.name, this.options.locationReported);

    if (telegram.type === 'SYNQ') {
      return {
        kind: 'done',
        finish: () => {
          received('sync');
          this.outbox.write(peer, encodeReply({ type: 'SYNC' }, telegram, this.config.replySeq, this.osip), undefined, 'reply', since());
        },
      };
    }
    if (telegram.type === 'SYNC') return { kind: 'done', finish: () => received('ignored') };

    const payload = frame.slice(HEADER_LENGTH);
    const window = this.config.duplicateWindowMs;
    let entry: CachedReply | undefined;
    if (window > 0) {
      const now = Date.now();
      const cached = this.resends.resent(telegram, payload, now, window);
      if (cached) {
        // Its replies are known by the time this step is answered, also when the
        // original is in the same batch: steps are answered in order.
        return {
          kind: 'done',
          finish: () => {
            this.counters.duplicates++;
            received('duplicate');
            this.log.info({ seq: telegram.header.seq, type: telegram.type, replies: cached.replies.length }, 'identical resend: cached reply sent again');
            for (const r of cached.replies) this.outbox.write(peer, r.text, r.bytes, 'cached-reply', since());
          },
        };
      }
      // Remembered now, so that a resend later in this batch is recognised; the replies follow.
      entry = this.resends.remember(telegram, payload, now);
    }

    return {
      kind: 'handle',
      telegram,
      entry,
      finish: ({ result, texts, outcome }) => {
        this.counters.outcomes[outcome] = (this.counters.outcomes[outcome] ?? 0) + 1;
        const facts: EntryFacts = { ...result.facts };
        received(outcome, facts);
        for (const text of texts) {
          if (text.slice(HEADER_LENGTH, TYPE_END) === 'ERR_' && !this.outbox.errorReplyAllowed()) continue;
          const bytes = this.outbox.write(peer, text, undefined, 'reply', { ...facts, ...since() });
          entry?.replies.push({ text, bytes });
        }
      },
    };
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
    this.outbox.received(peer, frame, reason, arrivedAt);
    this.options.noisy.warn(`reject-${reason}`, { connection: peer.conn.id, reason, detail, telegram: frame }, 'telegram rejected');
    if (!address) return; // nobody to answer
    if (!this.outbox.errorReplyAllowed()) return;
    const text = errorTelegram(code, address, this.osip, { seqRule: this.config.replySeq });
    this.outbox.write(peer, text, undefined, 'error-reply', since());
  }

  // ---- the host's own telegrams ----------------------------------------------------

  /**
   * Sends a telegram of our own (an unsolicited RES_, say) with the channel's sequence
   * counter. False when the channel has no connection or sends no unsolicited
   * telegrams (half-duplex); nothing is queued. Throws when the telegram cannot be
   * encoded (a programming error of the caller).
   */
  sendUnsolicited(telegram: ReplyInput): boolean {
    const peer = this.peers.active;
    if (!this.config.unsolicited || this.stopped || !peer?.conn.isOpen) return false;
    return this.outbox.sendOwn(peer, telegram);
  }
}

/** A valid REQ_/UPD_/UPDX/LOCU told where a unit is: the location's listener hears of it. */
function noteLocation(telegram: Telegram, channel: string, reported: ProtocolOptions['locationReported']): void {
  if (!reported) return;
  switch (telegram.type) {
    case 'REQ_':
    case 'UPD_':
    case 'UPDX':
      if (telegram.actualLocation) reported(channel, telegram.actualLocation, telegram.rawActualLocation);
      return;
    case 'LOCU':
      if (telegram.location) reported(channel, telegram.location, telegram.rawLocation);
      return;
    default:
      return;
  }
}
