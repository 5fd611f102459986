import type { Logger } from '../../src/core/log.ts';
import type { PlcOperations, Reporter, UnitOutcome } from '../port.ts';
import type { SignalChannel } from './channel.ts';
import type { SignalDriver, SignalValue } from './driver.ts';
import type { ChannelPoint } from './points.ts';
import { sameValue, scannedBarcode } from './values.ts';

// The scanner handshake of an `arrival` point (docs/plc.md, "The arrival handshake"):
//
//   PLC: trigger 0 → 1            the unit stands at the scanner, its barcode is in `barcode`
//   host: read barcode → unitArrived (book it there, settle its orders, the routing decision)
//   host: write target            the next location's PLC code (or coordinate); the fallback
//                                 on a no-read, an unknown unit or no next location, and
//                                 when the next location cannot be written (a PLC code that
//                                 does not fit the target, or a write the device refuses)
//   host: write done = 1          the PLC may read target
//   PLC: trigger 1 → 0            it has read target
//   host: write done = 0          ready for the next unit
//
// One handshake at a time per point: a trigger that falls while the host is still at it
// is answered once the handshake is through. The PLC always gets an answer it can act on
// while the device takes writes: a target that cannot be written gives way to the
// fallback (counted as `targetFallbacks`, logged with the reason), never to silence and
// the PLC's own timeout.

interface ArrivalOptions {
  point: ChannelPoint;
  driver: SignalDriver;
  operations: PlcOperations;
  channel: SignalChannel;
  reporter: Reporter;
  /** The channel's log. */
  log: Logger;
}

/** What is written to the target, and why it is not the next location (when it is not). */
interface Target {
  value: SignalValue;
  /** Set when the next location could not be given: the fallback is written instead. */
  notWritable?: string;
}

type WriteExtra = { barcode?: string | undefined; order?: string | undefined; latencyMs?: number };

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
    channel.changes.applyPending();
    try {
      outcome = operations.unitArrived({ coordinate: p.location }, barcode === undefined ? undefined : { barcode }, {
        ...reporter,
        said: `arrival ${p.barcode}=${raw === undefined ? '' : String(raw)}`,
      });
    } catch (err) {
      channel.counters.effectErrors++;
      this.failed(err as Error, 'effect');
      outcome = { outcome: 'failed' };
    }
    channel.outcome(outcome.outcome);
    const facts = outcome.facts ?? {};
    channel.logged({
      direction: 'in',
      point: `${point.id}.barcode`,
      address: p.barcode,
      value: raw ?? '',
      outcome: outcome.outcome,
      barcode: facts.barcode ?? barcode,
      location: facts.location ?? p.location,
      order: facts.order,
    });
    const extra = { barcode: facts.barcode ?? barcode, order: facts.order };
    // Decided on the state of this booking; given to the PLC once the booking is on disk.
    const target = this.targetValue(outcome.next?.location);
    await new Promise<void>((resolve) => operations.afterFlush(resolve));
    let notWritable = target.notWritable;
    if (notWritable === undefined) {
      const failure = await this.write('target', target.value, { ...extra, latencyMs: since(triggeredAt) });
      if (failure === undefined) {
        await this.write('done', true);
        return;
      }
      // The fallback itself refused: nothing else the PLC could be given.
      if (sameValue(target.value, this.fallback())) return;
      notWritable = `writing it failed: ${failure.message}`;
    } else {
      this.failed(new Error(notWritable), 'effect');
    }
    channel.counters.targetFallbacks++;
    this.o.log.warn(
      {
        point: point.id,
        address: p.target,
        next: outcome.next?.location,
        target: target.value,
        fallback: this.fallback(),
        barcode: extra.barcode,
        reason: notWritable,
      },
      "signal channel: an arrival's target cannot be written; the fallback is written instead",
    );
    if ((await this.write('target', this.fallback(), { ...extra, latencyMs: since(triggeredAt) })) === undefined) await this.write('done', true);
  }

  /** The point's fallback: as configured, else 0 for a number target and the empty text for a text one. */
  private fallback(): SignalValue {
    const p = this.o.point.config;
    if (p.kind !== 'arrival') throw new Error('not an arrival point');
    return p.fallback ?? (this.o.point.target!.kind !== 'string' ? 0 : '');
  }

  /** What `target` gets: the next location as configured, or the fallback (with the reason when there was a next location). */
  private targetValue(next: string | undefined): Target {
    const p = this.o.point.config;
    if (p.kind !== 'arrival') throw new Error('not an arrival point');
    if (next === undefined) return { value: this.fallback() };
    const name = p.targetAs === 'plcCode' ? (this.o.operations.plcCodeOf(next) ?? next) : next;
    const kind = this.o.point.target!.kind;
    if (kind === 'string') return { value: name };
    if (/^\d{1,10}$/.test(name) && Number(name) <= (kind === 'word' ? 0xffff : 0xffffffff)) return { value: Number(name) };
    return { value: name, notWritable: `the next location ${next} has no PLC code that fits a number target (${name})` };
  }

  /** Writes a role's value and logs it in the signal log; resolves to the failure, or undefined once the device confirmed it. */
  private async write(role: 'target' | 'done', value: SignalValue, extra: WriteExtra = {}): Promise<Error | undefined> {
    const { point, driver, channel } = this.o;
    const access = point[role]!;
    try {
      await driver.write(access.address, access.kind, value);
      channel.counters.writes++;
      channel.logged({ direction: 'out', point: `${point.id}.${role}`, address: access.address, value, outcome: 'written', ...extra });
      return undefined;
    } catch (err) {
      channel.counters.writeErrors++;
      this.failed(err as Error, 'write');
      channel.logged({ direction: 'out', point: `${point.id}.${role}`, address: access.address, value, outcome: 'write-failed', ...extra });
      return err as Error;
    }
  }

  private failed(err: Error, what: 'read' | 'write' | 'effect'): void {
    this.errors++;
    this.lastError = err.message;
    if (what === 'read') this.o.channel.counters.readErrors++;
    this.o.channel.error(this.o.point.id, err);
  }
}

/** Milliseconds since `start` (performance.now()), to a hundredth. */
const since = (start: number) => Math.round((performance.now() - start) * 100) / 100;
