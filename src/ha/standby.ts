import { cachesOver } from '../core/cache.ts';
import type { Appliance } from '../main.ts';
import type { PairCluster } from './cluster.ts';
import { StandbyFollower } from './follower.ts';

// The standby's follower over the appliance it serves reads with (docs/ha.md,
// "Standby"): each entry applied past the appliance's caches, which forget what they
// held (entities, the callers' grants), so that a read shows the copy as it now stands;
// and the events the entries brought to the event streams open on the standby (an HMI
// served by it stays live), as an active hands out its own once they are on disk.

/** Events handed out per turn of the event loop: a standby catching up hands out thousands. */
const EVENTS_PER_TURN = 1000;

export async function followAsStandby(
  appliance: Appliance,
  cluster: PairCluster,
  failed: (error: unknown, streamSeq: number) => void,
): Promise<StandbyFollower> {
  const users = appliance.module('users');
  let delivered = appliance.events.newest();
  let handing = false;
  const handOut = () => {
    const batch = appliance.db.open ? appliance.events.after(delivered, EVENTS_PER_TURN) : [];
    if (batch.length === 0) {
      handing = false;
      return;
    }
    delivered = batch.at(-1)!.id;
    appliance.work.bus.deliverDurable(batch);
    setImmediate(handOut);
  };
  const follower = new StandbyFollower({
    db: appliance.db,
    js: cluster.js,
    names: cluster.names,
    applied: () => {
      cachesOver(appliance.db).clearAll();
      users.invalidatePrincipals();
      if (!handing) {
        handing = true;
        handOut();
      }
    },
    failed,
  });
  await follower.start();
  return follower;
}
