import type { Db } from '../../core/db.ts';
import { indexReply, ok } from '../../http/hal.ts';
import type { Route } from '../../http/router.ts';

// Operational endpoints of the appliance itself: the public entry index of spec
// Document 1 and the probes a supervisor (systemd, a load balancer) polls.

export interface SystemDeps {
  db: Db;
  version: string;
  /** Link name → path of every module index. */
  indexLinks: Record<string, string>;
  startedAt: number;
}

export function systemRoutes({ db, version, indexLinks, startedAt }: SystemDeps): Route[] {
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
      method: 'GET', path: '/readyz', grant: 'public',
      summary: 'Readiness: the database answers.',
      handler: () => {
        ping.get();
        return ok({ status: 'UP' });
      },
    },
  ];
}
