import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db.ts';
import { EventLog } from '../src/core/event-log.ts';
import { UnitOfWork } from '../src/core/unit-of-work.ts';
import { createCommonServices } from '../src/modules/common/service.ts';
import { createRoutingService } from '../src/modules/routing/service.ts';
import { createRoutingStore } from '../src/modules/routing/store.ts';
import { createTransportOrderService } from '../src/modules/transport-orders/service.ts';
import { createTransportOrderStore } from '../src/modules/transport-orders/store.ts';
import { ofType, startTestAppliance, type TestAppliance, type RecordedEvent } from '../test/support/appliance.ts';
import { failUpdatesOf } from '../test/support/faults.ts';
import type { EventType } from '../src/contract/events.ts';
import { createAdapter } from './adapter.ts';
import { decode, encode, fieldFromCoordinate, type ResTelegram, type Telegram, type TelegramInput } from './osip/index.ts';
import type { AdapterOptions, ChannelContext, ChannelDirectory, HandlingResult, ReplyInput } from './osip/port.ts';
import { createOsipHandler, type OsipHandler } from './osip/warehouse/handler.ts';
import { recordEvents } from '../test/support/expect.ts';

// The adapter against a real appliance, without sockets: telegrams are built with the
// codec (decode(encode(…))), handed to `handle`, and the replies and the effects are
// checked — the effects over HTTP, as a client sees them.

let wms: TestAppliance;
let adapter: OsipHandler;
const events: RecordedEvent[] = [];

beforeAll(async () => {
  wms = await startTestAppliance();
  const { work, log } = wms.app;
  const common = wms.app.module('common');
  const transportOrders = wms.app.module('transport-orders');
  const routing = wms.app.module('routing');
  adapter = createOsipHandler({ adapter: createAdapter({ work, common, transportOrders, routing, log }), log });
  recordEvents(wms, events);
});
afterAll(async () => {
  adapter.close();
  await wms.close();
});

// ---- telegrams ---------------------------------------------------------------------

const OPTIONS: AdapterOptions = {
  resReasonCodes: false,
  updx: false,
  autoCreateTu: false,
  autoCreateTuType: 'EURO',
  locationAddressing: 'coordinate',
  noReadLocation: undefined,
};
const channel = (options: Partial<AdapterOptions> = {}): ChannelContext => ({ name: 'CNV01', options: { ...OPTIONS, ...options } });
const PLAIN = channel();
const REASONS = channel({ resReasonCodes: true });

let seq = 1;
/** A telegram from the PLC as the channel would hand it over: written and read by the codec. */
function telegram(input: ReplyInput): Telegram {
  const frame = encode({ ...input, header: { sender: 'CNV01', receiver: 'MFC__', seq: seq++ } } as TelegramInput);
  const read = decode(frame);
  if (!read.ok) throw new Error(`${read.reason}: ${read.detail}`);
  return read.telegram;
}
/** A reply as the PLC reads it off the wire (so it must also be writable). */
function wire(reply: ReplyInput): Telegram {
  const read = decode(encode({ ...reply, header: { sender: 'MFC__', receiver: 'CNV01', seq: 1 } } as TelegramInput));
  if (!read.ok) throw new Error(`${read.reason}: ${read.detail}`);
  return read.telegram;
}
const req = (barcode: string | undefined, actualLocation: string, errorCode = '********') => telegram({ type: 'REQ_', barcode, actualLocation, errorCode });
const upd = (barcode: string | undefined, actualLocation: string, type: 'UPD_' | 'UPDX' = 'UPD_', errorCode = '********') =>
  telegram({ type, barcode, actualLocation, errorCode });
const locu = (location: string | undefined, errorCode: string, locationGroupName?: string) =>
  telegram({ type: 'LOCU', location, errorCode, locationGroupName });
const sysu = (locationGroupName: string | undefined, errorCode: string, type: 'SYSU' | 'ERR_' = 'SYSU') => telegram({ type, locationGroupName, errorCode });

/** The one RES_ of a REQ_'s handling, as the PLC reads it. */
function resOf(handled: HandlingResult): ResTelegram {
  expect(handled.replies).toHaveLength(1);
  const res = wire(handled.replies[0]!);
  expect(res.type).toBe('RES_');
  return res as ResTelegram;
}
const errOf = (handled: HandlingResult) => {
  expect(handled.replies).toHaveLength(1);
  expect(handled.replies[0]!.type).toBe('ERR_');
  return (handled.replies[0] as { errorCode: string }).errorCode;
};

// ---- the warehouse, over HTTP --------------------------------------------------------

const enc = encodeURIComponent;
const loc = (area: string, n: number) => `${area}/000${n}/0000/0000/0000`;

interface Site {
  INFEED: string;
  C1: string;
  C2: string;
  STOCK: string;
  OTHER: string;
  routeKey: string;
  pKey: Record<string, string>;
}

/** A group `area` with five locations and a route INFEED → STOCK over C1 and C2. */
async function site(area: string, parentName = 'WAREHOUSE'): Promise<Site> {
  const group = await wms.post('/v1/location-groups', { name: area, parentName });
  expect(group.status, group.text).toBe(201);
  const pKey: Record<string, string> = {};
  for (let n = 1; n <= 5; n++) {
    const created = await wms.post('/v1/locations', { locationId: loc(area, n), locationGroupName: area });
    expect(created.status, created.text).toBe(201);
    pKey[loc(area, n)] = created.body.pKey;
  }
  const [INFEED, C1, C2, STOCK, OTHER] = [1, 2, 3, 4, 5].map((n) => loc(area, n)) as [string, string, string, string, string];
  const route = await wms.post('/v1/api/routes', { name: `${area}-IN`, sourceLocationName: INFEED, targetLocationName: STOCK, enabled: true });
  expect(route.status, route.text).toBe(201);
  await hops(route.body.key, [
    [INFEED, C1],
    [C1, C2],
    [C2, STOCK],
  ]);
  return { INFEED, C1, C2, STOCK, OTHER, routeKey: route.body.key, pKey };
}

async function hops(routeKey: string, list: [string, string][]) {
  const reply = await wms.put(
    `/v1/api/routes/${routeKey}/hops`,
    list.map(([source, next]) => ({ source, next })),
  );
  expect(reply.status, reply.text).toBe(200);
}

