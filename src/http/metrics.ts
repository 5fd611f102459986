import client from 'prom-client';
import type { Channel } from '../../plc/channel.ts';
import type { SignalChannel } from '../../plc/signals/channel.ts';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import { activityMetrics, type ActivitySources } from './metrics/activity.ts';
import { HttpMetrics } from './metrics/http.ts';
import { PlcMetrics } from './metrics/plc.ts';
import { RuntimeMetrics } from './metrics/runtime.ts';
import { SignalMetrics } from './metrics/signals.ts';
import { StorageMetrics, type DatabaseFiles } from './metrics/storage.ts';

// What integrators scrape at `GET /metrics` (Prometheus text format), one part per
// file in ./metrics: HTTP requests, the PLC channels, the database files and commits,
// the process and its event loop, event streams and alarms. Every metric, its labels
// and what to alert on: docs/metrics.md.

export { HttpMetrics } from './metrics/http.ts';
import type { Federation } from '../federation/index.ts';
import { FederationMetrics } from './metrics/federation.ts';

export interface MetricSources extends ActivitySources {
  /** The configured PLC channels: OSIP (telegrams) and signals (OPC UA, Modbus). */
  channels: readonly Channel[];
  signalChannels?: readonly SignalChannel[];
  /** The site's answer budget (plc.lateAfterMs): a bucket bound of the reply latency. */
  lateAfterMs: number;
  databases: DatabaseFiles;
  /** The unit of work, told to time each commit. */
  work: Pick<UnitOfWork, 'observeCommits'>;
  /** The hub link; its metrics are there only while it is configured. */
  federation?: Federation;
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
    new PlcMetrics(this.registry, sources.channels, sources.lateAfterMs);
    new SignalMetrics(this.registry, sources.signalChannels ?? []);
    if (sources.federation?.enabled) new FederationMetrics(this.registry, sources.federation);
    sources.work.observeCommits(new StorageMetrics(this.registry, sources.databases).commit);
    activityMetrics(this.registry, sources);
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
