import { signal } from '@preact/signals';

// REQ_ → RES_ latency: the milliseconds the telegram log gives each reply (`latencyMs`,
// from the REQ_'s arrival to the RES_'s write). A reply is late above a threshold the
// user sets, 5 ms unless changed (the appliance's target for its answers: p99 ≤ 5 ms at
// 1,000 telegrams a second, BENCHMARKS.md; the conveyor's budget, 150–200 ms, is far
// above it), remembered by the browser.
//
// The chart's figures are computed here from the RES_ telegrams the page has read, per
// minute of the appliance's clock, over the last ten minutes: the nearest-rank p50 and
// p99 of each minute. A minute keeps at most SAMPLE_CAP latencies (a uniform sample of
// all it saw beyond that), so a busy channel costs bounded memory.

export const DEFAULT_LATE_MS = 5;
const LATE_KEY = 'wms.hmi.telegrams.lateMs';

function rememberedLate(): number {
  const value = Number(localStorage.getItem(LATE_KEY));
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_LATE_MS;
}

export const lateMs = signal<number>(rememberedLate());

export function setLateMs(value: number): void {
  if (!Number.isFinite(value) || value <= 0) return;
  lateMs.value = value;
  localStorage.setItem(LATE_KEY, String(value));
}

export const isLate = (latency: number | null, threshold: number): boolean => latency !== null && latency > threshold;

export const CHART_MINUTES = 10;
const SAMPLE_CAP = 5000;
const MINUTE = 60_000;

export interface MinuteFigures {
  /** Start of the minute (ms since the epoch, appliance's clock). */
  minute: number;
  count: number;
  p50?: number | undefined;
  p99?: number | undefined;
}

interface Bucket {
  samples: number[];
  seen: number;
}

/** Nearest rank: the smallest value with at least q of the values at or below it. */
export function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export class LatencyMinutes {
  private readonly buckets = new Map<number, Bucket>();

  add(at: string, latency: number): void {
    const minute = Math.floor(Date.parse(at) / MINUTE) * MINUTE;
    let bucket = this.buckets.get(minute);
    if (!bucket) {
      bucket = { samples: [], seen: 0 };
      this.buckets.set(minute, bucket);
    }
    bucket.seen++;
    if (bucket.samples.length < SAMPLE_CAP) bucket.samples.push(latency);
    else {
      // Reservoir sampling: every latency of the minute has the same chance to be kept.
      const slot = Math.floor(Math.random() * bucket.seen);
      if (slot < SAMPLE_CAP) bucket.samples[slot] = latency;
    }
  }

  /** The last CHART_MINUTES minutes up to the one of `now`, oldest first; older minutes are let go. */
  figures(now: number): MinuteFigures[] {
    const last = Math.floor(now / MINUTE) * MINUTE;
    const first = last - (CHART_MINUTES - 1) * MINUTE;
    for (const minute of this.buckets.keys()) if (minute < first) this.buckets.delete(minute);
    const out: MinuteFigures[] = [];
    for (let minute = first; minute <= last; minute += MINUTE) {
      const bucket = this.buckets.get(minute);
      if (!bucket) {
        out.push({ minute, count: 0 });
        continue;
      }
      const sorted = [...bucket.samples].sort((a, b) => a - b);
      out.push({ minute, count: bucket.seen, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) });
    }
    return out;
  }
}
