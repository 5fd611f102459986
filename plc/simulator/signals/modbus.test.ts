import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, tempDir, type TestAppliance } from '../../../test/support/appliance.ts';
import { site, unitWithOrder, until, type Site } from '../../../test/support/warehouse.ts';
import { PtyPair } from '../../../test/support/plc.ts';
import { freePort } from './server.ts';
import { simulateChild, simulateInProcess, type SimulatorRun } from '../../../test/support/signal-simulator.ts';

// Signal mode over Modbus against the real appliance: the simulator serves a conveyor as
// a Modbus TCP slave (and an RTU slave on a socat pty pair), the appliance is started with
// the plc.signals entry the simulator printed, and what the simulator's commands did is
// checked over REST: a routing decision written back at the scanner, an error word as the
// location's plcState, a lock bit as its lock, a group's availability.

const AREA = 'SMB';
const at = (n: number) => `${AREA}/000${n}/0000/0000/0000`;
/** INFEED, C1 (PLC code 17), C2, STOCK: the test site's route. */
const LOCATIONS = `${at(1)},${at(2)}=17,${at(3)},${at(4)}`;

describe('signal mode, Modbus TCP: serve, then run-tu on the same port', () => {
  let sim: SimulatorRun;
  let wms: TestAppliance;
  let s: Site;
  let port: number;
  let entry: any;
  const location = async (c: string) => (await wms.get(`/v1/locations/${s.pKey[c]}`)).body;
  const channel = async () => (await wms.get('/v1/plc-channels/SIM01')).body;

  beforeAll(async () => {
    port = await freePort('127.0.0.1');
    sim = simulateInProcess(['--protocol', 'modbus-tcp', '--listen', `127.0.0.1:${port}`, '--locations', LOCATIONS, '--groups', AREA, 'serve']);
    entry = await sim.entry();
    wms = await startTestAppliance({ plc: { signals: [entry] } });
    s = await site(wms, AREA);
    const c1 = await location(s.C1);
    expect((await wms.put('/v1/locations', { ...c1, plcCode: '17' })).status).toBe(200);
    await until(async () => (await channel()).state === 'ONLINE', 'the channel is ONLINE');
  }, 60_000);

  afterAll(async () => {
    await sim?.stop();
    await wms?.close();
  });

  it("prints the entry of its conveyor: every location's points, the group, the heartbeat; the appliance takes it as it is", async () => {
    expect(entry).toMatchObject({ name: 'SIM01', protocol: 'modbus-tcp', host: '127.0.0.1', port, unitId: 1 });
    expect(entry.points).toHaveLength(4 * 4 + 2);
    expect(entry.points[3]).toEqual({ kind: 'arrival', location: at(1), barcode: 'hr:1000*10', trigger: 'coil:0', target: 'hr:1010*16', done: 'coil:1' });
    expect(entry.points.at(-1)).toEqual({ kind: 'heartbeat', address: 'hr:0', plcLife: 'ir:0' });
    const c = await channel();
    expect(c).toMatchObject({ kind: 'signals', protocol: 'modbus-tcp', state: 'ONLINE' });
    expect(c.points).toHaveLength(entry.points.length);
    await sim.line(/^the appliance is online: heartbeat \d+ at hr:0$/);
  });

  it("error sets the location's plcState, lock locks it, group takes the group's availability", async () => {
    sim.send(`error ${at(2)} 12`);
    await until(async () => (await location(s.C1)).plcState === 12, 'plcState 12');
    expect(sim.lines).toContain(`>> hr:101 = 12   (plcState at ${at(2)})`);
    sim.send('lock 17 in on');
    await until(async () => (await location(s.C1)).incomingActive === false, 'C1 locked for units coming in');
    sim.send(`lock ${at(2)} out on`);
    await until(async () => (await location(s.C1)).outgoingActive === false, 'C1 locked for units going out');
    sim.send('lock 17 in off');
    sim.send('lock 17 out off');
    sim.send(`error ${at(2)} 0`);
    await until(async () => {
      const c1 = await location(s.C1);
      return c1.incomingActive === true && c1.outgoingActive === true && c1.plcState === 0;
    }, 'C1 open and without error');
    const group = async () => (await wms.get(`/v1/location-groups?name=${AREA}`)).body;
    sim.send(`group ${AREA} in off`);
    await until(async () => (await group()).groupStateIn === 'NOT_AVAILABLE', 'the group not available in');
    expect((await group()).groupStateOut).toBe('AVAILABLE');
    sim.send(`group ${AREA} on`);
    await until(async () => (await group()).groupStateIn === 'AVAILABLE', 'the group available again');
  });

  it("arrive runs the handshake: the appliance writes the next hop's PLC code and done, then clears done", async () => {
    await unitWithOrder(wms, 'SMB-1', s.INFEED, s.STOCK);
    const from = sim.lines.length;
    sim.send(`arrive SMB-1 ${at(1)}`);
    const result = await sim.line(/^TU SMB-1 at /, 20_000, from);
    expect(result).toMatch(new RegExp(`^TU SMB-1 at ${at(1)} → ${at(2)} \\(target "17", done after [\\d.]+ ms\\)$`));
    const printed = sim.lines.slice(from);
    expect(printed).toEqual(
      expect.arrayContaining([
        `>> hr:1000*10 = "SMB-1"   (barcode at ${at(1)})`,
        `>> coil:0 = 1   (trigger at ${at(1)})`,
        `<< hr:1010*16 = "17"   (target at ${at(1)})`,
        `<< coil:1 = 1   (done at ${at(1)})`,
        `>> coil:0 = 0   (trigger at ${at(1)})`,
        `<< coil:1 = 0   (done at ${at(1)})`,
      ]),
    );
    // The appliance's side of it: the scan in the signal log, with the unit and the decision.
    const log = (await wms.get('/v1/plc-channels/SIM01/telegrams?type=SIG_&barcode=SMB-1')).body;
    expect(log.map((e: { direction: string; fields: { value: unknown }; outcome: string }) => `${e.direction} ${String(e.fields.value)} ${e.outcome}`)).toEqual(
      ['in SMB-1 ok', 'out 17 written'],
    );
    // An unknown barcode is no routing decision: the fallback (no target).
    sim.send(`arrive NOSUCHUNIT ${at(1)}`);
    expect(await sim.line(/^TU NOSUCHUNIT at /)).toMatch(new RegExp(`^TU NOSUCHUNIT at ${at(1)} → no target \\(done after`));
  });

  it('serve ends at quit (exit 0); run-tu on the same port prints the same entry and takes a unit to its target', async () => {
    expect(await sim.stop()).toBe(0);
    await unitWithOrder(wms, 'SMB-2', s.INFEED, s.STOCK);
    const run = simulateChild([
      '--protocol',
      'modbus-tcp',
      '--listen',
      `127.0.0.1:${port}`,
      '--locations',
      LOCATIONS,
      '--groups',
      AREA,
      'run-tu',
      'SMB-2',
      at(1),
    ]);
    try {
      expect(await run.entry()).toEqual(entry);
      expect(await run.exit).toBe(0);
    } finally {
      await run.stop();
    }
    expect(run.lines).toEqual(expect.arrayContaining([`TU SMB-2 visited ${at(1)} → ${at(2)} → ${at(3)} → ${at(4)}; done`]));
    expect(run.lines.filter((l) => l.startsWith('TU SMB-2 at '))).toHaveLength(4);
    expect(run.stderr()).toBe('');
    expect((await wms.get('/v1/transport-units?bk=SMB-2')).body.actualLocation).toBe(at(4));
  }, 60_000);
});

