// One PLC channel (docs/plc.md): a link (tcp-server, tcp-client or serial), the
// framing, the codec, and the rules between the wire and the adapter.
//
// - State machine DISABLED → WAITING → LINKED → ONLINE ⇄ STALE → CLOSED → WAITING …
//   (no valid telegram for idleTimeoutMs: STALE; for staleTimeoutMs: the connection is
//   dropped). Every change is logged and counted.
// - Telegrams are processed in arrival order; a SYNQ is answered with SYNC on arrival,
//   ahead of queued work (the heartbeat must not wait behind a burst). What queued up
//   meanwhile is handed to the adapter together (up to MAX_BATCH), so a burst costs
//   one commit, not one each; every reply is written after its telegram's effects were
//   committed, in arrival order.
// - Bad telegrams as docs/plc.md says: ERR_ replies (rate-limited), counters by reason, and the
//   adapter is never called for them.
// - An identical resend (same sender, sequence number and payload within
//   duplicateWindowMs) gets the cached reply bytes again without being processed twice.
// - tcp-server: every accepted socket is read; the first one whose first valid telegram
//   names our PLC becomes the active connection and supersedes the older one (a PLC
//   that reconnects after a power cycle before its old socket timed out). A socket
//   whose first telegram names another sender gets ERR_ and is closed.

import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../src/core/log.ts';
import type { ChannelConfig } from './config.ts';
import { createFramer, encodeFrame, type EncodeFrameOptions, type Framer } from './link/framing.ts';
import type { Connection, Link, LinkContext } from './link/link.ts';
import { SerialLink } from './link/serial.ts';
import { TcpClientLink } from './link/tcp-client.ts';
import { AllowList } from './link/allow-list.ts';
import { TcpServerLink } from './link/tcp-server.ts';
import {
  ERR_CODES, checkAddress, decode, encode, errorTelegram, osipOptions, replyHeader,
  type OsipOptions, type ReplyAddress, type Telegram, type TelegramInput,
} from './osip/index.ts';
import type { ChannelContext, HandlingResult, ReplyInput, TelegramHandler } from './port.ts';

export const CHANNEL_STATES = ['DISABLED', 'WAITING', 'LINKED', 'ONLINE', 'STALE', 'CLOSED'] as const;
export type ChannelState = (typeof CHANNEL_STATES)[number];

/** Why a telegram was rejected before the adapter saw it. */
export const REJECT_REASONS = ['too-short', 'bad-header', 'non-ascii', 'unknown-type', 'wrong-host', 'wrong-peer'] as const;
export type ChannelRejectReason = (typeof REJECT_REASONS)[number];

export interface ChannelCounters {
  /** Telegrams that passed the codec and the address check. */
  rxOk: number;
  rxRejected: Record<ChannelRejectReason, number>;
  /** What the adapter said about the telegrams it handled (`ok`, `unknown-location`, …). */
  outcomes: Record<string, number>;
  /** Telegrams written (replies, cached replies, unsolicited, ERR_). */
  tx: number;
  /** Identical resends answered from the cache. */
  duplicates: number;
  /** Bytes dropped before a sync (the framer's resynchronisations). */
  resyncs: number;
  /** Frames over the size limit, dropped. */
  overflows: number;
  bccErrors: number;
  /** Partial telegrams discarded because their connection dropped. */
  partialFrames: number;
  /** ERR_ replies not sent because of errorRepliesPerSecond. */
  errorRepliesSuppressed: number;
  /** Replies not sent because their connection had gone. */
  repliesDropped: number;
  /** Date fields or length fields the codec tolerated. */
  warnings: number;
  connections: number;
  superseded: number;
  /** Connections from addresses not in allowFrom, closed at once. */
  refusedPeers: number;
  /** Connections that had sent no valid telegram, closed to make room for a newer one. */
  gaveWay: number;
  /** Entries into each state. */
  stateChanges: Record<ChannelState, number>;
}

