import { daysAgo } from '../core/retention.ts';
import { grantsOf, type Route } from '../http/router.ts';
import type { Principal } from '../http/context.ts';
import { invoke } from '../http/invoke.ts';
import type { ModuleDefinition } from '../modules/module.ts';
import { Federation } from './federation.ts';
import { FederationMetrics } from './metrics.ts';
import { federationIndexLinks, federationRoutes } from './routes.ts';

/** The hub link: the event log exported to NATS JetStream, the hub's commands run through the route table. */
export const federation: ModuleDefinition<'federation', Federation> = {
  name: 'federation',
  create: ({ config, db, work, events, log, use, router, routes, url }) => {
    let hub: Principal | undefined;
    const service = new Federation({
      config: config.federation,
      db,
      work,
      events,
      alarms: use('alarms'),
      call: (request, requestId) =>
        invoke({ router: router(), principal: (hub ??= hubPrincipal(routes())), baseUrl: url(), messageKeys: config.api.messageKeys, log }, request, requestId),
      messageKeys: config.api.messageKeys,
      bodyLimitBytes: config.server.bodyLimitBytes,
      log,
    });
    // A command is remembered while the commands stream may still deliver it again.
    const commandDays = Math.max(config.events.keepDays, config.federation.stream.maxAgeDays + 1);
    use('retention').add({ name: 'hub commands', prune: (batch) => service.store.prune(daysAgo(commandDays), batch) });
    return {
      service,
      routes: federationRoutes(service),
      indexLinks: federationIndexLinks,
      // Only while a hub link is configured.
      metrics: (registry) => {
        if (service.enabled) new FederationMetrics(registry, service);
      },
      start: () => service.start(),
      stop: () => service.stop(),
    };
  },
};

/**
 * Who a hub command runs as in the route table: a caller holding every grant of the
 * routes (the hub is trusted as far as the site configured it; which commands exist
 * is decided by federation/commands.ts). Its events name the actor `hub`.
 */
function hubPrincipal(routes: readonly Route[]): Principal {
  return { id: 'hub', username: 'hub', kind: 'api-key', grants: new Set(grantsOf(routes)), roleNames: [] };
}
