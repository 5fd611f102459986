import type { AppliedPosition } from './follower.ts';
import { degradedOf, type Degraded } from './health.ts';
import type { LeaseStatus } from './lease.ts';
import type { NodeView, PeerView } from './peers.ts';

// What `GET /v1/ha` answers (docs/ha.md, "What people see").

/**
 * - `joining`: this box's copy cannot follow the change log (a fresh box, or a former
 *   active with commits the log never stored); it fetches a copy of the active's database.
 * - `standby`: follows the change log, serves reads from its copy, refuses writes.
 * - `taking-over`: holds the lease; brings its copy to the end of the log and fences
 *   it before it opens writes.
 * - `active`: holds the lease and acts.
 * - `stepping-down`: lost the lease (or could not store an entry); acknowledges nothing
 *   more, closes, and starts again as standby.
 */
export type PairRole = 'starting' | 'joining' | 'standby' | 'taking-over' | 'active' | 'stepping-down';

export interface PairStatus {
  pair: string;
  node: string;
  role: PairRole;
  /** Since when this box has the role (ISO). */
  since: string;
  lease: {
    holder: string | undefined;
    holderUrl: string | undefined;
    term: number | undefined;
    revision: number | undefined;
    /** The holder only: how long it holds the lease without another renewal. */
    validForMs: number | undefined;
    /** Whether the lease's bucket answered this box's last call. */
    reachable: boolean;
  };
  replication: {
    /** The last change-log entry in this box's database (applied, or written as active). */
    appliedSeq: number;
    /** The term of that entry. */
    term: number;
    /** The change log's last entry, as last seen. */
    lastSeq: number | undefined;
    /** Entries the standby has still to apply. */
    lagEntries: number | undefined;
    /** The standby: how long before it was applied the last entry applied was stored. */
    lagMs: number | undefined;
    /** The schema of this box's database (its migrations, `user_version`): both boxes of a pair must have the same to follow. */
    schema: number | undefined;
  };
  /** When this box last became active; from which box, and whether that box gave the lease up (a switchover). */
  lastFailover: { at: string; node: string; term: number; from: string | undefined; planned: boolean } | undefined;
  /** Why this box cannot go on as it should (an entry it cannot apply, a copy it could not fetch). */
  problem: string | undefined;
  /** The other box as it last said (peers.ts). */
  peer: PeerView | undefined;
  /** The cluster's three nodes as the change log's leader sees them. */
  nodes: NodeView[] | undefined;
  /** Nothing is degraded. */
  healthy: boolean;
  /** What keeps the pair from surviving its next failure (health.ts). */
  degraded: Degraded[];
}

/** What the status is made of, as the pair (pair.ts) knows it. */
export interface StatusParts {
  pair: string;
  node: string;
  /** Where this box serves, as it tells the other box. */
  url: string | undefined;
  role: PairRole;
  since: string;
  lease: LeaseStatus | undefined;
  /** The last entry in this box's database. */
  position: AppliedPosition | undefined;
  /** A standby: entries still to apply after it, and how long the last one applied had waited. */
  lagEntries: number | undefined;
  lagMs: number | undefined;
  /** The schema of the database this box serves or follows; undefined while it has none open. */
  schema: number | undefined;
  lastFailover: PairStatus['lastFailover'];
  problem: string | undefined;
  peer: PeerView | undefined;
  nodes: NodeView[] | undefined;
  maxLagMs: number;
}

export function pairStatus(parts: StatusParts): PairStatus {
  const { lease, position, lagEntries } = parts;
  const holder = lease?.role === 'holder';
  const holderName = holder ? parts.node : lease?.holder;
  const reachable = lease ? holder || lease.reachable : false;
  const degraded = degradedOf({
    node: parts.node,
    role: parts.role,
    inRoleMs: Date.now() - Date.parse(parts.since),
    peer: parts.peer,
    nodes: parts.nodes,
    leaseReachable: reachable,
    holder: holderName,
    holderRenewedMsAgo: lease?.role === 'follower' ? lease.renewedMsAgo : undefined,
    lagMs: parts.lagMs,
    maxLagMs: parts.maxLagMs,
  });
  return {
    pair: parts.pair,
    node: parts.node,
    role: parts.role,
    since: parts.since,
    lease: {
      holder: holderName,
      holderUrl: holder ? parts.url : lease?.holderUrl,
      term: lease?.term,
      revision: lease?.revision,
      validForMs: holder ? lease.validForMs : undefined,
      reachable,
    },
    replication: {
      appliedSeq: position?.streamSeq ?? 0,
      term: position?.term ?? 0,
      lastSeq: position && lagEntries !== undefined ? position.streamSeq + lagEntries : position?.streamSeq,
      lagEntries,
      lagMs: parts.lagMs,
      schema: parts.schema,
    },
    lastFailover: parts.lastFailover,
    problem: parts.problem,
    peer: parts.peer,
    nodes: parts.nodes,
    healthy: degraded.length === 0,
    degraded,
  };
}
