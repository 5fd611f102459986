// One PLC channel (docs/plc.md): a link session (plc/link/session.ts: the link, which
// connection is the PLC's, the state machine, the link's counters) with OSIP on it
// (plc/osip/protocol.ts: decoding, checks, sequence numbers, duplicates, replies, bad
// telegrams), and a telegram handler behind (plc/osip/warehouse/, over the adapter's
// warehouse operations). This class puts them together and is what the rest of the
// appliance sees: start and stop, the state, the counters, the diagnostics snapshot,
// and the `state` and `telegram` events.

import type { ResendKeeper } from './osip/resends.ts';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../src/core/log.ts';
import type { ChannelConfig } from './config.ts';
import { NoisyLog } from './link/noisy-log.ts';
import { LinkSession, zeroSessionCounters, type ChannelState, type SessionCounters } from './link/session.ts';
import { osipOptions, type OsipOptions } from './osip/index.ts';
import type { ReplyInput, TelegramHandler } from './osip/port.ts';
import { OsipProtocol, zeroProtocolCounters, type ProtocolCounters, type TelegramLogEntry } from './osip/protocol.ts';

export { CHANNEL_STATES, type ChannelState } from './link/session.ts';
export { REJECT_REASONS, type ChannelRejectReason, type TelegramLogEntry } from './osip/protocol.ts';

/** A channel's counters: the session's and the protocol's, in one object (as the diagnostics show them). */
export type ChannelCounters = ProtocolCounters & SessionCounters;

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

type ChannelEvents = {
  state: [to: ChannelState, from: ChannelState, reason: string | undefined];
  telegram: [TelegramLogEntry];
};

interface ChannelOptions {
  config: ChannelConfig;
  hostName: string;
  timeZone: string;
  log: Logger;
  /** A valid REQ_/UPD_/UPDX/LOCU reported this location (coordinate, and the field as sent). */
  locationReported?: (channel: string, coordinate: string, rawField: string) => void;
  /** Link retry delays (tests); default BACKOFF_MS. */
  backoffMs?: readonly number[];
  /** A box of a pair: the duplicate cache kept in the database too. */
  keeper?: ResendKeeper | undefined;
}

const TERMINATORS = { CRLF: '\r\n', LF: '\n', NONE: '' } as const;

/** The counters in the order the diagnostics have always listed them. */
function zeroCounters(): ChannelCounters {
  const p = zeroProtocolCounters();
  const s = zeroSessionCounters();
  return {
    rxOk: p.rxOk,
    rxRejected: p.rxRejected,
    outcomes: p.outcomes,
    tx: p.tx,
    duplicates: p.duplicates,
    resyncs: s.resyncs,
    overflows: s.overflows,
    bccErrors: s.bccErrors,
    partialFrames: s.partialFrames,
    errorRepliesSuppressed: p.errorRepliesSuppressed,
    repliesDropped: p.repliesDropped,
    warnings: p.warnings,
    connections: s.connections,
    superseded: s.superseded,
    refusedPeers: s.refusedPeers,
    gaveWay: s.gaveWay,
    stateChanges: s.stateChanges,
  };
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export class Channel extends EventEmitter<ChannelEvents> {
  readonly name: string;
  readonly config: ChannelConfig;
  readonly counters: ChannelCounters = zeroCounters();
  /** The codec options of this channel (also used to decode its logged telegrams). */
  readonly osip: OsipOptions;
  private readonly log: Logger;
  private readonly session: LinkSession;
  private readonly protocol: OsipProtocol;
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
    const noisy = new NoisyLog(this.log);
    this.session = new LinkSession({
      config,
      log: this.log,
      noisy,
      counters: this.counters,
      framing: { mode: config.framing, length: config.telegramLength, bcc: config.bcc, sync: this.osip.sync },
      backoffMs: options.backoffMs,
      frames: (peer, frames, arrived, arrivedAt) => this.protocol.received(peer, frames, arrived, arrivedAt),
      state: (to, from, reason) => this.emit('state', to, from, reason),
    });
    this.protocol = new OsipProtocol({
      config,
      osip: this.osip,
      frame: { mode: config.framing, terminator: TERMINATORS[config.terminator], bcc: config.bcc },
      log: this.log,
      noisy,
      counters: this.counters,
      peers: this.session.peers,
      keeper: options.keeper,
      context: {
        name: config.name,
        options: {
          resReasonCodes: config.resReasonCodes,
          updx: config.updx,
          autoCreateTu: config.autoCreateTu,
          autoCreateTuType: config.autoCreateTuType,
          locationAddressing: config.locationAddressing,
          noReadLocation: config.noReadLocation,
        },
      },
      logged: (entry) => this.emit('telegram', entry),
      locationReported: options.locationReported,
    });
  }

  get state(): ChannelState {
    return this.session.state;
  }

  /** A tcp-server channel's bound address (the real port when configured with port 0). */
  address(): AddressInfo | undefined {
    return this.session.address();
  }

  /**
   * Starts the link (a disabled channel stays DISABLED). Rejects when a tcp-server
   * cannot listen; tcp-client and serial keep trying in the background.
   */
  async start(handler: TelegramHandler): Promise<void> {
    if (this.started) throw new Error(`channel ${this.name} already started`);
    this.started = true;
    this.protocol.use(handler);
    if (!this.config.enabled) {
      this.log.info('PLC channel disabled in the configuration');
      return;
    }
    await this.session.start();
  }

  /** Answers what has arrived, then closes the link and every connection. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.protocol.stop();
    // The last answers go out once flushed, before the connections close.
    await this.protocol.answered();
    await this.session.stop();
  }

  /**
   * Sends a telegram of our own (an unsolicited RES_, say) with the channel's sequence
   * counter. False when the channel has no connection or sends no unsolicited
   * telegrams (half-duplex); nothing is queued.
   */
  sendUnsolicited(telegram: ReplyInput): boolean {
    return this.protocol.sendUnsolicited(telegram);
  }

  /** The next sequence number of our own telegrams (a test jumps it to its wrap-around). */
  get nextOwnSeq(): number {
    return this.protocol.nextOwnSeq;
  }

  set nextOwnSeq(seq: number) {
    this.protocol.nextOwnSeq = seq;
  }

  snapshot(): ChannelSnapshot {
    const c = this.config;
    return {
      name: this.name,
      transport: c.transport,
      enabled: c.enabled,
      state: this.session.state,
      since: new Date(this.session.since).toISOString(),
      endpoint: this.session.endpoint,
      peer: this.session.active?.conn.peer ?? null,
      connections: this.session.connections,
      lastRx: iso(this.session.lastRx),
      lastTx: iso(this.protocol.lastTx),
      counters: structuredClone(this.counters),
      telegrams: this.protocol.recent(),
    };
  }
}
