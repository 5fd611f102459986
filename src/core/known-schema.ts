import Database from 'better-sqlite3';
import type { Db } from './db.ts';
import { latestSchema, type Migration } from './migrations.ts';

// Whether a database is one of the appliance's, at a schema this build knows. SQLite
// opens any file of its format, and an empty file as an empty database: what tells the
// appliance's apart is its schema number (PRAGMA user_version, set by the migrations)
// and the tables that number stands for. The tables and columns the migrations up to
// that number make are built in memory and each must be in the database; a file that
// lacks one is another program's, whatever number it carries.

/**
 * Why `db` is not a database of the appliance at a schema of `migrations`, as the end
 * of a sentence about the file ("is not …", "was written by …"); undefined when it is.
 */
export function unknownSchema(db: Db, migrations: readonly Migration[], nativeBinding?: unknown): string | undefined {
  const schema = db.pragma('user_version', { simple: true }) as number;
  const latest = latestSchema(migrations);
  if (schema === 0) return "is not a database of the appliance: it has no schema version (an empty database, or another program's)";
  if (schema > latest) return `was written by a newer build (schema ${schema}; this build knows up to ${latest})`;
  if (!migrations.some((m) => m.version === schema)) return `has schema ${schema}, which no build of the appliance writes`;

  const reference = schemaAt(migrations, schema, nativeBinding);
  let expected: Map<string, string[]>;
  try {
    expected = tablesOf(reference);
  } finally {
    reference.close();
  }
  const found = tablesOf(db);
  for (const [table, columns] of expected) {
    const present = found.get(table);
    if (!present) return `is not a database of the appliance: schema ${schema} has the table ${table}, this file has not`;
    const missing = columns.find((c) => !present.includes(c));
    if (missing) return `is not a database of the appliance: schema ${schema} has the column ${table}.${missing}, this file has not`;
  }
  return undefined;
}

/** An empty database in memory brought to `schema` by the migrations. */
function schemaAt(migrations: readonly Migration[], schema: number, nativeBinding: unknown): Db {
  const db = new Database(':memory:', { nativeBinding: nativeBinding as string | undefined });
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= schema) db.exec(m.sql);
  }
  return db;
}

/** Each table of a database (SQLite's own left out) with the names of its columns. */
function tablesOf(db: Db): Map<string, string[]> {
  const names = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .pluck()
    .all() as string[];
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck();
  return new Map(names.map((name) => [name, columns.all(name) as string[]]));
}
