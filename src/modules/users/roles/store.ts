import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';

// Roles and the grants and users assigned to them.

export interface Role extends Versioned {
  name: string;
  description: string | null;
  immutable: boolean;
  grantNames: string[];
  userPks: string[];
}

interface RoleFields {
  name: string;
  description: string | null;
  immutable: boolean;
}

interface Row extends VersionedRow {
  name: string;
  description: string | null;
  immutable: number;
}

const COLUMNS = 'pk, name, description, immutable, ol, create_dt, last_modified_dt';

// Roles by name, in pages (core/listing.ts). A site has a handful: the whole list is
// read at once on the writer's connection.
const byName = (where: string) =>
  new KeysetList<Row>({
    sql: `SELECT ${COLUMNS} FROM roles WHERE ${where} AND name > @k0 ORDER BY name LIMIT @limit`,
    keyOf: (row) => [row.name],
    first: [''],
  });
const EVERY_ROLE = byName('1');
const OF_USER = byName('pk IN (SELECT role_pk FROM user_roles WHERE user_pk = @user)');

export function createRoleStore(db: Db) {
  const s = {
    byPk: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM roles WHERE pk = ?`),
    byName: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM roles WHERE name = ?`),
    grantNames: db
      .prepare<[string], string>('SELECT g.name FROM role_grants rg JOIN grants g ON g.pk = rg.grant_pk WHERE rg.role_pk = +? ORDER BY g.name')
      .pluck(),
    userPks: db.prepare<[string], string>('SELECT u.pk FROM user_roles ur JOIN users u ON u.pk = ur.user_pk WHERE ur.role_pk = +? ORDER BY u.username').pluck(),
    apiKeyCounts: db.prepare<[string], { active: number; revoked: number }>(
      `SELECT count(*) FILTER (WHERE revoked_at IS NULL) AS active, count(*) FILTER (WHERE revoked_at IS NOT NULL) AS revoked
       FROM api_keys WHERE role_pk = ?`,
    ),
    insert: db.prepare(
      `INSERT INTO roles (pk, name, description, immutable, ol, create_dt, last_modified_dt)
       VALUES (@pk, @name, @description, @immutable, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE roles SET name = @name, description = @description, immutable = @immutable,
         ol = ol + 1, last_modified_dt = @now WHERE pk = @pk`,
    ),
    deleteGrants: db.prepare('DELETE FROM role_grants WHERE role_pk = ?'),
    insertGrant: db.prepare('INSERT OR IGNORE INTO role_grants (role_pk, grant_pk) VALUES (?, ?)'),
    deleteUsers: db.prepare('DELETE FROM user_roles WHERE role_pk = ?'),
    insertUser: db.prepare('INSERT OR IGNORE INTO user_roles (user_pk, role_pk) VALUES (?, ?)'),
    delete: db.prepare('DELETE FROM roles WHERE pk = ?'),
  };
  const toRole = (row: Row): Role => ({
    ...versionedFrom(row),
    name: row.name,
    description: row.description,
    immutable: row.immutable === 1,
    grantNames: s.grantNames.all(row.pk),
    userPks: s.userPks.all(row.pk),
  });
  const one = (row: Row | undefined) => (row ? toRole(row) : undefined);

  return {
    list: (): Listing<Role> => EVERY_ROLE.listing(db, {}, (rows) => rows.map(toRole)),
    byPk: (pk: string) => one(s.byPk.get(pk)),
    byName: (name: string) => one(s.byName.get(name)),
    ofUser: (userPk: string): Listing<Role> => OF_USER.listing(db, { user: userPk }, (rows) => rows.map(toRole)),
    /** API keys acting in the role, and revoked ones that name it. */
    apiKeyCounts: (pk: string) => s.apiKeyCounts.get(pk)!,
    insert(fields: RoleFields, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...fields, immutable: fields.immutable ? 1 : 0, pk, now });
      return pk;
    },
    update: (pk: string, fields: RoleFields, now: string) => s.update.run({ ...fields, immutable: fields.immutable ? 1 : 0, pk, now }),
    setGrants(pk: string, grantPks: readonly string[]) {
      s.deleteGrants.run(pk);
      for (const grantPk of grantPks) s.insertGrant.run(pk, grantPk);
    },
    addGrant: (pk: string, grantPk: string) => s.insertGrant.run(pk, grantPk),
    setUsers(pk: string, userPks: readonly string[]) {
      s.deleteUsers.run(pk);
      for (const userPk of userPks) s.insertUser.run(userPk, pk);
    },
    delete: (pk: string) => s.delete.run(pk),
  };
}

export type RoleStore = ReturnType<typeof createRoleStore>;
