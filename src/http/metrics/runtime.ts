import { monitorEventLoopDelay } from 'node:perf_hooks';
import client from 'prom-client';

// The process: Node's default figures (CPU, memory, handles, garbage collection), and
// the event-loop lag of each thread: the conveyor thread's (PLC answers and writes; a
// loop that stalls there delays the conveyor) and the HTTP thread's (docs/realtime.md).
//
// The lag is sampled every LAG_RESOLUTION_MS, with the sampling interval taken off (an
// idle loop shows about 0), and reported as a summary: p50, p99 and max (quantile 1) of
// the samples since the previous scrape (the quantiles start afresh at each scrape),
// and the sum and count of every sample since the start, whose rates give the mean lag
// over any window whoever scrapes.

export const LAG_NAME = 'wms_event_loop_lag_seconds';
export const HTTP_THREAD_LAG_NAME = 'wms_http_thread_event_loop_lag_seconds';
const LAG_RESOLUTION_MS = 20;
const LAG_QUANTILES = [
  [0.5, 50],
  [0.99, 99],
  [1, 100],
] as const;

/**
 * Node's totals of active handles, requests and resources: each the sum of the series of
 * the same name by `type`, so a second series of the same figure (and gauges with a
 * counter's `_total` suffix, which Prometheus's lint refuses).
 */
const DUPLICATE_DEFAULTS = ['wms_nodejs_active_handles_total', 'wms_nodejs_active_requests_total', 'wms_nodejs_active_resources_total'];

type LoopDelay = ReturnType<typeof monitorEventLoopDelay>;

/** Milliseconds of lag of a sampled delay in nanoseconds: the time between two ticks less the interval itself. */
const lagMs = (delayNs: number) => Math.max(0, delayNs / 1e6 - LAG_RESOLUTION_MS);

/**
 * The lag as a Prometheus summary whose figures come from the loop's own histogram
 * (prom-client's Summary would need every sample handed to it, and the sampling timer
 * runs in libuv, not here).
 */
class LoopLagSummary extends client.Summary {
  private readonly loop: LoopDelay;
  private readonly metricName: string;
  private sumSeconds = 0;
  private count = 0;

  constructor(registry: client.Registry, loop: LoopDelay, name: string) {
    super({
      name,
      help: `${name === LAG_NAME ? 'Event-loop lag of the conveyor thread (PLC, writes)' : 'Event-loop lag of the HTTP thread'}, sampled every ${LAG_RESOLUTION_MS} ms: p50, p99 and max (quantile 1) since the previous scrape; sum and count of every sample since the start`,
      percentiles: LAG_QUANTILES.map(([quantile]) => quantile),
      registers: [registry],
    });
    this.loop = loop;
    this.metricName = name;
  }

  override async get(): Promise<client.MetricObjectWithValues<client.MetricValueWithName<string>>> {
    const shell = await super.get();
    const loop = this.loop;
    const quantiles = LAG_QUANTILES.map(([quantile, percentile]) => ({
      labels: { quantile },
      value: loop.count === 0 ? 0 : lagMs(loop.percentile(percentile)) / 1000,
    }));
    if (loop.count > 0) {
      this.count += loop.count;
      this.sumSeconds += (loop.count * lagMs(loop.mean)) / 1000;
    }
    loop.reset();
    return {
      ...shell,
      values: [
        ...quantiles,
        { metricName: `${this.metricName}_sum`, labels: {}, value: this.sumSeconds },
        { metricName: `${this.metricName}_count`, labels: {}, value: this.count },
      ],
    };
  }
}

export class RuntimeMetrics {
  private readonly loop: LoopDelay;

  /** `process`: Node's figures of the process (on one thread only); `lagName`: the metric of this thread's loop. */
  constructor(registry: client.Registry, options: { process: boolean; lagName: string }) {
    if (options.process) {
      // Node's own lag figures sampled every 100 ms, not every 10 ms (the default): an idle
      // edge box should sleep, and a stall long enough to matter still shows.
      client.collectDefaultMetrics({ register: registry, prefix: 'wms_', eventLoopMonitoringPrecision: 100 });
      for (const name of DUPLICATE_DEFAULTS) registry.removeSingleMetric(name);
    }
    this.loop = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    new LoopLagSummary(registry, this.loop, options.lagName);
  }

  /** Samples the event loop from now on. */
  start(): void {
    this.loop.enable();
  }

  stop(): void {
    this.loop.disable();
  }
}
