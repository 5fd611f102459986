import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { connectOptions, loadNats, type NatsConnection, type NatsLibraries } from '../nats/connect.ts';
import { ensureChangeLog, type ChangeLogNames } from './change-log.ts';
import type { HaConfig } from './config.ts';
import { openLeaseStore } from './kv-store.ts';
import type { LeaseStore } from './lease.ts';

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
