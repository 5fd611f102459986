import client from 'prom-client';

// Clients on the live event stream, read at scrape time (docs/metrics.md).

export function streamMetrics(registry: client.Registry, streams: { readonly size: number }): void {
  new client.Gauge({
    name: 'wms_event_streams_open',
    help: 'Live event streams (GET /v1/events) open now',
    registers: [registry],
    collect() {
      this.set(streams.size);
    },
  });
}
