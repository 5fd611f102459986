import { ok } from '../../http/hal.ts';
import { notActive } from './errors.ts';
import type { ModuleDefinition } from '../module.ts';
import { pairMetrics } from './metrics.ts';
import { PairStatusSchema } from './openapi.ts';

// The pair as people see it (docs/ha.md, "What people see"): `GET /v1/ha`, the planned
// switchover, the metrics. The pair itself (src/ha/) runs outside the appliance and hands
// it its status and its switchover at each start; a box without a pair answers `alone`.

export const ha: ModuleDefinition<'ha', undefined> = {
  name: 'ha',
  create: ({ options }) => ({
    service: undefined,
    indexLinks: { 'ha-status': '/v1/ha' },
    metrics: (registry) => {
      const pair = options.pair;
      if (pair) pairMetrics(registry, () => pair.status());
    },
    routes: [
      {
        method: 'GET',
        path: '/v1/ha',
        grant: 'ha:read',
        link: 'ha-status',
        // The pair's state lives on the thread that runs it.
        thread: 'conveyor',
        responseSchema: PairStatusSchema,
        summary: "This box in its pair: its role (active, standby or on its way), the lease's holder and term, the standby's lag, the last failover.",
        handler: () => ok(options.pair ? options.pair.status() : { pair: null, node: null, role: 'alone' }),
      },
      {
        method: 'POST',
        path: '/v1/ha/switchover',
        grant: 'ha:write',
        link: 'ha-switchover',
        body: 'none',
        status: 202,
        errors: [409],
        thread: 'conveyor',
        responseSchema: PairStatusSchema,
        summary:
          'Hands the active role to the standby (maintenance): this box finishes what it has under way, gives the lease up and starts again as standby; the standby takes over at once. Only on the active of a pair with a standby that follows.',
        handler: () => {
          const pair = options.pair;
          if (!pair || pair.role !== 'active') throw notActive(pair ? pair.status().role : 'alone');
          pair.switchover();
          return { status: 202, body: pair.status() };
        },
      },
    ],
  }),
};
