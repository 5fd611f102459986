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
        schema: count.optional().meta({
          description: "The schema (migrations) of this box's database: a standby follows only an active of the same (docs/ha.md, upgrading a pair).",
        }),
      })
      .optional(),
    lastFailover: z
      .object({
        at: z.string(),
        node: z.string(),
        term: count,
        from: z.string().optional().meta({ description: 'The box that held the lease before (absent when this box was the first).' }),
        planned: z.boolean().meta({ description: 'The box before gave the lease up (a switchover, an orderly stop) rather than failing.' }),
      })
      .optional()
      .meta({ description: 'When this box last became active.' }),
    problem: z.string().optional().meta({ description: 'Why this box cannot go on as it should.' }),
    peer: z
      .object({
        node: z.string(),
        role: z.enum(['starting', 'joining', 'standby', 'taking-over', 'active', 'stepping-down']),
        appliedSeq: count,
        lagEntries: count.optional(),
        lagMs: z.number().optional(),
        problem: z.string().optional(),
        schema: count.optional().meta({ description: "The schema of the other box's database." }),
        heardMsAgo: count.meta({ description: 'How long ago this box last heard it (it speaks once a second).' }),
      })
      .optional()
      .meta({ description: 'The other box of the pair as it last said where it stands; absent when it has not been heard since this box started.' }),
    nodes: z
      .array(
        z.object({
          name: z.string().meta({ description: "The NATS node's server name." }),
          box: z.string().nullable().meta({ description: 'The box it runs beside; null for the witness (or a node no box has named yet).' }),
          current: z.boolean().meta({ description: 'It holds its copy of the change log up to date.' }),
          leader: z.boolean().meta({ description: "It leads the change log's replicas." }),
        }),
      )
      .optional()
      .meta({ description: "The pair's NATS nodes as the change log's leader sees them; absent while this box's node cannot tell." }),
    healthy: z.boolean().optional().meta({ description: 'Nothing below is degraded: both boxes, the three nodes, the standby in step.' }),
    degraded: z
      .array(
        z.object({
          kind: z.enum(['standbyMissing', 'standbyLagging', 'activeMissing', 'nodeDown', 'leaseUnreachable']),
          node: z.string().optional().meta({ description: 'The box or NATS node it is about; absent when no box has been heard to name.' }),
          message: z.string(),
        }),
      )
      .optional()
      .meta({ description: 'What keeps the pair from surviving the next failure (the active raises an alarm for each that lasts).' }),
  })
  .meta({ id: 'PairStatus', description: 'This box in its pair: its role, the lease, how far its copy is behind the change log (docs/ha.md).' });

export const ActingSchema = z
  .object({
    node: z.string().nullable().meta({ description: "This box's name in its pair; null for a box alone." }),
    role: z.enum(['alone', 'active', 'handing-over']).meta({
      description:
        '`handing-over`: the former active in a planned switchover, until the other box holds the lease; it hands what arrives to the new active meanwhile.',
    }),
    term: count.nullable().meta({ description: 'The term of the lease this box holds; null for a box alone.' }),
  })
  .meta({ id: 'Acting', description: 'This box acts: the active of its pair, or a box alone (the floating address belongs here).' });
