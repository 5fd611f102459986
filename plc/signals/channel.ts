// One signal channel (docs/plc.md, "Signal channels"): a PLC read and written as signals
// over a protocol driver (plc/signals/driver.ts; Modbus in ./modbus, OPC UA in ./opcua),
// its points mapped onto the adapter's warehouse operations (plc/port.ts) as the channel's
// PLC (actor `plc`, the channel's name). Only a change acts: a value read again as it was
// does nothing. The changes of the state points that arrive in one turn of the event loop
// (a Modbus poll's read, an OPC UA publish's notifications) are applied together, as a
// burst of OSIP telegrams is: one commit for the lot, each change in a savepoint of its
// own (the adapter's stateChanges; ./state-changes.ts). A state point's last value is
// applied again when the location or group it names comes to exist (created, or renamed
// to that name): a change read before it was there changed nothing. The arrival handshake
// is in ./arrival.ts, the heartbeat in ./heartbeat.ts.

import { EventEmitter } from 'node:events';
import type { Logger } from '../../src/core/log.ts';
import type { NamedPlace, PlcOperations, Reporter } from '../port.ts';
import { Arrival } from './arrival.ts';
import type { SignalChannelConfig } from './config.ts';
import type { DriverState, SignalDriver, SignalValue } from './driver.ts';
import { Heartbeat } from './heartbeat.ts';
import type { SignalLogEntry } from './log.ts';
import { channelPoints, type ChannelPoint } from './points.ts';
import { StateChanges } from './state-changes.ts';
import { asBit, sameValue } from './values.ts';

export const SIGNAL_STATES = ['DISABLED', 'CONNECTING', 'ONLINE', 'STALE', 'OFFLINE'] as const;
type SignalChannelState = (typeof SIGNAL_STATES)[number];

const RECENT = 100;
const ERRORS = 20;

export interface SignalCounters {
  /** Value changes acted on. */
  changes: number;
  /** Values read again unchanged (nothing done). */
  repeats: number;
  /** What the warehouse said of the changes and arrivals (`ok`, `unknown-location`, `no-route`, …). */
  outcomes: Record<string, number>;
  arrivals: number;
  /** Writes of the arrival handshakes the PLC confirmed (targets, done bits); heartbeats apart. */
  writes: number;
  writeErrors: number;
  readErrors: number;
  /** A change whose warehouse effect failed (nothing kept). */
  effectErrors: number;
  /** Arrivals whose next location could not be written to the target, answered with the fallback instead. */
  targetFallbacks: number;
  /** Heartbeat counters written (and confirmed). */
  heartbeats: number;
  stateChanges: Record<SignalChannelState, number>;
}

interface SignalPointSnapshot {
  id: string;
  kind: ChannelPoint['config']['kind'];
  /** The watched address (an arrival: its trigger; a heartbeat: the PLC's life counter, or our counter when none is watched). */
  address: string;
  location?: string;
  group?: string;
  /** The last value read (a heartbeat without plcLife: the last counter written); null before the first. */
  value: SignalValue | null;
  /** When the value last changed. */
  at: string | null;
  errors: number;
  lastError: string | null;
}

export interface SignalChannelSnapshot {
  name: string;
  kind: 'signals';
  protocol: SignalChannelConfig['protocol'];
  enabled: boolean;
  state: SignalChannelState;
  since: string;
  /** What the driver connects to: an OPC UA endpoint, host:port, or the serial device. */
  endpoint: string;
  counters: SignalCounters;
  /** The driver's own counters (reads, writes, errors, reconnects, …). */
  driver: Record<string, number>;
  reconnects: number;
  points: SignalPointSnapshot[];
  /** The last 20 read and write errors, oldest first. */
  errors: { at: string; point: string | null; message: string }[];
  /** The last 100 changes and writes, oldest first. */
  recent: SignalLogEntry[];
}

type SignalChannelEvents = {
  state: [to: SignalChannelState, from: SignalChannelState, reason: string | undefined];
  logged: [SignalLogEntry];
};

interface SignalChannelOptions {
  config: SignalChannelConfig;
  log: Logger;
  /** The driver of the channel's protocol (plc/signals/drivers.ts loadDriver). */
  driver: (config: SignalChannelConfig) => Promise<SignalDriver>;
}

/** Per watched address: the last value and its errors. */
export interface Watched {
  point: ChannelPoint;
  role: 'value' | 'trigger' | 'plcLife';
  address: string;
  value: SignalValue | undefined;
  at: number | undefined;
  errors: number;
  lastError: string | undefined;
}

const zeroCounters = (): SignalCounters => ({
  changes: 0,
  repeats: 0,
  outcomes: {},
  arrivals: 0,
  writes: 0,
  writeErrors: 0,
  readErrors: 0,
  effectErrors: 0,
  targetFallbacks: 0,
  heartbeats: 0,
  stateChanges: Object.fromEntries(SIGNAL_STATES.map((s) => [s, 0])) as Record<SignalChannelState, number>,
});

