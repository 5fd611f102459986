import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from '../../test/support/appliance.ts';
import { createAdapter, type PlcAdapter } from '../adapter.ts';
import type { Reporter, RouteNotice } from '../port.ts';

// The adapter's protocol-neutral operations (plc/port.ts) against a real appliance,
// called the way a signal channel would call them: coordinates, barcodes and states,
// no telegrams. Effects are checked over HTTP, as a client sees them. What OSIP makes
// of the same operations: plc/adapter.test.ts.

let wms: TestAppliance;
let adapter: PlcAdapter;

beforeAll(async () => {
  wms = await startTestAppliance();
  const { work, log } = wms.app;
  const common = wms.app.module('common');
  const transportOrders = wms.app.module('transport-orders');
  const routing = wms.app.module('routing');
  adapter = createAdapter({ work, common, transportOrders, routing, log });
});
afterAll(async () => {
  adapter.close();
  await wms.close();
});

const FROM: Reporter = { channel: 'SIG01' };
const enc = encodeURIComponent;
const loc = (area: string, n: number) => `${area}/000${n}/0000/0000/0000`;

/** A group `area` with four locations (the 4th with a PLC code) and a route 1 → 3 over 2. */
async function site(area: string) {
  expect((await wms.post('/v1/location-groups', { name: area, parentName: 'WAREHOUSE' })).status).toBe(201);
  const pKey: Record<string, string> = {};
  for (let n = 1; n <= 4; n++) {
    const created = await wms.post('/v1/locations', { locationId: loc(area, n), locationGroupName: area, ...(n === 4 ? { plcCode: `${area}-P4` } : {}) });
    expect(created.status, created.text).toBe(201);
    pKey[loc(area, n)] = created.body.pKey;
  }
  const route = await wms.post('/v1/api/routes', { name: `${area}-R`, sourceLocationName: loc(area, 1), targetLocationName: loc(area, 3), enabled: true });
  expect(route.status, route.text).toBe(201);
  const hops = [
    [loc(area, 1), loc(area, 2)],
    [loc(area, 2), loc(area, 3)],
  ].map(([source, next]) => ({ source, next }));
  expect((await wms.put(`/v1/api/routes/${route.body.key}/hops`, hops)).status).toBe(200);
  return { IN: loc(area, 1), MID: loc(area, 2), OUT: loc(area, 3), CODED: loc(area, 4), pKey };
}

async function unit(barcode: string, actualLocation: string) {
  expect((await wms.post('/v1/transport-units', { barcode, actualLocation, transportUnitType: 'EURO' })).status).toBe(201);
}
async function order(barcode: string, targetLocation: string) {
  const reply = await wms.post('/v1/transport-orders', { barcode, targetLocation });
  expect(reply.status, reply.text).toBe(201);
  return reply.body.persistentKey as string;
}
const unitAt = async (barcode: string) => (await wms.get(`/v1/transport-units?bk=${enc(barcode)}`)).body.actualLocation as string;

describe('unitArrived and unitReport', () => {
  let s: Awaited<ReturnType<typeof site>>;
  beforeAll(async () => {
    s = await site('OPSA');
  });

  it('an arrival is booked and answered with the next location of its route, the order named in the facts', async () => {
    await unit('OP-1', s.IN);
    const pKey = await order('OP-1', s.OUT);
    const done = adapter.unitArrived({ coordinate: s.IN }, { barcode: 'OP-1' }, FROM);
    expect(done).toMatchObject({ outcome: 'ok', next: { location: s.MID }, facts: { barcode: 'OP-1', location: s.IN, order: pKey } });
    expect(done.decision?.kind).toBe('next');
    const last = adapter.unitArrived({ coordinate: s.OUT }, { barcode: 'OP-1' }, FROM);
    expect(last.outcome).toBe('ok');
    expect(last.next).toBeUndefined();
    expect(await unitAt('OP-1')).toBe(s.OUT);
  });

  it('a report books the unit and decides nothing', async () => {
    await unit('OP-2', s.IN);
    const done = adapter.unitReport({ plcCode: `OPSA-P4` }, { barcode: 'OP-2' }, FROM);
    expect(done).toEqual({ outcome: 'ok', facts: { barcode: 'OP-2', location: s.CODED } });
    expect(await unitAt('OP-2')).toBe(s.CODED);
  });

  it('refuses what it cannot book, with a reason, and changes nothing', async () => {
    await unit('OP-3', s.IN);
    expect(adapter.unitArrived({ coordinate: loc('NOPE', 1) }, { barcode: 'OP-3' }, FROM)).toEqual({ outcome: 'unknown-location' });
    expect(adapter.unitArrived(undefined, { barcode: 'OP-3' }, FROM)).toEqual({ outcome: 'unknown-location' });
    expect(adapter.unitArrived({ coordinate: s.MID }, { barcode: 'OP-404' }, FROM)).toEqual({ outcome: 'unknown-tu' });
    expect(await unitAt('OP-3')).toBe(s.IN);
  });

  it("a unit without order stays with the routing reason; a no-read goes to the reporter's no-read location", async () => {
    await unit('OP-4', s.MID);
    const stays = adapter.unitArrived({ coordinate: s.MID }, { barcode: 'OP-4' }, FROM);
    expect([stays.outcome, stays.next, stays.decision?.kind]).toEqual(['no-order', undefined, 'no-order']);
    expect(adapter.unitArrived({ coordinate: s.IN }, undefined, FROM)).toEqual({ outcome: 'no-read' });
    expect(adapter.unitArrived({ coordinate: s.IN }, undefined, { ...FROM, noReadLocation: s.CODED })).toEqual({
      outcome: 'no-read',
      next: { location: s.CODED },
    });
  });

  it('finds a unit by the barcode as sent, and creates an unknown one when the reporter says so', async () => {
    await unit('000OP-5', s.IN);
    expect(adapter.unitReport({ coordinate: s.MID }, { barcode: 'OP-5', asSent: '000OP-5' }, FROM).facts?.barcode).toBe('000OP-5');
    expect(adapter.unitReport({ coordinate: s.MID }, { barcode: 'OP-6' }, { ...FROM, createUnknownUnitsAs: 'EURO' }).outcome).toBe('ok');
    expect(await unitAt('OP-6')).toBe(s.MID);
  });
});

