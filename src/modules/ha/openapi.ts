import { z } from 'zod';

// What `GET /v1/ha` answers, as a schema of the API description (src/ha/status.ts).

const count = z.number().int();

export const PairStatusSchema = z
  .object({
    pair: z.string().nullable().meta({ description: 'The pair this box belongs to; null for a box that runs alone.' }),
    node: z.string().nullable().meta({ description: "This box's name in the pair." }),
    role: z.enum(['alone', 'starting', 'joining', 'standby', 'taking-over', 'active', 'stepping-down']).meta({
      description:
        'alone: no pair. starting: looking where its copy stands. joining: fetching a copy of the active. standby: following the change log, ' +
        'reads only. taking-over: holds the lease, bringing its copy to the end of the log. active: acts. stepping-down: lost the lease, acknowledges nothing.',
    }),
    since: z.string().optional().meta({ description: 'Since when this box has the role (ISO 8601).' }),
    lease: z
      .object({
        holder: z.string().optional().meta({ description: 'The box that holds the lease (the active).' }),
        holderUrl: z.string().optional().meta({ description: 'Where the active serves, when it said.' }),
        term: count.optional().meta({ description: "The lease's term: the revision at which its holder took it." }),
        revision: count.optional(),
        validForMs: count.optional().meta({ description: 'The holder only: how long it holds the lease without another renewal.' }),
        reachable: z.boolean().meta({ description: "Whether the lease's bucket answered this box's last call (a quorum of the three nodes)." }),
      })
      .optional(),
    replication: z
      .object({
        appliedSeq: count.meta({ description: 'The last change-log entry in this box’s database.' }),
        term: count,
        lastSeq: count.optional().meta({ description: 'The change log’s last entry, as last seen.' }),
        lagEntries: count.optional().meta({ description: 'Entries the standby has still to apply.' }),
        lagMs: z.number().optional().meta({ description: 'The standby: how long the last entry it applied had been stored before it was applied (ms).' }),
      })
      .optional(),
    lastFailover: z.object({ at: z.string(), node: z.string(), term: count }).optional().meta({ description: 'When this box last became active.' }),
    problem: z.string().optional().meta({ description: 'Why this box cannot go on as it should.' }),
  })
  .meta({ id: 'PairStatus', description: 'This box in its pair: its role, the lease, how far its copy is behind the change log (docs/ha.md).' });
