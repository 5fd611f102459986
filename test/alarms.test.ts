import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { expectApiError, expectServerError, startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';
import { connectedPlc, coordinate, site, unitWithOrder, until } from './support/warehouse.ts';

// Alarms the appliance raises and clears by itself, each source driven the way it
// happens on a site: REST and PLC telegrams over real TCP, a PLC that stays away, a
// backup that cannot be written, a full disk. Then what operators do with them.

let wms: TestAppliance;
let sim: PlcSimulator;
const enc = encodeURIComponent;

beforeAll(async () => {
  wms = await startTestAppliance({
    alarms: { channelDownSeconds: 1 },
    plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0, resReasonCodes: true }] },
  });
});
afterAll(async () => {
  await sim?.close();
  await wms?.close();
});

interface Alarm {
  id: number;
  kind: string;
  severity: string;
  state: string;
  message: string;
  params: Record<string, string | number>;
  source: { kind: string; key: string };
  count: number;
  acknowledgedBy: string | null;
  ackComment: string | null;
  shelved: boolean;
  shelvedUntil: string | null;
}

const open = async (): Promise<Alarm[]> => {
  const reply = await wms.get('/v1/alarms');
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
};
/** The open alarm about this source, if any. */
const openAbout = async (kind: string, key: string) => (await open()).find((a) => a.source.kind === kind && a.source.key === key);
const byId = async (id: number): Promise<Alarm> => (await wms.get(`/v1/alarms/${id}`)).body;
const acknowledge = (id: number, comment?: string) => wms.post(`/v1/alarms/${id}/acknowledge`, comment === undefined ? undefined : { comment });

