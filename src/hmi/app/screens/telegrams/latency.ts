import { signal } from '@preact/signals';
import type { Channel } from './channel.ts';

// REQ_ → RES_ latency: the milliseconds the telegram log gives each reply (`latencyMs`,
// from the REQ_'s arrival to the RES_'s write). A reply is late above the site's answer
// budget, `plc.lateAfterMs` (150 ms unless the site sets another: what the conveyor's
// PLC waits before the unit passes its diverter), which every channel's diagnostics
// carry (`lateAfterMs`). A user may look at the log with another threshold; it holds
// while the page stays open, and a reload shows the site's again, so no browser keeps
// judging by a budget the site no longer has.
//
// The chart's figures are computed here from the RES_ telegrams the page has read, per
// minute of the appliance's clock, over the last ten minutes: the nearest-rank p50 and
// p99 of each minute. A minute keeps at most SAMPLE_CAP latencies (a uniform sample of
// all it saw beyond that), so a busy channel costs bounded memory.

/** The user's own threshold for this page; undefined: the site's. */
const userLateMs = signal<number | undefined>(undefined);

export function setLateMs(value: number): void {
  if (!Number.isFinite(value) || value <= 0) return;
  userLateMs.value = value;
}

/** The threshold a channel's answers are judged by: the user's for this page, else the site's budget. */
export const lateThreshold = (channel: Pick<Channel, 'lateAfterMs'>): number => userLateMs.value ?? channel.lateAfterMs;

export const isLate = (latency: number | null, threshold: number): boolean => latency !== null && latency > threshold;

const CHART_MINUTES = 10;
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
