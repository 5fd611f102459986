import { cachesOver } from '../../../core/cache.ts';
import type { Db } from '../../../core/db.ts';
import { KeysetList, type Listing } from '../../../core/listing.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { newPKey } from '../../../core/ids.ts';
import { nowIso } from '../../../core/time.ts';
import { alreadyExists, DomainError, inUse } from '../../../core/errors.ts';
import { checkVersion, versionedFrom, type Versioned, type VersionedRow } from '../../../core/versioned.ts';

// Location types and transport unit types are the same kind of thing: a catalogue of
// named types (`type` is the unique name) with a few descriptive numbers, created,
// replaced and deleted over the API, and not deletable while something has the type.
// One implementation serves both; each names its table, columns, keys and users.

/** The stored fields of a catalogue entry; every field but `type` may be null. */
export type CatalogueFields = { type: string } & Record<string, string | number | null>;

export type CatalogueEntry<F extends CatalogueFields> = Versioned & F;

/** A create or replace request: `type` and any of the other fields. */
export type CatalogueInput<F extends CatalogueFields> = { type: string } & { [K in keyof F]?: F[K] | undefined };

interface CatalogueSpec<F extends CatalogueFields> {
  table: string;
  /** API field → column. */
  columns: { [K in keyof F]: string };
  /** Counts the records that have the type, given its pk. */
  usageSql: string;
  /** Name in messages (`LocationType`) and of the records that use it (`location(s)`). */
  what: string;
  usedBy: string;
  /** Prefix of the events it emits (`locationType.created`, …). */
  events: 'locationType' | 'transportUnitType';
  keys: { notFoundByName: string; notFoundByPKey: string; inUse: string };
}

export function createTypeCatalogue<F extends CatalogueFields>(db: Db, work: UnitOfWork, spec: CatalogueSpec<F>) {
  const fields = Object.keys(spec.columns) as (keyof F & string)[];
  const columns = fields.map((f) => spec.columns[f]);
  const select = `SELECT pk, ${columns.join(', ')}, ol, create_dt, last_modified_dt FROM ${spec.table}`;
  // Types are few by nature (a site has tens): the whole list is read at once on the
  // writer's connection; pages by type (core/listing.ts).
  const everyEntry = new KeysetList<VersionedRow & Record<string, unknown>>({
    sql: `${select} WHERE type > @k0 ORDER BY type LIMIT @limit`,
    keyOf: (row) => [row.type as string],
    first: [''],
  });
  const s = {
    byPk: db.prepare<[string], VersionedRow & Record<string, unknown>>(`${select} WHERE pk = ?`),
    byType: db.prepare<[string], VersionedRow & Record<string, unknown>>(`${select} WHERE type = ?`),
    usage: db.prepare<[string], number>(spec.usageSql).pluck(),
    insert: db.prepare(
      `INSERT INTO ${spec.table} (pk, ${columns.join(', ')}, ol, create_dt, last_modified_dt)
       VALUES (@pk, ${fields.map((f) => `@${f}`).join(', ')}, 0, @now, @now)`,
    ),
    update: db.prepare(
      `UPDATE ${spec.table} SET ${fields.map((f) => `${spec.columns[f]} = @${f}`).join(', ')},
         ol = ol + 1, last_modified_dt = @now WHERE pk = @pk`,
    ),
    delete: db.prepare(`DELETE FROM ${spec.table} WHERE pk = ?`),
  };

  const toEntry = (row: VersionedRow & Record<string, unknown>): CatalogueEntry<F> => {
    const entry: Record<string, unknown> = { ...versionedFrom(row) };
    for (const f of fields) entry[f] = row[spec.columns[f]];
    return entry as CatalogueEntry<F>;
  };
  const fieldsOf = (input: CatalogueInput<F>): Record<string, unknown> => {
    const values: Record<string, unknown> = {};
    for (const f of fields) values[f] = input[f] ?? null;
    return values;
  };

  function byPKey(pKey: string): CatalogueEntry<F> {
    const row = s.byPk.get(pKey);
    if (!row) {
      throw new DomainError(404, spec.keys.notFoundByPKey, `${spec.what} with pKey [${pKey}] does not exist`, { obj: [pKey] });
    }
    return toEntry(row);
  }
  function requireUnique(type: string, ownPk?: string) {
    const existing = s.byType.get(type);
    if (existing && existing.pk !== ownPk) throw alreadyExists(`${spec.what} [${type}] already exists`, [type]);
  }

  return {
    /** Every entry by type: pages, or the whole list. */
    list: (): Listing<CatalogueEntry<F>> => everyEntry.listing(db, {}, (rows) => rows.map(toEntry)),
    byPKey,
    byType(type: string): CatalogueEntry<F> {
      const row = s.byType.get(type);
      if (!row) throw new DomainError(404, spec.keys.notFoundByName, `${spec.what} [${type}] does not exist`, { obj: [type] });
      return toEntry(row);
    },
    create(input: CatalogueInput<F>): CatalogueEntry<F> {
      return work.run(() => {
        requireUnique(input.type);
        const pk = newPKey();
        s.insert.run({ ...fieldsOf(input), pk, now: nowIso() });
        work.emit({ type: `${spec.events}.created`, key: input.type, data: { type: input.type, pKey: pk } });
        return byPKey(pk);
      });
    },
    update(pKey: string, input: CatalogueInput<F> & { ol?: number | undefined }): CatalogueEntry<F> {
      return work.run(() => {
        const current = byPKey(pKey);
        checkVersion(spec.what, current, input.ol);
        requireUnique(input.type, current.pk);
        // Entities that show a type's name forget what they hold (a transport unit's type, core/cache.ts).
        cachesOver(db).tableChanged(spec.table);
        s.update.run({ ...fieldsOf(input), pk: current.pk, now: nowIso() });
        work.emit({ type: `${spec.events}.changed`, key: input.type, data: { type: input.type, pKey } });
        return byPKey(pKey);
      });
    },
    delete(pKey: string): void {
      work.run(() => {
        const current = byPKey(pKey);
        const used = s.usage.get(current.pk)!;
        if (used > 0) {
          throw inUse(spec.keys.inUse, `${spec.what} [${current.type}] is used by ${used} ${spec.usedBy}`, [current.type]);
        }
        s.delete.run(current.pk);
        work.emit({ type: `${spec.events}.deleted`, key: current.type, data: { type: current.type, pKey } });
      });
    },
  };
}
