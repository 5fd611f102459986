import { z } from 'zod';
import { natsConnectionSchema } from '../nats/config.ts';

// The hub link's settings (docs/federation.md): which hall this is, how to reach the
// NATS server beside the box (a leaf node of the hub), and the limits of the streams
// the appliance creates. Without `site` the link is off and no NATS code is loaded.

export const federationConfigSchema = z
  .strictObject({
    /** The hall's name in subjects and stream names: letters, digits and `_`. Unset: no hub link. */
    site: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,32}$/, 'letters, digits and _ only (at most 32): it is a NATS subject token and part of a stream name')
      .optional(),
    nats: natsConnectionSchema,
    /** The JetStream domain of the leaf node beside the box; unset: the domain of the server connected to. */
    domain: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -')
      .optional(),
    stream: z
      .strictObject({
        /** Events older than this leave the hall's stream: it bridges outages, the hub keeps the history. */
        maxAgeDays: z.number().int().min(1).max(3650).default(7),
        /** The hall's stream holds at most this many bytes, the oldest go first; JetStream sets it aside on disk in full. */
        maxBytes: z
          .number()
          .int()
          .min(1024 * 1024)
          .default(2 * 1024 * 1024 * 1024),
        /** A message id seen within this window is not stored again (a resend after an outage). */
        duplicateWindowSeconds: z.number().int().min(1).max(86_400).default(120),
        /** Copies of the streams in a JetStream cluster; 1 on a leaf node of its own. */
        replicas: z.number().int().min(1).max(5).default(1),
      })
      .prefault({}),
    /** Events published but not yet acknowledged by the stream, at most. */
    maxInFlight: z.number().int().min(1).max(10_000).default(256),
    /** Events read from the log at a time. */
    batch: z.number().int().min(1).max(10_000).default(500),
    /** An alarm is raised while the oldest event not yet exported is older than this. */
    maxLagSeconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 86_400)
      .default(60),
    /** Take commands from the hub (wms.<site>.commands.>). */
    commands: z.boolean().default(true),
  })
  .prefault({});

export type FederationConfig = z.infer<typeof federationConfigSchema>;
