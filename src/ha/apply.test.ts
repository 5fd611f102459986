// Capture and apply on real SQLite files, for what the appliance's own tables seldom
// do: a WITHOUT ROWID row whose key changes, two rows that swap a unique value in one
// transaction, a row inserted and deleted again; and the refusals (another build's
// entry, a table this box does not have, a table that uses AUTOINCREMENT).

import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serialize } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../core/db.ts';
import { ChangeApplier, SchemaMismatch } from './apply.ts';
import { TriggerCapture, type ChangeSet } from './capture.ts';
import { tableDigests } from './digest.ts';
import { decodeEntry, encodeEntry } from './entry.ts';
import { tablesOf } from './tables.ts';

const SCHEMA = `
  CREATE TABLE bins (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, photo BLOB);
  CREATE TABLE slots (rack TEXT NOT NULL, place INTEGER NOT NULL, bin INTEGER, PRIMARY KEY (rack, place)) WITHOUT ROWID;
`;

const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function database(schema = SCHEMA): Db {
  const db = openDatabase({ file: path.join(mkdtempSync(path.join(os.tmpdir(), 'wms-ha-apply-')), 'wms.sqlite'), busyTimeoutMs: 1000 });
  db.exec(schema);
  open.push(db);
  return db;
}

/** Runs `statements` as one transaction on `db` with the capture on it, as the unit of work does; its changes. */
function transaction(db: Db, capture: TriggerCapture, statements: string): ChangeSet | undefined {
  db.exec('BEGIN IMMEDIATE');
  db.exec(statements);
  const changes = capture.collect();
  db.exec('COMMIT');
  return changes;
}

describe('capture and apply', () => {
  it('a key that changes, a unique value two rows swap, a row made and removed again, a BLOB: the copy ends equal', () => {
    const active = database();
    const standby = database();
    const capture = new TriggerCapture(active);
    const applier = new ChangeApplier(standby);
    const steps = [
      `INSERT INTO bins (id, code, photo) VALUES (1, 'A', x'00ff10'), (2, 'B', NULL);
       INSERT INTO slots VALUES ('R1', 1, 1), ('R1', 2, 2);`,
      // Swap the codes of 1 and 2 through a third value; move slot R1/1 to R2/7; a bin made and removed.
      `UPDATE bins SET code = 'X' WHERE id = 1; UPDATE bins SET code = 'A' WHERE id = 2; UPDATE bins SET code = 'B' WHERE id = 1;
       UPDATE slots SET rack = 'R2', place = 7 WHERE rack = 'R1' AND place = 1;
       INSERT INTO bins (id, code) VALUES (3, 'C'); DELETE FROM bins WHERE id = 3;`,
      `DELETE FROM slots WHERE rack = 'R1'; UPDATE bins SET photo = x'0102' WHERE id = 2;`,
    ];
    for (const statements of steps) {
      const changes = transaction(active, capture, statements)!;
      const entry = decodeEntry(encodeEntry({ changes, eventIds: [] }, 1));
      standby.transaction(() => applier.apply(entry.changes))();
      expect(tableDigests(standby)).toEqual(tableDigests(active));
    }
    expect(standby.prepare('SELECT code FROM bins ORDER BY id').pluck().all()).toEqual(['B', 'A']);
    expect(standby.prepare('SELECT rack, place FROM slots').raw().all()).toEqual([['R2', 7]]);
    expect(standby.prepare('SELECT photo FROM bins WHERE id = 2').pluck().get()).toEqual(Buffer.from([1, 2]));
  });

  it('a transaction that is rolled back leaves no changes for the next one', () => {
    const active = database();
    const capture = new TriggerCapture(active);
    active.exec('BEGIN IMMEDIATE');
    active.exec(`INSERT INTO bins (id, code) VALUES (9, 'Z')`);
    active.exec('ROLLBACK');
    expect(transaction(active, capture, `INSERT INTO bins (id, code) VALUES (1, 'A')`)!.rows).toEqual([{ table: 'bins', key: 1, values: [1, 'A', null] }]);
  });

  it('refuses, changing nothing: an entry of another format, a table this box does not have, a table of other columns', () => {
    expect(() => decodeEntry(serialize({ format: 3, term: 1 }))).toThrow('a change-log entry of format 3; this build reads formats 1 and 2');
    const standby = database();
    const applier = new ChangeApplier(standby);
    const before = tableDigests(standby);
    const elsewhere: ChangeSet = {
      columns: { bins: ['id', 'code', 'photo'], pallets: ['id'] },
      rows: [
        { table: 'bins', key: 1, values: [1, 'A', null] },
        { table: 'pallets', key: 1, values: [1] },
      ],
    };
    expect(() => standby.transaction(() => applier.apply(elsewhere))()).toThrow(
      new SchemaMismatch('the active wrote to table pallets, which this box does not have'),
    );
    const other: ChangeSet = { columns: { bins: ['id', 'code'] }, rows: [{ table: 'bins', key: 1, values: [1, 'A'] }] };
    expect(() => standby.transaction(() => applier.apply(other))()).toThrow(SchemaMismatch);
    expect(tableDigests(standby)).toEqual(before);
  });

  it('refuses to run over a table that uses AUTOINCREMENT, whose counters no trigger sees', () => {
    const db = database(`CREATE TABLE counted (id INTEGER PRIMARY KEY AUTOINCREMENT, x TEXT);`);
    expect(() => tablesOf(db)).toThrow('a table uses AUTOINCREMENT');
  });
});
