import { daysAgo } from '../../core/retention.ts';
import type { ModuleDefinition } from '../module.ts';
import { createHistory, type History } from './history.ts';
import { streamMetrics } from './metrics.ts';
import { eventIndexLinks, eventRoutes } from './routes.ts';
import { LiveStreams } from './streams.ts';
import { EventTickets } from './tickets.ts';

interface EventsService {
  /** Event streams open now. */
  streams: LiveStreams;
  /** One-time tickets that open a stream where no header can be sent (EventSource). */
  tickets: EventTickets;
  /** History and audit from the event log; the trace of a unit. */
  history: History;
}

/** The live event stream (SSE, replay by id), the event history and a unit's trace; the event log's retention. */
export const events: ModuleDefinition<'events', EventsService> = {
  name: 'events',
  create: ({ events: log, reads, work, log: logger, config, use }) => {
    const users = use('users');
    const federation = use('federation');
    const service: EventsService = {
      streams: new LiveStreams(log, reads, work.bus, users.currentPrincipal, logger),
      tickets: new EventTickets(),
      history: createHistory(log),
    };
    // Events not yet exported to the hub outlive events.keepDays (events.maxRows still bounds the log).
    const { keepDays, maxRows } = config.events;
    use('retention').add({ name: 'events', prune: (batch) => log.prune(daysAgo(keepDays), maxRows, batch, federation.exportedUpto()) });
    return {
      service,
      routes: eventRoutes(service),
      indexLinks: eventIndexLinks,
      edgeMetrics: (registry) => streamMetrics(registry, service.streams),
      // Open streams end before the server closes (they would keep it waiting for ever).
      stop: () => service.streams.shutdown(),
    };
  },
};
