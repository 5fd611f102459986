import type { Db } from '../../../core/db.ts';
import { newPKey } from '../../../core/ids.ts';
import { versionedFrom, type Versioned, type VersionedRow } from '../shared.ts';

export interface TransportUnitTypeFields {
  type: string;
  description: string | null;
  length: number | null;
  width: number | null;
  height: number | null;
  weightTare: number | null;
  weightMax: number | null;
}

export interface TransportUnitType extends Versioned, TransportUnitTypeFields {}

interface Row extends VersionedRow {
  type: string;
  description: string | null;
  length: number | null;
  width: number | null;
  height: number | null;
  weight_tare: number | null;
  weight_max: number | null;
}

const COLUMNS = 'pk, type, description, length, width, height, weight_tare, weight_max, ol, create_dt, last_modified_dt';

const toType = (row: Row): TransportUnitType => ({
  ...versionedFrom(row),
  type: row.type,
  description: row.description,
  length: row.length,
  width: row.width,
  height: row.height,
  weightTare: row.weight_tare,
  weightMax: row.weight_max,
});

export function createTransportUnitTypeStore(db: Db) {
  const s = {
    all: db.prepare<[], Row>(`SELECT ${COLUMNS} FROM transport_unit_types ORDER BY type`),
    byPk: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM transport_unit_types WHERE pk = ?`),
    byType: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM transport_unit_types WHERE type = ?`),
    usage: db.prepare<[string], number>('SELECT count(*) FROM transport_units WHERE transport_unit_type_pk = ?').pluck(),
    insert: db.prepare(
      `INSERT INTO transport_unit_types (pk, type, description, length, width, height, weight_tare, weight_max,
         ol, create_dt, last_modified_dt)
       VALUES (@pk, @type, @description, @length, @width, @height, @weightTare, @weightMax, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE transport_unit_types SET type = @type, description = @description, length = @length, width = @width,
         height = @height, weight_tare = @weightTare, weight_max = @weightMax, ol = ol + 1, last_modified_dt = @now
       WHERE pk = @pk`,
    ),
    delete: db.prepare('DELETE FROM transport_unit_types WHERE pk = ?'),
  };
  const one = (row: Row | undefined) => (row ? toType(row) : undefined);
  return {
    all: () => s.all.all().map(toType),
    byPk: (pk: string) => one(s.byPk.get(pk)),
    byType: (type: string) => one(s.byType.get(type)),
    usage: (pk: string) => s.usage.get(pk)!,
    insert(fields: TransportUnitTypeFields, now: string): string {
      const pk = newPKey();
      s.insert.run({ ...fields, pk, now });
      return pk;
    },
    update: (pk: string, fields: TransportUnitTypeFields, now: string) => s.update.run({ ...fields, pk, now }),
    delete: (pk: string) => s.delete.run(pk),
  };
}

export type TransportUnitTypeStore = ReturnType<typeof createTransportUnitTypeStore>;
