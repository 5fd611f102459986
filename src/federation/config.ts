import { z } from 'zod';

// The hub link's settings (docs/federation.md): which hall this is, how to reach the
// NATS server beside the box (a leaf node of the hub), and the limits of the streams
// the appliance creates. Without `site` the link is off and no NATS code is loaded.

const file = z.string().min(1);

export const federationConfigSchema = z
  .strictObject({
    /** The hall's name in subjects and stream names: letters, digits and `_`. Unset: no hub link. */
    site: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,32}$/, 'letters, digits and _ only (at most 32): it is a NATS subject token and part of a stream name')
      .optional(),
    nats: z
      .strictObject({
        /** NATS URLs of the leaf node beside the box (or of the hub itself). */
        servers: z
          .array(z.string().regex(/^(nats|tls|wss?):\/\/\S+$/, 'a nats://, tls:// or ws(s):// URL'))
          .min(1)
          .default(['nats://127.0.0.1:4222']),
        /** One way to log in, or none: a token, a user and password, or a credentials file (JWT and NKey seed). */
        token: z.string().min(1).optional(),
        user: z.string().min(1).optional(),
        password: z.string().min(1).optional(),
        credsFile: file.optional(),
        /** TLS to the server: its CA, and a client certificate and key when it asks for one. */
        tls: z.strictObject({ ca: file.optional(), cert: file.optional(), key: file.optional() }).optional(),
      })
      .refine((n) => (n.user === undefined) === (n.password === undefined), 'user and password go together')
      .refine((n) => [n.token, n.user, n.credsFile].filter((v) => v !== undefined).length <= 1, 'one of token, user/password or credsFile')
      .refine((n) => !n.tls || (n.tls.cert === undefined) === (n.tls.key === undefined), 'tls.cert and tls.key go together')
      .prefault({}),
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
