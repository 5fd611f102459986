import { copyFileSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { checkpointElsewhere } from '../src/core/db.ts';
import { LogStore } from '../src/core/log-store/index.ts';
import { captureLog } from './support/plc.ts';
import { startTestAppliance, tempDir } from './support/appliance.ts';
import { until } from './support/warehouse.ts';

// The logs database beside the appliance's (the telegram log and the index of what each
// event is about): its index is rebuilt from the events when it is missing or belongs to
// another state of the database, and a damaged one is put aside after a power cut.

const LOGS = 'wms-logs.sqlite';

async function historyOf(wms: Awaited<ReturnType<typeof startTestAppliance>>, name: string): Promise<string[]> {
  const reply = await wms.get(`/v1/events/history?subjectKind=locationGroup&subject=${name}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.map((e: { type: string }) => e.type);
}

describe('the logs database', () => {
  it('lives beside the database and is rebuilt from the events when it is gone', async () => {
    const dataDir = tempDir();
    const first = await startTestAppliance({}, dataDir);
    expect((await first.post('/v1/location-groups', { name: 'LOGS-A' })).status).toBe(201);
    expect(await historyOf(first, 'LOGS-A')).toEqual(['locationGroup.created']);
    await first.app.close();
    expect(existsSync(path.join(dataDir, LOGS))).toBe(true);
    for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dataDir, LOGS + suffix), { force: true });

    const second = await startTestAppliance({}, dataDir);
    try {
      expect(await historyOf(second, 'LOGS-A')).toEqual(['locationGroup.created']);
      expect(second.logs().some((line) => line.includes('event history index caught up'))).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('after the database was put back to an earlier backup, the index is built anew: no history names events that are gone', async () => {
    const dataDir = tempDir();
    const first = await startTestAppliance({}, dataDir);
    expect((await first.post('/v1/location-groups', { name: 'LOGS-B' })).status).toBe(201);
    const backup = await first.post('/v1/backups');
    expect(backup.status, backup.text).toBe(201);
    // After the backup: changes the restored database will not have.
    for (let i = 0; i < 5; i++) {
      const state = i % 2 ? 'AVAILABLE' : 'NOT_AVAILABLE';
      const group = (await first.get('/v1/location-groups?name=LOGS-B')).body.pKey;
      expect((await first.patch(`/v1/location-group/${group}?op=change-state&statein=${state}`)).status).toBe(204);
    }
    expect(await historyOf(first, 'LOGS-B')).toHaveLength(6);
    await first.app.close();
    // What `wms --restore` does: the backup takes the database's place.
    copyFileSync(path.join(dataDir, 'backups', backup.body.name), path.join(dataDir, 'wms.sqlite'));
    rmSync(path.join(dataDir, 'wms.sqlite-wal'), { force: true });

    const second = await startTestAppliance({}, dataDir);
    try {
      expect(await historyOf(second, 'LOGS-B')).toEqual(['locationGroup.created']);
      // New events take the ids the lost ones had; the history shows them, not the old ones.
      expect((await second.post('/v1/location-groups', { name: 'LOGS-C' })).status).toBe(201);
      expect(await historyOf(second, 'LOGS-B')).toEqual(['locationGroup.created']);
      expect(await historyOf(second, 'LOGS-C')).toEqual(['locationGroup.created']);
    } finally {
      await second.close();
    }
  });

  it('a logs database damaged by a power cut is put aside and started afresh; the appliance starts and its history is whole', async () => {
    const dataDir = tempDir();
    const first = await startTestAppliance({}, dataDir);
    expect((await first.post('/v1/location-groups', { name: 'LOGS-D' })).status).toBe(201);
    await first.app.close();
    // As after a power cut: not stopped cleanly, in another boot, and pages torn.
    const file = path.join(dataDir, LOGS);
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = '0' WHERE name = 'clean'").run();
    db.prepare("UPDATE meta SET value = 'another-boot' WHERE name = 'boot'").run();
    db.close();
    const fd = openSync(file, 'r+');
    const size = statSync(file).size;
    for (let at = 4096; at < size; at += 4096) writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, at);
    closeSync(fd);

    const second = await startTestAppliance({}, dataDir);
    try {
      expect(second.logs().some((line) => line.includes('the logs database was damaged after a power cut'))).toBe(true);
      expect(readdirSync(dataDir).some((name) => name.startsWith(`${LOGS}.damaged-`))).toBe(true);
      expect(await historyOf(second, 'LOGS-D')).toEqual(['locationGroup.created']);
    } finally {
      await second.close();
    }
  });
});

describe('the checkpoints of the appliance database', () => {
  it('are taken on the log writer thread: a commit reaches the database file at once, the conveyor thread’s connection takes none', async () => {
    const wms = await startTestAppliance();
    try {
      // SQLite's default would be 1,000 pages: a checkpoint in the committing connection.
      // Any threshold at all would one day copy a long read's backlog on the conveyor thread.
      expect(wms.app.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      const file = path.join(wms.dataDir, wms.app.config.storage.file);
      expect((await wms.post('/v1/location-groups', { name: 'CHECKPOINTED-GROUP' })).status).toBe(201);
      // In WAL mode only a checkpoint writes the database file: the row's bytes there mean
      // one was taken by the writer thread.
      await until(() => readFileSync(file).includes('CHECKPOINTED-GROUP'), 'the commit copied into the database file');
    } finally {
      await wms.close();
    }
  });

  it('when the log writer thread cannot take them, the store says so once: the appliance then takes them itself (main.ts)', async () => {
    const dir = tempDir();
    const { log } = captureLog();
    const store = await LogStore.open({ file: path.join(dir, LOGS), nativeBinding: undefined, workerBinding: undefined, log });
    try {
      const reasons: string[] = [];
      store.takeCheckpointsOf(path.join(dir, 'no-such-database.sqlite'), (reason) => reasons.push(reason));
      await until(() => reasons.length > 0, 'told that the checkpoints stopped');
      expect(reasons[0]).toMatch(/checkpoints of .*no-such-database\.sqlite cannot be taken/);
      // The thread goes on writing the logs, and is told nothing more.
      await store.sync();
      expect(reasons).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('under a steady stream of commits the log still starts over from its beginning, as many times as it fills', async () => {
    const dir = tempDir();
    const database = path.join(dir, 'appliance.sqlite');
    const db = new Database(database);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    checkpointElsewhere(db);
    db.exec('CREATE TABLE parcels (id INTEGER PRIMARY KEY, label BLOB)');
    const insert = db.prepare('INSERT INTO parcels (label) VALUES (?)');
    // Three pages of overflow and the row's own: a 16 MB log after about a thousand commits.
    const label = Buffer.alloc(12_000, 7);
    const { log } = captureLog();
    const store = await LogStore.open({ file: path.join(dir, LOGS), nativeBinding: undefined, workerBinding: undefined, log });
    const reasons: string[] = [];
    store.takeCheckpointsOf(database, (reason) => reasons.push(reason));
    // The log's header counts its starts over from the beginning (SQLite's file format:
    // the checkpoint sequence number, bytes 12 to 15).
    const wal = openSync(`${database}-wal`, 'r');
    const startsOver = () => {
      const header = Buffer.alloc(16);
      readSync(wal, header, 0, 16, 0);
      return header.readUInt32BE(12);
    };
    try {
      insert.run(label);
      const before = startsOver();
      const deadline = Date.now() + 100_000;
      // A commit every half millisecond, as a PLC's telegrams come: between two, time for
      // the copy of one commit's pages, not of the hundred since the last checkpoint.
      while (startsOver() < before + 2) {
        expect(Date.now(), 'the log never started over while commits went on').toBeLessThan(deadline);
        for (let i = 0; i < 20; i++) {
          insert.run(label);
          const until = performance.now() + 0.5;
          while (performance.now() < until);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(reasons).toEqual([]);
    } finally {
      closeSync(wal);
      await store.close();
      db.close();
    }
  }, 120_000);

  it('a stop of the log writer thread is not taken for a failure: nothing is told', async () => {
    const dir = tempDir();
    const database = path.join(dir, 'appliance.sqlite');
    const db = new Database(database);
    db.pragma('journal_mode = WAL');
    db.close();
    const { log } = captureLog();
    const store = await LogStore.open({ file: path.join(dir, LOGS), nativeBinding: undefined, workerBinding: undefined, log });
    const reasons: string[] = [];
    store.takeCheckpointsOf(database, (reason) => reasons.push(reason));
    await store.sync();
    await store.close();
    // The thread's end comes after close() returns: give it its turn, then look.
    await new Promise((resolve) => setImmediate(resolve));
    expect(reasons).toEqual([]);
  });
});
