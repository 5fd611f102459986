import type { TestAppliance } from './appliance.ts';

// A real failure of a change, made by the database itself: a trigger that aborts the
// UPDATEs of one table (of the rows `when` picks), so a rollback is tested on the real
// SQLite rather than a mock. It writes no row: it only makes writes fail, until the
// returned function removes it again (call it in a `finally`).

let triggers = 0;

/** Makes every UPDATE of `table` (where `when`, an SQL condition on OLD, holds) fail; returns the repair. */
export function failUpdatesOf(wms: TestAppliance, table: string, when?: string): () => void {
  const name = `test_fault_${++triggers}`;
  wms.app.db.exec(
    `CREATE TRIGGER ${name} BEFORE UPDATE ON ${table}${when ? ` WHEN ${when}` : ''} BEGIN SELECT RAISE(ABORT, 'failure forced by the test'); END`,
  );
  return () => wms.app.db.exec(`DROP TRIGGER IF EXISTS ${name}`);
}
