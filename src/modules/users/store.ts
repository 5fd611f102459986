import type { Db } from '../../core/db.ts';
import { newPKey } from '../../core/ids.ts';

// All SQL of the users module (users, roles, grants and their links).

export interface UserRow {
  pk: string;
  username: string;
  password_hash: string | null;
  locked: number;
  enabled: number;
  expiration_date: string | null;
  failed_logins: number;
}

export function createUserStore(db: Db) {
  const s = {
    userByName: db.prepare<[string], UserRow>(
      'SELECT pk, username, password_hash, locked, enabled, expiration_date, failed_logins FROM users WHERE username = ?',
    ),
    userByPk: db.prepare<[string], UserRow>(
      'SELECT pk, username, password_hash, locked, enabled, expiration_date, failed_logins FROM users WHERE pk = ?',
    ),
    insertUser: db.prepare(
      `INSERT INTO users (pk, username, password_hash, last_password_change, ol, create_dt, last_modified_dt)
       VALUES (@pk, @username, @passwordHash, @now, 0, @now, @now)`,
    ),
    roleByName: db.prepare<[string], { pk: string }>('SELECT pk FROM roles WHERE name = ?'),
    insertRole: db.prepare(
      `INSERT INTO roles (pk, name, description, immutable, ol, create_dt, last_modified_dt)
       VALUES (@pk, @name, @description, @immutable, 0, @now, @now)`,
    ),
    grantByName: db.prepare<[string], { pk: string }>('SELECT pk FROM grants WHERE name = ?'),
    insertGrant: db.prepare(
      `INSERT INTO grants (pk, name, description, ol, create_dt, last_modified_dt)
       VALUES (@pk, @name, @description, 0, @now, @now)`,
    ),
    linkRoleGrant: db.prepare('INSERT OR IGNORE INTO role_grants (role_pk, grant_pk) VALUES (?, ?)'),
    linkUserRole: db.prepare('INSERT OR IGNORE INTO user_roles (user_pk, role_pk) VALUES (?, ?)'),
    grantsOfUser: db
      .prepare<[string], string>(
        `SELECT DISTINCT g.name FROM user_roles ur
           JOIN role_grants rg ON rg.role_pk = ur.role_pk
           JOIN grants g ON g.pk = rg.grant_pk
         WHERE ur.user_pk = +?`,
      )
      .pluck(),
    roleNamesOfUser: db
      .prepare<[string], string>(
        'SELECT r.name FROM user_roles ur JOIN roles r ON r.pk = ur.role_pk WHERE ur.user_pk = +? ORDER BY r.name',
      )
      .pluck(),
    failedLogin: db.prepare('UPDATE users SET failed_logins = failed_logins + 1 WHERE pk = ?'),
    resetFailedLogins: db.prepare('UPDATE users SET failed_logins = 0 WHERE pk = ? AND failed_logins <> 0'),
  };

  return {
    userByName: (username: string) => s.userByName.get(username),
    userByPk: (pk: string) => s.userByPk.get(pk),
    insertUser(username: string, passwordHash: string, now: string): string {
      const pk = newPKey();
      s.insertUser.run({ pk, username, passwordHash, now });
      return pk;
    },
    roleByName: (name: string) => s.roleByName.get(name),
    insertRole(name: string, description: string, immutable: boolean, now: string): string {
      const pk = newPKey();
      s.insertRole.run({ pk, name, description, immutable: immutable ? 1 : 0, now });
      return pk;
    },
    grantByName: (name: string) => s.grantByName.get(name),
    insertGrant(name: string, description: string, now: string): string {
      const pk = newPKey();
      s.insertGrant.run({ pk, name, description, now });
      return pk;
    },
    linkRoleGrant: (rolePk: string, grantPk: string) => s.linkRoleGrant.run(rolePk, grantPk),
    linkUserRole: (userPk: string, rolePk: string) => s.linkUserRole.run(userPk, rolePk),
    grantsOfUser: (pk: string) => s.grantsOfUser.all(pk),
    roleNamesOfUser: (pk: string) => s.roleNamesOfUser.all(pk),
    failedLogin: (pk: string) => s.failedLogin.run(pk),
    resetFailedLogins: (pk: string) => s.resetFailedLogins.run(pk),
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
