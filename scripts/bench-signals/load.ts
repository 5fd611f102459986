// The loads of the signal benchmark, both open loop on a fixed schedule:
//
// - Changes: the plcState words, round robin, each change a new value: an error code
//   (1, 2, 3, … per word) and back to 0, as a segment's error word goes. A change is
//   known by its word, value and the value before (the code it clears), so that what the
//   appliance's event stream or the bare client reports is matched to the exact change.
// - Arrivals: a unit at a scanner: its barcode in the barcode signal, the trigger raised;
//   the scanner is busy until the host has written target and done, the trigger has
//   fallen and the host has cleared done. An arrival that finds every scanner busy waits
//   for the next free one (counted: the rate was not sustained then).

import { FALLBACK, hopOf, type SignalSet } from './layout.ts';
import { epochNow, type BenchPlc, type ReadSeen, type WriteSeen } from './plc.ts';

/** The value at quantile q of a sorted list. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Calls `fire(n)` for n = 0 … rate·seconds − 1 at its time; a late timer fires the backlog at once. Resolves with the span. */
function schedule(rate: number, seconds: number, fire: (n: number, dueAt: number) => void): Promise<number> {
  const interval = 1000 / rate;
  const total = Math.round(rate * seconds);
  const start = performance.now();
  let next = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * interval <= now) {
        fire(next, performance.timeOrigin + start + next * interval);
        next++;
      }
      if (next >= total) return resolve(performance.now() - start + interval);
      setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
    };
    tick();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- changes ---------------------------------------------------------------------------------

const changeKey = (word: number, value: number, from: number) => (value === 0 ? `${word}:0/${from}` : `${word}:${value}`);

interface Change {
  phase: number;
  at: number;
  seen?: number;
  /** The appliance's own time of the change (its event's `at`, whole milliseconds). */
  madeAt?: number;
}

export interface ChangeResult {
  sent: number;
  /** Changes per second over the schedule. */
  rate: number;
  /** Sorted, ms: change made → seen. */
  latencies: number[];
  /** Sorted, ms, where the appliance said when it made the change: change → its event's `at`, and `at` → seen. */
  toEvent: number[];
  eventToSeen: number[];
  /** Never seen (within the drain). */
  missed: number;
  /** Seen but matching no change of this phase (or seen twice). */
  unexpected: number;
  /** Late sends of the schedule, p99 ms. */
  lagP99: number;
}

/** The plcState words of one signal set, changed on schedule; observations matched to changes. */
export class Words {
  private readonly plc: BenchPlc;
  private readonly set: SignalSet;
  private readonly values: number[];
  private readonly codes: number[];
  private readonly changes = new Map<string, Change>();
  private phase = 0;
  private unexpected = 0;
  private cursor = 0;

  constructor(plc: BenchPlc, set: SignalSet, words: number) {
    this.plc = plc;
    this.set = set;
    this.values = Array.from({ length: words }, () => 0);
    this.codes = Array.from({ length: words }, () => 0);
  }

  /** The value the word holds now (to tell a superseded value from a wrong one). */
  current(word: number): number {
    return this.values[word]!;
  }

  /** What a client saw (`from`: the value before, as it saw it; `madeAt`: the appliance's event time). */
  seen(word: number, value: number, from: number, at: number, madeAt?: number): void {
    const change = this.changes.get(changeKey(word, value, from));
    if (!change || change.seen !== undefined || change.phase !== this.phase) {
      this.unexpected++;
      return;
    }
    change.seen = at;
    change.madeAt = madeAt;
  }

