import type { Db } from '../core/db.ts';

// The tables the pair keeps equal on both boxes, read from the database's own schema:
// every table but SQLite's own (`sqlite_*`) and the pair's bookkeeping (`ha_*`, which
// differs between the two boxes by design).

export interface TableShape {
  name: string;
  /** Its columns, in order. */
  columns: string[];
  /** A WITHOUT ROWID table: rows are named by their primary key, not a rowid. */
  withoutRowid: boolean;
  /** The primary key's columns, in key order (a WITHOUT ROWID table's row key). */
  primaryKey: string[];
}

/** A name quoted for SQL. */
export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The columns of a table, quoted, for a SELECT or an INSERT. */
export const columnList = (table: TableShape) => table.columns.map(quote).join(', ');

/** The WHERE clause that names one row of a table by its key (rowid, or the primary key's values), as parameters. */
export function rowByKey(table: TableShape): string {
  if (!table.withoutRowid) return 'rowid = ?';
  return `(${table.primaryKey.map(quote).join(', ')}) = (${table.primaryKey.map(() => '?').join(', ')})`;
}

/** True for a table of the pair's own bookkeeping, which is not replicated. */
export const isPairsOwn = (table: string) => table.startsWith('ha_');

export function tablesOf(db: Db): TableShape[] {
  const tables = db.prepare(`SELECT name, sql FROM main.sqlite_schema WHERE type = 'table' ORDER BY name`).all() as { name: string; sql: string }[];
  // AUTOINCREMENT keeps its counters in sqlite_sequence, which no trigger sees: a table
  // using it would be copied without them (the schema uses none; this says so if one comes).
  if (tables.some((t) => t.name === 'sqlite_sequence')) {
    throw new Error('a table uses AUTOINCREMENT, whose counters the pair cannot copy: use INTEGER PRIMARY KEY without it');
  }
  return tables
    .filter((t) => !t.name.startsWith('sqlite_') && !isPairsOwn(t.name))
    .map((t) => {
      const info = db.prepare(`SELECT name, pk, hidden FROM pragma_table_xinfo(?)`).all(t.name) as { name: string; pk: number; hidden: number }[];
      // Generated columns (hidden 2, 3) are computed, never written.
      const columns = info.filter((c) => c.hidden === 0);
      return {
        name: t.name,
        columns: columns.map((c) => c.name),
        withoutRowid: /\bWITHOUT\s+ROWID\b/i.test(t.sql),
        primaryKey: columns
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
      };
    });
}
