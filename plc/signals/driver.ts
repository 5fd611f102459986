// plc/signals/driver.ts — the seam between a signal channel and its protocol (exactly this; add only optional members)
export type SignalValue = number | boolean | string;

/** How a point's raw value is read: a bit (boolean), a 16-bit word, a 32-bit double word, or text (a barcode). */
export type SignalKind = 'bit' | 'word' | 'dword' | 'string';

export interface WatchedPoint {
  /** The channel's id of the point (unique within the channel). */
  id: string;
  /** Protocol address as configured: an OPC UA node id (`ns=3;s=Conv.C1.Error`) or a Modbus address (`hr:100`, `coil:7`, `hr:12.3` for bit 3). */
  address: string;
  kind: SignalKind;
}

export type DriverState = 'connecting' | 'online' | 'offline';

export interface DriverHandlers {
  /** A watched point's value as read or reported; the driver may repeat a value (the channel acts only on changes). */
  onValue(pointId: string, value: SignalValue): void;
  onState(state: DriverState, detail?: string): void;
  /** A failed read, subscription or write of a point (undefined: of the connection). */
  onError(pointId: string | undefined, err: Error): void;
}

export interface SignalDriver {
  /** The points to watch (subscribe or poll). Called once, before start. */
  watch(points: readonly WatchedPoint[]): void;
  /** Connects, and reconnects (and re-subscribes) by itself until stop(). Resolves once the first attempt is under way. */
  start(handlers: DriverHandlers): Promise<void>;
  /** Reads one address now. */
  read(address: string, kind: SignalKind): Promise<SignalValue>;
  /** Writes one address and resolves once the device confirmed it. */
  write(address: string, kind: SignalKind, value: SignalValue): Promise<void>;
  stop(): Promise<void>;
  /** Counters for diagnostics (reads, writes, errors, reconnects, …). */
  counters(): Record<string, number>;
}