function endpointOf(c: SignalChannelConfig): string {
  if (c.protocol === 'opcua') return c.endpoint!;
  if (c.protocol === 'modbus-tcp') return `${c.host}:${c.port} unit ${c.unitId}`;
  return `${c.device} ${c.baudRate} baud unit ${c.unitId}`;
}

export class SignalChannel extends EventEmitter<SignalChannelEvents> {
  readonly name: string;
  readonly config: SignalChannelConfig;
  readonly counters: SignalCounters = zeroCounters();
  readonly points: ChannelPoint[];
  private readonly log: Logger;
  private readonly watched = new Map<string, Watched>();
  private readonly arrivals = new Map<string, Arrival>();
  private readonly heartbeats: Heartbeat[] = [];
  private readonly reporter: Reporter;
  private readonly recentEntries: SignalLogEntry[] = [];
  private readonly recentErrors: SignalChannelSnapshot['errors'] = [];
  private driver: SignalDriver | undefined;
  /** The state points' changes of this turn, applied together (an arrival applies them before its decision). */
  readonly changes: StateChanges;
  private stopNaming: (() => void) | undefined;
  private driverState: DriverState = 'connecting';
  private stale = false;
  private current: SignalChannelState;
  private since = Date.now();
  private started = false;
  private stopped = false;

  private readonly options: SignalChannelOptions;

  constructor(options: SignalChannelOptions) {
    super();
    this.options = options;
    const { config } = options;
    this.name = config.name;
    this.config = config;
    this.log = options.log.child({ channel: config.name });
    this.reporter = { channel: config.name };
    this.points = channelPoints(config);
    for (const point of this.points) {
      for (const w of point.watched) {
        this.watched.set(w.id, { point, role: w.role, address: w.address, value: undefined, at: undefined, errors: 0, lastError: undefined });
      }
    }
    this.current = config.enabled ? 'CONNECTING' : 'DISABLED';
    this.changes = new StateChanges({ channel: this, log: this.log, reporter: this.reporter });
  }

  get state(): SignalChannelState {
    return this.current;
  }

  /**
   * Loads the protocol's driver and starts it (a disabled channel stays DISABLED).
   * Rejects when the driver cannot be loaded; a device that cannot be reached is tried
   * again in the background.
   */
  async start(operations: PlcOperations): Promise<void> {
    if (this.started) throw new Error(`signal channel ${this.name} already started`);
    this.started = true;
    if (!this.config.enabled) {
      this.log.info('signal channel disabled in the configuration');
      return;
    }
    const driver = await this.options.driver(this.config);
    if (this.stopped) return;
    this.driver = driver;
    this.changes.use(operations);
    this.stopNaming = operations.onNamed((place) => this.named(place));
    for (const point of this.points) {
      if (point.config.kind === 'arrival')
        this.arrivals.set(point.id, new Arrival({ point, driver, operations, channel: this, reporter: this.reporter, log: this.log }));
      if (point.config.kind === 'heartbeat') this.heartbeats.push(new Heartbeat({ point, driver, channel: this }));
    }
    driver.watch(this.points.flatMap((p) => p.watched.map(({ id, address, kind }) => ({ id, address, kind }))));
    await driver.start({
      onValue: (id, value) => this.value(id, value),
      onState: (state, detail) => this.driverStateChanged(state, detail),
      onError: (id, err) => {
        // A point's: a failed read or subscription (writes fail where they are made).
        if (id !== undefined) this.counters.readErrors++;
        this.error(id, err);
      },
    });
    for (const heartbeat of this.heartbeats) heartbeat.start();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.stopNaming?.();
    for (const heartbeat of this.heartbeats) heartbeat.stop();
    // What was read is applied, as OSIP answers what has arrived: a stop is not a crash.
    this.changes.applyPending();
    await Promise.all([...this.arrivals.values()].map((a) => a.settled()));
    await this.driver?.stop();
  }

  /** Online as far as the driver knows (heartbeats and handshakes write only then). */
  get online(): boolean {
    return this.driverState === 'online';
  }

  // ---- values --------------------------------------------------------------------------

  private value(id: string, value: SignalValue): void {
    const w = this.watched.get(id);
    if (!w || this.stopped) return;
    if (sameValue(w.value, value)) {
      this.counters.repeats++;
      return;
    }
    const before = w.value;
    w.value = value;
    w.at = Date.now();
    if (w.role === 'plcLife') {
      this.heartbeats.find((h) => h.point === w.point)?.lifeChanged();
      return;
    }
    this.counters.changes++;
    if (w.role === 'trigger') {
      this.arrivals.get(w.point.id)!.trigger(asBit(value), before === undefined ? undefined : asBit(before));
      return;
    }
    this.changes.queue({ w, value });
  }

