import { ok } from '../../http/hal.ts';
import { watchPairAlarms } from './alarms.ts';
import { noStandby, notActing, notActive } from './errors.ts';
import type { ModuleDefinition } from '../module.ts';
import { pairMetrics } from './metrics.ts';
import { ActingSchema, PairStatusSchema } from './openapi.ts';

// The pair as people see it (docs/ha.md, "What people see"): `GET /v1/ha`, the planned
// switchover, the metrics. The pair itself (src/ha/) runs outside the appliance and hands
// it its status and its switchover at each start; a box without a pair answers `alone`.

export const ha: ModuleDefinition<'ha', undefined> = {
  name: 'ha',
  create: ({ options, use }) => {
    const alarms = use('alarms');
    let unwatch: (() => void) | undefined;
    return {
      service: undefined,
      // Only an active starts its modules: it raises the pair's alarms (alarms.ts).
      start: () => {
        const pair = options.pair;
        if (pair) unwatch = watchPairAlarms(alarms, () => pair.status());
      },
      stop: () => unwatch?.(),
      indexLinks: { 'ha-status': '/v1/ha', 'ha-active': '/v1/ha/active' },
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
          // The floating address's check (keepalived's track script, docs/ha.md): asked every
          // second by a tool on the box itself, with no token to give; it says no more than
          // which box acts, which every standby's refusal says too.
          method: 'GET',
          path: '/v1/ha/active',
          grant: 'public',
          link: 'ha-active',
          errors: [503],
          thread: 'conveyor',
          responseSchema: ActingSchema,
          summary:
            'Answers 200 only on the box that acts: the active of a pair while it holds the lease by its own clock, or a box alone; 503 on every other box. The check that moves the floating address (keepalived) asks it.',
          handler: () => {
            const pair = options.pair;
            if (!pair) return ok({ node: null, role: 'alone', term: null });
            const status = pair.status();
            if (status.role !== 'active' || !(status.lease.validForMs! > 0)) throw notActing(status);
            return ok({ node: status.node, role: 'active', term: status.lease.term ?? null });
          },
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
            const missing = pair.status().degraded.find((d) => d.kind === 'standbyMissing');
            if (missing) throw noStandby(missing.message);
            pair.switchover();
            return { status: 202, body: pair.status() };
          },
        },
      ],
    };
  },
};
