import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE } from '../scripts/build.ts';
import { ADMIN_PASSWORD, startTestAppliance, tempDir } from './support/appliance.ts';
import { until } from './support/warehouse.ts';

// SIGTERM as systemd sends it on `systemctl stop`, while four clients write as fast as
// they can: the appliance stops taking connections, answers what it has, folds the WAL
// into the database, and exits 0; after a restart every write it acknowledged is there.

describe('SIGTERM under load', () => {
  it('exits 0 with the WAL checkpointed, and every acknowledged write survives', async () => {
    const dataDir = tempDir('wms-stop-');
    const child = spawn(process.execPath, [BUNDLE, '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      env: { PATH: process.env.PATH, WMS_ADMIN_PASSWORD: ADMIN_PASSWORD },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const match = /"url":"(http:\/\/[^"]+)"[^\n]*appliance started/.exec(out);
        if (match) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    const login = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }).toString(),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;

    const acknowledged: string[] = [];
    let stopped = false;
    const writer = async (w: number) => {
      for (let i = 0; !stopped; i++) {
        const name = `STOP-${w}-${i}`;
        try {
          const res = await fetch(`${url}/v1/location-groups`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ name }),
          });
          if (res.status === 201) acknowledged.push(name);
          else await res.arrayBuffer();
        } catch {
          return; // refused or cut: the appliance is going
        }
      }
    };
    const writers = Array.from({ length: 4 }, (_, w) => writer(w));
    // The stop comes while the writers are under way.
    await until(() => acknowledged.length > 10, 'writes are acknowledged', 30_000);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    stopped = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(10);
    expect(out).toContain('"msg":"appliance stopped"');
    const wal = path.join(dataDir, 'wms.sqlite-wal');
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);

    const again = await startTestAppliance({}, dataDir);
    try {
      for (const name of acknowledged) {
        expect((await again.get(`/v1/location-groups?name=${name}`)).status, name).toBe(200);
      }
    } finally {
      await again.close();
    }
  }, 60_000);
});
