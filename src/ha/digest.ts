import { createHash } from 'node:crypto';
import { serialize } from 'node:v8';
import type { Db } from '../core/db.ts';
import { columnList, quote, tablesOf } from './tables.ts';

// A digest of each replicated table (docs/ha.md): SHA-256 over its rows in key order,
// every value as it is stored. Two boxes whose digests are equal hold the same rows.
// It reads every row: for tests, and for a check run off the conveyor thread.

export function tableDigests(db: Db): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const table of tablesOf(db)) {
    const order = table.withoutRowid ? table.primaryKey.map(quote).join(', ') : 'rowid';
    const key = table.withoutRowid ? '' : 'rowid, ';
    const hash = createHash('sha256');
    const rows = db.prepare(`SELECT ${key}${columnList(table)} FROM main.${quote(table.name)} ORDER BY ${order}`).raw();
    for (const row of rows.iterate()) hash.update(serialize(row));
    digests[table.name] = hash.digest('hex');
  }
  return digests;
}
