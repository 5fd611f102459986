import { BEAT_MS, type NodeView, type PeerView } from './peers.ts';
import type { PairRole } from './status.ts';

// Whether the pair would survive its next failure (docs/ha.md, "What people see"): the
// findings `GET /v1/ha` lists under `degraded`, the HMI shows, and the active raises an
// alarm for each that lasts (src/modules/ha/alarms.ts).

export type DegradedKind = 'standbyMissing' | 'standbyLagging' | 'activeMissing' | 'nodeDown' | 'leaseUnreachable';

export interface Degraded {
  kind: DegradedKind;
  /** The box or NATS node it is about; absent when no box has been heard to name. */
  node?: string;
  message: string;
}

/** A box not heard for three of its beats (and a half) is missing. */
export const PEER_LOST_MS = 3 * BEAT_MS + BEAT_MS / 2;

export interface HealthParts {
  node: string;
  role: PairRole;
  /** How long this box has had its role (ms). */
  inRoleMs: number;
  peer: PeerView | undefined;
  nodes: NodeView[] | undefined;
  leaseReachable: boolean;
  /** The lease's holder, as this box last read it, and how long ago it last renewed it (another box's lease). */
  holder: string | undefined;
  holderRenewedMsAgo: number | undefined;
  lagMs: number | undefined;
  maxLagMs: number;
}

export function degradedOf(parts: HealthParts): Degraded[] {
  const found: Degraded[] = [];
  const { peer, role } = parts;
  const heard = peer && peer.heardMsAgo <= PEER_LOST_MS ? peer : undefined;
  // Just in its role, it may not have heard the other box yet.
  const settled = parts.inRoleMs > PEER_LOST_MS;
  if (role === 'active') {
    if (!heard) {
      if (settled)
        found.push({
          kind: 'standbyMissing',
          ...(peer ? { node: peer.node } : {}),
          message: peer ? `No standby: ${peer.node} has not been heard for ${Math.round(peer.heardMsAgo / 1000)} s` : 'No standby has been heard',
        });
    } else if (heard.problem) {
      found.push({ kind: 'standbyMissing', node: heard.node, message: `The standby ${heard.node} cannot follow: ${heard.problem}` });
    } else if (heard.role !== 'standby') {
      found.push({ kind: 'standbyMissing', node: heard.node, message: `No standby follows yet: ${heard.node} is ${heard.role}` });
    } else if (heard.lagMs !== undefined && heard.lagMs > parts.maxLagMs) {
      found.push({ kind: 'standbyLagging', node: heard.node, message: lagging(heard.node, heard.lagMs, parts.maxLagMs) });
    }
  } else if (role === 'standby' || role === 'joining') {
    // A box that joins needs the active as much: it fetches its copy from it.
    if (settled && (!heard || heard.role !== 'active'))
      found.push({
        kind: 'activeMissing',
        node: heard?.node ?? 'active',
        message: heard ? `No active: ${heard.node} is ${heard.role}` : 'No active box has been heard' + unrouted(parts),
      });
    if (parts.lagMs !== undefined && parts.lagMs > parts.maxLagMs)
      found.push({ kind: 'standbyLagging', node: parts.node, message: lagging(parts.node, parts.lagMs, parts.maxLagMs) });
  }
  if (!parts.leaseReachable)
    found.push({ kind: 'leaseUnreachable', node: parts.node, message: "The pair's lease does not answer this box (its NATS node has no quorum)" });
  for (const node of parts.nodes ?? [])
    if (!node.current)
      found.push({
        kind: 'nodeDown',
        node: node.name,
        message: `NATS node ${node.name} (${node.box ? `beside ${node.box}` : 'the witness'}) does not hold the change log up to date`,
      });
  return found;
}

/**
 * An active that renews its lease (through the cluster's quorum) and is not heard (what
 * it says once a second, on core NATS) is alive, and so are the nodes: what is missing is
 * the route between the two boxes' nodes. The lease and the log reach each node through
 * the witness; the boxes' own messages (the beats, a copy, a switchover's requests) do
 * not: NATS does not relay between nodes. nats-server has had defects that leave a route
 * not dialled again after a reconnect; restarting nats-server on either box dials it.
 */
function unrouted(parts: HealthParts): string {
  const { holder, holderRenewedMsAgo } = parts;
  if (holder === undefined || holder === parts.node || holderRenewedMsAgo === undefined || holderRenewedMsAgo > PEER_LOST_MS) return '';
  return `, though ${holder} renews the lease: the route between the two boxes' NATS nodes is missing (restart nats-server on one of the boxes)`;
}

const lagging = (node: string, lagMs: number, maxLagMs: number) =>
  `The standby ${node} applies entries ${Math.round(lagMs)} ms after they were stored (limit ${maxLagMs} ms)`;