describe('what raises and clears alarms', () => {
  it('a PLC channel that is not ONLINE for alarms.channelDownSeconds: critical, cleared once it is ONLINE', async () => {
    // Configured, nobody connected: WAITING since the start.
    await until(async () => (await openAbout('plcChannel', 'CNV01')) !== undefined, 'the channel-down alarm');
    const down = (await openAbout('plcChannel', 'CNV01'))!;
    expect(down).toMatchObject({ kind: 'plcChannel.down', severity: 'critical', state: 'active' });
    expect(down.message).toMatch(/^PLC channel CNV01 has not been ONLINE for \d+ s \(state WAITING\)$/);
    // The values of the message by name, for a client that words it in its user's language.
    expect(down.params).toEqual({ channel: 'CNV01', seconds: expect.any(Number), state: 'WAITING' });

    sim = await connectedPlc(wms, 'CNV01');
    await sim.synq({ timeoutMs: 10_000 });
    await until(async () => (await byId(down.id)).state === 'cleared', 'the alarm is cleared');
    expect(await openAbout('plcChannel', 'CNV01')).toBeUndefined();
  });

  it('a location reporting plcState > 0 (PLC or REST): major; repeats counted; cleared at 0', async () => {
    const s = await site(wms, 'ALOC');
    await sim.report(s.C1, '0012****');
    await until(async () => (await openAbout('location', s.C1)) !== undefined, 'the plcState alarm');
    const raised = (await openAbout('location', s.C1))!;
    expect(raised).toMatchObject({ kind: 'location.plcState', severity: 'major', state: 'active', count: 1, message: `Location ${s.C1} reports PLC state 12` });
    expect(raised.params).toEqual({ location: s.C1, plcState: 12 });

    const again = await wms.patch(`/v1/location/${s.pKey[s.C1]}?op=change-state`, { errorCode: '********', plcState: 13 });
    expect(again.status, again.text).toBe(204);
    expect(await byId(raised.id)).toMatchObject({
      state: 'active',
      count: 2,
      message: `Location ${s.C1} reports PLC state 13`,
      params: { location: s.C1, plcState: 13 },
    });

    await sim.report(s.C1, '0000****');
    await until(async () => (await byId(raised.id)).state === 'cleared', 'the plcState alarm is cleared');
    // Raised, repeated and cleared: each change an event, the first by the PLC, the last by the PLC.
    const events = (await wms.get(`/v1/events/history?subjectKind=location&subject=${enc(s.C1)}&types=alarm.*`)).body;
    expect(events.map((e: any) => [e.type, e.actor.kind, e.data.count, e.data.params.plcState])).toEqual([
      ['alarm.raised', 'plc', 1, 12],
      ['alarm.raised', 'user', 2, 13],
      ['alarm.cleared', 'plc', 2, 13],
    ]);
  });

  it('an ERR_ on a group: major, cleared when the group is available in and out again', async () => {
    expect((await wms.post('/v1/location-groups', { name: 'AERR', parentName: 'WAREHOUSE' })).status).toBe(201);
    await sim.error('AERR', '00000011');
    await until(async () => (await openAbout('locationGroup', 'AERR')) !== undefined, 'the ERR_ alarm');
    const raised = (await openAbout('locationGroup', 'AERR'))!;
    expect(raised).toMatchObject({ kind: 'plc.error', severity: 'major', message: 'PLC CNV01 reports error 00000011 on location group AERR' });
    expect(raised.params).toEqual({ channel: 'CNV01', code: '00000011', group: 'AERR' });

    await sim.groupState('AERR', '******10'); // in available (c0), out still locked (c1): not over
    await until(async () => (await wms.get('/v1/location-groups?name=AERR')).body.groupStateIn === 'AVAILABLE', 'in is available');
    expect((await byId(raised.id)).state).toBe('active');
    await sim.groupState('AERR', '******00');
    await until(async () => (await byId(raised.id)).state === 'cleared', 'the ERR_ alarm is cleared');
  });

  it('an ERR_ without a group: an event alarm that acknowledging clears', async () => {
    await sim.error(null, '00000101');
    await until(async () => (await openAbout('plcChannel', 'CNV01')) !== undefined, 'the ERR_ alarm of the channel');
    const raised = (await openAbout('plcChannel', 'CNV01'))!;
    expect(raised).toMatchObject({ kind: 'plc.error', message: 'PLC CNV01 reports error 00000101', params: { channel: 'CNV01', code: '00000101' } });
    const acked = await acknowledge(raised.id, 'PLC restarted by maintenance');
    expect(acked.status, acked.text).toBe(200);
    expect(acked.body).toMatchObject({ state: 'cleared', acknowledgedBy: 'admin', ackComment: 'PLC restarted by maintenance' });
  });

  it('an order without a route onwards: major, cleared when its unit has a next hop again', async () => {
    const s = await site(wms, 'ARTE');
    const island = coordinate('ARTE', 5);
    expect((await wms.post('/v1/locations', { locationId: island, locationGroupName: 'ARTE' })).status).toBe(201);
    const order = await unitWithOrder(wms, 'A-ROUTE', island, s.STOCK);
    const res = await sim.request({ barcode: 'A-ROUTE', actualLocation: island }, { timeoutMs: 10_000 });
    expect(res.targetLocation).toBeNull();
    const raised = (await openAbout('transportOrder', order))!;
    expect(raised).toMatchObject({
      kind: 'transportOrder.noRoute',
      severity: 'major',
      message: `Transport order ${order}: unit A-ROUTE has no route at ${island}`,
    });
    expect(raised.params).toEqual({ order, unit: 'A-ROUTE', location: island });

    expect((await wms.put('/v1/api/default-hops', [{ source: island, next: s.C1 }])).status).toBe(200);
    expect((await sim.request({ barcode: 'A-ROUTE', actualLocation: island }, { timeoutMs: 10_000 })).targetLocation).toBe(s.C1);
    expect((await byId(raised.id)).state).toBe('cleared');
  });

  it('an order that goes ONFAILURE: minor, cleared by acknowledging it', async () => {
    const s = await site(wms, 'AFAI');
    const order = await unitWithOrder(wms, 'A-FAIL', s.INFEED, s.STOCK);
    expect((await wms.patch(`/v1/transport-orders/${order}`, { state: 'ONFAILURE' })).status).toBe(204);
    const raised = (await openAbout('transportOrder', order))!;
    expect(raised).toMatchObject({ kind: 'transportOrder.failed', severity: 'minor', state: 'active', params: { order, unit: 'A-FAIL' } });
    expect((await acknowledge(raised.id)).body).toMatchObject({ state: 'cleared', acknowledgedBy: 'admin', ackComment: null });
  });

  it('a backup that cannot be written: major, cleared by the next good one', async () => {
    const dir = path.join(wms.dataDir, 'backups');
    if (existsSync(dir)) renameSync(dir, `${dir}.away`);
    writeFileSync(dir, 'not a directory');
    try {
      expectServerError(await wms.post('/v1/backups'), 500);
    } finally {
      rmSync(dir);
      if (existsSync(`${dir}.away`)) renameSync(`${dir}.away`, dir);
    }
    const raised = (await openAbout('backup', 'backup'))!;
    expect(raised).toMatchObject({ kind: 'backup.failed', severity: 'major' });
    expect(raised.message).toMatch(/^A backup could not be taken: /);
    expect(raised.message).toBe(`A backup could not be taken: ${raised.params.error}`);
    expect((await wms.post('/v1/backups')).status).toBe(201);
    expect((await byId(raised.id)).state).toBe('cleared');
  });

  it('free space of the data directory below alarms.minFreeDiskMb: critical at start, cleared when there is enough', async () => {
    const dataDir = tempDir();
    const full = await startTestAppliance({ alarms: { minFreeDiskMb: 1_000_000_000 } }, dataDir);
    try {
      const alarms = (await full.get('/v1/alarms')).body as Alarm[];
      expect(alarms.find((a) => a.kind === 'disk.low')).toMatchObject({
        severity: 'critical',
        state: 'active',
        source: { kind: 'disk', key: dataDir },
        params: { freeMb: expect.any(Number), dataDir, minFreeMb: 1_000_000_000 },
      });
      await full.app.close();
      const enough = await startTestAppliance({ alarms: { minFreeDiskMb: 0 } }, dataDir);
      try {
        expect(((await enough.get('/v1/alarms')).body as Alarm[]).find((a) => a.kind === 'disk.low')).toBeUndefined();
        const cleared = (await enough.get('/v1/alarms?state=cleared')).body as Alarm[];
        expect(cleared.map((a) => a.kind)).toContain('disk.low');
      } finally {
        await enough.close();
      }
    } finally {
      await full.close();
    }
  });
});

