// The link session of a PLC channel (docs/plc.md "Channels"): which connection is the
// PLC's, the channel's state, and the link's counters — everything about a channel that
// is not its protocol. Frames go up to the protocol (plc/osip/protocol.ts), which says
// when one was a valid telegram from our PLC (`peers.validFrom`). The session starts and
// stops the link and puts these together:
//
// - the link of the channel's transport (transports.ts);
// - the open connections and which one is the PLC's (peers.ts): tcp-server proves and
//   supersedes, unproven connections give way under a flood; a connection that sends 5
//   oversized frames within a minute is closed (framing-faults.ts);
// - the state machine DISABLED → WAITING → LINKED → ONLINE ⇄ STALE → CLOSED → WAITING …
//   with its clocks (channel-state.ts): no valid telegram for idleTimeoutMs: STALE; for
//   staleTimeoutMs: the connection is dropped; without a proven connection the channel is
//   LINKED while unproven ones are open, and WAITING LINKED_LINGER_MS after the last has
//   gone. Every change is logged and counted.

import type { AddressInfo } from 'node:net';
import type { Logger } from '../../src/core/log.ts';
import type { ChannelConfig } from '../config.ts';
import { CHANNEL_STATES, ChannelStates, type ChannelState } from './channel-state.ts';
import type { FramerOptions } from './framing.ts';
import type { Link, LinkContext } from './link.ts';
import type { NoisyLog } from './noisy-log.ts';
import { Peers, type Peer } from './peers.ts';
import { TcpServerLink } from './tcp-server.ts';
import { configuredEndpoint, openLink } from './transports.ts';

export { CHANNEL_STATES, type ChannelState } from './channel-state.ts';
export type { Peer } from './peers.ts';

/** The link's share of a channel's counters. */
export interface SessionCounters {
  /** Bytes dropped before a sync (the framer's resynchronisations). */
  resyncs: number;
  /** Frames over the size limit, dropped. */
  overflows: number;
  bccErrors: number;
  /** Partial telegrams discarded because their connection dropped. */
  partialFrames: number;
  connections: number;
  superseded: number;
  /** Connections from addresses not in allowFrom, closed at once. */
  refusedPeers: number;
  /** Connections that had sent no valid telegram, closed to make room for a newer one. */
  gaveWay: number;
  /** Entries into each state. */
  stateChanges: Record<ChannelState, number>;
}

export const zeroSessionCounters = (): SessionCounters => ({
  resyncs: 0,
  overflows: 0,
  bccErrors: 0,
  partialFrames: 0,
  connections: 0,
  superseded: 0,
  refusedPeers: 0,
  gaveWay: 0,
  stateChanges: Object.fromEntries(CHANNEL_STATES.map((s) => [s, 0])) as Record<ChannelState, number>,
});

interface SessionOptions {
  config: ChannelConfig;
  log: Logger;
  noisy: NoisyLog;
  counters: SessionCounters;
  /** How frames are cut from the bytes (the protocol's sync characters among them). */
  framing: Omit<FramerOptions, 'maxFrame'> & { length: number };
  /** Link retry delays (tests); default BACKOFF_MS. */
  backoffMs?: readonly number[] | undefined;
  /** Frames read on a connection, with the moment they were read. */
  frames(peer: Peer, frames: readonly string[], arrived: number, arrivedAt: number): void;
  /** The session entered a state. */
  state(to: ChannelState, from: ChannelState, reason: string | undefined): void;
}

export class LinkSession {
  private readonly config: ChannelConfig;
  private readonly options: SessionOptions;
  private link: Link | undefined;
  private readonly states: ChannelStates;
  /** The open connections; the protocol tells them which telegrams were valid, and drops the wrong ones. */
  readonly peers: Peers;
  private stopped = false;

  constructor(options: SessionOptions) {
    this.options = options;
    this.config = options.config;
    this.states = new ChannelStates({
      config: options.config,
      log: options.log,
      counters: options.counters,
      entered: options.state,
      session: {
        plc: () => this.peers.plc,
        alone: () => this.peers.alone,
        endpoint: () => this.link?.endpoint,
        drop: (peer, reason) => this.peers.dropPeer(peer, reason),
      },
    });
    this.peers = new Peers({ ...options, states: this.states, endpoint: () => this.link?.endpoint });
  }

  get state(): ChannelState {
    return this.states.state;
  }

  /** When the session entered its state. */
  get since(): number {
    return this.states.since;
  }

  get lastRx(): number | undefined {
    return this.peers.lastRx;
  }

  /**
   * The active connection: the PLC's; while none is proven, the unproven one heard
   * from last (the PLC that has just connected, more likely than an older stray one).
   */
  get active(): Peer | undefined {
    return this.peers.active;
  }

  /** Open connections (tcp-server: also those not yet bound to the PLC). */
  get connections(): number {
    return this.peers.count;
  }

  /** What the link listens on, dials or opens. */
  get endpoint(): string {
    return this.link?.endpoint ?? configuredEndpoint(this.config);
  }

  /** Still reading and writing (not stopped). */
  get running(): boolean {
    return !this.stopped;
  }

  /** A tcp-server session's bound address (the real port when configured with port 0). */
  address(): AddressInfo | undefined {
    return this.link instanceof TcpServerLink ? this.link.address() : undefined;
  }

  // ---- life cycle --------------------------------------------------------------

  /** Starts the link. Rejects when a tcp-server cannot listen; tcp-client and serial keep trying in the background. */
  async start(): Promise<void> {
    const peers = this.peers;
    const context: LinkContext = {
      log: this.options.log,
      events: {
        waiting: () => this.onWaiting(),
        opened: (conn) => peers.opened(conn),
        data: (conn, chunk) => peers.data(conn, chunk),
        closed: (conn, reason) => peers.closed(conn, reason),
      },
    };
    this.link = openLink(this.config, context, { backoffMs: this.options.backoffMs, refused: () => this.options.counters.refusedPeers++ });
    this.states.enter('WAITING', this.link.endpoint);
    await this.link.start();
  }

  /** Reads nothing more (called once what has arrived was answered), then closes the link and every connection. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.states.stop();
    this.peers.stop();
    await this.link?.stop();
    this.peers.clear();
    if (this.states.state !== 'DISABLED') this.states.enter('CLOSED', 'stopped');
  }

  private onWaiting(): void {
    if (this.stopped || this.peers.plc) return;
    this.states.enter('WAITING', this.link?.endpoint);
  }
}