  async run(rate: number, seconds: number, drainMs = 3000): Promise<ChangeResult> {
    const phase = ++this.phase;
    this.unexpected = 0;
    const lags: number[] = [];
    let sent = 0;
    const span = await schedule(rate, seconds, (_n, dueAt) => {
      const word = this.cursor++ % this.values.length;
      const from = this.values[word]!;
      const value = from === 0 ? (this.codes[word] = (this.codes[word]! % 9999) + 1) : 0;
      const at = epochNow();
      this.plc.setWord(this.set, word, value);
      this.values[word] = value;
      this.changes.set(changeKey(word, value, from), { phase, at });
      lags.push(at - dueAt);
      sent++;
    });
    const mine = () => [...this.changes.values()].filter((c) => c.phase === phase);
    const deadline = Date.now() + drainMs;
    while (Date.now() < deadline && mine().some((c) => c.seen === undefined)) await sleep(50);
    const changes = mine();
    const seen = changes.filter((c) => c.seen !== undefined);
    const made = seen.filter((c) => c.madeAt !== undefined);
    const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
    for (const [key, c] of this.changes) if (c.phase === phase) this.changes.delete(key);
    // Seen after the drain: counted as unexpected in the next phase (none expected).
    this.phase++;
    return {
      sent,
      rate: sent / (span / 1000),
      latencies: sorted(seen.map((c) => c.seen! - c.at)),
      toEvent: sorted(made.map((c) => c.madeAt! - c.at)),
      eventToSeen: sorted(made.map((c) => c.seen! - c.madeAt!)),
      missed: changes.filter((c) => c.seen === undefined).length,
      unexpected: this.unexpected,
      lagP99: quantile(
        lags.sort((a, b) => a - b),
        0.99,
      ),
    };
  }
}

// ---- arrivals --------------------------------------------------------------------------------

type ScannerState =
  | { kind: 'idle' }
  | { kind: 'raised'; at: number; unit: number; readAt?: number | undefined; target?: number | undefined }
  | { kind: 'lowering'; unit: number };

export interface ArrivalResult {
  /** Triggers raised. */
  raised: number;
  /** Arrivals per second over the schedule (raised / span). */
  rate: number;
  /** Sorted, ms: trigger raised → target written. */
  latencies: number[];
  /** Sorted, ms: trigger raised → the host read the barcode (it saw the trigger). */
  toRead: number[];
  /** Sorted, ms: barcode read → target written (the decision and one write). */
  readToTarget: number[];
  /** Target = the scanner's hop. */
  ok: number;
  /** Target = the fallback (no routing decision). */
  fallbacks: number;
  /** A wrong target, a write without a handshake, done without a target, no target within the drain. */
  errors: string[];
  /** Arrivals that found every scanner busy, and their longest wait (ms). */
  waited: number;
  maxWaitMs: number;
  /** Late triggers of the schedule (timer), p99 ms. */
  lagP99: number;
}

/** The scanners of one signal set: arrivals on schedule, the handshake followed through the PLC's writes. */
export class Scanners {
  private readonly plc: BenchPlc;
  private readonly set: SignalSet;
  private readonly barcodes: string[];
  private readonly states: ScannerState[];
  /** Free scanners, the longest free first. */
  private readonly free: number[];
  private readonly unitBusy: boolean[];
  private unitCursor = 0;
  /** Arrivals due and not yet at a scanner: when each was due, and whether it found every scanner busy. */
  private pending: { dueAt: number; queued: boolean }[] = [];
  private result: ArrivalResult | undefined;
  private waits: number[] = [];

  constructor(plc: BenchPlc, set: SignalSet, scanners: number, barcodes: string[]) {
    this.plc = plc;
    this.set = set;
    this.barcodes = barcodes;
    this.states = Array.from({ length: scanners }, () => ({ kind: 'idle' }));
    this.free = Array.from({ length: scanners }, (_, i) => i);
    this.unitBusy = barcodes.map(() => false);
  }

  /** The host read a scanner's barcode: the first read of a handshake tells when it saw the trigger. */
  barcodeRead(r: ReadSeen): void {
    const state = this.states[r.scanner]!;
    if (state.kind === 'raised' && state.readAt === undefined) state.readAt = r.at;
  }