async function unit(barcode: string, actualLocation: string) {
  const reply = await wms.post('/v1/transport-units', { barcode, actualLocation, transportUnitType: 'EURO' });
  expect(reply.status, reply.text).toBe(201);
}

async function order(barcode: string, target: { targetLocation?: string; targetLocationGroup?: string }): Promise<string> {
  const reply = await wms.post('/v1/transport-orders', { barcode, ...target });
  expect(reply.status, reply.text).toBe(201);
  return reply.body.persistentKey;
}

const unitOf = async (barcode: string) => (await wms.get(`/v1/transport-units?bk=${enc(barcode)}`)).body;
const unitAt = async (barcode: string) => (await unitOf(barcode)).actualLocation as string;
const location = async (pKey: string) => (await wms.get(`/v1/locations/${pKey}`)).body;
const group = async (name: string) => (await wms.get(`/v1/location-groups?name=${enc(name)}`)).body;
const orderOf = async (pKey: string) => (await wms.get(`/v1/transport-orders/${pKey}`)).body;
const groupStates = async (...names: string[]) =>
  Promise.all(
    names.map(async (name) => {
      const g = await group(name);
      return `${name}:${g.groupStateIn}/${g.groupStateOut}`;
    }),
  );
const eventsSince = <T extends EventType>(mark: number, type: T) => ofType(events.slice(mark), type);

// ---- REQ_ ---------------------------------------------------------------------------

describe('REQ_: a transport unit walks a three-hop route', () => {
  let s: Site;
  let pKey: string;

  beforeAll(async () => {
    s = await site('WALK');
    await unit('W-1', s.INFEED);
    pKey = await order('W-1', { targetLocation: s.STOCK, targetLocationGroup: 'WALK' });
  });

  it('is sent INFEED → C1 → C2 → STOCK, booked at each hop; at STOCK the order is FINISHED and the RES_ has no target', async () => {
    const visited: string[] = [];
    let at = s.INFEED;
    for (let step = 0; step < 6; step++) {
      const request = req('W-1', at, '00000000') as Extract<Telegram, { type: 'REQ_' }>;
      const handled = adapter.handle(request, PLAIN);
      expect(handled.outcome).toBe('ok');
      // The RES_ echoes the request's barcode and location fields as they were sent.
      expect(handled.replies[0]).toMatchObject({ type: 'RES_', rawBarcode: request.rawBarcode, rawActualLocation: request.rawActualLocation });
      const res = resOf(handled);
      expect(res.errorCode).toBe('00000000');
      visited.push(at);
      expect(await unitAt('W-1')).toBe(at);
      if (res.targetLocation === undefined) {
        expect(res.rawTargetLocation).toBe('*'.repeat(20));
        expect(res.targetLocationGroup).toBeUndefined();
        break;
      }
      expect(res.targetLocationGroup).toBe('WALK');
      at = res.targetLocation;
    }
    expect(visited).toEqual([s.INFEED, s.C1, s.C2, s.STOCK]);
    const done = await orderOf(pKey);
    expect(done.state).toBe('FINISHED');
    expect(typeof done.endDate).toBe('string');
  });

  it('writes the target as 5 × 4 characters and the group with `*` filler, as an OpenWMS PLC reads them', async () => {
    await unit('W-2', s.INFEED);
    await order('W-2', { targetLocation: s.STOCK, targetLocationGroup: 'WALK' });
    const reply = adapter.handle(req('W-2', s.INFEED), PLAIN).replies[0]!;
    const frame = encode({ ...reply, header: { sender: 'MFC__', receiver: 'CNV01', seq: 2 }, created: new Date('2025-03-12T08:15:00Z') } as TelegramInput);
    expect(frame).toBe(
      '###00160MFC__CNV0100002RES_' +
        'W-2'.padStart(20, '0') +
        'WALK0001000000000000' +
        'WALK0002000000000000' +
        'WALK'.padEnd(20, '*') +
        '********' +
        '20250312081500' +
        '*'.repeat(31),
    );
  });

  it('builds the routing model once, not per REQ_ (the REQ_ decides inside its transaction)', async () => {
    await unit('W-CACHE', s.INFEED);
    await order('W-CACHE', { targetLocation: s.STOCK });
    expect(resOf(adapter.handle(req('W-CACHE', s.INFEED), PLAIN)).targetLocation).toBe(s.C1);
    const builds = wms.app.module('routing').modelBuilds();
    expect(resOf(adapter.handle(req('W-CACHE', s.C1), PLAIN)).targetLocation).toBe(s.C2);
    expect(resOf(adapter.handle(req('W-CACHE', s.C2), PLAIN)).targetLocation).toBe(s.STOCK);
    expect(wms.app.module('routing').modelBuilds()).toBe(builds);
  });

  it('locations nobody routes to, created, changed or deleted, do not rebuild the model; one a hop names does', async () => {
    await unit('W-HMI', s.INFEED);
    await order('W-HMI', { targetLocation: s.STOCK });
    expect(resOf(adapter.handle(req('W-HMI', s.INFEED), PLAIN)).targetLocation).toBe(s.C1);
    const builds = wms.app.module('routing').modelBuilds();
    // An HMI adds, edits and removes a location no route, hop or default hop names.
    const created = await wms.post('/v1/locations', { locationId: 'HMIX/0001/0001/0000/0000', locationGroupName: 'WAREHOUSE' });
    expect(created.status).toBe(201);
    expect((await wms.put('/v1/locations', { ...created.body, description: 'edited' })).status).toBe(200);
    expect((await wms.del(`/v1/locations/${created.body.pKey}`)).status).toBe(204);
    expect(resOf(adapter.handle(req('W-HMI', s.C1), PLAIN)).targetLocation).toBe(s.C2);
    expect(wms.app.module('routing').modelBuilds()).toBe(builds);
    // A change of a location a hop names is seen.
    const c2 = (await wms.get(`/v1/locations?locationId=${encodeURIComponent(s.C2)}`)).body;
    expect((await wms.put('/v1/locations', { ...c2, description: 'named by a hop' })).status).toBe(200);
    expect(resOf(adapter.handle(req('W-HMI', s.C2), PLAIN)).targetLocation).toBe(s.STOCK);
    expect(wms.app.module('routing').modelBuilds()).toBe(builds + 1);
  });

  it('a repeated REQ_ gets the same target and books the unit once', () => {
    const mark = events.length;
    expect(resOf(adapter.handle(req('W-2', s.C1), PLAIN)).targetLocation).toBe(s.C2);
    expect(resOf(adapter.handle(req('W-2', s.C1), PLAIN)).targetLocation).toBe(s.C2);
    const moved = eventsSince(mark, 'transportUnit.moved');
    expect(moved).toHaveLength(1);
    // Booked by the PLC, on the channel's behalf.
    expect(moved[0]).toMatchObject({ actor: { kind: 'plc', name: 'CNV01' }, data: { barcode: 'W-2', to: s.C1 } });
  });
});

