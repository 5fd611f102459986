import client from 'prom-client';

// Requests by route template and status with their durations. Labels use the route
// template (`/v1/locations/{pKey}`), never the concrete path, so the number of series
// stays bounded.

export class HttpMetrics {
  private readonly requests: client.Counter<'method' | 'route' | 'status'>;
  private readonly durations: client.Histogram<'method' | 'route'>;

  constructor(registry: client.Registry) {
    this.requests = new client.Counter({
      name: 'wms_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.durations = new client.Histogram({
      name: 'wms_http_request_duration_seconds',
      help: 'Time from the request arriving to the reply being written, by method and route template',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    });
  }

  /** One answered request; `route` is the template, or `unmatched` when none matched. */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.durations.observe({ method, route }, seconds);
  }
}
