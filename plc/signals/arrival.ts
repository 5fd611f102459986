import type { PlcOperations, Reporter, UnitOutcome } from '../port.ts';
import type { SignalChannel } from './channel.ts';
import type { SignalDriver, SignalValue } from './driver.ts';
import type { ChannelPoint } from './points.ts';
import { scannedBarcode } from './values.ts';

// The scanner handshake of an `arrival` point (docs/plc.md, "The arrival handshake"):
//
//   PLC: trigger 0 → 1            the unit stands at the scanner, its barcode is in `barcode`
//   host: read barcode → unitArrived (book it there, settle its orders, the routing decision)
//   host: write target            the next location's PLC code (or coordinate); the fallback
//                                 on a no-read, an unknown unit or no next location
//   host: write done = 1          the PLC may read target
//   PLC: trigger 1 → 0            it has read target
//   host: write done = 0          ready for the next unit
//
// One handshake at a time per point: a trigger that falls while the host is still at it
// is answered once the handshake is through.

export interface ArrivalOptions {
  point: ChannelPoint;
  driver: SignalDriver;
  operations: PlcOperations;
  channel: SignalChannel;
  reporter: Reporter;
}

export class Arrival {
  errors = 0;
  lastError: string | undefined;
  private busy: Promise<void> = Promise.resolve();

  private readonly o: ArrivalOptions;

  constructor(options: ArrivalOptions) {
    this.o = options;
  }

  /** The trigger changed (`before` undefined: its first value since the start). */
  trigger(now: boolean, before: boolean | undefined): void {
    if (now) {
      const at = performance.now();
      this.busy = this.busy.then(() => this.handshake(at));
    } else if (before !== undefined) {
      this.busy = this.busy.then(async () => {
        await this.write('done', false);
      });
    }
  }

  /** Resolves once the handshake under way (if any) is through. */
  settled(): Promise<void> {
    return this.busy;
  }

  private async handshake(triggeredAt: number): Promise<void> {
    const { point, driver, operations, channel, reporter } = this.o;
    const p = point.config;
    if (p.kind !== 'arrival') return;
    channel.counters.arrivals++;
    let raw: SignalValue | undefined;
    try {
      raw = await driver.read(point.barcode!.address, 'string');
    } catch (err) {
      this.failed(err as Error, 'read');
    }
    const barcode = raw === undefined ? undefined : scannedBarcode(raw);
    let outcome: UnitOutcome | { outcome: string; next?: undefined; facts?: undefined };
    // The states read until now (a lock in the poll that brought the trigger) count for the decision.
    channel.applyPending();
    try {
      outcome = operations.unitArrived({ coordinate: p.location }, barcode === undefined ? undefined : { barcode }, { ...reporter, said: `arrival ${p.barcode}=${raw === undefined ? '' : String(raw)}` });
    } catch (err) {
      channel.counters.effectErrors++;
      this.failed(err as Error, 'effect');
      outcome = { outcome: 'failed' };
    }
    channel.outcome(outcome.outcome);
    const facts = outcome.facts ?? {};
    channel.logged({
      direction: 'in', point: `${point.id}.barcode`, address: p.barcode, value: raw ?? '', outcome: outcome.outcome,
      barcode: facts.barcode ?? barcode, location: facts.location ?? p.location, order: facts.order,
    });
    const target = this.targetValue(outcome.next?.location);
    const written = await this.write('target', target, { barcode: facts.barcode ?? barcode, order: facts.order, latencyMs: Math.round((performance.now() - triggeredAt) * 100) / 100 });
    if (written) await this.write('done', true);
  }

  /** What `target` gets: the next location as configured, or the fallback. */
  private targetValue(next: string | undefined): SignalValue {
    const p = this.o.point.config;
    if (p.kind !== 'arrival') throw new Error('not an arrival point');
    const numeric = this.o.point.target!.kind !== 'string';
    const fallback = p.fallback ?? (numeric ? 0 : '');
    if (next === undefined) return fallback;
    const name = p.targetAs === 'plcCode' ? (this.o.operations.plcCodeOf(next) ?? next) : next;
    if (!numeric) return name;
    if (/^\d{1,10}$/.test(name) && Number(name) <= (this.o.point.target!.kind === 'word' ? 0xffff : 0xffffffff)) return Number(name);
    this.failed(new Error(`the next location ${next} has no PLC code that fits a number target (${name}); the fallback is written`), 'effect');
    return fallback;
  }

  private async write(role: 'target' | 'done', value: SignalValue, extra: { barcode?: string | undefined; order?: string | undefined; latencyMs?: number } = {}): Promise<boolean> {
    const { point, driver, channel } = this.o;
    const access = point[role]!;
    try {
      await driver.write(access.address, access.kind, value);
      channel.counters.writes++;
      channel.logged({ direction: 'out', point: `${point.id}.${role}`, address: access.address, value, outcome: 'written', ...extra });
      return true;
    } catch (err) {
      channel.counters.writeErrors++;
      this.failed(err as Error, 'write');
      channel.logged({ direction: 'out', point: `${point.id}.${role}`, address: access.address, value, outcome: 'write-failed', ...extra });
      return false;
    }
  }

  private failed(err: Error, what: 'read' | 'write' | 'effect'): void {
    this.errors++;
    this.lastError = err.message;
    if (what === 'read') this.o.channel.counters.readErrors++;
    this.o.channel.error(this.o.point.id, err);
  }
}