describe('RES_ error codes: echoed, or our reason codes', () => {
  let s: Site;

  beforeAll(async () => {
    s = await site('CODE');
    await unit('K-1', s.INFEED);
    await unit('K-2', s.INFEED);
    await unit('K-3', s.INFEED);
    await unit('K-4', s.INFEED);
  });

  it('echoes the REQ_ code by default, whatever happened', async () => {
    expect(resOf(adapter.handle(req('K-1', s.INFEED, '****1***'), PLAIN)).errorCode).toBe('****1***');
    expect(resOf(adapter.handle(req('K-9', s.INFEED, '00000001'), PLAIN)).errorCode).toBe('00000001');
  });

  it('00000001: no order (and no default hop)', () => {
    const handled = adapter.handle(req('K-1', s.INFEED, '********'), REASONS);
    expect(handled.outcome).toBe('no-order');
    const res = resOf(handled);
    expect(res.errorCode).toBe('00000001');
    expect(res.targetLocation).toBeUndefined();
  });

  it('00000002: no route; the order records "no route at L"', async () => {
    const pKey = await order('K-2', { targetLocation: s.OTHER });
    const handled = adapter.handle(req('K-2', s.INFEED), REASONS);
    expect(handled.outcome).toBe('no-route');
    expect(resOf(handled)).toMatchObject({ errorCode: '00000002', targetLocation: undefined });
    expect((await orderOf(pKey)).message).toBe(`no route at ${s.INFEED}`);
  });

  it('the recorded "no route at L" is cleared once the unit has a next hop; an operator\'s problem text stays', async () => {
    const pKey = await order('K-4', { targetLocation: s.OTHER });
    expect(adapter.handle(req('K-4', s.INFEED), REASONS).outcome).toBe('no-route');
    expect((await orderOf(pKey)).message).toBe(`no route at ${s.INFEED}`);

    const route = await wms.post('/v1/api/routes', { name: 'CODE-OTHER', sourceLocationName: s.INFEED, targetLocationName: s.OTHER, enabled: true });
    expect(route.status, route.text).toBe(201);
    await hops(route.body.key, [
      [s.INFEED, s.C1],
      [s.C1, s.OTHER],
    ]);
    expect(resOf(adapter.handle(req('K-4', s.INFEED), REASONS))).toMatchObject({ errorCode: '00000000', targetLocation: s.C1 });
    expect((await orderOf(pKey)).message).toBeUndefined();

    const noted = await wms.patch(`/v1/transport-orders/${pKey}`, { problem: 'pallet damaged, check at C1' });
    expect(noted.status, noted.text).toBe(204);
    expect(resOf(adapter.handle(req('K-4', s.C1), REASONS))).toMatchObject({ errorCode: '00000000', targetLocation: s.OTHER });
    expect((await orderOf(pKey)).message).toBe('pallet damaged, check at C1');
  });

  it('00000000: a next hop', async () => {
    await order('K-3', { targetLocation: s.STOCK });
    expect(resOf(adapter.handle(req('K-3', s.INFEED), REASONS))).toMatchObject({ errorCode: '00000000', targetLocation: s.C1 });
  });

  it('00000005: unknown location or unit', () => {
    expect(resOf(adapter.handle(req('K-1', loc('CODE', 9)), REASONS)).errorCode).toBe('00000005');
    expect(resOf(adapter.handle(req('K-404', s.INFEED), REASONS)).errorCode).toBe('00000005');
  });

  it('00000004: no-read', () => {
    expect(resOf(adapter.handle(req(undefined, s.INFEED), REASONS)).errorCode).toBe('00000004');
  });
});

// ---- LOCU ---------------------------------------------------------------------------

