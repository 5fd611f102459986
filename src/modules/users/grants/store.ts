import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';

// Grants (security objects). System grants are the ones the route table names.

export interface Grant extends Versioned {
  name: string;
  description: string | null;
  system: boolean;
}

interface Row extends VersionedRow {
  name: string;
  description: string | null;
  system: number;
}

const COLUMNS = 'pk, name, description, system, ol, create_dt, last_modified_dt';

// Grants by name, in pages (core/listing.ts). A site has tens: the whole list is read
// at once on the writer's connection.
const byName = (where: string) =>
  new KeysetList<Row>({
    sql: `SELECT ${COLUMNS} FROM grants WHERE ${where} AND name > @k0 ORDER BY name LIMIT @limit`,
    keyOf: (row) => [row.name],
    first: [''],
  });
const EVERY_GRANT = byName('1');
/** The effective grants of a user: the union of its roles' grants. */
const OF_USER = byName('pk IN (SELECT rg.grant_pk FROM user_roles ur JOIN role_grants rg ON rg.role_pk = ur.role_pk WHERE ur.user_pk = +@user)');

export function createGrantStore(db: Db) {
  const s = {
    byPk: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM grants WHERE pk = ?`),
    byName: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM grants WHERE name = ?`),
    namesOfUser: db
      .prepare<[string], string>(
        `SELECT DISTINCT g.name FROM user_roles ur
           JOIN role_grants rg ON rg.role_pk = ur.role_pk
           JOIN grants g ON g.pk = rg.grant_pk
         WHERE ur.user_pk = +?`,
      )
      .pluck(),
    namesOfRole: db.prepare<[string], string>('SELECT g.name FROM role_grants rg JOIN grants g ON g.pk = rg.grant_pk WHERE rg.role_pk = +?').pluck(),
    insert: db.prepare(
      `INSERT INTO grants (pk, name, description, system, ol, create_dt, last_modified_dt)
       VALUES (@pk, @name, @description, @system, 0, @now, @now)`,
    ),
    update: db.prepare('UPDATE grants SET name = @name, description = @description, ol = ol + 1, last_modified_dt = @now WHERE pk = @pk'),
    markSystem: db.prepare('UPDATE grants SET system = 1 WHERE pk = ? AND system = 0'),
    delete: db.prepare('DELETE FROM grants WHERE pk = ?'),
  };
  const toGrant = (row: Row): Grant => ({
    ...versionedFrom(row),
    name: row.name,
    description: row.description,
    system: row.system === 1,
  });
  const one = (row: Row | undefined) => (row ? toGrant(row) : undefined);

  return {
    list: (): Listing<Grant> => EVERY_GRANT.listing(db, {}, (rows) => rows.map(toGrant)),
    byPk: (pk: string) => one(s.byPk.get(pk)),
    byName: (name: string) => one(s.byName.get(name)),
    ofUser: (userPk: string): Listing<Grant> => OF_USER.listing(db, { user: userPk }, (rows) => rows.map(toGrant)),
    /** The effective grants of a user: the union of its roles' grants. */
    namesOfUser: (userPk: string) => s.namesOfUser.all(userPk),
    namesOfRole: (rolePk: string) => s.namesOfRole.all(rolePk),
    insert(name: string, description: string | null, system: boolean, now: string): string {
      const pk = newPKey();
      s.insert.run({ pk, name, description, system: system ? 1 : 0, now });
      return pk;
    },
    update: (pk: string, name: string, description: string | null, now: string) => s.update.run({ pk, name, description, now }),
    markSystem: (pk: string) => s.markSystem.run(pk),
    delete: (pk: string) => s.delete.run(pk),
  };
}

export type GrantStore = ReturnType<typeof createGrantStore>;
