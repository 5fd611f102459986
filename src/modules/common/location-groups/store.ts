import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import type { ReadPool } from '../../../core/read-pool.ts';
import { newPKey } from '../../../core/ids.ts';
import type { GroupState } from '../error-code.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';

export type OperationMode = 'INFEED' | 'OUTFEED' | 'INFEED_AND_OUTFEED' | 'NO_OPERATION';

export interface LocationGroup extends Versioned {
  name: string;
  description: string | null;
  accountId: string | null;
  groupType: string | null;
  operationMode: OperationMode;
  parentPk: string | null;
  parentName: string | null;
  groupStateIn: GroupState;
  groupStateOut: GroupState;
  childNames: string[];
}

export interface LocationGroupFields {
  name: string;
  description: string | null;
  accountPk: string | null;
  groupType: string | null;
  operationMode: OperationMode;
  parentPk: string | null;
  groupStateIn: GroupState;
  groupStateOut: GroupState;
}

interface Row extends VersionedRow {
  name: string;
  description: string | null;
  account_id: string | null;
  group_type: string | null;
  operation_mode: OperationMode;
  parent_pk: string | null;
  parent_name: string | null;
  group_state_in: GroupState;
  group_state_out: GroupState;
}

const COLUMNS = `
  SELECT g.pk, g.name, g.description, a.identifier AS account_id, g.group_type, g.operation_mode,
         g.parent_pk, p.name AS parent_name, g.group_state_in, g.group_state_out,
         g.ol, g.create_dt, g.last_modified_dt`;
const FROM = `
  FROM location_groups g
  LEFT JOIN location_groups p ON p.pk = g.parent_pk
  LEFT JOIN accounts a ON a.pk = g.account_pk`;
const SELECT = `${COLUMNS} ${FROM}`;

/**
 * Every group by name, with the names of its children, in pages or chunks (core/listing.ts).
 * Groups grow with the site (one per aisle, per zone, …): the whole list streams from a snapshot.
 */
const EVERY_GROUP = new KeysetList<Row & { child_names: string }>({
  sql: `${COLUMNS},
         (SELECT json_group_array(name) FROM (SELECT c.name FROM location_groups c WHERE c.parent_pk = g.pk ORDER BY c.name)) AS child_names
  ${FROM} WHERE g.name > @k0 ORDER BY g.name LIMIT @limit`,
  keyOf: (row) => [row.name],
  first: [''],
});

const toGroup = (row: Row, childNames: string[]): LocationGroup => ({
  ...versionedFrom(row),
  name: row.name,
  description: row.description,
  accountId: row.account_id,
  groupType: row.group_type,
  operationMode: row.operation_mode,
  parentPk: row.parent_pk,
  parentName: row.parent_name,
  groupStateIn: row.group_state_in,
  groupStateOut: row.group_state_out,
  childNames,
});

export function createLocationGroupStore(db: Db, reads?: ReadPool) {
  const s = {
    all: db.prepare<[], Row>(`${SELECT} ORDER BY g.name`),
    byPk: db.prepare<[string], Row>(`${SELECT} WHERE g.pk = +?`),
    byName: db.prepare<[string], Row>(`${SELECT} WHERE g.name = +?`),
    children: db.prepare<[string], string>('SELECT name FROM location_groups WHERE parent_pk = ? ORDER BY name').pluck(),
    allChildren: db.prepare<[], { parent_pk: string; name: string }>('SELECT parent_pk, name FROM location_groups WHERE parent_pk IS NOT NULL ORDER BY name'),
    subtree: db
      .prepare<[string], string>(
        `WITH RECURSIVE tree(pk) AS (
           SELECT ? UNION SELECT g.pk FROM location_groups g JOIN tree ON g.parent_pk = tree.pk)
         SELECT pk FROM tree`,
      )
      .pluck(),
    ancestors: db
      .prepare<[string], string>(
        `WITH RECURSIVE up(pk, depth) AS (
           SELECT parent_pk, 1 FROM location_groups WHERE pk = ?
           UNION ALL SELECT g.parent_pk, up.depth + 1 FROM location_groups g JOIN up ON g.pk = up.pk
           WHERE up.depth < 1000)
         SELECT pk FROM up WHERE pk IS NOT NULL ORDER BY depth`,
      )
      .pluck(),
    locationCount: db.prepare<[string], number>('SELECT count(*) FROM locations WHERE location_group_pk = ?').pluck(),
    insert: db.prepare(
      `INSERT INTO location_groups (pk, name, description, account_pk, group_type, operation_mode, parent_pk,
         group_state_in, group_state_out, ol, create_dt, last_modified_dt)
       VALUES (@pk, @name, @description, @accountPk, @groupType, @operationMode, @parentPk,
         @groupStateIn, @groupStateOut, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE location_groups SET name = @name, description = @description, account_pk = @accountPk,
         group_type = @groupType, operation_mode = @operationMode, parent_pk = @parentPk,
         group_state_in = @groupStateIn, group_state_out = @groupStateOut,
         ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    accountPkOf: db.prepare<[string], string | null>('SELECT account_pk FROM location_groups WHERE pk = ?').pluck(),
    setStateIn: db.prepare('UPDATE location_groups SET group_state_in = ?, ol = ol + 1, last_modified_dt = ? WHERE pk = ? AND group_state_in <> ?'),
    setStateOut: db.prepare('UPDATE location_groups SET group_state_out = ?, ol = ol + 1, last_modified_dt = ? WHERE pk = ? AND group_state_out <> ?'),
    delete: db.prepare('DELETE FROM location_groups WHERE pk = ?'),
  };

  const withChildren = (row: Row | undefined) => (row ? toGroup(row, s.children.all(row.pk)) : undefined);

  return {
    all(): LocationGroup[] {
      const children = new Map<string, string[]>();
      for (const { parent_pk, name } of s.allChildren.all()) {
        const list = children.get(parent_pk) ?? [];
        list.push(name);
        children.set(parent_pk, list);
      }
      return s.all.all().map((row) => toGroup(row, children.get(row.pk) ?? []));
    },
    /** Every group by name: pages, or the whole list streamed. */
    list: (): Listing<LocationGroup> => EVERY_GROUP.listing(db, {}, (rows) => rows.map((row) => toGroup(row, JSON.parse(row.child_names) as string[])), reads),
    byPk: (pk: string) => withChildren(s.byPk.get(pk)),
    byName: (name: string) => withChildren(s.byName.get(name)),
    /** The group and all its descendants (pKeys). */
    subtree: (pk: string) => s.subtree.all(pk),
    /** Parent, grand-parent, … up to the root (pKeys, nearest first). */
    ancestors: (pk: string) => s.ancestors.all(pk),
    locationCount: (pk: string) => s.locationCount.get(pk)!,
    accountPkOf: (pk: string) => s.accountPkOf.get(pk) ?? null,
    insert(fields: LocationGroupFields, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...fields, pk, now });
      return pk;
    },
    update(pk: string, fields: LocationGroupFields, now: string): void {
      s.update.run({ ...fields, pk, now });
    },
    /** Sets a state where it differs; true when the row changed. */
    setStateIn: (pk: string, state: GroupState, now: string) => s.setStateIn.run(state, now, pk, state).changes > 0,
    setStateOut: (pk: string, state: GroupState, now: string) => s.setStateOut.run(state, now, pk, state).changes > 0,
    delete: (pk: string) => s.delete.run(pk),
  };
}

export type LocationGroupStore = ReturnType<typeof createLocationGroupStore>;
