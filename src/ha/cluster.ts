import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from '../core/log.ts';
import { connectOptions, loadNats, type NatsConnection, type NatsLibraries } from '../nats/connect.ts';
import { ensureChangeLog, type ChangeLogNames } from './change-log.ts';
import type { HaConfig } from './config.ts';
import { openLeaseStore } from './kv-store.ts';
import type { LeaseStore } from './lease.ts';
import { everySecond } from './retry.ts';

// A box's way into its pair's NATS cluster (docs/ha.md): the connection to its node, the
// change log (created on first use) and the lease's bucket.

export interface PairCluster {
  lib: NatsLibraries;
  nc: NatsConnection;
  /** Publishes and reads the change log; a call is bounded by the lease's TTL (later is of no use). */
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: ChangeLogNames;
  store: LeaseStore;
}

export async function openPairCluster(ha: HaConfig): Promise<PairCluster> {
  const lib = await loadNats();
  const nc = await lib.nats.connect(connectOptions(lib.nats, ha.nats, `wms-ha-${ha.node!}`));
  try {
    const js = lib.js.jetstream(nc, { timeout: Math.max(2000, ha.leaseTtlMs) });
    const jsm = await lib.js.jetstreamManager(nc);
    const names = await ensureChangeLog(lib.js, jsm, ha.pair!);
    // A lease call answered later than a quarter of the TTL is of no use: the next one is due.
    const store = await openLeaseStore(lib, nc, ha.pair!, Math.floor(ha.leaseTtlMs / 4));
    return { lib, nc, js, jsm, names, store };
  } catch (err) {
    await nc.close();
    throw err;
  }
}

/** The pair's cluster, tried again every second until it answers (its node may start after this box, or be electing). */
export async function reachPairCluster(ha: HaConfig, log: Logger, stop: AbortSignal): Promise<PairCluster> {
  const cluster = await everySecond(
    () => openPairCluster(ha),
    stop,
    (err, n) => {
      if (n % 10 === 0) log.warn({ err }, "cannot reach the pair's NATS cluster yet; trying again every second");
    },
  );
  if (!cluster) throw new Error("stopped before the pair's NATS cluster answered");
  return cluster;
}