describe('LOCU: location state, plcState, and routing around a locked location', () => {
  let s: Site;

  beforeAll(async () => {
    s = await site('LOCK');
    await unit('L-1', s.INFEED);
    await order('L-1', { targetLocation: s.STOCK });
  });

  it('0012***1 → plcState 12, incomingActive false, the rest unchanged; one event per changed field', async () => {
    const mark = events.length;
    const handled = adapter.handle(locu(s.C1, '0012***1'), PLAIN);
    expect(handled).toEqual({ replies: [], outcome: 'ok', facts: { location: s.C1 } });
    const c1 = await location(s.pKey[s.C1]!);
    expect(c1).toMatchObject({ plcState: 12, incomingActive: false, outgoingActive: true });
    expect(await groupStates('LOCK')).toEqual(['LOCK:AVAILABLE/AVAILABLE']);
    expect(
      eventsSince(mark, 'location.stateChanged')
        .map((e) => e.data.field)
        .sort(),
    ).toEqual(['incomingActive', 'plcState']);
  });

  it('the route through the locked location is held: RES_ without target, reason 00000003; the unit stays', async () => {
    const handled = adapter.handle(req('L-1', s.INFEED), REASONS);
    expect(handled.outcome).toBe('locked');
    expect(resOf(handled)).toMatchObject({ errorCode: '00000003', targetLocation: undefined });
    expect(await unitAt('L-1')).toBe(s.INFEED);
  });

  it('with an alternative hop, the unit goes around it', async () => {
    await hops(s.routeKey, [
      [s.INFEED, s.C1],
      [s.INFEED, s.C2],
      [s.C1, s.C2],
      [s.C2, s.STOCK],
    ]);
    expect(resOf(adapter.handle(req('L-1', s.INFEED), REASONS))).toMatchObject({ errorCode: '00000000', targetLocation: s.C2 });
  });

  it('****…0 releases it and keeps plcState; the first-choice hop is used again', async () => {
    expect(adapter.handle(locu(s.C1, '*******0'), PLAIN).outcome).toBe('ok');
    expect(await location(s.pKey[s.C1]!)).toMatchObject({ plcState: 12, incomingActive: true });
    expect(resOf(adapter.handle(req('L-1', s.INFEED), REASONS)).targetLocation).toBe(s.C1);
  });

  it("c2/c3 set the state of the location's group (and the groups below it)", async () => {
    expect((await wms.post('/v1/location-groups', { name: 'LOCK-SUB', parentName: 'LOCK' })).status).toBe(201);
    adapter.handle(locu(s.C2, '****11**'), PLAIN);
    expect(await groupStates('LOCK', 'LOCK-SUB')).toEqual(['LOCK:NOT_AVAILABLE/NOT_AVAILABLE', 'LOCK-SUB:NOT_AVAILABLE/NOT_AVAILABLE']);
    expect(await location(s.pKey[s.C2]!)).toMatchObject({ incomingActive: true, outgoingActive: true, plcState: 0 });
    adapter.handle(locu(s.C2, '****00**'), PLAIN);
    expect(await groupStates('LOCK', 'LOCK-SUB')).toEqual(['LOCK:AVAILABLE/AVAILABLE', 'LOCK-SUB:AVAILABLE/AVAILABLE']);
  });

  it('with a group named beside the location, c2/c3 go to that group', async () => {
    expect((await wms.post('/v1/location-groups', { name: 'LOCK-X', parentName: 'WAREHOUSE' })).status).toBe(201);
    expect(adapter.handle(locu(s.C2, '000710*1', 'LOCK-X'), PLAIN).outcome).toBe('ok');
    expect(await groupStates('LOCK-X', 'LOCK')).toEqual(['LOCK-X:AVAILABLE/NOT_AVAILABLE', 'LOCK:AVAILABLE/AVAILABLE']);
    expect(await location(s.pKey[s.C2]!)).toMatchObject({ plcState: 7, incomingActive: false, outgoingActive: true });
    adapter.handle(locu(s.C2, '0000***0'), PLAIN);
  });

  it('without a location it acts on the group as SYSU does: c0 = in, c1 = out', async () => {
    expect(adapter.handle(locu(undefined, '******1*', 'LOCK-SUB'), PLAIN)).toEqual({ replies: [], outcome: 'ok' });
    expect(await groupStates('LOCK', 'LOCK-SUB')).toEqual(['LOCK:AVAILABLE/AVAILABLE', 'LOCK-SUB:AVAILABLE/NOT_AVAILABLE']);
  });
});

// ---- SYSU / ERR_ ----------------------------------------------------------------------

describe('SYSU and ERR_: group states, cascading to the groups below', () => {
  beforeAll(async () => {
    for (const [name, parentName] of [
      ['GRPS', 'WAREHOUSE'],
      ['GRPS-C', 'GRPS'],
      ['GRPS-G', 'GRPS-C'],
    ]) {
      expect((await wms.post('/v1/location-groups', { name, parentName })).status).toBe(201);
    }
  });

  it('SYSU ******11 locks the group and every group below it, in and out', async () => {
    expect(adapter.handle(sysu('GRPS', '******11'), PLAIN)).toEqual({ replies: [], outcome: 'ok' });
    expect(await groupStates('GRPS', 'GRPS-C', 'GRPS-G')).toEqual([
      'GRPS:NOT_AVAILABLE/NOT_AVAILABLE',
      'GRPS-C:NOT_AVAILABLE/NOT_AVAILABLE',
      'GRPS-G:NOT_AVAILABLE/NOT_AVAILABLE',
    ]);
  });

  it('ERR_ 00000010 sets the states of its group and those below, and records an error event', async () => {
    const mark = events.length;
    expect(adapter.handle(sysu('GRPS-C', '00000010', 'ERR_'), PLAIN)).toEqual({ replies: [], outcome: 'ok' });
    expect(await groupStates('GRPS', 'GRPS-C', 'GRPS-G')).toEqual([
      'GRPS:NOT_AVAILABLE/NOT_AVAILABLE',
      'GRPS-C:AVAILABLE/NOT_AVAILABLE',
      'GRPS-G:AVAILABLE/NOT_AVAILABLE',
    ]);
    expect(eventsSince(mark, 'plc.groupError').map((e) => e.data)).toEqual([expect.objectContaining({ name: 'GRPS-C', code: '00000010', channel: 'CNV01' })]);
    expect(eventsSince(mark, 'locationGroup.stateChanged')).toHaveLength(2);
  });

  it('ERR_ without a group records the error only', async () => {
    const mark = events.length;
    expect(adapter.handle(sysu(undefined, '00000101', 'ERR_'), PLAIN)).toEqual({ replies: [], outcome: 'ok' });
    expect(eventsSince(mark, 'plc.groupError').map((e) => e.data)).toEqual([{ name: null, code: '00000101', channel: 'CNV01' }]);
    expect(eventsSince(mark, 'locationGroup.stateChanged')).toHaveLength(0);
  });

  it('SYSU ******00 releases them again', async () => {
    adapter.handle(sysu('GRPS', '******00'), PLAIN);
    expect(await groupStates('GRPS', 'GRPS-C', 'GRPS-G')).toEqual(['GRPS:AVAILABLE/AVAILABLE', 'GRPS-C:AVAILABLE/AVAILABLE', 'GRPS-G:AVAILABLE/AVAILABLE']);
  });
});

// ---- docs/plc.md: what is refused, and that nothing changed ------------------------------------

