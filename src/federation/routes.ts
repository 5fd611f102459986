import { indexRoute, ok } from '../http/hal.ts';
import type { Route } from '../http/router.ts';
import type { Federation } from './federation.ts';
import { FederationStatusSchema } from './openapi.ts';

// `GET /v1/federation`: the hub link's state for the HMI and the integrator.

const READ = 'federation:read';
const BASE = '/v1/federation';
export const federationIndexLinks = { 'federation-index': `${BASE}/index` };

export function federationRoutes(federation: Federation): Route[] {
  const routes: Route[] = [
    {
      method: 'GET',
      path: BASE,
      // The hub link's live state is the conveyor thread's (docs/realtime.md).
      thread: 'conveyor',
      grant: READ,
      link: 'federation-status',
      responseSchema: FederationStatusSchema,
      summary:
        "The hub link: NATS connection state and server, the export cursor (last event id the hall's stream acknowledged), " +
        'events waiting and the lag, the last error, and the commands taken from the hub.',
      handler: () => ok(federation.status()),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the hub link.'), ...routes];
}
