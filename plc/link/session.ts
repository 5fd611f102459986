// The link session of a PLC channel (docs/plc.md "Channels"): which connection is the
// PLC's, the channel's state, and the link's counters — everything about a channel that
// is not its protocol. Frames go up to the protocol (plc/osip/protocol.ts), which says
// when one was a valid telegram from our PLC (`validFrom`).
//
// - State machine DISABLED → WAITING → LINKED → ONLINE ⇄ STALE → CLOSED → WAITING …
//   (no valid telegram for idleTimeoutMs: STALE; for staleTimeoutMs: the connection is
//   dropped). Every change is logged and counted.
// - tcp-server: every accepted socket is read; one whose first valid telegram names our
//   PLC is proven and becomes the active connection, superseding the older one (a PLC
//   that reconnects after a power cycle before its old socket timed out). Unproven
//   connections wait beside it (unproven.ts): idleTimeoutMs at most, MAX_UNPROVEN at
//   once; the one heard from least recently gives way to a newcomer, so no flood of idle
//   or looping connections keeps the PLC's reconnect out (docs/plc.md, "Who gets a
//   connection"). Without a proven one the channel is LINKED while unproven ones are
//   open, and WAITING LINKED_LINGER_MS after the last has gone.
// - A connection that sends 5 oversized frames within a minute is closed.

import type { AddressInfo } from 'node:net';
import type { Logger } from '../../src/core/log.ts';
import type { ChannelConfig } from '../config.ts';
import { AllowList } from './allow-list.ts';
import { createFramer, type Framer, type FramerOptions } from './framing.ts';
import type { Connection, Link, LinkContext } from './link.ts';
import type { NoisyLog } from './noisy-log.ts';
import { SerialLink } from './serial.ts';
import { TcpClientLink } from './tcp-client.ts';
import { TcpServerLink } from './tcp-server.ts';
import { UnprovenConnections } from './unproven.ts';

export const CHANNEL_STATES = ['DISABLED', 'WAITING', 'LINKED', 'ONLINE', 'STALE', 'CLOSED'] as const;
export type ChannelState = (typeof CHANNEL_STATES)[number];

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

/** Per open connection. */
export interface Peer {
  conn: Connection;
  framer: Framer;
  /** Proven: has delivered a valid telegram from our PLC (always true off tcp-server: we chose the other end). */
  bound: boolean;
  lastValidRx: number;
  /** Times of recent framing overflows (OVERFLOW_LIMIT within OVERFLOW_WINDOW_MS close the connection). */
  overflows: number[];
}

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

const OVERFLOW_LIMIT = 5;
const OVERFLOW_WINDOW_MS = 60_000;
/**
 * tcp-server: how long the channel stays LINKED after its last unproven connection
 * went. Connections that open and close in a loop keep it LINKED instead of flapping
 * to WAITING and back with each one (every change is logged and is an event).
 */
const LINKED_LINGER_MS = 1000;

export class LinkSession {
  private readonly config: ChannelConfig;
  private readonly log: Logger;
  private readonly noisy: NoisyLog;
  private readonly counters: SessionCounters;
  private readonly options: SessionOptions;
  private link: Link | undefined;
  private stateValue: ChannelState = 'DISABLED';
  private stateSince = Date.now();
  private readonly peers = new Map<Connection, Peer>();
  /** The proven connection (off tcp-server: the one connection). */
  private current: Peer | undefined;
  /** tcp-server: connections not yet proven to be the PLC's. */
  private readonly unproven: UnprovenConnections<Peer>;
  private lingerTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastRxAt: number | undefined;
  private stopped = false;

  constructor(options: SessionOptions) {
    this.options = options;
    this.config = options.config;
    this.log = options.log;
    this.noisy = options.noisy;
    this.counters = options.counters;
    const grace = this.config.idleTimeoutMs;
    this.unproven = new UnprovenConnections(grace, (peer) => this.dropPeer(peer, `no valid telegram within ${grace} ms`, { atOnce: true }));
  }