describe('refused and failed telegrams: the reply, and no state change', () => {
  let s: Site;
  let pKey: string;

  /** Everything a refused telegram must leave alone, as REST shows it. */
  async function snapshot() {
    const tu = await unitOf('F-1');
    const o = await orderOf(pKey);
    const locations = await Promise.all(Object.values(s.pKey).map(location));
    return {
      tu: { at: tu.actualLocation, ol: tu.ol },
      order: { state: o.state, message: o.message, ol: o.ol },
      locations: locations.map((l) => ({ id: l.locationId, in: l.incomingActive, out: l.outgoingActive, plc: l.plcState, ol: l.ol })),
      groups: await groupStates('FAIL', 'WAREHOUSE'),
      units: (await wms.get('/v1/transport-units')).body.length,
    };
  }

  beforeAll(async () => {
    s = await site('FAIL');
    await unit('F-1', s.INFEED);
    pKey = await order('F-1', { targetLocation: s.C1 });
  });

  const UPDX = channel({ updx: true });
  const rows: [string, () => Telegram, ChannelContext, { outcome: string; err?: string; res?: string }][] = [
    ['REQ_ at an unknown location', () => req('F-1', loc('FAIL', 9), '00000111'), PLAIN, { outcome: 'unknown-location', res: '00000111' }],
    ['REQ_ at an unknown location (reason codes)', () => req('F-1', loc('FAIL', 9)), REASONS, { outcome: 'unknown-location', res: '00000005' }],
    ['REQ_ at an absent location', () => req('F-1', undefined as unknown as string), REASONS, { outcome: 'unknown-location', res: '00000005' }],
    ['UPD_ at an unknown location', () => upd('F-1', loc('FAIL', 9)), PLAIN, { outcome: 'unknown-location', err: '00000013' }],
    ['UPDX at an unknown location', () => upd('F-1', loc('FAIL', 9), 'UPDX'), UPDX, { outcome: 'unknown-location', err: '00000013' }],
    ['REQ_ of an unknown unit', () => req('F-404', s.C1), REASONS, { outcome: 'unknown-tu', res: '00000005' }],
    ['UPD_ of an unknown unit', () => upd('F-404', s.C1), PLAIN, { outcome: 'unknown-tu', err: '00000013' }],
    ['LOCU of an unknown location', () => locu(loc('FAIL', 9), '0001***1'), PLAIN, { outcome: 'unknown-location', err: '00000013' }],
    ['LOCU of an unknown group', () => locu(s.C1, '0001***1', 'NO-SUCH-GROUP'), PLAIN, { outcome: 'unknown-group', err: '00000013' }],
    ['LOCU naming neither', () => locu(undefined, '0001***1'), PLAIN, { outcome: 'unknown-location', err: '00000013' }],
    ['LOCU with plcState digits that are not digits', () => locu(s.C1, '00x2***1'), PLAIN, { outcome: 'bad-field', err: '00000012' }],
    ['LOCU with plcState half given', () => locu(s.C1, '**12***1'), PLAIN, { outcome: 'bad-field', err: '00000012' }],
    ['LOCU with a bad bitmap character', () => locu(s.C1, '****2**1'), PLAIN, { outcome: 'bad-field', err: '00000012' }],
    ['SYSU of an unknown group', () => sysu('NO-SUCH-GROUP', '******11'), PLAIN, { outcome: 'unknown-group', err: '00000013' }],
    ['SYSU without a group', () => sysu(undefined, '******11'), PLAIN, { outcome: 'unknown-group', err: '00000013' }],
    ['SYSU with a bad bitmap character', () => sysu('FAIL', '******2*'), PLAIN, { outcome: 'bad-field', err: '00000012' }],
    ['ERR_ of an unknown group', () => sysu('NO-SUCH-GROUP', '00000011', 'ERR_'), PLAIN, { outcome: 'unknown-group', err: '00000013' }],
    ['RES_ sent by a PLC', () => telegram({ type: 'RES_', barcode: 'F-1', actualLocation: s.C1 }), PLAIN, { outcome: 'unexpected-type', err: '00000010' }],
  ];

  for (const [name, build, ctx, expected] of rows) {
    it(`${name} → ${expected.res ? `RES_ without target (${expected.res})` : `ERR_ ${expected.err}`}`, async () => {
      const before = await snapshot();
      const mark = events.length;
      const handled = adapter.handle(build(), ctx);
      expect(handled.outcome).toBe(expected.outcome);
      if (expected.res) expect(resOf(handled)).toMatchObject({ errorCode: expected.res, targetLocation: undefined });
      else expect(errOf(handled)).toBe(expected.err);
      expect(await snapshot()).toEqual(before);
      expect(events.length).toBe(mark);
    });
  }

  describe('an internal failure rolls the whole telegram back', () => {
    let repair = () => {};
    const failOn = (table: string) => (repair = failUpdatesOf(wms, table));

    it('REQ_ at the order target with finishing the order failing: the unit is not booked either; RES_ without target', async () => {
      const before = await snapshot();
      failOn('transport_orders');
      try {
        const mark = events.length;
        const plain = adapter.handle(req('F-1', s.C1, '00000000'), PLAIN);
        expect(plain.outcome).toBe('internal');
        expect(resOf(plain)).toMatchObject({ errorCode: '00000000', targetLocation: undefined });
        const reasons = adapter.handle(req('F-1', s.C1), REASONS);
        expect(resOf(reasons)).toMatchObject({ errorCode: '00000099', targetLocation: undefined });
        expect(events.length).toBe(mark);
      } finally {
        repair();
      }
      expect(await snapshot()).toEqual(before);
      const logged = wms.logs().filter((line) => line.includes('PLC telegram failed'));
      expect(logged.length).toBeGreaterThanOrEqual(2);
      expect(JSON.parse(logged[0]!)).toMatchObject({
        channel: 'CNV01',
        telegram: { type: 'REQ_', barcode: 'F-1' },
        err: { message: 'failure forced by the test' },
      });
    });

    it('UPD_ → ERR_ 00000099, nothing booked', async () => {
      const before = await snapshot();
      failOn('transport_orders');
      try {
        expect(errOf(adapter.handle(upd('F-1', s.C1), PLAIN))).toBe('00000099');
      } finally {
        repair();
      }
      expect(await snapshot()).toEqual(before);
    });

    it('LOCU → ERR_ 00000099, no state change', async () => {
      const before = await snapshot();
      failOn('locations');
      try {
        expect(errOf(adapter.handle(locu(s.C1, '0033**11'), PLAIN))).toBe('00000099');
      } finally {
        repair();
      }
      expect(await snapshot()).toEqual(before);
    });

    it('SYSU and ERR_ → ERR_ 00000099, no state change and no error event', async () => {
      const before = await snapshot();
      const mark = events.length;
      failOn('location_groups');
      try {
        expect(errOf(adapter.handle(sysu('FAIL', '******11'), PLAIN))).toBe('00000099');
        expect(errOf(adapter.handle(sysu('FAIL', '00000011', 'ERR_'), PLAIN))).toBe('00000099');
      } finally {
        repair();
      }
      expect(await snapshot()).toEqual(before);
      expect(events.length).toBe(mark);
    });

    it('after the repair the same REQ_ is processed: the unit is booked and its order FINISHED', async () => {
      expect(adapter.handle(req('F-1', s.C1), REASONS).outcome).toBe('ok');
      expect(await unitAt('F-1')).toBe(s.C1);
      expect((await orderOf(pKey)).state).toBe('FINISHED');
    });
  });
});

