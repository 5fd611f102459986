import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE } from '../scripts/build.ts';
import { expectApiError, expectServerError, loginReply, startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';

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

describe('a backup is as secret as the box', () => {
  it('needs backups:admin, which only ADMIN holds: a role with every other grant is refused', async () => {
    const grants = (await wms.get('/grants')).body as { name: string; description: string }[];
    const names = grants.map((g) => g.name);
    expect(names).toContain('backups:admin');
    expect(names).not.toContain('backups:read');
    expect(names).not.toContain('backups:write');
    expect(grants.find((g) => g.name === 'backups:admin')!.description).toMatch(/password hash.*administrator/);

    const everyOther = names.filter((n) => n !== 'backups:admin');
    expect((await wms.post('/roles', { name: 'ALMOST_ALL', grants: everyOther })).status).toBe(201);
    expect((await wms.post('/users', { links: [], username: 'almost', password: 'almost-password', roleNames: ['ALMOST_ALL'] })).status).toBe(201);
    const token = (await loginReply(wms, 'almost', 'almost-password')).body.access_token as string;
    const taken = (await wms.post('/v1/backups')).body;
    for (const [method, p] of [['GET', '/v1/backups'], ['GET', `/v1/backups/${taken.name}`], ['POST', '/v1/backups'], ['DELETE', `/v1/backups/${taken.name}`], ['GET', '/v1/backups/index']] as const) {
      expectServerError(await wms.request(method, p, { token }), 403);
    }
  });

  it('the data directory is 0700; the database, its WAL, the logs database and backups are 0600', async () => {
    await wms.post('/v1/backups');
    const mode = (file: string) => statSync(file).mode & 0o777;
    expect(mode(wms.dataDir)).toBe(0o700);
    expect(mode(backupDir())).toBe(0o700);
    const files = [...readdirSync(wms.dataDir).map((f) => path.join(wms.dataDir, f)), ...readdirSync(backupDir()).map((f) => path.join(backupDir(), f))]
      .filter((f) => statSync(f).isFile());
    expect(files.some((f) => f.endsWith('wms.sqlite-wal'))).toBe(true);
    expect(files.some((f) => f.endsWith('wms-logs.sqlite'))).toBe(true);
    for (const file of files) expect(mode(file).toString(8), file).toBe('600');
  });

  it('an older data directory readable by others is tightened at the next start', async () => {
    const dataDir = tempDir('wms-open-dir-');
    let box = await startTestAppliance({}, dataDir);
    await box.post('/v1/backups');
    await box.app.close();
    chmodSync(dataDir, 0o755);
    for (const f of readdirSync(dataDir)) if (statSync(path.join(dataDir, f)).isFile()) chmodSync(path.join(dataDir, f), 0o644);
    box = await startTestAppliance({}, dataDir);
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(dataDir, 'wms.sqlite')).mode & 0o777).toBe(0o600);
    } finally {
      await box.close();
    }
  });
});

describe('backups taken at once', () => {
  it('8 parallel requests: each is taken or refused with 409 backup.inProgress, names never meet, nothing is left behind', async () => {
    const replies = await Promise.all(Array.from({ length: 8 }, () => wms.post('/v1/backups')));
    const taken = replies.filter((r) => r.status === 201);
    expect(taken.length).toBeGreaterThanOrEqual(1);
    for (const reply of replies.filter((r) => r.status !== 201)) expectApiError(reply, 409, 'backup.inProgress');
    expect(new Set(taken.map((r) => r.body.name)).size).toBe(taken.length);
    // Back to back, one after the other: every one is taken, under a name of its own.
    const names = [];
    for (let i = 0; i < 4; i++) {
      const reply = await wms.post('/v1/backups');
      expect(reply.status, reply.text).toBe(201);
      names.push(reply.body.name);
    }
    expect(new Set(names).size).toBe(4);
    // Only whole backups in the folder: no partial copies, no -wal or -shm beside them.
    const listed = (await wms.get('/v1/backups')).body.map((b: { name: string }) => b.name).sort();
    expect(readdirSync(backupDir()).sort()).toEqual(listed);
    // A refusal is no failure: no backup.failed event, no alarm.
    expect((await wms.get('/v1/events/history?types=backup.failed')).body).toEqual([]);
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

    // The installer's copy of the backup, in a folder of its own: left exactly as it was.
    const carried = tempDir('wms-restore-source-');
    copyFileSync(path.join(dataDir, 'backups', backup.name), path.join(carried, backup.name));
    const restored = await run(['--data-dir', dataDir, '--restore', path.join(carried, backup.name)], dataDir);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/previous database is kept as .*wms-before-restore-/);
    expect(readdirSync(carried)).toEqual([backup.name]);
    expect(readdirSync(dataDir).filter((f) => f.includes('restoring'))).toEqual([]);

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