describe('unitSightings: a batch, one commit, each as if alone', () => {
  it('answers each in order; a refused one changes nothing, the others are booked', async () => {
    const s = await site('OPSB');
    await unit('OB-1', s.IN);
    await unit('OB-2', s.IN);
    await order('OB-1', s.OUT);
    const done = adapter.unitSightings(
      [
        { at: { coordinate: s.IN }, unit: { barcode: 'OB-1' }, arrival: true },
        { at: { coordinate: loc('NOPE', 2) }, unit: { barcode: 'OB-2' }, arrival: false },
        { at: { coordinate: s.MID }, unit: { barcode: 'OB-2' }, arrival: false },
      ],
      FROM,
    );
    expect(done.map((d) => d.outcome)).toEqual(['ok', 'unknown-location', 'ok']);
    expect(done[0]).toMatchObject({ next: { location: s.MID } });
    expect([await unitAt('OB-1'), await unitAt('OB-2')]).toEqual([s.IN, s.MID]);
  });
});

describe('locationState, groupState, plcError', () => {
  it("sets a location's plcState and locks, and its group's availability", async () => {
    const s = await site('OPSC');
    const change = { plcState: 12, inboundLocked: true, outboundLocked: false, groupOut: 'NOT_AVAILABLE' as const };
    expect(adapter.locationState({ coordinate: s.IN }, change, { ...FROM, said: 'signal C1.Error' })).toEqual({ outcome: 'ok', location: s.IN });
    const location = (await wms.get(`/v1/locations/${s.pKey[s.IN]}`)).body;
    expect(location).toMatchObject({ plcState: 12, incomingActive: false, outgoingActive: true });
    expect((await wms.get('/v1/location-groups?name=OPSC')).body).toMatchObject({ groupStateOut: 'NOT_AVAILABLE' });
    expect(adapter.locationState({ coordinate: loc('NOPE', 3) }, { plcState: 1 }, FROM).outcome).toBe('unknown-location');
    expect(adapter.locationState({ coordinate: s.IN }, { groupIn: 'AVAILABLE', group: 'NO-SUCH' }, FROM).outcome).toBe('unknown-group');
  });

  it("sets a group's availability in and out; an unknown group is refused", async () => {
    await site('OPSD');
    expect(adapter.groupState('OPSD', { in: 'NOT_AVAILABLE' }, FROM)).toEqual({ outcome: 'ok' });
    expect((await wms.get('/v1/location-groups?name=OPSD')).body).toMatchObject({ groupStateIn: 'NOT_AVAILABLE', groupStateOut: 'AVAILABLE' });
    expect(adapter.groupState('NO-SUCH', { in: 'AVAILABLE' }, FROM)).toEqual({ outcome: 'unknown-group' });
    expect(adapter.hasGroup('OPSD')).toBe(true);
    expect(adapter.plcError('OPSD', '00000042', { in: 'AVAILABLE' }, FROM)).toEqual({ outcome: 'ok' });
    expect((await wms.get('/v1/location-groups?name=OPSD')).body).toMatchObject({ groupStateIn: 'AVAILABLE' });
  });

  it("heartbeat answers with the host's clock", () => {
    expect(adapter.heartbeat('SIG01').time).toBeInstanceOf(Date);
  });
});

describe("route listeners: a new route is told to the channel owning the unit's location", () => {
  it('names the unit, where it stands and its next location', async () => {
    const s = await site('OPSE');
    const told: { channel: string; notice: RouteNotice }[] = [];
    adapter.attach({
      ownerOf: (_locationId, groups) => (groups.includes('OPSE') ? 'SIG01' : undefined),
      routeChanged: (channel, notice) => told.push({ channel, notice }),
    });
    await unit('OE-1', s.IN);
    await order('OE-1', s.OUT);
    for (let i = 0; i < 100 && told.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(told).toEqual([{ channel: 'SIG01', notice: { barcode: 'OE-1', at: s.IN, next: s.MID, group: undefined } }]);
  });
});