// ---- no-read, auto-create, UPD_/UPDX ----------------------------------------------------

describe('no-read: no barcode', () => {
  let s: Site;
  beforeAll(async () => {
    s = await site('READ');
  });

  it('REQ_ → RES_ without target, or to the no-read location when the channel has one; no unit changes', async () => {
    const units = (await wms.get('/v1/transport-units')).body.length;
    const mark = events.length;
    const plain = adapter.handle(req(undefined, s.INFEED), REASONS);
    expect(plain.outcome).toBe('no-read');
    expect(resOf(plain)).toMatchObject({ errorCode: '00000004', targetLocation: undefined, rawBarcode: '?'.repeat(20) });
    const spur = adapter.handle(req(undefined, s.INFEED), channel({ resReasonCodes: true, noReadLocation: s.OTHER }));
    expect(resOf(spur)).toMatchObject({ errorCode: '00000004', targetLocation: s.OTHER, rawActualLocation: fieldFromCoordinate(s.INFEED) });
    // Also at a location the appliance does not know: the no-read comes first.
    expect(resOf(adapter.handle(req(undefined, loc('READ', 9)), REASONS)).errorCode).toBe('00000004');
    expect((await wms.get('/v1/transport-units')).body.length).toBe(units);
    expect(events.length).toBe(mark);
  });

  it('UPD_ → nothing at all; UPDX → ACK_ (when on)', () => {
    expect(adapter.handle(upd(undefined, s.INFEED), PLAIN)).toEqual({ replies: [], outcome: 'no-read' });
    expect(adapter.handle(upd(undefined, s.INFEED, 'UPDX', '00000001'), channel({ updx: true }))).toEqual({
      replies: [{ type: 'ACK_', errorCode: '00000001' }],
      outcome: 'no-read',
    });
  });
});

describe('auto-create: an unknown unit is created where the PLC saw it', () => {
  let s: Site;
  const AUTO = channel({ autoCreateTu: true, autoCreateTuType: 'EURO', resReasonCodes: true });
  beforeAll(async () => {
    s = await site('AUTO');
  });

  it('REQ_ creates the unit at L with the configured type and answers as for a unit without order', async () => {
    const mark = events.length;
    const handled = adapter.handle(req('A-NEW', s.INFEED), AUTO);
    expect(resOf(handled)).toMatchObject({ errorCode: '00000001', targetLocation: undefined });
    expect(await unitOf('A-NEW')).toMatchObject({ barcode: 'A-NEW', actualLocation: s.INFEED, transportUnitType: 'EURO' });
    expect(eventsSince(mark, 'transportUnit.created')).toHaveLength(1);
  });

  it('UPD_ creates it too; without autoCreateTu nothing is created', async () => {
    expect(adapter.handle(upd('A-UPD', s.C1), AUTO)).toEqual({ replies: [], outcome: 'ok', facts: { barcode: 'A-UPD', location: s.C1 } });
    expect(await unitAt('A-UPD')).toBe(s.C1);
    expect(adapter.handle(upd('A-NOT', s.C1), PLAIN).outcome).toBe('unknown-tu');
    expect((await wms.get('/v1/transport-units?bk=A-NOT')).status).toBe(404);
  });
});

describe('UPD_ and UPDX: booked, never answered with RES_', () => {
  let s: Site;
  let pKey: string;
  beforeAll(async () => {
    s = await site('UPDS');
    await unit('U-1', s.INFEED);
    pKey = await order('U-1', { targetLocation: s.C2 });
  });

  it('UPD_ books the unit and sends nothing', async () => {
    // The facts for the telegram log: the unit, where it was seen, the order it touched.
    expect(adapter.handle(upd('U-1', s.C1), PLAIN)).toEqual({ replies: [], outcome: 'ok', facts: { barcode: 'U-1', location: s.C1, order: pKey } });
    expect(await unitAt('U-1')).toBe(s.C1);
  });

  it('UPDX books it and, with updx on, answers ACK_ echoing the error code; the order finishes at its target', async () => {
    expect(adapter.handle(upd('U-1', s.C2, 'UPDX', '00000101'), channel({ updx: true }))).toEqual({
      replies: [{ type: 'ACK_', errorCode: '00000101' }],
      outcome: 'ok',
      facts: { barcode: 'U-1', location: s.C2, order: pKey },
    });
    expect(await unitAt('U-1')).toBe(s.C2);
    expect((await orderOf(pKey)).state).toBe('FINISHED');
    expect(wire({ type: 'ACK_', errorCode: '00000101' }).type).toBe('ACK_');
  });

  it('UPDX with updx off is an UPD_', async () => {
    expect(adapter.handle(upd('U-1', s.C1, 'UPDX'), PLAIN)).toMatchObject({ replies: [], outcome: 'ok' });
    expect(await unitAt('U-1')).toBe(s.C1);
  });

  it('a unit seen on a location that accepts no units is booked there, with a warning event', async () => {
    adapter.handle(locu(s.OTHER, '*******1'), PLAIN);
    const mark = events.length;
    expect(adapter.handle(upd('U-1', s.OTHER), PLAIN).outcome).toBe('ok');
    expect(await unitAt('U-1')).toBe(s.OTHER);
    expect(eventsSince(mark, 'plc.bookedOntoLockedLocation').map((e) => e.data)).toEqual([
      { barcode: 'U-1', locationId: s.OTHER, channel: 'CNV01', telegram: 'UPD_' },
    ]);
  });
});

// ---- barcodes and location fields --------------------------------------------------------

