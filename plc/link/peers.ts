// The open connections of a PLC channel, and which one is the PLC's (docs/plc.md, "Who
// gets a connection"). Off tcp-server the one connection is the PLC's. tcp-server:
// every accepted socket is read; one whose first valid telegram names our PLC is proven
// and becomes the PLC's connection, superseding the older one (a PLC that reconnects
// after a power cycle before its old socket timed out). Unproven connections wait beside
// it (unproven.ts): idleTimeoutMs at most, MAX_UNPROVEN at once; the one heard from least
// recently gives way to a newcomer, so no flood of idle or looping connections keeps the
// PLC's reconnect out. What that does to the channel's state is told to the state
// machine (channel-state.ts); the link they come from is the session's (session.ts).

import type { Logger } from '../../src/core/log.ts';
import type { ChannelConfig } from '../config.ts';
import type { ChannelState, ChannelStates } from './channel-state.ts';
import { framingFaults, OVERFLOW_LIMIT, OVERFLOW_WINDOW_MS } from './framing-faults.ts';
import { createFramer, type Framer, type FramerOptions } from './framing.ts';
import type { Connection } from './link.ts';
import type { NoisyLog } from './noisy-log.ts';
import type { SessionCounters } from './session.ts';
import { UnprovenConnections } from './unproven.ts';

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

interface PeersOptions {
  config: ChannelConfig;
  log: Logger;
  noisy: NoisyLog;
  counters: SessionCounters;
  /** How frames are cut from the bytes (the protocol's sync characters among them). */
  framing: Omit<FramerOptions, 'maxFrame'> & { length: number };
  /** Frames read on a connection, with the moment they were read. */
  frames(peer: Peer, frames: readonly string[], arrived: number, arrivedAt: number): void;
  states: ChannelStates;
  /** What the link listens on (the reason of WAITING). */
  endpoint(): string | undefined;
}

export class Peers {
  private readonly config: ChannelConfig;
  private readonly log: Logger;
  private readonly noisy: NoisyLog;
  private readonly counters: SessionCounters;
  private readonly options: PeersOptions;
  private readonly states: ChannelStates;
  private readonly peers = new Map<Connection, Peer>();
  /** The proven connection (off tcp-server: the one connection). */
  private current: Peer | undefined;
  /** tcp-server: connections not yet proven to be the PLC's. */
  private readonly unproven: UnprovenConnections<Peer>;
  private lastRxAt: number | undefined;
  private stopped = false;

  constructor(options: PeersOptions) {
    this.options = options;
    this.config = options.config;
    this.log = options.log;
    this.noisy = options.noisy;
    this.counters = options.counters;
    this.states = options.states;
    const grace = this.config.idleTimeoutMs;
    this.unproven = new UnprovenConnections(grace, (peer) => this.dropPeer(peer, `no valid telegram within ${grace} ms`, { atOnce: true }));
  }

  /** The PLC's connection (proven, off tcp-server: the one connection). */
  get plc(): Peer | undefined {
    return this.current;
  }

  /**
   * The active connection: the PLC's; while none is proven, the unproven one heard
   * from last (the PLC that has just connected, more likely than an older stray one).
   */
  get active(): Peer | undefined {
    return this.current ?? this.unproven.newest();
  }

  /** No PLC connection, and none waiting to prove itself. */
  get alone(): boolean {
    return !this.current && this.unproven.size === 0;
  }

  /** Open connections (tcp-server: also those not yet bound to the PLC). */
  get count(): number {
    return this.peers.size;
  }

  get lastRx(): number | undefined {
    return this.lastRxAt;
  }

  /** Takes nothing more from the link (it is being stopped): unproven connections wait no longer. */
  stop(): void {
    this.stopped = true;
    this.unproven.clear();
  }

  /** The link has closed every connection. */
  clear(): void {
    this.peers.clear();
    this.current = undefined;
  }

  /** The link opened a connection: the PLC's (tcp-client, serial), or one to be proven (tcp-server). */
  opened(conn: Connection): void {
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
    this.states.stay();
    this.states.enter('LINKED', peer.conn.peer);
  }

  private makeCurrent(peer: Peer, state: ChannelState, reason?: string): void {
    this.states.stay();
    this.current = peer;
    this.states.enter(state, reason);
    this.states.watch();
  }

  /** Bytes read on a connection: its frames go up to the protocol. */
  data(conn: Connection, chunk: Buffer): void {
    const peer = this.peers.get(conn);
    if (this.stopped || !peer) return;
    if (!peer.bound) this.unproven.heard(peer);
    const { frames, events } = peer.framer.push(chunk);
    // Overflows are counted only with events: without, the peer cannot have reached the limit now.
    if (events.length > 0 && framingFaults(peer, events, this.counters, this.log, this.noisy)) {
      this.dropPeer(peer, `${OVERFLOW_LIMIT} oversized frames within ${OVERFLOW_WINDOW_MS / 1000} s`);
      return;
    }
    if (frames.length === 0) return;
    this.lastRxAt = Date.now();
    this.options.frames(peer, frames, performance.now(), Date.now());
  }

  /** The link lost a connection (the peer closed it, or an error). */
  closed(conn: Connection, reason: string): void {
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
      // tcp-server, no PLC connection: back to WAITING when no unproven one comes for a while.
      this.states.linger();
      return;
    }
    if (peer !== this.current) return;
    this.current = undefined;
    this.states.unwatch();
    this.states.enter('CLOSED', reason);
    if (this.config.transport !== 'tcp-server') return; // the link redials or reopens, then WAITING
    // Still listening: connections waiting to prove themselves keep the channel LINKED.
    const waiting = this.unproven.newest();
    if (waiting) this.states.enter('LINKED', waiting.conn.peer);
    else this.states.enter('WAITING', this.options.endpoint());
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
    if (peer === this.current && this.states.state !== 'ONLINE') {
      this.states.enter('ONLINE');
      this.states.watch();
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
