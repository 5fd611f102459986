import client from 'prom-client';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import { HttpMetrics } from './metrics/http.ts';
import { RuntimeMetrics } from './metrics/runtime.ts';
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
  work: Pick<UnitOfWork, 'observeCommits'>;
}

export class Metrics {
  readonly registry = new client.Registry();
  /** Counts answered requests (http/server.ts). */
  readonly http: HttpMetrics;
  private readonly runtime: RuntimeMetrics;
  private readonly sources: MetricSources;

  constructor(sources: MetricSources) {
    this.sources = sources;
    this.runtime = new RuntimeMetrics(this.registry);
    this.http = new HttpMetrics(this.registry);
    sources.work.observeCommits(new StorageMetrics(this.registry, sources.databases).commit);
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ text: string; type: string }> {
    return { text: await this.registry.metrics(), type: this.registry.contentType };
  }

  /** Starts sampling the event loop (the appliance has started). */
  start(): void {
    this.runtime.start();
  }

  /** Stops sampling the event loop and timing commits (the appliance stops). */
  stop(): void {
    this.runtime.stop();
    this.sources.work.observeCommits(undefined);
  }
}
