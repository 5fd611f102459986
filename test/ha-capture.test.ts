// Change capture and apply (src/ha/capture.ts, apply.ts): the real appliance with the
// capture on its write connection, driven over its API and by a PLC over TCP; every
// commit's entry, as bytes, applied in order to a copy of its database made by its own
// online backup. The copy must then hold exactly the appliance's rows, table by table.

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { openDatabase, type Db } from '../src/core/db.ts';
import { ChangeApplier, SchemaMismatch } from '../src/ha/apply.ts';
import { TriggerCapture } from '../src/ha/capture.ts';
import { tableDigests } from '../src/ha/digest.ts';
import { decodeEntry, encodeEntry } from '../src/ha/entry.ts';
import { standbyCopy } from './support/ha.ts';
import { expectApiError, startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';
import { connectedPlc, site, unitWithOrder, until, type Site } from './support/warehouse.ts';

let wms: TestAppliance;
let sim: PlcSimulator;
let capture: TriggerCapture;
/** Every entry the capture handed on, encoded as for the stream. */
const entries: Buffer[] = [];
/** The standby's database: the appliance's online backup, taken once the capture ran. */
let standby: Db;
let applier: ChangeApplier;
/** How many entries have been applied to the standby so far. */
let applied = 0;

beforeAll(async () => {
  wms = await startTestAppliance({ plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0 }] } });
  sim = await connectedPlc(wms, 'CNV01');
  capture = new TriggerCapture(wms.app.db, (commit) => entries.push(encodeEntry(commit, 1)));
  wms.app.work.after.captureWith(capture);
  standby = await standbyCopy(wms);
  applier = new ChangeApplier(standby);
});

afterAll(async () => {
  wms?.app.work.after.captureWith(undefined);
  capture?.uninstall();
  await sim?.close();
  standby?.close();
  await wms?.close();
});

/** Applies the entries not applied yet, each in a transaction of its own, as the standby does. */
function applyNew(): void {
  for (; applied < entries.length; applied++) {
    const entry = decodeEntry(entries[applied]!);
    standby.transaction(() => applier.apply(entry.changes))();
  }
}

/** Applies what is new and compares both databases table by table, in one synchronous step (no commit can come between). */
function expectSameRows(): void {
  applyNew();
  const active = tableDigests(wms.app.db);
  expect(Object.keys(active).length).toBeGreaterThan(20);
  expect(tableDigests(standby)).toEqual(active);
}

