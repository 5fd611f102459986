import { EventEmitter } from 'node:events';
import type { Layout, Signal, Value } from './layout.ts';

// The simulated PLC's memory in signal terms: one value per signal of the layout. The
// protocol servers read it when the appliance reads and report the appliance's writes
// into it; the handshake driver changes it as the PLC program would. Every write is an
// event, whoever made it, so the command line can print it.

export interface Write {
  signal: Signal;
  value: Value;
  before: Value;
  /** The appliance (over the protocol) or the simulator itself. */
  by: 'appliance' | 'simulator';
}

/** A write of the appliance to an address no signal of the layout lives at. */
interface StrayWrite {
  address: string;
  value: Value;
}

export class PlcMemory extends EventEmitter<{ write: [Write]; stray: [StrayWrite] }> {
  private readonly values = new Map<Signal, Value>();
  /** Waits under way: close() ends them, so that nothing keeps the process after the end. */
  private readonly waits = new Set<(err: Error) => void>();

  constructor(layout: Layout) {
    super();
    for (const s of layout.signals) this.values.set(s, s.initial);
  }

  get(signal: Signal): Value {
    return this.values.get(signal)!;
  }

  /** A change the simulated PLC makes. */
  set(signal: Signal, value: Value): void {
    this.store(signal, value, 'simulator');
  }

  /** A write the appliance made over the protocol (reported by the server). */
  written(signal: Signal, value: Value): void {
    this.store(signal, value, 'appliance');
  }

  stray(address: string, value: Value): void {
    this.emit('stray', { address, value });
  }

  /** Resolves once `check` holds for the signal's value (at once when it does already); rejects after `timeoutMs` with `<what> within N ms`. */
  until(signal: Signal, check: (v: Value) => boolean, timeoutMs: number, what: string): Promise<Value> {
    const now = this.get(signal);
    if (check(now)) return Promise.resolve(now);
    return this.next((w) => w.signal === signal && check(w.value), timeoutMs, what).then((w) => w.value);
  }

  /** The next write that matches; rejects after `timeoutMs` with `<what> within N ms`. */
  next(match: (w: Write) => boolean, timeoutMs: number, what: string): Promise<Write> {
    return new Promise((resolve, reject) => {
      const end = (err?: Error, w?: Write) => {
        clearTimeout(timer);
        this.off('write', onWrite);
        this.waits.delete(end);
        if (err) reject(err);
        else resolve(w!);
      };
      const onWrite = (w: Write) => {
        if (match(w)) end(undefined, w);
      };
      const timer = setTimeout(() => end(new Error(`${what} within ${timeoutMs} ms`)), timeoutMs);
      this.on('write', onWrite);
      this.waits.add(end);
    });
  }

  /** Ends every wait under way: the simulator stops. */
  close(): void {
    for (const end of [...this.waits]) end(new Error('the simulator stopped'));
  }

  private store(signal: Signal, value: Value, by: Write['by']): void {
    const before = this.get(signal);
    this.values.set(signal, value);
    this.emit('write', { signal, value, before, by });
  }
}