describe('barcodes and location fields', () => {
  let s: Site;
  beforeAll(async () => {
    s = await site('BARC');
    await unit('00000000000000004711', s.INFEED);
    await unit('4712', s.INFEED);
  });

  it('finds a unit stored with its zero padding and one stored without', async () => {
    expect(adapter.handle(upd('4711', s.C1), PLAIN).outcome).toBe('ok');
    expect(await unitAt('00000000000000004711')).toBe(s.C1);
    const request = req('4712', s.INFEED) as Extract<Telegram, { type: 'REQ_' }>;
    expect(request.rawBarcode).toBe('00000000000000004712');
    expect(adapter.handle(upd('4712', s.C1), PLAIN).outcome).toBe('ok');
    expect(await unitAt('4712')).toBe(s.C1);
  });

  it('looks a location up by PLC code (the trimmed field) when the channel says so', async () => {
    const created = await wms.post('/v1/locations', { locationId: 'BARC/0009/0000/0000/0000', locationGroupName: 'BARC', plcCode: 'BARC-P9' });
    expect(created.status, created.text).toBe(201);
    const field = 'BARC-P9'.padEnd(20, ' ');
    const byCode = telegram({ type: 'UPD_', barcode: '4712', rawActualLocation: field });
    expect(adapter.handle(byCode, channel({ locationAddressing: 'coordinate' })).outcome).toBe('unknown-location');
    expect(adapter.handle(byCode, channel({ locationAddressing: 'plcCode' })).outcome).toBe('ok');
    expect(await unitAt('4712')).toBe('BARC/0009/0000/0000/0000');
    expect(adapter.handle(upd('4712', s.C2), channel({ locationAddressing: 'plcCode' })).outcome).toBe('unknown-location');
    expect(adapter.handle(upd('4712', s.C2), channel({ locationAddressing: 'coordinateThenPlcCode' })).outcome).toBe('ok');
    expect(adapter.handle(byCode, channel({ locationAddressing: 'coordinateThenPlcCode' })).outcome).toBe('ok');
    expect(await unitAt('4712')).toBe('BARC/0009/0000/0000/0000');
  });

  it('a next hop whose coordinate does not fit 5 × 4 goes out as its PLC code; without one, RES_ without target', async () => {
    const LONG = 'BARC/LONGER/0000/0000/0000';
    const BARE = 'BARC/BARELONG/0000/0000/0000';
    expect((await wms.post('/v1/locations', { locationId: LONG, locationGroupName: 'BARC', plcCode: 'BARC-LONG' })).status).toBe(201);
    expect((await wms.post('/v1/locations', { locationId: BARE, locationGroupName: 'BARC' })).status).toBe(201);
    const route = await wms.post('/v1/api/routes', { name: 'BARC-LONG', sourceLocationName: s.OTHER, targetLocationName: LONG, enabled: true });
    await hops(route.body.key, [[s.OTHER, LONG]]);
    const bare = await wms.post('/v1/api/routes', { name: 'BARC-BARE', sourceLocationName: s.OTHER, targetLocationName: BARE, enabled: true });
    await hops(bare.body.key, [[s.OTHER, BARE]]);
    await unit('B-LONG', s.OTHER);
    await order('B-LONG', { targetLocation: LONG });
    await unit('B-BARE', s.OTHER);
    await order('B-BARE', { targetLocation: BARE });

    const long = adapter.handle(req('B-LONG', s.OTHER), REASONS);
    expect(long.outcome).toBe('ok');
    expect(long.replies[0]).toMatchObject({ rawTargetLocation: 'BARC-LONG'.padEnd(20, ' ') });
    expect(resOf(long).rawTargetLocation).toBe('BARC-LONG           ');

    const none = adapter.handle(req('B-BARE', s.OTHER), REASONS);
    expect(none.outcome).toBe('target-not-writable');
    expect(resOf(none)).toMatchObject({ targetLocation: undefined, errorCode: '00000002' });
    expect(wms.logs().some((line) => line.includes('RES_ without target') && line.includes(BARE))).toBe(true);
  });
});

// ---- unsolicited RES_ ----------------------------------------------------------------------

