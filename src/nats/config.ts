import { z } from 'zod';

// How the appliance reaches a NATS server: the hub link's leaf node (docs/federation.md)
// and the pair's cluster (docs/ha.md) are reached the same way, with the same settings.

const file = z.string().min(1);

export const natsConnectionSchema = z
  .strictObject({
    /** NATS URLs of the server beside the box (the hub link's leaf node, or this box's node of the pair's cluster). */
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
  .prefault({});

export type NatsConnectionConfig = z.infer<typeof natsConnectionSchema>;
