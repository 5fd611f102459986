import { z } from 'zod';
import { natsConnectionSchema } from '../nats/config.ts';

// The pair's settings (docs/ha.md): which pair this box belongs to, its own name in it,
// how to reach its node of the pair's NATS cluster, and how long a lease lasts. Without
// `pair` the box runs alone, and no code of the pair is loaded.

/** A name in NATS subjects and bucket names: letters, digits, `_` and `-`. */
const name = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and - only (at most 32): it is part of a NATS bucket name');

export const haConfigSchema = z
  .strictObject({
    /** The pair's name: both boxes and the witness's cluster share it. Unset: this box runs alone. */
    pair: name.optional(),
    /** This box's name in the pair (the lease names its holder by it). */
    node: name.optional(),
    /** This box's node of the pair's three-node NATS cluster (and the others, to fall back to). */
    nats: natsConnectionSchema,
    /**
     * How long a lease lasts without renewal: the active renews it four times in this
     * time and stops acting once it could not for this long; the standby takes over no
     * sooner. Shorter takes over sooner and risks stepping down for a slow disk or network.
     */
    leaseTtlMs: z.number().int().min(1000).max(60_000).default(5000),
    /** An alarm is raised while the standby is further behind than this. */
    maxLagMs: z.number().int().min(10).max(600_000).default(1000),
  })
  .refine((ha) => ha.pair === undefined || ha.node !== undefined, { message: 'a box in a pair needs its own name (ha.node)', path: ['node'] })
  .prefault({});

export type HaConfig = z.infer<typeof haConfigSchema>;
