import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../db/migrations/index.ts';
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
    for (const [method, p] of [
      ['GET', '/v1/backups'],
      ['GET', `/v1/backups/${taken.name}`],
      ['POST', '/v1/backups'],
      ['DELETE', `/v1/backups/${taken.name}`],
      ['GET', '/v1/backups/index'],
    ] as const) {
      expectServerError(await wms.request(method, p, { token }), 403);
    }
  });

  it('the data directory is 0700; the database, its WAL, the logs database and backups are 0600', async () => {
    await wms.post('/v1/backups');
    const mode = (file: string) => statSync(file).mode & 0o777;
    expect(mode(wms.dataDir)).toBe(0o700);
    expect(mode(backupDir())).toBe(0o700);
    const files = [...readdirSync(wms.dataDir).map((f) => path.join(wms.dataDir, f)), ...readdirSync(backupDir()).map((f) => path.join(backupDir(), f))].filter(
      (f) => statSync(f).isFile(),
    );
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

/** The bundle run as an installer runs it, to its end. */
const run = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BUNDLE, ...args], { cwd, env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

describe('wms --restore FILE', () => {
  it("puts a backup in place of the database and keeps the previous one; the next start sees the backup's data", async () => {
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
});

describe('wms --restore refuses anything but a whole database of the appliance', () => {
  // A data directory whose database holds a location group, and the files offered in its
  // place. Every refusal: exit 2, one line naming the problem, the directory as it was.
  let dataDir: string;
  let offered: string;
  let backup: string;
  beforeAll(async () => {
    dataDir = tempDir('wms-restore-refused-');
    offered = tempDir('wms-restore-offered-');
    const box = await startTestAppliance({}, dataDir);
    expect((await box.post('/v1/location-groups', { name: 'KEPT-THROUGH-REFUSALS' })).status).toBe(201);
    const taken = (await box.post('/v1/backups')).body;
    backup = path.join(offered, 'backup.sqlite');
    copyFileSync(path.join(dataDir, 'backups', taken.name), backup);
    await box.app.close();
  });
  afterAll(() => {
    for (const dir of [dataDir, offered]) rmSync(dir, { recursive: true, force: true });
  });

  /** Every file of the data directory with a digest of its bytes. */
  const snapshot = (dir: string): Record<string, string> => {
    const files: Record<string, string> = {};
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      files[path.relative(dir, file)] = createHash('sha256').update(readFileSync(file)).digest('hex');
    }
    return files;
  };

  /** A copy of the good backup, changed by `change`. */
  const alteredBackup = (name: string, change: (file: string) => void) => {
    const file = path.join(offered, name);
    copyFileSync(backup, file);
    change(file);
    return file;
  };

  const cases: { name: string; file: () => string; line: RegExp }[] = [
    {
      name: 'an empty file',
      file: () => {
        const file = path.join(offered, 'empty.sqlite');
        writeFileSync(file, '');
        return file;
      },
      line: /empty\.sqlite is empty/,
    },
    {
      name: 'a text file',
      file: () => {
        const file = path.join(offered, 'notes.txt');
        writeFileSync(file, 'this is not a database\n');
        return file;
      },
      line: /notes\.txt is not an SQLite database/,
    },
    { name: 'a missing file', file: () => path.join(offered, 'nowhere.sqlite'), line: /nowhere\.sqlite does not exist/ },
    { name: 'a folder', file: () => offered, line: /is not a file/ },
    {
      name: "another program's SQLite database",
      file: () => {
        const file = path.join(offered, 'crm.sqlite');
        const db = new Database(file);
        db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('ACME')");
        db.close();
        return file;
      },
      line: /crm\.sqlite is not a database of the appliance: it has no schema version/,
    },
    {
      name: "another program's SQLite database that carries a schema number of ours",
      file: () => {
        const file = path.join(offered, 'crm-numbered.sqlite');
        const db = new Database(file);
        db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
        db.pragma(`user_version = ${migrations.at(-1)!.version}`);
        db.close();
        return file;
      },
      line: /crm-numbered\.sqlite is not a database of the appliance: schema \d+ has the table \w+, this file has not/,
    },
    {
      name: 'a database of the appliance with a schema number no build has',
      file: () =>
        alteredBackup('odd-schema.sqlite', (file) => {
          const db = new Database(file);
          db.pragma(`user_version = ${migrations.at(-1)!.version - 5}`);
          db.close();
        }),
      line: /odd-schema\.sqlite has schema \d+, which no build of the appliance writes/,
    },
    {
      name: 'a database of the appliance from a newer build',
      file: () =>
        alteredBackup('newer.sqlite', (file) => {
          const db = new Database(file);
          db.pragma('user_version = 9999');
          db.close();
        }),
      line: /newer\.sqlite was written by a newer build \(schema 9999; this build knows up to \d+\)/,
    },
    {
      name: 'a truncated database of the appliance',
      file: () => alteredBackup('truncated.sqlite', (file) => truncateSync(file, Math.floor(statSync(file).size / 2))),
      line: /truncated\.sqlite is damaged/,
    },
    {
      name: 'a database of the appliance with a page overwritten',
      file: () =>
        alteredBackup('scribbled.sqlite', (file) => {
          // The second page of the file (SQLite's default page size), whatever it held.
          const fd = openSync(file, 'r+');
          writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, 4096);
          closeSync(fd);
        }),
      line: /scribbled\.sqlite is damaged/,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: exit 2, one line naming the problem, the data directory untouched`, async () => {
      const file = c.file();
      const before = snapshot(dataDir);
      const offeredBefore = snapshot(offered);
      const refused = await run(['--data-dir', dataDir, '--restore', file], dataDir);
      expect(refused.code, refused.stderr).toBe(2);
      const lines = refused.stderr.split('\n').filter((l) => l !== '');
      expect(lines, refused.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^wms: cannot restore: /);
      expect(lines[0]).toMatch(c.line);
      expect(refused.stdout).toBe('');
      expect(snapshot(dataDir)).toEqual(before);
      // The offered file is only read.
      expect(snapshot(offered)).toEqual(offeredBefore);
    });
  }

  it('a new box without a data directory: a refused file leaves none behind, the backup makes one and starts', async () => {
    const fresh = path.join(tempDir('wms-restore-new-box-'), 'data');
    const crm = path.join(offered, 'crm-for-new-box.sqlite');
    const db = new Database(crm);
    db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
    db.close();
    const refused = await run(['--data-dir', fresh, '--restore', crm], offered);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/^wms: cannot restore: .*crm-for-new-box\.sqlite is not a database of the appliance: it has no schema version.*\n$/);
    expect(existsSync(fresh)).toBe(false);

    // Carried over readable by anyone: the restored database is the box's secret all the same.
    chmodSync(backup, 0o644);
    const restored = await run(['--data-dir', fresh, '--restore', backup], offered);
    expect(restored.code, restored.stderr).toBe(0);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(fresh, 'wms.sqlite')).mode & 0o777).toBe(0o600);
    const box = await startTestAppliance({}, fresh);
    try {
      expect((await box.get('/v1/location-groups?name=KEPT-THROUGH-REFUSALS')).status).toBe(200);
    } finally {
      await box.close();
      rmSync(path.dirname(fresh), { recursive: true, force: true });
    }
  });

  it('after the refusals the database starts with its data, and the good backup still restores', async () => {
    let box = await startTestAppliance({}, dataDir);
    expect((await box.get('/v1/location-groups?name=KEPT-THROUGH-REFUSALS')).status).toBe(200);
    expect((await box.post('/v1/location-groups', { name: 'AFTER-THE-BACKUP' })).status).toBe(201);
    await box.app.close();

    const restored = await run(['--data-dir', dataDir, '--restore', backup], dataDir);
    expect(restored.code, restored.stderr).toBe(0);
    box = await startTestAppliance({}, dataDir);
    try {
      expect((await box.get('/v1/location-groups?name=KEPT-THROUGH-REFUSALS')).status).toBe(200);
      expectApiError(await box.get('/v1/location-groups?name=AFTER-THE-BACKUP'), 404, 'svc.common.common.lg.notFoundByName');
    } finally {
      await box.close();
    }
  });
});
