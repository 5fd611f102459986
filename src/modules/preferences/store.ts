import type { Db } from '../../core/db.ts';
import { KeysetList, type Listing } from '../../core/listing.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import { newPKey } from '../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../core/versioned.ts';
import type { PreferenceType, Scope } from './schema.ts';

// All SQL of the preferences module. Owners are compared as coalesce(owner, ''), the
// expression of the unique index, so lookups by kind + owner (+ key) use it.

export interface Preference extends Versioned {
  scope: Scope;
  /** User, role or module name; null for application preferences. */
  owner: string | null;
  key: string;
  description: string | null;
  value: string;
  groupName: string | null;
  type: PreferenceType;
}

/** What a create or an update writes. */
export interface PreferenceFields {
  description: string | null;
  value: string;
  groupName: string | null;
  type: PreferenceType;
}

interface Row extends VersionedRow {
  kind: Scope;
  owner: string | null;
  key: string;
  description: string | null;
  value: string;
  group_name: string | null;
  type: PreferenceType;
}

const SELECT = `
  SELECT pk, kind, owner, key, description, value, group_name, type, ol, create_dt, last_modified_dt
  FROM preferences`;

const toPreference = (row: Row): Preference => ({
  ...versionedFrom(row),
  scope: row.kind,
  owner: row.owner,
  key: row.key,
  description: row.description,
  value: row.value,
  groupName: row.group_name,
  type: row.type,
});

const toList = (rows: Row[]) => rows.map(toPreference);

/**
 * Lists of preferences in the order of their identity (kind, owner, key), a page or a
 * chunk at a time (core/listing.ts), through the unique index of that identity.
 * Preferences grow with the site (every user, role and HMI page adds some): without
 * `limit` the lists stream from a snapshot.
 */
const byIdentity = (where: string) =>
  new KeysetList<Row>({
    sql: `${SELECT} WHERE (${where}) AND (kind, coalesce(owner, ''), key) > (@k0, @k1, @k2)
          ORDER BY kind, coalesce(owner, ''), key LIMIT @limit`,
    keyOf: (row) => [row.kind, row.owner ?? '', row.key],
    first: ['', '', ''],
  });
/** Everything but other users' user preferences. */
const VISIBLE_TO = byIdentity("kind <> 'USER' OR owner = @user");
const OF_SCOPE = byIdentity('kind = @scope');
const OF_OWNER = byIdentity("kind = @scope AND coalesce(owner, '') = @owner");
const IN_GROUP = byIdentity("kind = @scope AND coalesce(owner, '') = @owner AND group_name = @group");

export function createPreferenceStore(db: Db, reads?: ReadPool) {
  const listed = (list: KeysetList<Row>, params: Record<string, unknown>): Listing<Preference> => list.listing(db, params, toList, reads);
  const s = {
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE pk = ?`),
    byIdentity: db.prepare<[Scope, string, string], Row>(`${SELECT} WHERE kind = ? AND coalesce(owner, '') = ? AND key = ?`),
    insert: db.prepare(
      `INSERT INTO preferences (pk, kind, owner, key, description, value, group_name, type, ol, create_dt, last_modified_dt)
       VALUES (@pk, @scope, @owner, @key, @description, @value, @groupName, @type, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE preferences SET description = @description, value = @value, group_name = @groupName, type = @type,
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    delete: db.prepare('DELETE FROM preferences WHERE pk = ?'),
    renameOwner: db.prepare('UPDATE OR IGNORE preferences SET owner = @to, ol = ol + 1, last_modified_dt = @now WHERE kind = @scope AND owner = @from'),
    deleteOwner: db.prepare('DELETE FROM preferences WHERE kind = ? AND owner = ?'),
  };

  return {
    byPk: (pk: string): Preference | undefined => {
      const row = s.byPk.get(pk);
      return row ? toPreference(row) : undefined;
    },
    visibleTo: (username: string) => listed(VISIBLE_TO, { user: username }),
    ofScope: (scope: Scope) => listed(OF_SCOPE, { scope }),
    ofOwner: (scope: Scope, owner: string | null) => listed(OF_OWNER, { scope, owner: owner ?? '' }),
    byIdentity: (scope: Scope, owner: string | null, key: string): Preference | undefined => {
      const row = s.byIdentity.get(scope, owner ?? '', key);
      return row ? toPreference(row) : undefined;
    },
    inGroup: (scope: Scope, owner: string | null, groupName: string) => listed(IN_GROUP, { scope, owner: owner ?? '', group: groupName }),
    insert(scope: Scope, owner: string | null, key: string, fields: PreferenceFields, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...fields, pk, scope, owner, key, now });
      return pk;
    },
    update(pk: string, fields: PreferenceFields, now: string): void {
      s.update.run({ ...fields, pk, now });
    },
    delete: (pk: string) => s.delete.run(pk).changes > 0,
    /** The owner (a user or role) was renamed: its preferences follow. Returns how many moved. */
    renameOwner: (scope: Scope, from: string, to: string, now: string) => s.renameOwner.run({ scope, from, to, now }).changes,
    /** The owner is gone: its preferences go too. */
    deleteOwner: (scope: Scope, owner: string) => s.deleteOwner.run(scope, owner).changes,
  };
}

export type PreferenceStore = ReturnType<typeof createPreferenceStore>;
