import { cachesOver } from '../core/cache.ts';
import type { Appliance } from '../main.ts';
import type { PairCluster } from './cluster.ts';
import { StandbyFollower } from './follower.ts';

// The standby's follower over the appliance it serves reads with (docs/ha.md,
// "Standby"): each entry applied past the appliance's caches, which forget what they
// held (entities, the callers' grants), so that a read shows the copy as it now stands.

export async function followAsStandby(
  appliance: Appliance,
  cluster: PairCluster,
  failed: (error: unknown, streamSeq: number) => void,
): Promise<StandbyFollower> {
  const users = appliance.module('users');
  const follower = new StandbyFollower({
    db: appliance.db,
    js: cluster.js,
    names: cluster.names,
    applied: () => {
      cachesOver(appliance.db).clearAll();
      users.invalidatePrincipals();
    },
    failed,
  });
  await follower.start();
  return follower;
}