describe('signal mode, Modbus RTU on a serial line (socat pty pair)', () => {
  const RTU = 'SMR';
  const rtuAt = (n: number) => `${RTU}/000${n}/0000/0000/0000`;
  let ttys: PtyPair;
  let wms: TestAppliance | undefined;
  let dataDir: string;

  beforeAll(async () => {
    ttys = await PtyPair.open();
    // The site and the unit first, by an appliance without the channel: the unit is
    // there before the first handshake, whenever the channel comes up.
    dataDir = tempDir();
    const setup = await startTestAppliance({}, dataDir);
    const rtuSite = await site(setup, RTU);
    await unitWithOrder(setup, 'SMR-1', rtuSite.INFEED, rtuSite.STOCK);
    await setup.app.close();
  }, 30_000);

  afterAll(async () => {
    await wms?.close();
    await ttys?.close();
  });

  it('run-tu waits for the appliance, which is started with the printed entry, and takes the unit through', async () => {
    const run = simulateInProcess([
      '--protocol',
      'modbus-rtu',
      '--serial',
      ttys.plc,
      '--appliance-device',
      ttys.host,
      '--baud',
      '38400',
      '--unit',
      '3',
      '--locations',
      [1, 2, 3, 4].map(rtuAt).join(','),
      'run-tu',
      'SMR-1',
      rtuAt(1),
    ]);
    const entry = await run.entry();
    expect(entry).toMatchObject({ protocol: 'modbus-rtu', device: ttys.host, baudRate: 38_400, parity: 'even', unitId: 3 });
    await run.line(/^waiting for the appliance/);
    wms = await startTestAppliance({ plc: { signals: [entry] } }, dataDir);
    expect(await run.exit, run.lines.join('\n')).toBe(0);
    // No PLC codes: the appliance writes the next location's coordinate.
    expect(run.lines).toContain(`<< hr:1010*16 = "${rtuAt(2)}"   (target at ${rtuAt(1)})`);
    expect(run.lines).toContain(`TU SMR-1 visited ${[1, 2, 3, 4].map(rtuAt).join(' → ')}; done`);
    expect((await wms.get('/v1/transport-units?bk=SMR-1')).body.actualLocation).toBe(rtuAt(4));
    expect((await wms.get('/v1/plc-channels/SIM01')).body).toMatchObject({ protocol: 'modbus-rtu', endpoint: expect.stringContaining(ttys.host) });
  }, 60_000);
});