export interface TelegramLogEntry {
  direction: 'in' | 'out';
  /** ISO time. */
  at: string;
  /** The telegram without its framing (a rejected frame as received, one character per byte). */
  text: string;
  /** in: `ok`, the adapter's outcome, `duplicate`, `sync`, or the reject reason; out: `reply`, `cached-reply`, `unsolicited`, `error-reply`, `not-sent` … */
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

export interface ChannelSnapshot {
  name: string;
  transport: ChannelConfig['transport'];
  enabled: boolean;
  state: ChannelState;
  /** When the channel entered its state (ISO). */
  since: string;
  /** What the link listens on, dials or opens. */
  endpoint: string;
  /** The active connection's remote address or device; null when none. */
  peer: string | null;
  /** Open connections (tcp-server: also those not yet bound to the PLC). */
  connections: number;
  lastRx: string | null;
  lastTx: string | null;
  counters: ChannelCounters;
  /** The last 100 telegrams, oldest first. */
  telegrams: TelegramLogEntry[];
}

export type ChannelEvents = {
  state: [to: ChannelState, from: ChannelState, reason: string | undefined];
  telegram: [TelegramLogEntry];
};

export interface ChannelOptions {
  config: ChannelConfig;
  hostName: string;
  timeZone: string;
  log: Logger;
  /** A valid REQ_/UPD_/UPDX/LOCU reported this location (coordinate, and the field as sent). */
  locationReported?: (channel: string, coordinate: string, rawField: string) => void;
  /** Link retry delays (tests); default BACKOFF_MS. */
  backoffMs?: readonly number[];
}

/** Per open connection. */
interface Peer {
  conn: Connection;
  framer: Framer;
  /** Has delivered a valid telegram from our PLC (always true off tcp-server: we chose the other end). */
  bound: boolean;
  lastValidRx: number;
  /** Times of recent framing overflows (5 within 60 s close the connection). */
  overflows: number[];
  /** tcp-server: a second connection that does not bind in time is closed. */
  bindTimer?: NodeJS.Timeout;
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

/** One frame's way through the channel: checked first, then (after the adapter) answered. */
type Step =
  | { kind: 'done'; finish: () => void }
  | { kind: 'handle'; telegram: Telegram; finish: (result: HandlingResult) => void };

const HISTORY = 100;
/** Queued telegrams handed to the adapter at once, at most (a SYNQ waits for at most one such batch). */
const MAX_BATCH = 32;
const DUPLICATE_CACHE = 32;
const OVERFLOW_LIMIT = 5;
const OVERFLOW_WINDOW_MS = 60_000;
/** Connections waiting to prove they are our PLC, besides the active one. */
const MAX_CANDIDATES = 3;
/** Our own sequence counter wraps 32767 → 1, so a Java (short) peer can parse it. */
const MAX_OWN_SEQ = 32_767;
/** Rejections and codec warnings of one kind are logged at warn at most this often. */
const NOISY_LOG_MS = 10_000;
const HEADER_LENGTH = 23;
const TYPE_END = 27;

const TERMINATORS = { CRLF: '\r\n', LF: '\n', NONE: '' } as const;

const zeroCounters = (): ChannelCounters => ({
  rxOk: 0,
  rxRejected: Object.fromEntries(REJECT_REASONS.map((r) => [r, 0])) as Record<ChannelRejectReason, number>,
  outcomes: {},
  tx: 0,
  duplicates: 0,
  resyncs: 0,
  overflows: 0,
  bccErrors: 0,
  partialFrames: 0,
  errorRepliesSuppressed: 0,
  repliesDropped: 0,
  warnings: 0,
  connections: 0,
  superseded: 0,
  refusedPeers: 0,
  gaveWay: 0,
  stateChanges: Object.fromEntries(CHANNEL_STATES.map((s) => [s, 0])) as Record<ChannelState, number>,
});

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

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export class Channel extends EventEmitter<ChannelEvents> {
  readonly name: string;
  readonly config: ChannelConfig;
  readonly counters: ChannelCounters = zeroCounters();
  /** The codec options of this channel (also used to decode its logged telegrams). */
  readonly osip: OsipOptions;
  private readonly frameOptions: EncodeFrameOptions;
  private readonly log: Logger;
  private readonly context: ChannelContext;
  private readonly locationReported: ChannelOptions['locationReported'];
  private readonly backoffMs: readonly number[] | undefined;
  private readonly errorBucket: TokenBucket;
  private link: Link | undefined;
  private handler: TelegramHandler | undefined;
  private stateValue: ChannelState = 'DISABLED';
  private stateSince = Date.now();
  private readonly peers = new Map<Connection, Peer>();
  private current: Peer | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly queue: Inbound[] = [];
  private drain: NodeJS.Immediate | undefined;
  private ownSeq = 1;
  private readonly cache: CachedReply[] = [];
  private readonly history: TelegramLogEntry[] = [];
  private readonly noisy = new Map<string, { at: number; suppressed: number }>();
  private lastRx: number | undefined;
  private lastTx: number | undefined;
  private started = false;
  private stopped = false;

  constructor(options: ChannelOptions) {
    super();
    const { config } = options;
    this.name = config.name;
    this.config = config;
    this.log = options.log.child({ channel: config.name });
    this.osip = osipOptions({
      hostName: options.hostName,
      timeZone: options.timeZone,
      telegramLength: config.telegramLength,
      reqExtension: config.reqExtension,
    });
    this.frameOptions = { mode: config.framing, terminator: TERMINATORS[config.terminator], bcc: config.bcc };
    this.context = {
      name: config.name,
      options: {
        resReasonCodes: config.resReasonCodes,
        updx: config.updx,
        autoCreateTu: config.autoCreateTu,
        autoCreateTuType: config.autoCreateTuType,
        locationAddressing: config.locationAddressing,
        noReadLocation: config.noReadLocation,
      },
    };
    this.locationReported = options.locationReported;
    this.backoffMs = options.backoffMs;
    this.errorBucket = new TokenBucket(config.errorRepliesPerSecond);
  }

  get state(): ChannelState {
    return this.stateValue;
  }

  /** A tcp-server channel's bound address (the real port when configured with port 0). */
  address(): AddressInfo | undefined {
    return this.link instanceof TcpServerLink ? this.link.address() : undefined;
  }

  // ---- life cycle --------------------------------------------------------------

  /**
   * Starts the link (a disabled channel stays DISABLED). Rejects when a tcp-server
   * cannot listen; tcp-client and serial keep trying in the background.
   */
  async start(handler: TelegramHandler): Promise<void> {
    if (this.started) throw new Error(`channel ${this.name} already started`);
    this.started = true;
    this.handler = handler;
    if (!this.config.enabled) {
      this.log.info('PLC channel disabled in the configuration');
      return;
    }
    const context: LinkContext = {
      log: this.log,
      events: {
        waiting: () => this.onWaiting(),
        opened: (conn) => this.onOpened(conn),
        data: (conn, chunk) => this.onData(conn, chunk),
        closed: (conn, reason) => this.onClosed(conn, reason),
      },
    };
    const c = this.config;
    const backoff = this.backoffMs ? { backoffMs: this.backoffMs } : {};
    this.link =
      c.transport === 'tcp-server'
        ? new TcpServerLink(
          {
            host: c.host!,
            port: c.port!,
            allowFrom: c.allowFrom ? new AllowList(c.allowFrom) : undefined,
            refused: () => this.counters.refusedPeers++,
          },
          context,
        )
      : c.transport === 'tcp-client' ? new TcpClientLink({ host: c.host!, port: c.port!, ...backoff }, context)
      : new SerialLink({ device: c.device!, baudRate: c.baudRate, ...backoff }, context);
    this.setState('WAITING', this.link.endpoint);
    await this.link.start();
  }

  /** Closes the link and every connection; queued telegrams are dropped. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    if (this.drain) clearImmediate(this.drain);
    this.drain = undefined;
    // What has arrived is answered before the link closes (a stop is not a crash: the
    // PLC should not have to resend what it already sent). Bounded: nothing is read
    // once `stopped` is set, and the queue holds only what came before.
    while (this.queue.length > 0 && this.handler) this.processBatch(this.queue.splice(0, MAX_BATCH));
    this.stopped = true;
    this.queue.length = 0;
    this.clearIdle();
    for (const peer of this.peers.values()) if (peer.bindTimer) clearTimeout(peer.bindTimer);
    await this.link?.stop();
    this.peers.clear();
    this.current = undefined;
    if (this.stateValue !== 'DISABLED') this.setState('CLOSED', 'stopped');
  }

  private setState(next: ChannelState, reason?: string): void {
    const previous = this.stateValue;
    if (previous === next) return;
    this.stateValue = next;
    this.stateSince = Date.now();
    this.counters.stateChanges[next]++;
    this.log.info({ from: previous, to: next, ...(reason ? { reason } : {}) }, `PLC channel ${next}`);
    this.emit('state', next, previous, reason);
  }

  // ---- link events ---------------------------------------------------------------

  private onWaiting(): void {
    if (this.stopped || this.current) return;
    this.setState('WAITING', this.link?.endpoint);
  }

  private onOpened(conn: Connection): void {
    if (this.stopped) {
      conn.close('stopped');
      return;
    }
    this.counters.connections++;
    const serverSide = this.config.transport === 'tcp-server';
    const now = Date.now();
    const peer: Peer = {
      conn,
      framer: createFramer({
        mode: this.config.framing,
        length: this.config.telegramLength,
        bcc: this.config.bcc,
        sync: this.osip.sync,
        maxFrame: Math.max(1024, this.config.telegramLength + 64),
      }),
      bound: !serverSide,
      lastValidRx: now,
      overflows: [],
    };
    if (serverSide && this.current) {
      // The newest connection always gets in: the oldest one that has not yet sent a
      // valid telegram gives way. Idle connections (a stray client, a port scan) can then
      // never lock the PLC out; refusing the newcomer instead would let four of them do it.
      const waiting = [...this.peers.values()].filter((p) => p !== this.current && !p.bound);
      if (waiting.length >= MAX_CANDIDATES) {
        this.counters.gaveWay++;
        this.dropPeer(waiting[0]!, 'gave way to a newer connection (no valid telegram yet)');
      }
      this.peers.set(conn, peer);
      this.log.info({ remote: conn.peer, connection: conn.id, active: this.current.conn.id }, 'second connection; it supersedes the active one on its first valid telegram');
      // One that never proves to be our PLC does not hold a slot for ever.
      peer.bindTimer = setTimeout(() => this.dropPeer(peer, 'no valid telegram'), this.config.idleTimeoutMs);
      peer.bindTimer.unref();
      return;
    }
    this.peers.set(conn, peer);
    this.makeCurrent(peer, 'LINKED', conn.peer);
  }

  private makeCurrent(peer: Peer, state: ChannelState, reason: string): void {
    if (peer.bindTimer) clearTimeout(peer.bindTimer);
    peer.bindTimer = undefined;
    this.current = peer;
    this.setState(state, reason);
    this.armIdle();
  }

  private onData(conn: Connection, chunk: Buffer): void {
    const peer = this.peers.get(conn);
    if (this.stopped || !peer) return;
    const { frames, events } = peer.framer.push(chunk);
    for (const event of events) {
      switch (event.kind) {
        case 'resync':
          this.counters.resyncs++;
          this.log.debug({ connection: conn.id, bytes: event.bytes }, 'bytes before a sync dropped');
          break;
        case 'overflow': {
          this.counters.overflows++;
          const now = Date.now();
          peer.overflows = peer.overflows.filter((t) => now - t < OVERFLOW_WINDOW_MS);
          peer.overflows.push(now);
          this.noisyWarn('overflow', { connection: conn.id, bytes: event.bytes }, 'frame over the size limit dropped');
          break;
        }
        case 'bcc-error':
          this.counters.bccErrors++;
          this.noisyWarn('bcc-error', { connection: conn.id, bytes: event.bytes }, 'frame with a wrong BCC dropped');
          break;
        case 'non-ascii':
          break; // the codec rejects the frame and counts it
      }
    }
    if (peer.overflows.length >= OVERFLOW_LIMIT) {
      this.dropPeer(peer, `${OVERFLOW_LIMIT} oversized frames within ${OVERFLOW_WINDOW_MS / 1000} s`);
      return;
    }
    if (frames.length === 0) return;
    this.lastRx = Date.now();
    const arrived = performance.now();
    const arrivedAt = Date.now();
    for (const frame of frames) {
      // The heartbeat goes first: a SYNQ is answered on arrival, ahead of queued work.
      if (frame.slice(HEADER_LENGTH, TYPE_END) === 'SYNQ') this.processBatch([{ peer, frame, arrived, arrivedAt }]);
      else this.queue.push({ peer, frame, arrived, arrivedAt });
    }
    this.scheduleDrain();
  }

  private onClosed(conn: Connection, reason: string): void {
    const peer = this.peers.get(conn);
    if (this.stopped || !peer) return;
    this.forget(peer, reason);
  }

  /** Closes a connection on our side (stale, superseded, wrong peer, overflows). */
  private dropPeer(peer: Peer, reason: string): void {
    if (!this.peers.has(peer.conn)) return;
    this.log.info({ connection: peer.conn.id, remote: peer.conn.peer, reason }, 'closing connection');
    peer.conn.close(reason);
    this.forget(peer, reason);
  }

  private forget(peer: Peer, reason: string): void {
    this.peers.delete(peer.conn);
    if (peer.bindTimer) clearTimeout(peer.bindTimer);
    const partial = peer.framer.reset();
    if (partial > 0) {
      this.counters.partialFrames++;
      this.log.info({ connection: peer.conn.id, bytes: partial }, 'partial telegram discarded with its connection');
    }
    this.log.info({ connection: peer.conn.id, remote: peer.conn.peer, reason }, 'connection closed');
    if (peer !== this.current) return;
    this.current = undefined;
    this.clearIdle();
    this.setState('CLOSED', reason);
    if (this.config.transport !== 'tcp-server') return; // the link redials or reopens, then WAITING
    // Still listening: a connection already waiting takes over, else wait for the next.
    const next = [...this.peers.values()].at(-1);
    if (next) this.makeCurrent(next, 'LINKED', next.conn.peer);
    else this.setState('WAITING', this.link?.endpoint);
  }

  // ---- idle / stale --------------------------------------------------------------

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Sets the timer to the next idle or stale deadline of the active connection. */
  private armIdle(): void {
    this.clearIdle();
    const peer = this.current;
    if (!peer || this.stopped) return;
    const now = Date.now();
    const silentFor = now - peer.lastValidRx;
    const { idleTimeoutMs, staleTimeoutMs } = this.config;
    if (silentFor >= staleTimeoutMs) {
      this.dropPeer(peer, `no valid telegram for ${staleTimeoutMs} ms`);
      return;
    }
    if (silentFor >= idleTimeoutMs && this.stateValue !== 'STALE') this.setState('STALE', `no valid telegram for ${idleTimeoutMs} ms`);
    const due = (this.stateValue === 'STALE' ? staleTimeoutMs : idleTimeoutMs) - silentFor;
    this.idleTimer = setTimeout(() => this.armIdle(), Math.max(due, 1));
    this.idleTimer.unref();
  }

  /** A valid telegram from our PLC arrived on this connection. */
  private validFrom(peer: Peer): void {
    peer.lastValidRx = Date.now();
    // A queued telegram of a connection that has gone binds nothing.
    if (!this.peers.has(peer.conn)) return;
    if (!peer.bound) {
      peer.bound = true;
      if (peer !== this.current) {
        const old = this.current;
        this.log.info({ connection: peer.conn.id, remote: peer.conn.peer, old: old?.conn.id }, 'new connection of the PLC supersedes the old one');
        this.current = undefined; // so closing the old one does not count as losing the link
        if (old) {
          this.counters.superseded++;
          this.dropPeer(old, 'superseded');
        }
        this.makeCurrent(peer, 'ONLINE', 'superseded an older connection');
        return;
      }
    }
    if (peer === this.current && this.stateValue !== 'ONLINE') {
      this.setState('ONLINE');
      this.armIdle();
    }
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
   * adapter in one call, then answers each frame in arrival order. Nothing is written
   * before the adapter returns, i.e. before the effects are committed.
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
    const received = (outcome: string, facts?: EntryFacts) => this.received(peer, frame, outcome, arrivedAt, facts);
    const since = (): EntryFacts => ({ latencyMs: Math.round((performance.now() - arrived) * 1000) / 1000 });
    const decoded = decode(frame, this.osip);
    if (!decoded.ok) {
      return { kind: 'done', finish: () => this.reject(peer, frame, decoded.reason, decoded.detail, decoded.code, decoded.header, since, arrivedAt) };
    }
    const telegram = decoded.telegram;
    const wrong = checkAddress(telegram.header, this.osip, this.name);
    if (wrong) {
      const detail = wrong === 'wrong-host'
        ? `receiver ${JSON.stringify(telegram.header.receiver)} is not ${this.osip.hostName}`
        : `sender ${JSON.stringify(telegram.header.sender)} is not ${this.name}`;
      return {
        kind: 'done',
        finish: () => {
          this.reject(peer, frame, wrong, detail, ERR_CODES.wrongPeer, telegram.header, since, arrivedAt);
          // A connection whose first telegram is not from our PLC is someone else's.
          if (wrong === 'wrong-peer' && !peer.bound) this.dropPeer(peer, 'first telegram from another sender');
        },
      };
    }
    if (decoded.warnings.length > 0) {
      this.counters.warnings += decoded.warnings.length;
      this.noisyWarn('codec-warning', { connection: peer.conn.id, warnings: decoded.warnings, telegram: frame }, 'telegram accepted with warnings');
    }
    this.counters.rxOk++;
    this.validFrom(peer);
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

  /** The adapter's verdicts, one per telegram; a throwing adapter (it should not) is answered as an internal failure. */
  private handleAll(telegrams: readonly Telegram[]): HandlingResult[] {
    const handler = this.handler!;
    if (telegrams.length > 1 && handler.handleBatch) {
      try {
        const results = handler.handleBatch(telegrams, this.context);
        if (results.length !== telegrams.length) throw new Error(`${results.length} results for ${telegrams.length} telegrams`);
        return results;
      } catch (err) {
        this.log.error({ err, telegrams: telegrams.length }, 'telegram handler failed');
        return telegrams.map(internalFailure);
      }
    }
    return telegrams.map((telegram) => {
      try {
        return handler.handle(telegram, this.context);
      } catch (err) {
        this.log.error({ err, type: telegram.type, seq: telegram.header.seq }, 'telegram handler failed');
        return internalFailure(telegram);
      }
    });
  }

  /** The replies as telegram texts; one that cannot be written is an adapter bug, answered as an internal failure. */
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
    this.received(peer, frame, reason, arrivedAt);
    this.noisyWarn(`reject-${reason}`, { connection: peer.conn.id, reason, detail, telegram: frame }, 'telegram rejected');
    if (!address) return; // nobody to answer
    if (!this.errorBucket.take()) {
      this.counters.errorRepliesSuppressed++;
      return;
    }
    const text = errorTelegram(code, address, this.osip, { seqRule: this.config.replySeq });
    this.write(peer, text, undefined, 'error-reply', since());
  }

  private noteLocation(telegram: Telegram): void {
    if (!this.locationReported) return;
    switch (telegram.type) {
      case 'REQ_':
      case 'UPD_':
      case 'UPDX':
        if (telegram.actualLocation) this.locationReported(this.name, telegram.actualLocation, telegram.rawActualLocation);
        return;
      case 'LOCU':
        if (telegram.location) this.locationReported(this.name, telegram.location, telegram.rawLocation);
        return;
      default:
        return;
    }
  }

  // ---- writing and the telegram log --------------------------------------------------

  /** Writes a telegram (framed here unless `bytes` are given); returns the framed bytes. */
  private write(peer: Peer, text: string, bytes: Buffer | undefined, outcome: string, facts?: EntryFacts): Buffer {
    const framed = bytes ?? encodeFrame(text, this.frameOptions);
    if (peer.conn.write(framed)) {
      this.counters.tx++;
      this.lastTx = Date.now();
      this.logTelegram('out', text, outcome, peer.conn.id, facts);
    } else {
      this.counters.repliesDropped++;
      this.logTelegram('out', text, 'not-sent', peer.conn.id, facts);
    }
    return framed;
  }

  /** A received telegram, logged once its outcome is known, at the time it arrived. */
  private received(peer: Peer, frame: string, outcome: string, arrivedAt: number, facts?: EntryFacts): void {
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
    this.emit('telegram', entry);
  }

  /** Warn once per kind every NOISY_LOG_MS (with how many were held back); debug otherwise. */
  private noisyWarn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    const seen = this.noisy.get(kind);
    if (seen && now - seen.at < NOISY_LOG_MS) {
      seen.suppressed++;
      this.log.debug(fields, message);
      return;
    }
    this.noisy.set(kind, { at: now, suppressed: 0 });
    this.log.warn({ ...fields, ...(seen?.suppressed ? { notLogged: seen.suppressed } : {}) }, message);
  }

