import { monitorEventLoopDelay } from 'node:perf_hooks';
import client from 'prom-client';

// The process: Node's default figures (CPU, memory, handles, garbage collection) and
// the event-loop lag. One thread answers both the PLCs and the API: a loop that stalls
// delays every reply.
//
// The lag is sampled every LAG_RESOLUTION_MS and reported as p50, p99 and max of the
// samples since the previous scrape (the histogram starts afresh at each scrape), with
// the sampling interval taken off, so an idle loop shows about 0.

const LAG_RESOLUTION_MS = 20;
const LAG_QUANTILES = [['0.5', 50], ['0.99', 99], ['1', 100]] as const;

export class RuntimeMetrics {
  private readonly loop: ReturnType<typeof monitorEventLoopDelay>;

  constructor(registry: client.Registry) {
    // Node's own lag figures sampled every 100 ms, not every 10 ms (the default): an idle
    // edge box should sleep, and a stall long enough to matter still shows.
    client.collectDefaultMetrics({ register: registry, prefix: 'wms_', eventLoopMonitoringPrecision: 100 });
    const loop = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    this.loop = loop;
    new client.Gauge({
      name: 'wms_event_loop_lag_seconds',
      help: `Event-loop lag since the previous scrape: p50 (quantile 0.5), p99 (0.99) and max (1), sampled every ${LAG_RESOLUTION_MS} ms`,
      labelNames: ['quantile'],
      registers: [registry],
      collect() {
        for (const [quantile, percentile] of LAG_QUANTILES) {
          // A sample is the time between two timer ticks: the interval itself is no lag.
          const lag = loop.count === 0 ? 0 : Math.max(0, loop.percentile(percentile) / 1e6 - LAG_RESOLUTION_MS) / 1000;
          this.set({ quantile }, lag);
        }
        loop.reset();
      },
    });
  }

  /** Samples the event loop from now on. */
  start(): void {
    this.loop.enable();
  }

  stop(): void {
    this.loop.disable();
  }
}
