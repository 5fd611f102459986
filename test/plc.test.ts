import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conveyor, PlcSimulator, type ResTelegram } from '../plc/simulator/index.ts';
import { PtyPair } from './support/plc.ts';
import { ofType, startTestAppliance, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { site as siteOver, unitWithOrder as unitWithOrderOver, until } from './support/warehouse.ts';
import { recordEvents } from './support/expect.ts';

// The appliance and a simulated conveyor PLC end to end (docs/plc.md ("The simulator"), scenarios 1–4
// and 6): the simulator (its own encoder and framing) talks to the appliance's PLC
// channels over TCP and over a serial line (a socat pseudo-terminal pair), and what the
// telegrams did is checked over REST. The adapter's rules in detail: plc/adapter.test.ts.

let wms: TestAppliance;
/** A socat pty pair: the appliance opens `host`, the simulator `plc`. */
let ttys: PtyPair;
const events: RecordedEvent[] = [];

beforeAll(async () => {
  ttys = await PtyPair.open();
  wms = await startTestAppliance({
    plc: {
      channels: [
        { name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0, resReasonCodes: true },
        { name: 'CNV02', transport: 'serial', device: ttys.host, resReasonCodes: true },
      ],
    },
  });
  recordEvents(wms, events);
});

afterAll(async () => {
  await wms?.close();
  await ttys?.close();
});

// ---- the warehouse over HTTP ---------------------------------------------------------------

const enc = encodeURIComponent;
/** A barcode as the simulator writes and reads it: 20 characters, zero-padded. */
const wireBarcode = (barcode: string) => barcode.padStart(20, '0');
const site = (area: string) => siteOver(wms, area);
const unitWithOrder = (barcode: string, at: string, target: string) => unitWithOrderOver(wms, barcode, at, target);

const unitOf = async (barcode: string) => (await wms.get(`/v1/transport-units?bk=${enc(barcode)}`)).body;
const location = async (pKey: string) => (await wms.get(`/v1/locations/${pKey}`)).body;
const groupStates = async (...names: string[]) =>
  Promise.all(
    names.map(async (name) => {
      const g = (await wms.get(`/v1/location-groups?name=${enc(name)}`)).body;
      return `${g.groupStateIn}/${g.groupStateOut}`;
    }),
  );
const movesOf = (barcode: string) =>
  ofType(events, 'transportUnit.moved')
    .filter((e) => e.data.barcode === barcode)
    .map((e) => [e.data.from, e.data.to]);

// ---- the scenarios, over each transport --------------------------------------------------------

const TRANSPORTS = [
  {
    name: 'TCP',
    channel: 'CNV01',
    prefix: 'T',
    simulator: () =>
      new PlcSimulator({
        transport: { kind: 'tcp-client', host: '127.0.0.1', port: wms.app.module('plc').channel('CNV01').address()!.port },
        name: 'CNV01',
        requestTimeoutMs: 10_000,
        conveyor: new Conveyor([], { defaultMs: 5 }),
      }),
  },
  {
    name: 'a serial line (socat pty pair)',
    channel: 'CNV02',
    prefix: 'S',
    simulator: () =>
      new PlcSimulator({
        transport: { kind: 'serial', path: ttys.plc, baudRate: 38_400 },
        name: 'CNV02',
        requestTimeoutMs: 10_000,
        conveyor: new Conveyor([], { defaultMs: 5 }),
      }),
  },
];

describe.each(TRANSPORTS)('a conveyor PLC over $name', ({ channel, prefix, simulator }) => {
  let sim: PlcSimulator;

  beforeAll(async () => {
    sim = simulator();
    await sim.connect({ timeoutMs: 10_000 });
    expect(sim.link?.description).toMatch(prefix === 'S' ? /^serial / : /127\.0\.0\.1/);
  });
  afterAll(() => sim?.close());

  it("1: SYNQ → SYNC with sender and receiver turned around, the sequence number + 1 and the host's time", async () => {
    const { sent, reply } = await sim.synqExchange({ timeoutMs: 10_000 });
    expect(reply).toMatchObject({ type: 'SYNC', sender: 'MFC__', receiver: channel, seq: sent.seq! + 1 });
    const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(reply.time)!;
    expect(m).not.toBeNull();
    const hostTime = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    expect(Math.abs(hostTime - Date.now())).toBeLessThan(10 * 60_000);
  });

  it('2: a unit walks a three-hop route; REST follows each hop; the order FINISHES and the last RES_ has no target', async () => {
    const s = await site(`${prefix}WLK`);
    const barcode = `${prefix}-WALK`;
    const pKey = await unitWithOrder(barcode, s.INFEED, s.STOCK);

    const trace = await sim.runTu(barcode, s.INFEED, { maxSteps: 10, timeoutMs: 10_000 });
    expect(trace.end).toBe('no-target');
    expect(trace.visited).toEqual([s.INFEED, s.C1, s.C2, s.STOCK]);
    expect(trace.steps.map((step) => step.target)).toEqual([s.C1, s.C2, s.STOCK, null]);
    for (const step of trace.steps) expect(step.res).toMatchObject({ barcode: wireBarcode(barcode), actualLocation: step.at, errorCode: '00000000' });

    expect(movesOf(barcode)).toEqual([
      [s.INFEED, s.C1],
      [s.C1, s.C2],
      [s.C2, s.STOCK],
    ]);
    expect((await unitOf(barcode)).actualLocation).toBe(s.STOCK);
    const order = (await wms.get(`/v1/transport-orders/${pKey}`)).body;
    expect(order.state).toBe('FINISHED');
    expect(typeof order.endDate).toBe('string');
  });

  it('3: LOCU 0012***1 → plcState 12 and incomingActive false over REST; a unit routed through it is held (00000003)', async () => {
    const s = await site(`${prefix}LCK`);
    const barcode = `${prefix}-LOCK`;
    await unitWithOrder(barcode, s.INFEED, s.STOCK);

    await sim.report(s.C1, '0012***1');
    await until(async () => (await location(s.pKey[s.C1]!)).plcState === 12, 'plcState is 12');
    expect(await location(s.pKey[s.C1]!)).toMatchObject({ plcState: 12, incomingActive: false, outgoingActive: true });
    expect(await groupStates(`${prefix}LCK`)).toEqual(['AVAILABLE/AVAILABLE']);

    const res: ResTelegram = await sim.request({ barcode, actualLocation: s.INFEED }, { timeoutMs: 10_000 });
    expect(res).toMatchObject({ targetLocation: null, errorCode: '00000003', barcode: wireBarcode(barcode), actualLocation: s.INFEED });
    expect((await unitOf(barcode)).actualLocation).toBe(s.INFEED);

    // Released, the unit goes on.
    await sim.report(s.C1, '*******0');
    await until(async () => (await location(s.pKey[s.C1]!)).incomingActive === true, 'incomingActive is true again');
    expect(await sim.request({ barcode, actualLocation: s.INFEED }, { timeoutMs: 10_000 })).toMatchObject({ targetLocation: s.C1, errorCode: '00000000' });
  });

  it('4: SYSU locks a group and its child groups; ERR_ releases a child and is recorded as an error event', async () => {
    const [parent, child, grandchild] = [`${prefix}GRP`, `${prefix}GRP-C`, `${prefix}GRP-G`];
    for (const [name, parentName] of [
      [parent, 'WAREHOUSE'],
      [child, parent],
      [grandchild, child],
    ]) {
      expect((await wms.post('/v1/location-groups', { name, parentName })).status).toBe(201);
    }
    await sim.groupState(parent, '******11');
    await until(async () => (await groupStates(grandchild))[0] === 'NOT_AVAILABLE/NOT_AVAILABLE', 'the grandchild group is locked');
    expect(await groupStates(parent, child, grandchild)).toEqual(['NOT_AVAILABLE/NOT_AVAILABLE', 'NOT_AVAILABLE/NOT_AVAILABLE', 'NOT_AVAILABLE/NOT_AVAILABLE']);

    await sim.error(child, '00000000');
    await until(async () => (await groupStates(grandchild))[0] === 'AVAILABLE/AVAILABLE', 'the grandchild group is released');
    expect(await groupStates(parent, child, grandchild)).toEqual(['NOT_AVAILABLE/NOT_AVAILABLE', 'AVAILABLE/AVAILABLE', 'AVAILABLE/AVAILABLE']);
    expect(events.filter((e) => e.type === 'plc.groupError' && e.data.name === child).map((e) => e.data)).toEqual([
      expect.objectContaining({ code: '00000000', channel }),
    ]);
  });

  it('6: a duplicate REQ_ is answered with the identical bytes and the unit is moved once', async () => {
    const s = await site(`${prefix}DUP`);
    const barcode = `${prefix}-DUP`;
    await unitWithOrder(barcode, s.INFEED, s.STOCK);
    const olBefore = (await unitOf(barcode)).ol;
    const duplicatesBefore = wms.app.module('plc').channel(channel).snapshot().counters.duplicates;

    const mark = sim.mark();
    const first = await sim.request({ barcode, actualLocation: s.C1 }, { timeoutMs: 10_000 });
    expect(first).toMatchObject({ targetLocation: s.C2, errorCode: '00000000' });
    await sim.resendLast();
    await sim.expect('RES_', (t) => t.barcode === wireBarcode(barcode), 10_000, { since: sim.mark() });
    const answers = sim.received.filter((r) => r.index >= mark && r.telegram?.type === 'RES_').map((r) => r.text);
    expect(answers).toHaveLength(2);
    expect(answers[1]).toBe(answers[0]);
    expect(wms.app.module('plc').channel(channel).snapshot().counters.duplicates).toBe(duplicatesBefore + 1);

    expect(movesOf(barcode)).toEqual([[s.INFEED, s.C1]]);
    const unit = await unitOf(barcode);
    expect(unit.actualLocation).toBe(s.C1);
    expect(unit.ol).toBe(olBefore + 1);
  });

  it('docs/plc.md: a new order for a unit at a location this PLC reported is sent to it as an unsolicited RES_', async () => {
    const s = await site(`${prefix}UNS`);
    const barcode = `${prefix}-UNSO`;
    const unit = await wms.post('/v1/transport-units', { barcode, actualLocation: s.INFEED, transportUnitType: 'EURO' });
    expect(unit.status, unit.text).toBe(201);
    // The PLC reports the unit where it stands: from now on this channel owns the location.
    await sim.update(barcode, s.INFEED);
    await until(() => wms.app.module('plc').ownerOf(s.INFEED, []) === channel, 'the channel owns the location');

    const mark = sim.mark();
    expect((await wms.post('/v1/transport-orders', { barcode, targetLocation: s.STOCK })).status).toBe(201);
    const res = await sim.expect('RES_', (t) => t.barcode === wireBarcode(barcode), 10_000, { since: mark });
    expect(res).toMatchObject({ sender: 'MFC__', receiver: channel, actualLocation: s.INFEED, targetLocation: s.C1, errorCode: '00000000' });
  });
});
