import { logsFileOf } from '../../core/log-store/index.ts';
import { Metrics } from '../../http/metrics.ts';
import { VERSION } from '../../version.ts';
import type { ModuleDefinition } from '../module.ts';
import { systemRoutes } from './routes.ts';

/**
 * The appliance itself: the entry index, the probes, the API description and the
 * metrics registry the other modules add theirs to. First in the list: its service is
 * the registry, and it samples the event loop from the start.
 */
export const system: ModuleDefinition<'system', Metrics> = {
  name: 'system',
  create: ({ db, work, config, databaseFile, startedAt, routes, indexLinks, thread, edge, conveyor }) => {
    const metrics = new Metrics({
      databases: { main: databaseFile, logs: logsFileOf(databaseFile) },
      work,
      thread,
      edge,
      conveyor: conveyor && (() => conveyor.metrics()),
    });
    return {
      service: metrics,
      routes: systemRoutes({ db, version: VERSION, indexLinks, startedAt, metrics, routes, metricsPublic: config.server.metricsPublic }),
      start: () => metrics.start(),
      stop: () => metrics.stop(),
    };
  },
};
