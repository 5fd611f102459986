import { z } from 'zod';

// The shape of GET /v1/federation, for the API description and its response check.

const counter = z.number().int().min(0);

export const FederationStatusSchema = z
  .object({
    enabled: z.boolean().describe('False when federation.site is not set: no hub link'),
    site: z.string().nullable(),
    state: z.enum(['DISABLED', 'CONNECTING', 'CONNECTED', 'DISCONNECTED', 'STOPPED']),
    server: z.string().nullable().describe('The NATS server connected to, host:port'),
    stream: z.string().nullable().describe("The hall's stream, WMS_<SITE>"),
    cursor: counter.describe('The last event id the stream acknowledged'),
    newestEventId: counter,
    eventsWaiting: counter.describe('Events committed but not yet in the stream'),
    lagSeconds: z.number().min(0).describe('Age of the oldest event not yet in the stream; 0 when none waits'),
    maxLagSeconds: z.number().int(),
    lastError: z.object({ message: z.string(), at: z.string() }).nullable(),
    reconnects: counter,
    export: z.object({ published: counter, duplicates: counter, resyncs: counter, reordered: counter, truncated: counter, lost: counter }),
    commands: z.object({
      enabled: z.boolean(),
      stream: z.string().nullable(),
      done: counter,
      declined: counter,
      repeated: counter,
      malformed: counter,
    }),
  })
  .describe('The hub link: connection, export cursor and lag, commands taken');