  // ---- the host's own telegrams ----------------------------------------------------

  /**
   * Sends a telegram of our own (an unsolicited RES_, say) with the channel's sequence
   * counter. False when the channel has no connection or sends no unsolicited
   * telegrams (half-duplex); nothing is queued. Throws when the telegram cannot be
   * encoded (a programming error of the caller).
   */
  sendUnsolicited(telegram: ReplyInput): boolean {
    const peer = this.current;
    if (!this.config.unsolicited || this.stopped || !peer?.conn.isOpen) return false;
    const seq = this.ownSeq;
    const text = encode({ ...telegram, header: { sender: this.osip.hostName, receiver: this.name, seq } } as TelegramInput, this.osip);
    this.ownSeq = seq >= MAX_OWN_SEQ ? 1 : seq + 1;
    const framed = encodeFrame(text, this.frameOptions);
    if (!peer.conn.write(framed)) return false;
    this.counters.tx++;
    this.lastTx = Date.now();
    const barcode = 'barcode' in telegram && typeof telegram.barcode === 'string' ? { barcode: telegram.barcode } : {};
    this.logTelegram('out', text, 'unsolicited', peer.conn.id, barcode);
    return true;
  }

  /** The next sequence number of our own telegrams. */
  get nextOwnSeq(): number {
    return this.ownSeq;
  }

  // ---- diagnostics -----------------------------------------------------------------

  snapshot(): ChannelSnapshot {
    const c = this.config;
    const endpoint = this.link?.endpoint
      ?? (c.transport === 'serial' ? `serial ${c.device} @ ${c.baudRate} 8N1` : `${c.transport === 'tcp-server' ? 'listen' : 'connect'} ${c.host}:${c.port}`);
    return {
      name: this.name,
      transport: c.transport,
      enabled: c.enabled,
      state: this.stateValue,
      since: new Date(this.stateSince).toISOString(),
      endpoint,
      peer: this.current?.conn.peer ?? null,
      connections: this.peers.size,
      lastRx: iso(this.lastRx),
      lastTx: iso(this.lastTx),
      counters: structuredClone(this.counters),
      telegrams: this.history.map((e) => ({ ...e })),
    };
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
