import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE } from '../scripts/build.ts';
import { expectApiError, startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';

// Online backups over the API, and the restore from the command line.

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance({ storage: { backupsToKeep: 2 } });
});
afterAll(() => wms.close());

const backupDir = () => path.join(wms.dataDir, 'backups');

describe('online backups', () => {
  it('POST /v1/backups takes a whole, readable copy of the live database', async () => {
    expect((await wms.post('/v1/locations', { locationId: 'BKUP/0001/0001/0001/0001', locationGroupName: 'WAREHOUSE' })).status).toBe(201);
    const reply = await wms.post('/v1/backups');
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('location')).toMatch(/\/v1\/backups\/wms-backup-.*\.sqlite$/);
    expect(reply.body).toMatchObject({ kind: 'online', size: expect.any(Number) });

    const copy = new Database(path.join(backupDir(), reply.body.name), { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.prepare('SELECT count(*) FROM locations WHERE location_id = ?').pluck().get('BKUP/0001/0001/0001/0001')).toBe(1);
    } finally {
      copy.close();
    }
  });

  it('lists, downloads and deletes backups; unknown names are 404', async () => {
    const taken = (await wms.post('/v1/backups')).body;
    const list = await wms.get('/v1/backups');
    expect(list.body.map((b: { name: string }) => b.name)).toContain(taken.name);

    const download = await fetch(`${wms.url}/v1/backups/${taken.name}`, { headers: { Authorization: `Bearer ${await wms.token()}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/vnd.sqlite3');
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.equals(readFileSync(path.join(backupDir(), taken.name)))).toBe(true);
    expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');

    expect((await wms.del(`/v1/backups/${taken.name}`)).status).toBe(204);
    expectApiError(await wms.get(`/v1/backups/${taken.name}`), 404, 'not.found');
    expectApiError(await wms.get('/v1/backups/wms.sqlite'), 404, 'not.found');
    expectApiError(await wms.del(`/v1/backups/${encodeURIComponent('../wms.sqlite')}`), 404, 'not.found');
  });

  it('keeps the newest storage.backupsToKeep online backups', async () => {
    for (let i = 0; i < 3; i++) expect((await wms.post('/v1/backups')).status).toBe(201);
    const online = (await wms.get('/v1/backups')).body.filter((b: { kind: string }) => b.kind === 'online');
    expect(online).toHaveLength(2);
  });
});

describe('wms --restore FILE', () => {
  const run = (args: string[], cwd: string, env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BUNDLE, ...args], { cwd, env: { PATH: process.env.PATH, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it('puts a backup in place of the database and keeps the previous one; the next start sees the backup\'s data', async () => {
    const dataDir = tempDir('wms-restore-');
    let box = await startTestAppliance({}, dataDir);
    expect((await box.post('/v1/location-groups', { name: 'BEFORE-BACKUP' })).status).toBe(201);
    const backup = (await box.post('/v1/backups')).body;
    expect((await box.post('/v1/location-groups', { name: 'AFTER-BACKUP' })).status).toBe(201);

    // While the appliance runs, its database is in use: refused.
    const refused = await run(['--data-dir', dataDir, '--restore', path.join(dataDir, 'backups', backup.name)], dataDir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/in use by another running appliance/);
    await box.app.close();

    const restored = await run(['--data-dir', dataDir, '--restore', path.join(dataDir, 'backups', backup.name)], dataDir);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/previous database is kept as .*wms-before-restore-/);

    box = await startTestAppliance({}, dataDir);
    try {
      expect((await box.get('/v1/location-groups?name=BEFORE-BACKUP')).status).toBe(200);
      expectApiError(await box.get('/v1/location-groups?name=AFTER-BACKUP'), 404, 'svc.common.common.lg.notFoundByName');
      expect((await box.get('/v1/backups')).body.some((b: { kind: string }) => b.kind === 'pre-restore')).toBe(true);
    } finally {
      await box.close();
    }
  });

  it('refuses a file that is no database, a missing file and a backup of a newer build (exit 1), changing nothing', async () => {
    const dataDir = tempDir('wms-restore-bad-');
    const garbage = path.join(dataDir, 'garbage.sqlite');
    writeFileSync(garbage, 'this is not a database');
    const notDb = await run(['--data-dir', dataDir, '--restore', garbage], dataDir);
    expect(notDb.code).toBe(1);
    expect(notDb.stderr).toMatch(/cannot restore: .*not a database/);

    const missing = await run(['--data-dir', dataDir, '--restore', path.join(dataDir, 'nope.sqlite')], dataDir);
    expect(missing.code).toBe(1);

    const newer = path.join(dataDir, 'newer.sqlite');
    const db = new Database(newer);
    db.pragma('user_version = 9999');
    db.close();
    const future = await run(['--data-dir', dataDir, '--restore', newer], dataDir);
    expect(future.code).toBe(1);
    expect(future.stderr).toMatch(/newer build/);
  });
});