describe('what operators do with them', () => {
  let alarm: Alarm;
  beforeAll(async () => {
    const s = await site(wms, 'AOPS');
    expect((await wms.patch(`/v1/location/${s.pKey[s.C2]}?op=change-state`, { errorCode: '********', plcState: 7 })).status).toBe(204);
    alarm = (await openAbout('location', s.C2))!;
  });

  it('acknowledge: who and why are kept; the alarm stays open while its condition lasts; a second acknowledge changes nothing', async () => {
    const acked = await acknowledge(alarm.id, 'seen, technician on the way');
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({ state: 'acknowledged', acknowledgedBy: 'admin', ackComment: 'seen, technician on the way' });
    expect((await acknowledge(alarm.id)).body).toMatchObject({ state: 'acknowledged', ackComment: 'seen, technician on the way' });
    expect((await wms.get('/v1/alarms?state=acknowledged')).body.map((a: Alarm) => a.id)).toContain(alarm.id);
    expect((await wms.get('/v1/alarms?state=active')).body.map((a: Alarm) => a.id)).not.toContain(alarm.id);
  });

  it('shelve: hidden for a while, with who, until when and why; the events say so', async () => {
    const shelved = await wms.post(`/v1/alarms/${alarm.id}/shelve`, { minutes: 30, comment: 'known, fixed at the next stop' });
    expect(shelved.status, shelved.text).toBe(200);
    expect(shelved.body.shelved).toBe(true);
    const until = Date.parse(shelved.body.shelvedUntil);
    expect(until - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(30 * 60_000);
    const types = (await wms.get(`/v1/events/history?subjectKind=alarm&subject=${alarm.id}`)).body.map((e: any) => e.type);
    expect(types).toEqual(['alarm.raised', 'alarm.acknowledged', 'alarm.shelved']);
  });

  it('open alarms: critical first, then the oldest; the cleared ones are a journal of their own, newest first, paged', async () => {
    const list = await open();
    const rank = { critical: 0, major: 1, minor: 2, warning: 3 } as Record<string, number>;
    const ranks = list.map((a) => rank[a.severity]!);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    const journal = await wms.get('/v1/alarms?state=cleared&limit=2');
    expect(journal.body).toHaveLength(2);
    expect(journal.body.every((a: Alarm) => a.state === 'cleared')).toBe(true);
    expect(journal.body[0].id).toBeGreaterThan(journal.body[1].id);
    expect(journal.headers.get('link')).toMatch(/rel="next"$/);
  });

  it('refuses what cannot be done, changing nothing', async () => {
    const cleared = (await wms.get('/v1/alarms?state=cleared&limit=1')).body[0] as Alarm;
    expectApiError(await acknowledge(cleared.id), 409, 'alarm.cleared');
    expectApiError(await wms.post(`/v1/alarms/${cleared.id}/shelve`, { minutes: 5 }), 409, 'alarm.cleared');
    expectApiError(await wms.post(`/v1/alarms/${alarm.id}/shelve`, { minutes: 0 }), 400, 'core.validation.error');
    expectApiError(await wms.post(`/v1/alarms/${alarm.id}/shelve`, { minutes: 10081 }), 400, 'core.validation.error');
    expectApiError(await wms.post(`/v1/alarms/${alarm.id}/shelve`, {}), 400, 'core.validation.error');
    expectApiError(await wms.post(`/v1/alarms/${alarm.id}/acknowledge`, { comment: 'x'.repeat(501) }), 400, 'core.validation.error');
    expectApiError(await wms.get('/v1/alarms/999999'), 404, 'not.found');
    expectApiError(await wms.get('/v1/alarms/abc'), 400, 'core.validation.error');
    expectApiError(await wms.get('/v1/alarms?state=cleared,active'), 400, 'core.validation.error');
    expectApiError(await wms.get('/v1/alarms?state=gone'), 400, 'core.validation.error');
    expect(await byId(alarm.id)).toMatchObject({ state: 'acknowledged', ackComment: 'seen, technician on the way' });
  });

  it('reading needs alarms:read, acknowledging and shelving alarms:write', async () => {
    expect((await wms.post('/roles', { name: 'ALARM-VIEWER', grants: ['alarms:read'] })).status).toBe(201);
    expect((await wms.post('/users', { username: 'alarm-viewer', password: 'alarm-viewer-pw', roleNames: ['ALARM-VIEWER'] })).status).toBe(201);
    const res = await fetch(`${wms.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&username=alarm-viewer&password=alarm-viewer-pw',
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    expect((await wms.get('/v1/alarms', { token })).status).toBe(200);
    expectServerError(await wms.post(`/v1/alarms/${alarm.id}/acknowledge`, undefined, { token }), 403);
    expectServerError(await wms.post(`/v1/alarms/${alarm.id}/shelve`, { minutes: 5 }, { token }), 403);
    expectServerError(await wms.get('/v1/alarms', { anonymous: true }), 401);
  });
});
