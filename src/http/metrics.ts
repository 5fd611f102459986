import client from 'prom-client';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import { HttpMetrics } from './metrics/http.ts';
import { HTTP_THREAD_LAG_NAME, LAG_NAME, RuntimeMetrics } from './metrics/runtime.ts';
import type { Thread } from './router.ts';
import { StorageMetrics, type DatabaseFiles } from './metrics/storage.ts';

// What integrators scrape at `GET /metrics` (Prometheus text format). Here: HTTP
// requests, the process and its event loop, the database files and commits (one part
// per file in ./metrics). The modules add their own to the same registry (their
// definition's `metrics`): the PLC channels, event streams, alarms, the hub link. Every
// metric, its labels and what to alert on: docs/metrics.md.

export { HttpMetrics } from './metrics/http.ts';

interface MetricSources {
  databases: DatabaseFiles;
  /** The unit of work, told to time each commit. */
  work: Pick<UnitOfWork, 'observeCommits' | 'after'>;
  /**
   * What this thread measures (docs/realtime.md): the conveyor thread the process, the
   * database and the modules' state; the thread that serves requests (`edge`) the
   * requests and the event streams. Each has its own event-loop lag.
   */
  thread: Thread;
  edge: boolean;
  /** On the HTTP thread: the conveyor thread's metrics, joined with these at a scrape. */
  conveyor?: (() => Promise<client.MetricObjectWithValues<client.MetricValue<string>>[]>) | undefined;
}

export class Metrics {
  readonly registry = new client.Registry();
  /** Counts answered requests (http/server.ts); on the edge thread. */
  readonly http: HttpMetrics | undefined;
  private readonly runtime: RuntimeMetrics;
  private readonly sources: MetricSources;

  constructor(sources: MetricSources) {
    this.sources = sources;
    const conveyor = sources.thread === 'conveyor';
    this.runtime = new RuntimeMetrics(this.registry, { process: conveyor, lagName: conveyor ? LAG_NAME : HTTP_THREAD_LAG_NAME });
    this.http = sources.edge ? new HttpMetrics(this.registry) : undefined;
    if (conveyor) sources.work.observeCommits(new StorageMetrics(this.registry, sources.databases, () => sources.work.after.flushStats()).commit);
  }

  /** The exposition text and its content type: this thread's metrics, and the conveyor thread's when this is the HTTP thread. */
  async render(): Promise<{ text: string; type: string }> {
    const { conveyor } = this.sources;
    if (!conveyor) return { text: await this.registry.metrics(), type: this.registry.contentType };
    const [mine, theirs] = await Promise.all([this.registry.getMetricsAsJSON(), conveyor()]);
    // No metric is measured on both threads: joining them is laying them side by side.
    const joined = client.AggregatorRegistry.aggregate([theirs, mine]);
    return { text: await joined.metrics(), type: this.registry.contentType };
  }

  /** Starts sampling the event loop (the appliance has started). */
  start(): void {
    this.runtime.start();
  }

  /** Stops sampling the event loop and timing commits (the appliance stops). */
  stop(): void {
    this.runtime.stop();
    if (this.sources.thread === 'conveyor') this.sources.work.observeCommits(undefined);
  }
}