  get state(): ChannelState {
    return this.stateValue;
  }

  /** When the session entered its state. */
  get since(): number {
    return this.stateSince;
  }

  get lastRx(): number | undefined {
    return this.lastRxAt;
  }

  /**
   * The active connection: the PLC's; while none is proven, the unproven one heard
   * from last (the PLC that has just connected, more likely than an older stray one).
   */
  get active(): Peer | undefined {
    return this.current ?? this.unproven.newest();
  }

  /** Open connections (tcp-server: also those not yet bound to the PLC). */
  get connections(): number {
    return this.peers.size;
  }

  /** What the link listens on, dials or opens. */
  get endpoint(): string {
    const c = this.config;
    return (
      this.link?.endpoint ??
      (c.transport === 'serial' ? `serial ${c.device} @ ${c.baudRate} 8N1` : `${c.transport === 'tcp-server' ? 'listen' : 'connect'} ${c.host}:${c.port}`)
    );
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
    const backoff = this.options.backoffMs ? { backoffMs: this.options.backoffMs } : {};
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
        : c.transport === 'tcp-client'
          ? new TcpClientLink({ host: c.host!, port: c.port!, ...backoff }, context)
          : new SerialLink({ device: c.device!, baudRate: c.baudRate, ...backoff }, context);
    this.setState('WAITING', this.link.endpoint);
    await this.link.start();
  }

  /** Reads nothing more (called once what has arrived was answered), then closes the link and every connection. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.clearIdle();
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.unproven.clear();
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
    this.options.state(next, previous, reason);
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
    const framing = this.options.framing;
    const peer: Peer = {
      conn,
      framer: createFramer({ ...framing, maxFrame: Math.max(1024, framing.length + 64) }),
      bound: this.config.transport !== 'tcp-server',
      lastValidRx: Date.now(),
      overflows: [],
    };
    this.peers.set(conn, peer);
    if (peer.bound) this.makeCurrent(peer, 'LINKED', conn.peer);
    else this.admit(peer);
  }

  /**
   * tcp-server: a connection that has yet to prove it is our PLC always gets in; when
   * that makes one too many, the quietest unproven one is closed at once (counted as
   * `gaveWay`; a flood is a warning once per NoisyLog period, its connections are
   * logged at debug level).
   */
  private admit(peer: Peer): void {
    this.log.debug({ connection: peer.conn.id, remote: peer.conn.peer }, 'connection waits for its first valid telegram');
    const quietest = this.unproven.admit(peer);
    if (quietest) {
      this.counters.gaveWay++;
      this.noisy.warn(
        'gave-way',
        { remote: quietest.conn.peer, waiting: this.unproven.size - 1, connections: this.counters.connections, gaveWay: this.counters.gaveWay },
        'a connection with no valid telegram gave way to a newer one (more connections than a PLC makes: a scan or a flood?)',
      );
      this.dropPeer(quietest, 'gave way to a newer connection (no valid telegram yet)', { atOnce: true });
    }
    if (this.current) return;
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.setState('LINKED', peer.conn.peer);
  }

  private makeCurrent(peer: Peer, state: ChannelState, reason?: string): void {
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.current = peer;
    this.setState(state, reason);
    this.armIdle();
  }