describe('change capture, applied to a copy', () => {
  let s: Site;

  it('locations, a route, a unit and its order made over the API: the copy holds the same rows', async () => {
    s = await site(wms, 'HAC1');
    await unitWithOrder(wms, 'HAC1-1', s.INFEED, s.STOCK);
    expectSameRows();
  });

  it("a PLC's telegrams move the unit hop by hop and finish its order: each batch is one entry with its events, the copy follows", async () => {
    const before = entries.length;
    for (const at of [s.INFEED, s.C1, s.C2]) {
      const res = await sim.request({ barcode: 'HAC1-1', actualLocation: at }, { timeoutMs: 30_000 });
      expect(res.errorCode ?? '').not.toMatch(/^E/);
    }
    await sim.request({ barcode: 'HAC1-1', actualLocation: s.STOCK }, { timeoutMs: 30_000 });
    const order = await wms.get('/v1/transport-orders?barcode=HAC1-1');
    await until(() => entries.length > before, 'the PLC batches were captured');
    expect(order.status).toBe(200);
    const fresh = entries.slice(before).map((bytes) => decodeEntry(bytes));
    expect(fresh.some((e) => e.changes.columns.transport_units && e.eventIds.length > 0)).toBe(true);
    expectSameRows();
  });

  it('updates, a lock, deletes, a preference: the copy follows; the event ids of the entries rise in commit order, each once', async () => {
    const c1 = (await wms.get(`/v1/locations/${s.pKey[s.C1]}`)).body;
    const changed = await wms.put('/v1/locations', { ...c1, plcCode: 'HA-PLC-1', plcState: 3, description: 'changed while captured' });
    expect(changed.status, changed.text).toBe(200);
    const extra = await wms.post('/v1/locations', { locationId: 'HAC1/0009/0000/0000/0000', locationGroupName: 'HAC1' });
    expect(extra.status, extra.text).toBe(201);
    expect((await wms.del(`/v1/locations/${extra.body.pKey}`)).status).toBe(204);
    const pref = await wms.post('/v1/preferences', {
      '@class': 'org.vendor.core.preferences.api.ApplicationPreferenceVO',
      key: 'ha.capture',
      value: 'on',
      type: 'STRING',
    });
    expect(pref.status, pref.text).toBe(201);
    expectSameRows();
    const ids = entries.flatMap((bytes) => decodeEntry(bytes).eventIds);
    expect(ids.length).toBeGreaterThan(10);
    for (let i = 1; i < ids.length; i++) expect(ids[i]!).toBeGreaterThan(ids[i - 1]!);
  });

  it('a refused write and a unit of work that fails leave no entry; a failed part of a unit leaves none of its rows', async () => {
    applyNew();
    const before = entries.length;
    const duplicate = await wms.post('/v1/locations', { locationId: s.C2, locationGroupName: 'HAC1' });
    expectApiError(duplicate, 409, duplicate.body.messageKey);
    const { work } = wms.app;
    const common = wms.app.module('common');
    expect(() =>
      work.run(() => {
        common.locations.create({ locationId: 'HAC1/0010/0000/0000/0000', locationGroupName: 'HAC1' });
        throw new Error('the unit fails after its write');
      }),
    ).toThrow('the unit fails after its write');
    expect(entries.length).toBe(before);
    work.run(() => {
      common.locations.create({ locationId: 'HAC1/0011/0000/0000/0000', locationGroupName: 'HAC1' });
      expect(() =>
        work.isolated(() => {
          common.locations.create({ locationId: 'HAC1/0012/0000/0000/0000', locationGroupName: 'HAC1' });
          throw new Error('this part fails');
        }),
      ).toThrow('this part fails');
    });
    expect(entries.length).toBe(before + 1);
    const entry = decodeEntry(entries[before]!);
    const ids = entry.changes.rows.filter((r) => r.table === 'locations' && r.values).map((r) => JSON.stringify(r.values));
    expect(ids.some((v) => v.includes('HAC1/0011/0000/0000/0000'))).toBe(true);
    expect(ids.some((v) => v.includes('HAC1/0012/0000/0000/0000'))).toBe(false);
    expectSameRows();
  });

  it('applying the same entries again changes nothing', () => {
    applyNew();
    const digests = tableDigests(standby);
    for (const bytes of entries) standby.transaction(() => applier.apply(decodeEntry(bytes).changes))();
    expect(tableDigests(standby)).toEqual(digests);
  });

  it("an entry for tables of another shape is refused whole, and the copy's rows stay as they were", async () => {
    applyNew();
    const file = path.join(tempDir('wms-ha-other-'), 'wms.sqlite');
    await standby.backup(file);
    const older = openDatabase({ file, busyTimeoutMs: 5000 });
    try {
      // Another build's schema: a column less in the preferences' table.
      older.exec('ALTER TABLE preferences DROP COLUMN description');
      const olderApplier = new ChangeApplier(older);
      const before = tableDigests(older);
      const entry = entries.map((bytes) => decodeEntry(bytes)).find((e) => e.changes.columns.preferences)!;
      // The entry writes to other tables too (the event log): none of it may stay.
      expect(Object.keys(entry.changes.columns).length).toBeGreaterThan(1);
      expect(() => older.transaction(() => olderApplier.apply(entry.changes))()).toThrow(SchemaMismatch);
      expect(tableDigests(older)).toEqual(before);
    } finally {
      older.close();
    }
  });
});
