import { ok } from '../../http/hal.ts';
import type { ModuleDefinition } from '../module.ts';
import { PairStatusSchema } from './openapi.ts';

// The pair as people see it (docs/ha.md, "What people see"): `GET /v1/ha`. The pair
// itself (src/ha/) runs outside the appliance and hands it its status at each start; a
// box without a pair answers `alone`.

export const ha: ModuleDefinition<'ha', undefined> = {
  name: 'ha',
  create: ({ options }) => ({
    service: undefined,
    indexLinks: { 'ha-status': '/v1/ha' },
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
    ],
  }),
};