  /** A write the PLC took to one of this set's targets or done signals. */
  written(w: WriteSeen): void {
    const r = this.result;
    const state = this.states[w.scanner]!;
    if (w.role === 'target') {
      if (state.kind !== 'raised' || state.target !== undefined) {
        r?.errors.push(`scanner ${w.scanner + 1}: target ${String(w.value)} written outside a handshake`);
        return;
      }
      state.target = w.value as number;
      if (!r) return;
      r.latencies.push(w.at - state.at);
      if (state.readAt !== undefined) {
        r.toRead.push(state.readAt - state.at);
        r.readToTarget.push(w.at - state.readAt);
      }
      if (w.value === hopOf(w.scanner)) r.ok++;
      else if (w.value === FALLBACK) r.fallbacks++;
      else r.errors.push(`scanner ${w.scanner + 1}: target ${String(w.value)}, expected ${hopOf(w.scanner)}`);
      return;
    }
    if (w.value === true && state.kind === 'raised') {
      if (state.target === undefined) r?.errors.push(`scanner ${w.scanner + 1}: done without a target`);
      // The PLC has read the target: the trigger falls.
      this.states[w.scanner] = { kind: 'lowering', unit: state.unit };
      this.plc.setTrigger(this.set, w.scanner, false);
    } else if (w.value === false && state.kind === 'lowering') {
      this.unitBusy[state.unit] = false;
      this.states[w.scanner] = { kind: 'idle' };
      this.free.push(w.scanner);
      this.dispatch();
    }
  }

  async run(rate: number, seconds: number, drainMs = 10_000): Promise<ArrivalResult> {
    const r: ArrivalResult = (this.result = {
      raised: 0,
      rate: 0,
      latencies: [],
      toRead: [],
      readToTarget: [],
      ok: 0,
      fallbacks: 0,
      errors: [],
      waited: 0,
      maxWaitMs: 0,
      lagP99: 0,
    });
    this.waits = [];
    const lags: number[] = [];
    const span = await schedule(rate, seconds, (_n, dueAt) => {
      lags.push(epochNow() - dueAt);
      this.pending.push({ dueAt, queued: this.free.length === 0 });
      this.dispatch();
    });
    const raisedInSpan = r.raised;
    const deadline = Date.now() + drainMs;
    while (Date.now() < deadline && (this.pending.length > 0 || this.states.some((s) => s.kind !== 'idle'))) await sleep(20);
    this.states.forEach((s, i) => {
      if (s.kind === 'raised' && s.target === undefined) r.errors.push(`scanner ${i + 1}: no target within ${drainMs} ms of the end`);
      else if (s.kind !== 'idle') r.errors.push(`scanner ${i + 1}: handshake not through (${s.kind}) within ${drainMs} ms of the end`);
    });
    if (this.pending.length > 0) r.errors.push(`${this.pending.length} arrivals never found a free scanner`);
    this.pending = [];
    this.result = undefined;
    r.rate = raisedInSpan / (span / 1000);
    for (const xs of [r.latencies, r.toRead, r.readToTarget]) xs.sort((a, b) => a - b);
    r.waited = this.waits.length;
    r.maxWaitMs = this.waits.length ? Math.max(...this.waits) : 0;
    r.lagP99 = quantile(
      lags.sort((a, b) => a - b),
      0.99,
    );
    return r;
  }

  private dispatch(): void {
    while (this.pending.length > 0 && this.free.length > 0) {
      const { dueAt, queued } = this.pending.shift()!;
      const scanner = this.free.shift()!;
      const unit = this.nextUnit();
      this.plc.setBarcode(this.set, scanner, this.barcodes[unit]!);
      const at = epochNow();
      if (queued) this.waits.push(at - dueAt);
      this.states[scanner] = { kind: 'raised', at, unit };
      this.plc.setTrigger(this.set, scanner, true);
      if (this.result) this.result.raised++;
    }
  }

  private nextUnit(): number {
    for (let i = 0; i < this.barcodes.length; i++) {
      const unit = this.unitCursor++ % this.barcodes.length;
      if (!this.unitBusy[unit]) {
        this.unitBusy[unit] = true;
        return unit;
      }
    }
    throw new Error('every unit is at a scanner');
  }
}
