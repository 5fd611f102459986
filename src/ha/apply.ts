import type { Db } from '../core/db.ts';
import type { ChangeSet, SqlValue } from './capture.ts';
import { columnList, quote, rowByKey, tablesOf, type TableShape } from './tables.ts';

// The standby's side of change capture (docs/ha.md): one transaction's changes written
// into this box's database as the end state of each row. Every changed row is written
// whole (INSERT OR REPLACE by its rowid or primary key) and then every removed row is
// deleted. Written whole, a row that takes a unique value another row gave up in the
// same transaction replaces that row, which is written afterwards in its own end state
// or was deleted anyway. The connection applies with its foreign keys off: the rows were
// checked on the active, and a REPLACE must not cascade into rows the transaction left
// alone. Applying the same changes twice leaves the same rows.

/** The active's rows do not fit this box's tables: another build's schema. Nothing of the changes was written. */
export class SchemaMismatch extends Error {}

interface Statements {
  upsert: { run(...values: SqlValue[]): unknown };
  remove: { run(...key: SqlValue[]): unknown };
}

export class ChangeApplier {
  private readonly db: Db;
  private readonly tables: Map<string, TableShape>;
  private readonly statements = new Map<string, Statements>();

  /** Over the standby's write connection; turns its foreign keys off (outside any transaction). */
  constructor(db: Db) {
    if (db.inTransaction) throw new Error('the applier is set up outside a transaction');
    this.db = db;
    db.pragma('foreign_keys = OFF');
    this.tables = new Map(tablesOf(db).map((table) => [table.name, table]));
  }

  /** Writes one transaction's changes, inside the caller's transaction. */
  apply(changes: ChangeSet): void {
    for (const [name, columns] of Object.entries(changes.columns)) {
      const own = this.tables.get(name);
      if (!own) throw new SchemaMismatch(`the active wrote to table ${name}, which this box does not have`);
      if (own.columns.join(',') !== columns.join(',')) {
        throw new SchemaMismatch(`table ${name} has the columns ${own.columns.join(', ')} here, ${columns.join(', ')} on the active`);
      }
    }
    for (const row of changes.rows) {
      if (!row.values) continue;
      const { upsert } = this.statementsOf(row.table);
      if (Array.isArray(row.key)) upsert.run(...row.values);
      else upsert.run(row.key, ...row.values);
    }
    for (const row of changes.rows) {
      if (row.values) continue;
      this.statementsOf(row.table).remove.run(...(Array.isArray(row.key) ? row.key : [row.key]));
    }
  }

  private statementsOf(name: string): Statements {
    let statements = this.statements.get(name);
    if (!statements) {
      const table = this.tables.get(name)!;
      const into = `main.${quote(name)}`;
      const marks = Array.from({ length: table.columns.length }, () => '?').join(', ');
      statements = {
        upsert: table.withoutRowid
          ? this.db.prepare(`INSERT OR REPLACE INTO ${into} (${columnList(table)}) VALUES (${marks})`)
          : this.db.prepare(`INSERT OR REPLACE INTO ${into} (rowid, ${columnList(table)}) VALUES (?, ${marks})`),
        remove: this.db.prepare(`DELETE FROM ${into} WHERE ${rowByKey(table)}`),
      };
      this.statements.set(name, statements);
    }
    return statements;
  }
}
