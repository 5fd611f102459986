import type { Db } from '../../core/db.ts';
import { indexReply, ok } from '../../http/hal.ts';
import type { HttpMetrics } from '../../http/metrics.ts';
import { openApiDocument } from '../../http/openapi.ts';
import type { Route } from '../../http/router.ts';

// Operational endpoints of the appliance itself: the public entry index of spec
// Document 1 and the probes a supervisor (systemd, a load balancer) polls.

export interface SystemDeps {
  db: Db;
  version: string;
  /** Link name → path of every module index. */
  indexLinks: Record<string, string>;
  startedAt: number;
  metrics: HttpMetrics;
  /** The whole route table (this module's routes included), for the API description. */
  routes: () => readonly Route[];
}

export function systemRoutes({ db, version, indexLinks, startedAt, metrics, routes }: SystemDeps): Route[] {
  const ping = db.prepare('SELECT 1');
  return [
    {
      method: 'GET', path: '/index', grant: 'public', index: true,
      summary: 'Entry index: a link to every module index.',
      handler: (ctx) => indexReply(ctx, indexLinks),
    },
    {
      method: 'GET', path: '/healthz', grant: 'public',
      summary: 'Liveness: the process answers.',
      handler: () => ok({ status: 'UP', version, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) }),
    },
    {
      method: 'GET', path: '/metrics', grant: 'public',
      summary: 'Prometheus metrics: requests by route and status, durations, process figures.',
      handler: async () => {
        const { text, type } = await metrics.render();
        return { status: 200, raw: Buffer.from(text), type };
      },
    },
    {
      method: 'GET', path: '/openapi.json', grant: 'public',
      summary: 'The API description (OpenAPI 3.1), generated from the route table.',
      handler: (ctx) => ({ status: 200, body: openApiDocument(routes(), { version, serverUrl: ctx.baseUrl }), type: 'application/json' }),
    },
    {
      method: 'GET', path: '/readyz', grant: 'public',
      summary: 'Readiness: the database answers.',
      handler: () => {
        ping.get();
        return ok({ status: 'UP' });
      },
    },
  ];
}
