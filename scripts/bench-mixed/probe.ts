// What the mixed-load benchmark watches while the loads run, from the main process:
// - a /readyz probe every 50 ms (open loop, one more socket when the last one has not
//   been answered; bench:replay asks /healthz): its latency is how long any small
//   request waits for the one thread that answers the PLCs and the API;
// - the appliance's own event-loop lag, `wms_event_loop_lag_seconds` from GET /metrics
//   (each scrape starts its window afresh, so one scrape before a phase and one after);
// - the appliance's resident memory every 100 ms (/proc/<pid>/status);
// - cold start: spawn → first 200 on /readyz, polled every few milliseconds.

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { rssMb } from '../bench-plc/appliance.ts';
import { freePort } from '../../test/support/ports.ts';

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);

export interface Spread {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: quantile(sorted, 1) };
}

interface Probe {
  sentAt: number;
  ms?: number;
  failed?: string;
}

export class ReadyProbe {
  private readonly probes: Probe[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly agent = new http.Agent({ keepAlive: true });

  /** `url()` is read per probe: the appliance may have been started anew meanwhile. `path`: what is asked (`/healthz` needs no database). */
  start(url: () => string, everyMs = 50, path = '/readyz'): void {
    this.timer = setInterval(() => {
      const probe: Probe = { sentAt: performance.now() };
      this.probes.push(probe);
      const req = http.get(`${url()}${path}`, { agent: this.agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) probe.ms = performance.now() - probe.sentAt;
          else probe.failed = `status ${res.statusCode}`;
        });
      });
      req.on('error', (err) => (probe.failed = err.message));
      req.setTimeout(120_000, () => req.destroy(new Error('no answer in 120 s')));
    }, everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.agent.destroy();
  }

  /**
   * Probes sent between `from` and `to` (performance.now()): latencies of the answered
   * ones; one still waiting counts with the time it has waited so far.
   */
  between(from: number, to: number): Spread & { failed: number; waiting: number } {
    const now = performance.now();
    const within = this.probes.filter((p) => p.sentAt >= from && p.sentAt < to);
    const waiting = within.filter((p) => p.ms === undefined && p.failed === undefined);
    return {
      ...spread(within.filter((p) => p.failed === undefined).map((p) => p.ms ?? now - p.sentAt)),
      failed: within.filter((p) => p.failed !== undefined).length,
      waiting: waiting.length,
    };
  }
}

export class RssSampler {
  readonly samples: { at: number; mb: number }[] = [];
  private timer: NodeJS.Timeout | undefined;

  start(pid: () => number | undefined, everyMs = 100): void {
    this.timer = setInterval(() => {
      const mb = rssMbOf(pid());
      if (mb !== undefined) this.samples.push({ at: performance.now(), mb });
    }, everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The last sample at or before `at`, and the highest between `from` and `to`. */
  at(at: number): number | undefined {
    let found: number | undefined;
    for (const s of this.samples) if (s.at <= at) found = s.mb;
    return found;
  }

  peak(from: number, to: number): number | undefined {
    const within = this.samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.mb);
    return within.length ? Math.max(...within) : undefined;
  }
}

/** RSS in MB, undefined once the process is gone. */
export function rssMbOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return rssMb(pid);
  } catch {
    return undefined;
  }
}

export interface Lag {
  p50: number;
  p99: number;
  max: number;
}

/** What a scrape of GET /metrics tells: the conveyor thread's event-loop lag since the previous scrape (ms), its commits so far. */
export interface Scrape {
  lag: Lag;
  /** Units of work committed since the start (`wms_db_commit_duration_seconds_count`) and the seconds they took. */
  commits: number;
  commitSeconds: number;
  /** Flushes of the write-ahead log by the flush thread (`wms_db_flushes_total`) and their seconds; 0 when each commit flushes itself, NaN from a build without them. */
  flushes: number;
  flushSeconds: number;
}

/** The commits between two scrapes: how many a second, and their mean time (ms). */
export interface Commits {
  perSecond: number;
  meanMs: number;
  /** The flushes that covered them: how many a second (0 or NaN: none by a flush thread), and their mean time (ms). */
  flushesPerSecond: number;
  flushMeanMs: number;
}

export async function scrape(url: string, token: string): Promise<Scrape> {
  const reply = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
  const text = await reply.text();
  if (!reply.ok) throw new Error(`GET /metrics: ${reply.status} ${text.slice(0, 200)}`);
  const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const q = (quantile: string) => 1000 * value(`wms_event_loop_lag_seconds{quantile="${quantile}"}`);
  return {
    lag: { p50: q('0.5'), p99: q('0.99'), max: q('1') },
    commits: value('wms_db_commit_duration_seconds_count'),
    commitSeconds: value('wms_db_commit_duration_seconds_sum'),
    flushes: value('wms_db_flushes_total'),
    flushSeconds: value('wms_db_flush_seconds_total'),
  };
}

export function commitsBetween(before: Scrape, after: Scrape, seconds: number): Commits {
  const n = after.commits - before.commits;
  const f = after.flushes - before.flushes;
  return {
    perSecond: n / seconds,
    meanMs: n > 0 ? (1000 * (after.commitSeconds - before.commitSeconds)) / n : NaN,
    flushesPerSecond: f / seconds,
    flushMeanMs: f > 0 ? (1000 * (after.flushSeconds - before.flushSeconds)) / f : NaN,
  };
}

export { freePort };

/** ms from `since` (performance.now()) until GET /readyz on `port` first answers 200. */
export async function firstReady(port: number, since: number, timeoutMs = 120_000): Promise<number> {
  for (;;) {
    const status = await new Promise<number>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', () => resolve(0));
    });
    const elapsed = performance.now() - since;
    if (status === 200) return elapsed;
    if (elapsed > timeoutMs) throw new Error(`no 200 on /readyz within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
