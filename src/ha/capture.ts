import type { CommitCapture } from '../core/commit-capture.ts';
import type { Db } from '../core/db.ts';
import type { EventRecord } from '../core/event-catalogue.ts';
import { columnList, quote, rowByKey, tablesOf, type TableShape } from './tables.ts';

// Change capture on the write connection (docs/ha.md, "Change capture"): every table of
// the database gets three temporary triggers, which note the key of each row inserted,
// updated or deleted in a temporary table. Temporary: they live in this connection
// only, cost nothing on a box alone, and nothing of them is written to the database
// file or its log. The notes are part of the transaction, so a rolled-back unit (or a
// savepoint of it) leaves none. Just before the COMMIT the unit of work collects them:
// each noted row is read as it stands at the end of the transaction (or found gone),
// and the notes are cleared in the same transaction.
//
// What is shipped is the end state of each changed row, not the statements: applying it
// needs no rule of the appliance and gives the same rows whatever order the
// transaction's statements ran in (apply.ts).

/** A value of a column, as SQLite returns it. */
export type SqlValue = string | number | bigint | Buffer | null;

/** One changed row: its table, its key (rowid, or the primary key's values), and its values in the table's column order; none: deleted. */
export interface RowChange {
  table: string;
  key: number | SqlValue[];
  values?: SqlValue[];
}

/** The changes of one transaction, with the column names of each table they touch. */
export interface ChangeSet {
  columns: Record<string, string[]>;
  rows: RowChange[];
}

/** What the capture hands on after each COMMIT. */
export interface CapturedCommit {
  changes: ChangeSet;
  /** The ids of the events the transaction wrote, in order. */
  eventIds: number[];
}

const NOTES = 'ha_capture_notes';

export class TriggerCapture implements CommitCapture<ChangeSet> {
  private readonly db: Db;
  private readonly tables: Map<string, TableShape>;
  private readonly onCommitted: ((commit: CapturedCommit) => void) | undefined;
  private readonly notes: { all(): { t: string; k: number | string }[] };
  private readonly clear: { run(): unknown };
  private readonly reads = new Map<string, { get(...key: SqlValue[]): SqlValue[] | undefined }>();

  /**
   * Installs the triggers on every table of `db` (its migrations done) and starts noting.
   * `onCommitted` hears of every commit with changes, in commit order, right after it
   * (none: whoever installs this capture calls `collect` and hands on the changes itself,
   * as the replication gate does).
   */
  constructor(db: Db, onCommitted?: (commit: CapturedCommit) => void) {
    this.db = db;
    this.onCommitted = onCommitted;
    this.tables = new Map(tablesOf(db).map((table) => [table.name, table]));
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${NOTES} (seq INTEGER PRIMARY KEY, t TEXT NOT NULL, k ANY NOT NULL) STRICT`);
    for (const table of this.tables.values()) db.exec(triggersOf(table));
    this.notes = db.prepare(`SELECT t, k FROM temp.${NOTES} ORDER BY seq`) as unknown as TriggerCapture['notes'];
    this.clear = db.prepare(`DELETE FROM temp.${NOTES}`);
  }

  /** Removes the triggers and the notes: the connection writes as on a box alone. */
  uninstall(): void {
    for (const table of this.tables.values()) {
      for (const op of ['i', 'u', 'd']) this.db.exec(`DROP TRIGGER IF EXISTS temp.${triggerName(table, op)}`);
    }
    this.db.exec(`DROP TABLE IF EXISTS temp.${NOTES}`);
  }

  collect(): ChangeSet | undefined {
    const notes = this.notes.all();
    if (notes.length === 0) return undefined;
    const seen = new Set<string>();
    const changes: ChangeSet = { columns: {}, rows: [] };
    for (const { t, k } of notes) {
      const id = `${t}\u0000${k}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const table = this.tables.get(t)!;
      const key: number | SqlValue[] = table.withoutRowid ? (JSON.parse(k as string) as SqlValue[]) : (k as number);
      const values = this.read(table).get(...(Array.isArray(key) ? key : [key]));
      changes.columns[t] ??= table.columns;
      changes.rows.push(values ? { table: t, key, values } : { table: t, key });
    }
    this.clear.run();
    return changes;
  }

  afterCommit(changes: ChangeSet | undefined, events: readonly EventRecord[]): void {
    if (!changes || !this.onCommitted) return;
    this.onCommitted({ changes, eventIds: events.map((e) => e.id) });
  }

  private read(table: TableShape): { get(...key: SqlValue[]): SqlValue[] | undefined } {
    let statement = this.reads.get(table.name);
    if (!statement) {
      statement = this.db.prepare(`SELECT ${columnList(table)} FROM main.${quote(table.name)} WHERE ${rowByKey(table)}`).raw() as unknown as {
        get(...key: SqlValue[]): SqlValue[] | undefined;
      };
      this.reads.set(table.name, statement);
    }
    return statement;
  }
}

const triggerName = (table: TableShape, op: string) => `ha_capture_${table.name}_${op}`;

/** The three triggers of a table: each notes the key a row had after (insert, update) or before (update that moves it, delete) the change. */
function triggersOf(table: TableShape): string {
  const key = (row: 'new' | 'old') => (table.withoutRowid ? `json_array(${table.primaryKey.map((c) => `${row}.${quote(c)}`).join(', ')})` : `${row}.rowid`);
  const note = (row: 'new' | 'old') => `INSERT INTO temp.${NOTES} (t, k) VALUES ('${table.name}', ${key(row)});`;
  const on = `main.${quote(table.name)}`;
  return `
    CREATE TEMP TRIGGER IF NOT EXISTS ${triggerName(table, 'i')} AFTER INSERT ON ${on} BEGIN ${note('new')} END;
    CREATE TEMP TRIGGER IF NOT EXISTS ${triggerName(table, 'u')} AFTER UPDATE ON ${on} BEGIN
      ${note('new')}
      INSERT INTO temp.${NOTES} (t, k) SELECT '${table.name}', ${key('old')} WHERE ${key('old')} IS NOT ${key('new')};
    END;
    CREATE TEMP TRIGGER IF NOT EXISTS ${triggerName(table, 'd')} AFTER DELETE ON ${on} BEGIN ${note('old')} END;`;
}
