import type { Subscription } from '@nats-io/transport-node';
import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import type { Appliance } from '../main.ts';
import type { PairCluster } from './cluster.ts';
import type { LeaseStatus } from './lease.ts';
import { serveCopies } from './copy.ts';
import { closeDoorOnceMoved, openDoor, type Handover } from './handover.ts';
import { serveRelayed } from './relay.ts';

// What the active answers the other box on the pair's cluster: copies of its database
// for a box that joins (copy.ts), the requests a switchover's former active hands it
// (relay.ts); and, on the way out of the active role, the switchover's door
// (handover.ts) that hands them.

/**
 * Requests on connections already open to the active are still taken this long as it
 * hands over, and answered with `Connection: close` (lifecycle.ts, stopServing): a client
 * that writes all the while moves to the door without a request lost in between.
 */
const SWITCHOVER_GRACE_MS = 300;

export class ActiveServing {
  private readonly config: Config;
  private readonly cluster: PairCluster;
  private readonly lease: () => LeaseStatus;
  private readonly log: Logger;
  private subscriptions: Subscription[] = [];
  private door: Handover | undefined;

  /** `lease`: where this box's lease stands now. */
  constructor(config: Config, cluster: PairCluster, lease: () => LeaseStatus, log: Logger) {
    this.config = config;
    this.cluster = cluster;
    this.lease = lease;
    this.log = log;
  }

  /** Whether the other box holds the lease now (by what this box last read of it). */
  private readonly otherHolds = (): boolean => {
    const lease = this.lease();
    return lease.role === 'follower' && lease.holder !== undefined && lease.holder !== this.config.ha.node;
  };

  /** The active's appliance serves: copies and relayed requests are taken from now on. */
  start(appliance: Appliance): void {
    const pair = this.config.ha.pair!;
    this.subscriptions = [
      serveCopies(this.cluster.nc, pair, appliance.module('backups'), (err) => this.log.warn({ err }, 'a copy for a joining box failed')),
      serveRelayed(this.cluster.nc, pair, appliance.url, this.log),
    ];
  }

  /** No longer: this box hands the active role over, or stops. */
  stop(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }

  /**
   * A switchover's first steps: this box takes nothing more for the other; the door opens
   * on the active's port (handover.ts); the active's appliance stops, still answering
   * requests on connections already open for SWITCHOVER_GRACE_MS, with `Connection: close`.
   */
  async handOver(appliance: Appliance): Promise<void> {
    this.stop();
    this.door = await openDoor(this.config, this.cluster, appliance.port, this.otherHolds, this.log);
    await appliance.close(undefined, this.door ? SWITCHOVER_GRACE_MS : 0);
  }

  /** Closes the door, if open, once the floating address has moved to the other box. */
  async closeDoorOnceMoved(stop: AbortSignal): Promise<void> {
    const door = this.door;
    if (!door) return;
    await closeDoorOnceMoved(door, this.otherHolds, this.config.ha.leaseTtlMs, stop);
    if (this.door === door) this.door = undefined;
  }

  /** Closes the door now, if open (the box stops). */
  async closeDoor(): Promise<void> {
    await this.door?.close();
    this.door = undefined;
  }
}
