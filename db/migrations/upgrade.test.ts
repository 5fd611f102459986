import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/core/db.ts';
import { createLogger } from '../../src/core/log.ts';
import { migrate } from '../../src/core/migrations.ts';
import { tempDir } from '../../test/support/appliance.ts';
import { migrations } from './index.ts';

// The migrations that change tables or rows already there, run as an upgrade runs them:
// a database at the version before, rows of that version written into it, then the
// migration, and what became of the rows. (A scratch database of the schema alone, not
// an appliance: what a real one holds is made by its services.)

const NOW = '2026-01-01T00:00:00.000Z';
const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** A database migrated up to and including `version`. */
function databaseAt(version: number): Db {
  const dir = tempDir('wms-upgrade-');
  const db = openDatabase({ file: path.join(dir, 'wms.sqlite'), busyTimeoutMs: 1000 });
  open.push(db);
  upgrade(
    db,
    migrations.filter((m) => m.version <= version),
    dir,
  );
  return db;
}

function upgrade(db: Db, list = migrations, dir = tempDir('wms-upgrade-')): void {
  migrate(db, list, { backupDir: path.join(dir, 'backups'), backupsToKeep: 1, log: createLogger({ level: 'error', destination: new PassThrough() }) });
}

const insertUser = (db: Db, pk: string, username: string, locked: 0 | 1) =>
  db
    .prepare(
      'INSERT INTO users (pk, username, password_hash, locked, enabled, failed_logins, ol, create_dt, last_modified_dt) VALUES (?, ?, ?, ?, 1, 3, 2, ?, ?)',
    )
    .run(pk, username, 'scrypt$16384$8$1$c2FsdA$aGFzaA', locked, NOW, NOW);

describe('upgrades that change what is there', () => {
  it('0130: a user locked before keeps the lock, as an administrator sets it (until lifted), with no lockouts counted', () => {
    const db = databaseAt(120);
    insertUser(db, 'u1', 'locked-before', 1);
    insertUser(db, 'u2', 'open-before', 0);
    upgrade(
      db,
      migrations.filter((m) => m.version <= 130),
    );
    expect(db.prepare('SELECT username, locked, failed_logins, ol, locked_until, lockouts FROM users WHERE pk IN (?, ?) ORDER BY pk').all('u1', 'u2')).toEqual([
      { username: 'locked-before', locked: 1, failed_logins: 3, ol: 2, locked_until: null, lockouts: 0 },
      { username: 'open-before', locked: 0, failed_logins: 3, ol: 2, locked_until: null, lockouts: 0 },
    ]);
  });

  it('0140: roles lose backups:read and backups:write, and keep every other grant and member', () => {
    const db = databaseAt(130);
    insertUser(db, 'u1', 'operator', 0);
    db.prepare('INSERT INTO roles (pk, name, ol, create_dt, last_modified_dt) VALUES (?, ?, 0, ?, ?)').run('r1', 'OPERATORS', NOW, NOW);
    for (const [pk, name] of [
      ['g1', 'backups:read'],
      ['g2', 'backups:write'],
      ['g3', 'locations:read'],
    ]) {
      db.prepare('INSERT OR IGNORE INTO grants (pk, name, ol, create_dt, last_modified_dt) VALUES (?, ?, 0, ?, ?)').run(pk, name, NOW, NOW);
      const grant = db.prepare('SELECT pk FROM grants WHERE name = ?').pluck().get(name);
      db.prepare('INSERT INTO role_grants (role_pk, grant_pk) VALUES (?, ?)').run('r1', grant);
    }
    db.prepare('INSERT INTO user_roles (user_pk, role_pk) VALUES (?, ?)').run('u1', 'r1');
    upgrade(
      db,
      migrations.filter((m) => m.version <= 140),
    );
    const granted = db.prepare('SELECT g.name FROM role_grants rg JOIN grants g ON g.pk = rg.grant_pk WHERE rg.role_pk = ? ORDER BY g.name').pluck().all('r1');
    expect(granted).toEqual(['locations:read']);
    expect(db.prepare("SELECT count(*) FROM grants WHERE name IN ('backups:read', 'backups:write')").pluck().get()).toBe(0);
    expect(db.prepare('SELECT user_pk FROM user_roles WHERE role_pk = ?').pluck().all('r1')).toEqual(['u1']);
  });

  it("0170: users keep their locks, each counted as an administrator's (it holds against every address), and no address is known yet", () => {
    const db = databaseAt(160);
    insertUser(db, 'u1', 'locked-before', 1);
    upgrade(
      db,
      migrations.filter((m) => m.version <= 170),
    );
    expect(db.prepare('SELECT locked, locked_after_failures, failed_logins FROM users WHERE pk = ?').get('u1')).toEqual({
      locked: 1,
      locked_after_failures: 0,
      failed_logins: 3,
    });
    expect(db.prepare('SELECT count(*) FROM user_login_addresses').pluck().get()).toBe(0);
  });

  it('0180: alarms raised before keep everything, without params (a client shows their message)', () => {
    const db = databaseAt(170);
    db.prepare(
      `INSERT INTO alarms (id, condition, kind, severity, state, message, source_kind, source_key, first_seen, last_seen, count)
       VALUES (7, 'plcChannel.down:CNV01', 'plcChannel.down', 'major', 'active', 'PLC channel CNV01 is down', 'plcChannel', 'CNV01', ?, ?, 2)`,
    ).run(NOW, NOW);
    upgrade(db);
    expect(db.prepare('SELECT id, kind, state, message, count, params FROM alarms').all()).toEqual([
      { id: 7, kind: 'plcChannel.down', state: 'active', message: 'PLC channel CNV01 is down', count: 2, params: null },
    ]);
  });
});
