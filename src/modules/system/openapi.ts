import { z } from 'zod';

// The replies of the appliance's own endpoints as schemas of the API description.

export const HealthSchema = z
  .object({
    status: z.literal('UP'),
    version: z.string(),
    uptimeSeconds: z.number().int(),
  })
  .meta({ id: 'Health', description: 'The process answers: its version and how long it has run.' });

export const ReadinessSchema = z.object({ status: z.literal('UP') }).meta({ id: 'Readiness', description: 'The database answers.' });

/** The API description itself, described by the OpenAPI 3.1 specification. */
export const ApiDescriptionSchema = { type: 'object', description: 'An OpenAPI 3.1 document: this one.' } as const;
