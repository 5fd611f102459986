import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from '../../../test/support/appliance.ts';
import { site, unitWithOrder, until, type Site } from '../../../test/support/warehouse.ts';
import { simulateChild, simulateInProcess, type SimulatorRun } from '../../../test/support/signal-simulator.ts';

// Signal mode over OPC UA against the real appliance: the simulator serves a conveyor as
// an OPC UA server (node-opcua), the appliance is started with the plc.signals entry the
// simulator printed, and what the simulator's commands did is checked over REST; then
// run-tu from the command line (a child process, as `npm run plc:sim` runs it).

const AREA = 'SUA';
const at = (n: number) => `${AREA}/000${n}/0000/0000/0000`;
const LOCATIONS = `${at(1)},${at(2)}=17,${at(3)},${at(4)}`;
/**
 * The servers' temporary certificate folders. The simulators of this file (in this
 * process and its children) get a temporary folder of their own: another process on the
 * box may make or remove such folders in the machine's one at any time.
 */
const ownTmp = mkdtempSync(path.join(tmpdir(), 'wms-sim-opcua-tmp-'));
const machineTmp = process.env.TMPDIR;
const certificateFolders = () => readdirSync(ownTmp).filter((f) => f.startsWith('wms-simulate-opcua-'));

describe('signal mode, OPC UA', () => {
  let sim: SimulatorRun;
  let wms: TestAppliance;
  let s: Site;
  let entry: any;
  const location = async (c: string) => (await wms.get(`/v1/locations/${s.pKey[c]}`)).body;
  const channel = async () => (await wms.get('/v1/plc-channels/UA9')).body;

  beforeAll(async () => {
    process.env.TMPDIR = ownTmp;
    sim = simulateInProcess(['--protocol', 'opcua', '--listen', '127.0.0.1:0', '--name', 'UA9', '--locations', LOCATIONS, '--groups', AREA, 'serve']);
    entry = await sim.entry(30_000);
    wms = await startTestAppliance({ plc: { signals: [entry] } });
    s = await site(wms, AREA);
    const c1 = await location(s.C1);
    expect((await wms.put('/v1/locations', { ...c1, plcCode: '17' })).status).toBe(200);
    await until(async () => (await channel()).state === 'ONLINE', 'the channel is ONLINE', 30_000);
  }, 60_000);

  afterAll(async () => {
    await sim?.stop();
    await wms?.close();
    if (machineTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = machineTmp;
    rmSync(ownTmp, { recursive: true, force: true });
  });

  it('prints the entry of its conveyor with node ids in namespace 1; the appliance watches every node', async () => {
    expect(entry).toMatchObject({ name: 'UA9', protocol: 'opcua', endpoint: expect.stringMatching(/^opc\.tcp:\/\/127\.0\.0\.1:\d+$/), securityMode: 'None' });
    expect(entry.points[3]).toEqual({
      kind: 'arrival',
      location: at(1),
      barcode: 'ns=1;s=L1.Scan.Code',
      trigger: 'ns=1;s=L1.Scan.New',
      target: 'ns=1;s=L1.Scan.Target',
      done: 'ns=1;s=L1.Scan.Ack',
    });
    expect(entry.points.at(-2)).toEqual({ kind: 'groupState', group: AREA, node: 'ns=1;s=G1.Available', type: 'word' });
    const c = await channel();
    expect(c).toMatchObject({ kind: 'signals', protocol: 'opcua', state: 'ONLINE', errors: [] });
    await sim.line(/^OPC UA session of .+ opened$/);
    await sim.line(/^the appliance is online: heartbeat \d+ at ns=1;s=Host\.Life$/);
  });

  it("error sets the location's plcState, lock locks it, group takes the group's availability", async () => {
    sim.send('error 17 33');
    await until(async () => (await location(s.C1)).plcState === 33, 'plcState 33');
    expect(sim.lines).toContain(`>> ns=1;s=L2.Error = 33   (plcState at ${at(2)})`);
    sim.send(`lock ${at(2)} in on`);
    await until(async () => (await location(s.C1)).incomingActive === false, 'C1 locked for units coming in');
    expect(sim.lines).toContain(`>> ns=1;s=L2.LockIn = true   (inboundLock at ${at(2)})`);
    sim.send(`lock ${at(2)} in off`);
    sim.send('error 17 0');
    await until(async () => (await location(s.C1)).incomingActive === true && (await location(s.C1)).plcState === 0, 'C1 open and without error');
    const group = async () => (await wms.get(`/v1/location-groups?name=${AREA}`)).body;
    sim.send(`group ${AREA} out off`);
    await until(async () => (await group()).groupStateOut === 'NOT_AVAILABLE', 'the group not available out');
    sim.send(`group ${AREA} out on`);
    await until(async () => (await group()).groupStateOut === 'AVAILABLE', 'the group available again');
  });

  it("arrive runs the handshake: the appliance writes the next hop's PLC code and done, then clears done", async () => {
    await unitWithOrder(wms, 'SUA-1', s.INFEED, s.STOCK);
    const from = sim.lines.length;
    sim.send(`arrive SUA-1 ${at(1)}`);
    expect(await sim.line(/^TU SUA-1 at /, 20_000, from)).toMatch(new RegExp(`^TU SUA-1 at ${at(1)} → ${at(2)} \\(target "17", done after [\\d.]+ ms\\)$`));
    expect(sim.lines.slice(from)).toEqual(
      expect.arrayContaining([
        `>> ns=1;s=L1.Scan.Code = "SUA-1"   (barcode at ${at(1)})`,
        `>> ns=1;s=L1.Scan.New = true   (trigger at ${at(1)})`,
        `<< ns=1;s=L1.Scan.Target = "17"   (target at ${at(1)})`,
        `<< ns=1;s=L1.Scan.Ack = true   (done at ${at(1)})`,
        `<< ns=1;s=L1.Scan.Ack = false   (done at ${at(1)})`,
      ]),
    );
  });

  it('run-tu from the command line: the same entry on the same port, the unit taken to its target (exit 0)', async () => {
    expect(await sim.stop()).toBe(0);
    await unitWithOrder(wms, 'SUA-2', s.INFEED, s.STOCK);
    const port = new URL(entry.endpoint.replace('opc.tcp', 'http')).port;
    const run = simulateChild([
      '--protocol',
      'opcua',
      '--listen',
      `127.0.0.1:${port}`,
      '--name',
      'UA9',
      '--locations',
      LOCATIONS,
      '--groups',
      AREA,
      'run-tu',
      'SUA-2',
      at(1),
    ]);
    try {
      expect(await run.entry(30_000)).toEqual(entry);
      expect(await run.exit, `${run.lines.join('\n')}\n${run.stderr()}`).toBe(0);
    } finally {
      await run.stop();
    }
    expect(run.lines).toContain(`TU SUA-2 visited ${at(1)} → ${at(2)} → ${at(3)} → ${at(4)}; done`);
    expect((await wms.get('/v1/transport-units?bk=SUA-2')).body.actualLocation).toBe(at(4));
    // Both servers have removed their certificates: the simulator leaves nothing behind.
    expect(certificateFolders()).toEqual([]);
  }, 90_000);
});