  /** A location or group now exists under a name: the last value of each state point naming it is applied to it. */
  private named(place: NamedPlace): void {
    if (this.stopped) return;
    for (const point of this.points) {
      const p = point.config;
      const names =
        'location' in place
          ? (p.kind === 'plcState' || p.kind === 'inboundLock' || p.kind === 'outboundLock') && p.location === place.location
          : p.kind === 'groupState' && p.group === place.group;
      const w = names ? this.watched.get(point.id) : undefined;
      if (w?.value !== undefined) this.changes.queue({ w, value: w.value });
    }
  }

  // ---- for the arrival handshake and the heartbeat --------------------------------------

  outcome(outcome: string): void {
    this.counters.outcomes[outcome] = (this.counters.outcomes[outcome] ?? 0) + 1;
  }

  logged(entry: Omit<SignalLogEntry, 'at'>): void {
    const full: SignalLogEntry = { at: new Date().toISOString(), ...entry };
    this.recentEntries.push(full);
    if (this.recentEntries.length > RECENT) this.recentEntries.shift();
    this.emit('logged', full);
  }

  /** A failed read or write of a point (undefined: of the connection). */
  error(pointId: string | undefined, err: Error): void {
    const w = pointId === undefined ? undefined : this.watched.get(pointId);
    if (w) {
      w.errors++;
      w.lastError = err.message;
    }
    this.recentErrors.push({ at: new Date().toISOString(), point: pointId ?? null, message: err.message });
    if (this.recentErrors.length > ERRORS) this.recentErrors.shift();
    this.log.debug({ point: pointId, err: err.message }, 'signal channel: error');
  }

  /** The PLC's life counter stopped (or started again) changing. */
  setStale(stale: boolean): void {
    if (this.stale === stale) return;
    this.stale = stale;
    this.updateState(stale ? "the PLC's life counter stopped changing" : "the PLC's life counter changes again");
  }

  // ---- state ----------------------------------------------------------------------------

  private driverStateChanged(state: DriverState, detail: string | undefined): void {
    this.driverState = state;
    if (state !== 'online') this.stale = false;
    if (state === 'online') for (const heartbeat of this.heartbeats) heartbeat.online();
    this.updateState(detail);
  }

  private updateState(reason: string | undefined): void {
    const to: SignalChannelState =
      this.driverState === 'online' ? (this.stale ? 'STALE' : 'ONLINE') : this.driverState === 'offline' ? 'OFFLINE' : 'CONNECTING';
    if (to === this.current || this.stopped) return;
    const from = this.current;
    this.current = to;
    this.since = Date.now();
    this.counters.stateChanges[to]++;
    const level = to === 'ONLINE' ? 'info' : 'warn';
    this.log[level]({ state: to, from, reason }, `signal channel ${to}`);
    this.emit('state', to, from, reason);
  }

  snapshot(): SignalChannelSnapshot {
    const driver = this.driver?.counters() ?? {};
    return {
      name: this.name,
      kind: 'signals',
      protocol: this.config.protocol,
      enabled: this.config.enabled,
      state: this.current,
      since: new Date(this.since).toISOString(),
      endpoint: endpointOf(this.config),
      counters: structuredClone(this.counters),
      driver,
      reconnects: driver.reconnects ?? 0,
      points: this.points.map((point) => pointSnapshot(point, this.watched, this.arrivals, this.heartbeats)),
      errors: [...this.recentErrors],
      recent: [...this.recentEntries],
    };
  }
}

/** A point as the diagnostics show it: its watched address's value and the errors of its handshake or heartbeat too. */
function pointSnapshot(point: ChannelPoint, watched: Map<string, Watched>, arrivals: Map<string, Arrival>, heartbeats: Heartbeat[]): SignalPointSnapshot {
  const p = point.config;
  const w = point.watched.length > 0 ? watched.get(point.watched[0]!.id) : undefined;
  const heartbeat = heartbeats.find((h) => h.point === point);
  const value = w ? (w.value ?? null) : (heartbeat?.lastWritten ?? null);
  return {
    id: point.id,
    kind: p.kind,
    address: w?.address ?? point.counter?.address ?? '',
    ...('location' in p ? { location: p.location } : {}),
    ...('group' in p ? { group: p.group } : {}),
    value,
    at: w?.at === undefined ? null : new Date(w.at).toISOString(),
    errors: (w?.errors ?? 0) + (arrivals.get(point.id)?.errors ?? 0) + (heartbeat?.errors ?? 0),
    lastError: w?.lastError ?? arrivals.get(point.id)?.lastError ?? heartbeat?.lastError ?? null,
  };
}