  private onData(conn: Connection, chunk: Buffer): void {
    const peer = this.peers.get(conn);
    if (this.stopped || !peer) return;
    if (!peer.bound) this.unproven.heard(peer);
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
          this.noisy.warn('overflow', { connection: conn.id, bytes: event.bytes }, 'frame over the size limit dropped');
          break;
        }
        case 'bcc-error':
          this.counters.bccErrors++;
          this.noisy.warn('bcc-error', { connection: conn.id, bytes: event.bytes }, 'frame with a wrong BCC dropped');
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
    this.lastRxAt = Date.now();
    this.options.frames(peer, frames, performance.now(), Date.now());
  }

  private onClosed(conn: Connection, reason: string): void {
    const peer = this.peers.get(conn);
    if (this.stopped || !peer) return;
    this.forget(peer, reason);
  }

  /**
   * Closes a connection on our side (stale, superseded, wrong peer, overflows): after
   * what was written to it, or `atOnce` (an unproven one: nothing of ours is due to
   * it, and a peer that ignores our FIN must not hold the socket a second longer).
   */
  dropPeer(peer: Peer, reason: string, options: { atOnce?: boolean } = {}): void {
    if (!this.peers.has(peer.conn)) return;
    this.connectionLog(peer)({ connection: peer.conn.id, remote: peer.conn.peer, reason }, 'closing connection');
    if (options.atOnce) peer.conn.abort(reason);
    else peer.conn.close(reason);
    this.forget(peer, reason);
  }

  /** The PLC's connections are logged at info; unproven ones at debug (a flood must not fill the log). */
  private connectionLog(peer: Peer): (fields: Record<string, unknown>, message: string) => void {
    return peer.bound ? (fields, message) => this.log.info(fields, message) : (fields, message) => this.log.debug(fields, message);
  }

  private forget(peer: Peer, reason: string): void {
    this.peers.delete(peer.conn);
    const log = this.connectionLog(peer);
    const partial = peer.framer.reset();
    if (partial > 0) {
      this.counters.partialFrames++;
      log({ connection: peer.conn.id, bytes: partial }, 'partial telegram discarded with its connection');
    }
    log({ connection: peer.conn.id, remote: peer.conn.peer, reason }, 'connection closed');
    if (!peer.bound) {
      this.unproven.remove(peer);
      this.lastUnprovenGone();
      return;
    }
    if (peer !== this.current) return;
    this.current = undefined;
    this.clearIdle();
    this.setState('CLOSED', reason);
    if (this.config.transport !== 'tcp-server') return; // the link redials or reopens, then WAITING
    // Still listening: connections waiting to prove themselves keep the channel LINKED.
    const waiting = this.unproven.newest();
    if (waiting) this.setState('LINKED', waiting.conn.peer);
    else this.setState('WAITING', this.link?.endpoint);
  }

  /** tcp-server, no PLC connection: when no unproven one has come for LINKED_LINGER_MS, back to WAITING. */
  private lastUnprovenGone(): void {
    if (this.current || this.unproven.size > 0 || this.lingerTimer || this.stateValue !== 'LINKED') return;
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      if (!this.stopped && !this.current && this.unproven.size === 0) this.setState('WAITING', this.link?.endpoint);
    }, LINKED_LINGER_MS);
    this.lingerTimer.unref();
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

  /** A valid telegram from our PLC arrived on this connection (the protocol says so). */
  validFrom(peer: Peer): void {
    peer.lastValidRx = Date.now();
    // A queued telegram of a connection that has gone binds nothing.
    if (!this.peers.has(peer.conn)) return;
    if (!peer.bound) {
      this.prove(peer);
      return;
    }
    if (peer === this.current && this.stateValue !== 'ONLINE') {
      this.setState('ONLINE');
      this.armIdle();
    }
  }

  /** tcp-server: the connection is the PLC's; its older one (a reconnect before that one timed out) is closed. */
  private prove(peer: Peer): void {
    peer.bound = true;
    this.unproven.remove(peer);
    const old = this.current;
    this.current = undefined; // so closing the old one does not count as losing the link
    if (old) {
      this.counters.superseded++;
      this.log.info({ connection: peer.conn.id, remote: peer.conn.peer, old: old.conn.id }, 'new connection of the PLC supersedes the old one');
      this.dropPeer(old, 'superseded');
    }
    this.makeCurrent(peer, 'ONLINE', old ? 'superseded an older connection' : undefined);
  }
}
