import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase, type Db } from '../../src/core/db.ts';
import { natsConnectionSchema } from '../../src/nats/config.ts';
import { connectOptions, loadNats, type NatsConnection } from '../../src/nats/connect.ts';
import { tempDir, type TestAppliance } from './appliance.ts';
import type { NatsServer } from './nats.ts';

// The pair's tests (src/ha/): a box's connection to its node of the cluster, and a
// standby's starting copy of an appliance's database.

/**
 * A connection to `server` only, made as the appliance makes its own (connectOptions),
 * that never reaches the cluster's other nodes through the addresses they gossip: a box
 * cut off from the others stays cut off.
 */
export async function connectBeside(server: NatsServer, name: string, options: { reconnectTimeWait?: number } = {}): Promise<NatsConnection> {
  const lib = await loadNats();
  return lib.nats.connect({
    ...connectOptions(lib.nats, natsConnectionSchema.parse({ servers: [server.url] }), name),
    ignoreClusterUpdates: true,
    ...options,
  });
}

/** A standby's starting copy: the appliance's online backup (taken now, through its service), opened as a database of its own. */
export async function standbyCopy(wms: TestAppliance): Promise<Db> {
  const backups = wms.app.module('backups');
  const backup = await backups.take();
  const file = path.join(tempDir('wms-ha-standby-'), 'wms.sqlite');
  copyFileSync(backups.byName(backup.name).file, file);
  return openDatabase({ file, busyTimeoutMs: 5000 });
}