describe("unsolicited RES_ when a unit standing at a channel's location gets a route", () => {
  let s: Site;
  const sent: { channel: string; telegram: ReplyInput }[] = [];
  const asked: { locationId: string; groups: readonly string[] }[] = [];
  let linked = true;
  const directory: ChannelDirectory = {
    ownerOf(locationId, groups) {
      asked.push({ locationId, groups });
      return groups.includes('UNSO') ? 'CNV01' : undefined;
    },
    sendUnsolicited(channelName, telegram) {
      if (!linked) return false;
      sent.push({ channel: channelName, telegram });
      return true;
    },
  };

  /** Lets queued work run (the adapter takes events up in a microtask). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  async function until(check: () => boolean) {
    for (let i = 0; i < 250 && !check(); i++) await settle();
    expect(check()).toBe(true);
  }

  beforeAll(async () => {
    // A sub-group: the owner is found through the unit's location's group chain.
    expect((await wms.post('/v1/location-groups', { name: 'UNSO', parentName: 'WAREHOUSE' })).status).toBe(201);
    s = await site('UNSB', 'UNSO');
    adapter.attach(directory);
  });

  it('a new STARTED order → one RES_ from where the unit stands to its next hop, barcode written with the padding', async () => {
    await unit('N-1', s.INFEED);
    await order('N-1', { targetLocation: s.STOCK, targetLocationGroup: 'UNSO' });
    await until(() => sent.length === 1);
    await settle();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.channel).toBe('CNV01');
    expect(asked.at(-1)).toEqual({ locationId: s.INFEED, groups: ['UNSB', 'UNSO', 'WAREHOUSE'] });
    const res = wire(sent[0]!.telegram) as ResTelegram;
    expect(res).toMatchObject({
      type: 'RES_',
      barcode: 'N-1',
      rawBarcode: 'N-1'.padStart(20, '0'),
      actualLocation: s.INFEED,
      targetLocation: s.C1,
      targetLocationGroup: 'UNSO',
      errorCode: '00000000',
    });
  });

  it('a redirected order → a RES_ along the new route', async () => {
    const route = await wms.post('/v1/api/routes', { name: 'UNSB-C2', sourceLocationName: s.INFEED, targetLocationName: s.C2, enabled: true });
    await hops(route.body.key, [[s.INFEED, s.C2]]);
    await unit('N-2', s.INFEED);
    const pKey = await order('N-2', { targetLocation: s.STOCK });
    await until(() => sent.length === 2);
    const patched = await wms.patch(`/v1/transport-orders/${pKey}`, { targetLocation: s.C2 });
    expect(patched.status, patched.text).toBeLessThan(300);
    await until(() => sent.length === 3);
    expect(wire(sent[2]!.telegram)).toMatchObject({ barcode: 'N-2', actualLocation: s.INFEED, targetLocation: s.C2 });
  });

  it('a queued (INITIALIZED) order sends nothing; the REQ_ that finishes one order and starts the next is answered by its RES_ only', async () => {
    await unit('N-3', s.INFEED);
    await order('N-3', { targetLocation: s.C2 });
    await until(() => sent.length === 4);
    expect(wire(sent[3]!.telegram)).toMatchObject({ barcode: 'N-3', targetLocation: s.C2 });
    await order('N-3', { targetLocation: s.STOCK }); // INITIALIZED
    await settle();
    expect(sent).toHaveLength(4);
    const handled = adapter.handle(req('N-3', s.C2), PLAIN);
    expect(resOf(handled).targetLocation).toBe(s.STOCK);
    await settle();
    expect(sent).toHaveLength(4);
  });

  it('nothing for a unit at a location no channel owns; a channel that cannot send is logged, not thrown', async () => {
    const before = sent.length;
    const other = await site('UNSX');
    await unit('N-4', other.INFEED);
    await order('N-4', { targetLocation: other.STOCK });
    await settle();
    expect(asked.at(-1)?.locationId).toBe(other.INFEED);
    expect(sent.length).toBe(before);

    linked = false;
    await unit('N-5', s.INFEED);
    await order('N-5', { targetLocation: s.STOCK });
    await until(() => wms.logs().some((line) => line.includes('unsolicited RES_ not sent') && line.includes('N-5')));
    expect(sent.length).toBe(before);
    linked = true;
  });
});

// ---- bursts (handleBatch) -------------------------------------------------------------

describe('bursts: unit reports queued together share one commit, each as if handled alone', () => {
  let s: Site;
  const batch = (telegrams: Telegram[], ctx = REASONS) => adapter.handleBatch!(telegrams, ctx);

  beforeAll(async () => {
    s = await site('BTCH');
    for (const barcode of ['B-1', 'B-2', 'B-3', 'B-4', 'B-5', 'B-6']) {
      await unit(barcode, s.OTHER);
      await order(barcode, { targetLocation: s.STOCK });
    }
  });

  it('one failing telegram rolls back only itself; the events of the others follow the commit', async () => {
    const mark = events.length;
    const repair = failUpdatesOf(wms, 'transport_units', "OLD.barcode = 'B-2'");
    let results: HandlingResult[];
    try {
      results = batch([req('B-1', s.INFEED), req('B-2', s.INFEED), upd('B-3', s.C1)]);
    } finally {
      repair();
    }
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'internal', 'ok']);
    expect(resOf(results[0]!)).toMatchObject({ errorCode: '00000000', targetLocation: s.C1 });
    expect(resOf(results[1]!)).toMatchObject({ errorCode: '00000099', targetLocation: undefined });
    expect(results[2]!.replies).toEqual([]);
    expect([await unitAt('B-1'), await unitAt('B-2'), await unitAt('B-3')]).toEqual([s.INFEED, s.OTHER, s.C1]);
    expect(eventsSince(mark, 'transportUnit.moved').map((e) => e.data.barcode)).toEqual(['B-1', 'B-3']);
  });

  it('a state telegram in the burst takes effect before the reports after it: a group locked by SYSU holds the next REQ_', async () => {
    const results = batch([sysu('BTCH', '*******1'), req('B-4', s.INFEED)]);
    try {
      expect(results[0]!.outcome).toBe('ok');
      expect(results[1]!.outcome).toBe('locked');
      expect(resOf(results[1]!)).toMatchObject({ errorCode: '00000003', targetLocation: undefined });
    } finally {
      expect(adapter.handle(sysu('BTCH', '******00'), PLAIN).outcome).toBe('ok');
    }
    // Released: the same REQ_ in a burst goes on to C1.
    expect(resOf(batch([upd('B-5', s.INFEED), req('B-4', s.INFEED)])[1]!)).toMatchObject({ errorCode: '00000000', targetLocation: s.C1 });
  });

  it('a failed commit keeps none of the burst: every telegram is answered as an internal failure, no events', async () => {
    // The services over a unit of work whose every commit fails, on the same database.
    const { db, log } = wms.app;
    const work = new UnitOfWork(failingCommits(db), new EventLog(db), (err) => {
      throw err;
    });
    work.bus.onAny((event) => events.push(event));
    const common = createCommonServices(db, work);
    const transportOrders = createTransportOrderService({ work, store: createTransportOrderStore(db), common });
    const routing = createRoutingService({ work, store: createRoutingStore(db), common, orders: transportOrders });
    const failing = createOsipHandler({ adapter: createAdapter({ work, common, transportOrders, routing, log }), log });
    try {
      const mark = events.length;
      const results = failing.handleBatch!([req('B-6', s.INFEED), upd('B-5', s.C1)], REASONS);
      expect(results.map((r) => r.outcome)).toEqual(['internal', 'internal']);
      expect(resOf(results[0]!)).toMatchObject({ errorCode: '00000099', targetLocation: undefined });
      expect(errOf(results[1]!)).toBe('00000099');
      expect([await unitAt('B-6'), await unitAt('B-5')]).toEqual([s.OTHER, s.INFEED]);
      expect(events.length).toBe(mark);
      expect(wms.logs().some((line) => line.includes('committing a batch of telegrams failed'))).toBe(true);
    } finally {
      failing.close();
    }
  });
});

/**
 * The database as the adapter sees it, with every outermost COMMIT failing after the
 * work ran (as a full disk or an I/O error would make it; better-sqlite3 then rolls back
 * and throws). Nested transactions (savepoints) and every other call are the real ones.
 */
function failingCommits(db: Db): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction') {
        return (fn: (...args: unknown[]) => unknown) =>
          (...args: unknown[]) => {
            if (target.inTransaction) return target.transaction(fn)(...args);
            return target.transaction((...inner: unknown[]) => {
              fn(...inner);
              throw new Error('disk I/O error (at COMMIT, simulated)');
            })(...args);
          };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
