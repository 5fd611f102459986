// The pair as it runs on two boxes: each appliance a process of its own (`wms` as
// installed), each beside its own node of a real three-node JetStream cluster. HTTP
// writes go on while the active is killed (`kill -9`): the standby takes over, every
// write that was acknowledged is on it, and the killed box comes back as the standby
// with the same database.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE } from '../scripts/build.ts';
import type { Db } from '../src/core/db.ts';
import { tableDigests } from '../src/ha/digest.ts';
import { ADMIN_PASSWORD, tempDir } from './support/appliance.ts';
import { startApplianceProcess, type ApplianceProcess } from './support/executable.ts';
import { freePort, startCluster, type NatsServer } from './support/nats.ts';
import { until } from './support/warehouse.ts';

const PAIR = 'hallf';
let cluster: NatsServer[];
let a: Box;
let b: Box;
let portA: number;
let portB: number;
let auth: string;
const processes: ApplianceProcess[] = [];

interface Box {
  node: string;
  dataDir: string;
  url: string;
  process: ApplianceProcess;
}

/** Starts `node` as `wms --data-dir <dir>` with the pair in its wms.config.json, on a fixed port (as on a box). */
async function startBox(node: string, server: NatsServer, port: number, dataDir = tempDir(`wms-ha-${node}-`)): Promise<Box> {
  const config = {
    server: { host: '127.0.0.1', port },
    auth: { passwordHashCost: 1024 },
    ha: { pair: PAIR, node, nats: { servers: [server.url] }, leaseTtlMs: 2000 },
  };
  writeFileSync(path.join(dataDir, 'wms.config.json'), JSON.stringify(config));
  const env: NodeJS.ProcessEnv = { WMS_ADMIN_PASSWORD: ADMIN_PASSWORD };
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WMS_') && k !== 'NODE_OPTIONS') env[k] = v;
  const started = await startApplianceProcess(process.execPath, [BUNDLE, '--data-dir', dataDir], { cwd: dataDir, env });
  processes.push(started);
  return { node, dataDir, url: started.url, process: started };
}

async function token(url: string): Promise<string> {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }).toString(),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function roleOf(url: string, auth: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/v1/ha`, { headers: { Authorization: `Bearer ${auth}` } });
    return res.status === 200 ? ((await res.json()) as { role: string }).role : undefined;
  } catch {
    return undefined;
  }
}

/** When the box's process last logged `msg` (ms; the processes share this machine's clock). */
function timeOf(box: Box, msg: string): number {
  const lines = box.process
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; time: string | number })
    .filter((l) => l.msg === msg);
  if (lines.length === 0) throw new Error(`${box.node} never logged "${msg}"`);
  return new Date(lines.at(-1)!.time).getTime();
}

/** The digests of a box's database, read beside the running appliance. */
function digestOf(box: Box): string {
  const db = new Database(path.join(box.dataDir, 'wms.sqlite'), { readonly: true });
  try {
    return JSON.stringify(tableDigests(db as unknown as Db));
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  cluster = await startCluster('ha-failover', 3);
}, 120_000);

afterAll(async () => {
  for (const p of processes) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
});

describe('a pair of processes', () => {
  it('kill -9 the active under HTTP writes: the standby takes over with every acknowledged write; the killed box rejoins with the same database', async () => {
    [portA, portB] = [await freePort(), await freePort()];
    a = await startBox('box-a', cluster[0]!, portA);
    auth = await token(a.url);
    await until(async () => (await roleOf(a.url, auth)) === 'active', 'box-a is active', 30_000);
    b = await startBox('box-b', cluster[1]!, portB);
    await until(async () => (await roleOf(b.url, auth)) === 'standby', 'box-b follows', 60_000);

    // Writers, as clients behind a floating address would: to whichever box takes the write.
    const acknowledged: string[] = [];
    let next = 0;
    let writing = true;
    const write = async (locationId: string): Promise<boolean> => {
      for (const url of [a.url, b.url]) {
        try {
          const res = await fetch(`${url}/v1/locations`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${auth}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ locationId, locationGroupName: 'WAREHOUSE' }),
          });
          await res.text();
          if (res.status === 201) return true;
          // Refused (a standby's 503) or not answered: not acknowledged, the next box is tried.
        } catch {
          // Not reachable (the killed box).
        }
      }
      return false;
    };
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) {
        const locationId = `HAF1/${String(++next).padStart(4, '0')}/0000/0000/0000`;
        if (await write(locationId)) acknowledged.push(locationId);
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    try {
      await until(() => acknowledged.length >= 40, 'writes are acknowledged by box-a', 30_000);
      a.process.child.kill('SIGKILL');
      await a.process.exited;
      const before = acknowledged.length;
      await until(async () => (await roleOf(b.url, auth)) === 'active', 'box-b takes over', 30_000);
      await until(() => acknowledged.length >= before + 40, 'writes are acknowledged by box-b', 30_000);
    } finally {
      writing = false;
      await Promise.all(writers);
    }

    // Every acknowledged write is on the new active.
    for (const locationId of acknowledged) {
      const res = await fetch(`${b.url}/v1/locations?locationId=${encodeURIComponent(locationId)}`, { headers: { Authorization: `Bearer ${auth}` } });
      expect(res.status, locationId).toBe(200);
    }

    // The killed box comes back as the standby and holds what the active holds.
    a = await startBox('box-a', cluster[0]!, portA, a.dataDir);
    await until(async () => (await roleOf(a.url, auth)) === 'standby', 'box-a follows again', 60_000);
    await until(() => digestOf(a) === digestOf(b), 'box-a holds what box-b holds', 30_000);
  });

  it('the active cut off from the cluster ends before the standby takes the lease; started again, it rejoins from a copy without the write it never acknowledged', async () => {
    // box-b is active beside node 1, box-a the standby beside node 0.
    const locationId = 'HAF2/0001/0000/0000/0000';
    let answered: number | string | undefined;
    cluster[1]!.pause();
    try {
      void fetch(`${b.url}/v1/locations`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${auth}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ locationId, locationGroupName: 'WAREHOUSE' }),
      }).then(
        (r) => (answered = r.status),
        () => (answered = 'cut off'),
      );
      // It cannot renew: it ends its process (the service would start it again).
      expect(await b.process.exited).toBe(75);
      await until(async () => (await roleOf(a.url, auth)) === 'active', 'box-a takes over', 30_000);
      await until(() => answered !== undefined, 'the write to box-b ends', 30_000);
      expect(answered).toBe('cut off');
    } finally {
      cluster[1]!.resume();
    }
    // Never two actives: box-b had stopped acting before box-a took the lease.
    expect(timeOf(b, 'lost the lease')).toBeLessThan(timeOf(a, 'took the lease'));
    b = await startBox('box-b', cluster[1]!, portB, b.dataDir);
    await until(async () => (await roleOf(b.url, auth)) === 'standby', 'box-b follows again', 60_000);
    await until(() => digestOf(a) === digestOf(b), 'box-b holds what box-a holds', 30_000);
    expect(b.process.output()).toContain('this box joined the pair from a copy of the active');
    const gone = await fetch(`${a.url}/v1/locations?locationId=${encodeURIComponent(locationId)}`, { headers: { Authorization: `Bearer ${auth}` } });
    expect(gone.status).toBe(404);
  });
});
