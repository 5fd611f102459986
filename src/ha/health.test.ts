import { describe, expect, it } from 'vitest';
import { degradedOf, PEER_LOST_MS, type HealthParts } from './health.ts';

// What the pair's status lists as degraded (health.ts), from what a box knows: the other
// box as it last said, the three nodes, the lease.

const standby: HealthParts = {
  node: 'box-b',
  role: 'standby',
  inRoleMs: 60_000,
  peer: undefined,
  nodes: [
    { name: 'node-a', box: 'box-a', current: true, leader: true },
    { name: 'node-b', box: 'box-b', current: true, leader: false },
    { name: 'witness', box: null, current: true, leader: false },
  ],
  leaseReachable: true,
  holder: 'box-a',
  holderRenewedMsAgo: 400,
  lagMs: 3,
  maxLagMs: 1000,
};

describe('degradedOf', () => {
  it('a standby that hears no active while the active renews its lease: the route between the two nodes is missing, and it says what to do', () => {
    const [finding] = degradedOf(standby);
    expect(finding).toMatchObject({ kind: 'activeMissing' });
    expect(finding!.message).toContain("box-a renews the lease: the route between the two boxes' NATS nodes is missing (restart nats-server");
  });

  it('a standby that hears no active and sees no renewal: the active is gone, nothing said of a route', () => {
    const [finding] = degradedOf({ ...standby, holderRenewedMsAgo: PEER_LOST_MS + 1 });
    expect(finding).toEqual({ kind: 'activeMissing', node: 'active', message: 'No active box has been heard' });
  });

  it('a box that joins and hears no active while the active renews: the same finding (it gets no copy over a missing route)', () => {
    const [finding] = degradedOf({ ...standby, role: 'joining' });
    expect(finding!.message).toContain('the route between the two boxes');
  });

  it('a standby that hears the active: nothing degraded', () => {
    const peer = {
      node: 'box-a',
      role: 'active' as const,
      appliedSeq: 10,
      lagEntries: undefined,
      lagMs: undefined,
      problem: undefined,
      schema: 200,
      heardMsAgo: 300,
    };
    expect(degradedOf({ ...standby, peer })).toEqual([]);
  });

  it('an active whose standby cannot follow (another schema): standbyMissing with its reason', () => {
    const peer = {
      node: 'box-b',
      role: 'standby' as const,
      appliedSeq: 9,
      lagEntries: undefined,
      lagMs: undefined,
      problem: 'entry 10 of the change log cannot be applied: the active writes schema 210',
      schema: 200,
      heardMsAgo: 300,
    };
    const found = degradedOf({ ...standby, node: 'box-a', role: 'active', peer, holder: 'box-a', holderRenewedMsAgo: undefined });
    expect(found).toEqual([{ kind: 'standbyMissing', node: 'box-b', message: `The standby box-b cannot follow: ${peer.problem}` }]);
  });
});
