import type { Db } from '../../../core/db.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../shared.ts';

export interface LocationTypeFields {
  type: string;
  description: string | null;
  length: number | null;
  width: number | null;
  height: number | null;
}

export interface LocationType extends Versioned, LocationTypeFields {}

type Row = VersionedRow & LocationTypeFields;

const COLUMNS = 'pk, type, description, length, width, height, ol, create_dt, last_modified_dt';

const toType = (row: Row): LocationType => ({
  ...versionedFrom(row),
  type: row.type,
  description: row.description,
  length: row.length,
  width: row.width,
  height: row.height,
});

export function createLocationTypeStore(db: Db) {
  const s = {
    all: db.prepare<[], Row>(`SELECT ${COLUMNS} FROM location_types ORDER BY type`),
    byPk: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM location_types WHERE pk = ?`),
    byType: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM location_types WHERE type = ?`),
    usage: db.prepare<[string], number>('SELECT count(*) FROM locations WHERE location_type_pk = ?').pluck(),
    insert: db.prepare(
      `INSERT INTO location_types (pk, type, description, length, width, height, ol, create_dt, last_modified_dt)
       VALUES (@pk, @type, @description, @length, @width, @height, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE location_types SET type = @type, description = @description, length = @length, width = @width,
         height = @height, ol = ol + 1, last_modified_dt = @now WHERE pk = @pk`,
    ),
    delete: db.prepare('DELETE FROM location_types WHERE pk = ?'),
  };
  const one = (row: Row | undefined) => (row ? toType(row) : undefined);
  return {
    all: () => s.all.all().map(toType),
    byPk: (pk: string) => one(s.byPk.get(pk)),
    byType: (type: string) => one(s.byType.get(type)),
    usage: (pk: string) => s.usage.get(pk)!,
    insert(fields: LocationTypeFields, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...fields, pk, now });
      return pk;
    },
    update: (pk: string, fields: LocationTypeFields, now: string) => s.update.run({ ...fields, pk, now }),
    delete: (pk: string) => s.delete.run(pk),
  };
}

export type LocationTypeStore = ReturnType<typeof createLocationTypeStore>;
