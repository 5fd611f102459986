import { z } from 'zod';
import { resource } from '../../http/openapi/representation.ts';

// The Route, its hops and the routing decision (`routeVO`, `decisionVO`) as schemas of the API description.

export const RouteSchema = resource('Route', 'A route from a source (location or group, or anywhere) to a target; links: itself and its hops.', {
  name: z.string(),
  description: z.string().optional(),
  sourceLocationName: z.string().optional(),
  sourceLocationGroupName: z.string().optional(),
  targetLocationName: z.string().optional(),
  targetLocationGroupName: z.string().optional(),
  key: z.string(),
  enabled: z.boolean(),
});

export const HopSchema = z
  .object({ pos: z.number().int().min(0), source: z.string(), next: z.string() })
  .meta({ id: 'Hop', description: 'A hop of a route: from the source location to the next; the same source again is an alternative.' });

export const DefaultHopSchema = z
  .object({ pos: z.number().int().min(0), source: z.string().optional(), sourceGroup: z.string().optional(), next: z.string() })
  .meta({ id: 'DefaultHop', description: 'A default hop: from a location (`source`) or any location of a group (`sourceGroup`) to the next.' });

export const DecisionSchema = z
  .object({
    result: z.enum(['NEXT', 'ARRIVED', 'NO_ORDER', 'NO_ROUTE', 'LOCKED', 'UNKNOWN_LOCATION']),
    reasonCode: z.string().meta({ description: 'The 8-character code the PLC adapter answers with.' }),
    nextLocation: z.string().optional(),
    via: z.enum(['ROUTE', 'DEFAULT']).optional(),
    lock: z.enum(['SOURCE_OUTGOING_LOCKED', 'NEXT_LOCKED']).optional(),
    candidates: z.array(z.string()).optional(),
    route: z.object({ key: z.string(), name: z.string() }).optional(),
    order: z.object({ pKey: z.string(), targetLocation: z.string().optional(), targetLocationGroup: z.string().optional() }).optional(),
  })
  .meta({ id: 'RoutingDecision', description: 'Where the routing decision sends a transport unit standing at a location, and why.' });
