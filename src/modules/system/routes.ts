import type { Db } from '../../core/db.ts';
import { indexReply, ok } from '../../http/hal.ts';
import type { Metrics } from '../../http/metrics.ts';
import { openApiDocument } from '../../http/openapi.ts';
import type { Route } from '../../http/router.ts';
import { ApiDescriptionSchema, HealthSchema, ReadinessSchema } from './openapi.ts';

// Operational endpoints of the appliance itself: the public entry index (README,
// "API"), the probes a supervisor (systemd, a load balancer) polls, the metrics,
// and the API description (public: it describes the API, every operation in it still
// needs its token and grant).

interface SystemDeps {
  db: Db;
  version: string;
  /** Link name → path of every module index (known once every module is created). */
  indexLinks: () => Readonly<Record<string, string>>;
  startedAt: number;
  metrics: Metrics;
  /** The whole route table (this module's routes included), for the API description. */
  routes: () => readonly Route[];
  /** `/metrics` without a token (a scraper on a closed network); else it needs `metrics:read`. */
  metricsPublic: boolean;
}

export function systemRoutes({ db, version, indexLinks, startedAt, metrics, routes, metricsPublic }: SystemDeps): Route[] {
  const ping = db.prepare('SELECT 1');
  return [
    {
      method: 'GET',
      path: '/index',
      grant: 'public',
      index: true,
      summary: 'Entry index: a link to every module index.',
      handler: (ctx) => indexReply(ctx, indexLinks()),
    },
    {
      method: 'GET',
      path: '/healthz',
      grant: 'public',
      responseSchema: HealthSchema,
      summary: 'Liveness: the process answers.',
      handler: () => ok({ status: 'UP', version, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) }),
    },
    {
      // What the box does, per route and channel, is no business of every LAN client.
      method: 'GET',
      path: '/metrics',
      grant: metricsPublic ? 'public' : 'metrics:read',
      replyType: 'text/plain',
      summary:
        'Prometheus metrics: HTTP requests, PLC telegrams and reply latency, channel states, database size and commit time, event-loop lag, event streams, alarms.',
      handler: async () => {
        const { text, type } = await metrics.render();
        return { status: 200, raw: Buffer.from(text), type };
      },
    },
    {
      method: 'GET',
      path: '/openapi.json',
      grant: 'public',
      responseSchema: ApiDescriptionSchema,
      summary: 'The API description (OpenAPI 3.1), generated from the route table.',
      handler: (ctx) => ({ status: 200, body: openApiDocument(routes(), { version, serverUrl: ctx.baseUrl }), type: 'application/json' }),
    },
    {
      method: 'GET',
      path: '/readyz',
      grant: 'public',
      responseSchema: ReadinessSchema,
      summary: 'Readiness: the database answers.',
      handler: () => {
        ping.get();
        return ok({ status: 'UP' });
      },
    },
  ];
}
