// The state of a PLC channel (docs/plc.md "Channels"): DISABLED → WAITING → LINKED →
// ONLINE ⇄ STALE → CLOSED → WAITING …, every change logged and counted, and the two
// clocks that change it when nothing happens on the link: the PLC's connection silent for
// idleTimeoutMs is STALE, for staleTimeoutMs it is dropped; and (tcp-server) LINKED
// goes back to WAITING LINKED_LINGER_MS after the last unproven connection went. Which
// connection is the PLC's is known to the channel's connections (peers.ts), which move
// the state here; the clocks ask them through the session (session.ts).

import type { Logger } from '../../src/core/log.ts';
import type { ChannelConfig } from '../config.ts';
import type { Peer } from './peers.ts';
import type { SessionCounters } from './session.ts';

export const CHANNEL_STATES = ['DISABLED', 'WAITING', 'LINKED', 'ONLINE', 'STALE', 'CLOSED'] as const;
export type ChannelState = (typeof CHANNEL_STATES)[number];

/**
 * tcp-server: how long the channel stays LINKED after its last unproven connection
 * went. Connections that open and close in a loop keep it LINKED instead of flapping
 * to WAITING and back with each one (every change is logged and is an event).
 */
const LINKED_LINGER_MS = 1000;

/** What the clocks ask of the session. */
interface SessionView {
  /** The PLC's connection (the one the idle clock watches). */
  plc(): Peer | undefined;
  /** No PLC connection, and none waiting to prove itself. */
  alone(): boolean;
  /** What the link listens on (the reason of WAITING). */
  endpoint(): string | undefined;
  /** Closes the PLC's connection: silent for staleTimeoutMs. */
  drop(peer: Peer, reason: string): void;
}

interface ChannelStatesOptions {
  config: ChannelConfig;
  log: Logger;
  counters: SessionCounters;
  session: SessionView;
  /** The channel entered a state. */
  entered(to: ChannelState, from: ChannelState, reason: string | undefined): void;
}

export class ChannelStates {
  private readonly options: ChannelStatesOptions;
  private readonly session: SessionView;
  private value: ChannelState = 'DISABLED';
  private enteredAt = Date.now();
  private lingerTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(options: ChannelStatesOptions) {
    this.options = options;
    this.session = options.session;
  }

  get state(): ChannelState {
    return this.value;
  }

  /** When the channel entered its state. */
  get since(): number {
    return this.enteredAt;
  }

  enter(next: ChannelState, reason?: string): void {
    const previous = this.value;
    if (previous === next) return;
    this.value = next;
    this.enteredAt = Date.now();
    this.options.counters.stateChanges[next]++;
    this.options.log.info({ from: previous, to: next, ...(reason ? { reason } : {}) }, `PLC channel ${next}`);
    this.options.entered(next, previous, reason);
  }

  /** The clocks stop (the session is stopping); the state still changes as told. */
  stop(): void {
    this.stopped = true;
    this.unwatch();
    this.stay();
  }

  // ---- linger (tcp-server) -------------------------------------------------------

  /** A connection came: no going back to WAITING for the ones that went. */
  stay(): void {
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
  }

  /** No PLC connection and no unproven one left: WAITING when none has come for LINKED_LINGER_MS. */
  linger(): void {
    if (!this.session.alone() || this.lingerTimer || this.value !== 'LINKED') return;
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      if (!this.stopped && this.session.alone()) this.enter('WAITING', this.session.endpoint());
    }, LINKED_LINGER_MS);
    this.lingerTimer.unref();
  }

  // ---- idle / stale --------------------------------------------------------------

  unwatch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Sets the timer to the next idle or stale deadline of the PLC's connection. */
  watch(): void {
    this.unwatch();
    const peer = this.session.plc();
    if (!peer || this.stopped) return;
    const now = Date.now();
    const silentFor = now - peer.lastValidRx;
    const { idleTimeoutMs, staleTimeoutMs } = this.options.config;
    if (silentFor >= staleTimeoutMs) {
      this.session.drop(peer, `no valid telegram for ${staleTimeoutMs} ms`);
      return;
    }
    if (silentFor >= idleTimeoutMs && this.value !== 'STALE') this.enter('STALE', `no valid telegram for ${idleTimeoutMs} ms`);
    const due = (this.value === 'STALE' ? staleTimeoutMs : idleTimeoutMs) - silentFor;
    this.idleTimer = setTimeout(() => this.watch(), Math.max(due, 1));
    this.idleTimer.unref();
  }
}
