import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { freePort, memory, putText, serialSlave, tcpSlave, type Slave } from './support/modbus-slave.ts';
import { site, unitWithOrder, until, type Site } from './support/warehouse.ts';

// A conveyor PLC read and written as Modbus TCP signals (docs/plc.md, "Signal channels"):
// modbus-serial's own TCP server in this process is the PLC; the appliance polls it, and
// what its registers and coils did to the warehouse is checked over REST.

const AREA = 'MBT';
const m = memory();
let wms: TestAppliance;
let slave: Slave;
let port: number;
let s: Site;

const enc = encodeURIComponent;
const channel = async () => (await wms.get('/v1/plc-channels/MB1')).body;
const location = async (coordinate: string) => (await wms.get(`/v1/locations/${s.pKey[coordinate]}`)).body;
/** The master's writes but the heartbeat's. */
const handshakeWrites = () => m.writes.filter((w) => !w.startsWith('hr:200='));
const pointValue = async (id: string) => (await channel()).points.find((p: { id: string }) => p.id === id)?.value;

beforeAll(async () => {
  port = await freePort();
  slave = await tcpSlave(m, port);
  const coordinate = (n: number) => `${AREA}/000${n}/0000/0000/0000`;
  wms = await startTestAppliance({
    plc: {
      signals: [
        {
          name: 'MB1', protocol: 'modbus-tcp', host: '127.0.0.1', port, unitId: 1, pollMs: 20, timeoutMs: 500,
          points: [
            { kind: 'plcState', location: coordinate(2), address: 'hr:100' },
            { kind: 'inboundLock', location: coordinate(2), address: 'coil:7' },
            { kind: 'arrival', location: coordinate(1), barcode: 'hr:20*10', trigger: 'coil:0', target: 'hr:40', done: 'coil:1' },
            { kind: 'heartbeat', address: 'hr:200', periodMs: 50 },
            { kind: 'groupState', group: AREA, address: 'hr:101' },
          ],
        },
      ],
    },
  }, undefined);
  s = await site(wms, AREA);
  // The PLC names C1 by its code: that is what it gets as target.
  const c1 = await location(s.C1);
  expect((await wms.put('/v1/locations', { ...c1, plcCode: '17' })).status).toBe(200);
  await until(async () => (await channel()).state === 'ONLINE', 'the channel is ONLINE');
}, 30_000);

afterAll(async () => {
  await wms?.close();
  await slave?.close();
});

describe('a Modbus TCP signal channel', () => {
  it('is listed with the OSIP channels: protocol, state, points with their last values', async () => {
    const list = (await wms.get('/v1/plc-channels')).body;
    const mb1 = list.find((c: { name: string }) => c.name === 'MB1');
    expect(mb1).toMatchObject({ kind: 'signals', protocol: 'modbus-tcp', state: 'ONLINE', endpoint: `127.0.0.1:${port} unit 1`, reconnects: 0 });
    expect(mb1.points.map((p: { id: string; kind: string; address: string }) => `${p.id} ${p.kind} ${p.address}`)).toEqual([
      'p0 plcState hr:100', 'p1 inboundLock coil:7', 'p2 arrival coil:0', 'p3 heartbeat hr:200', 'p4 groupState hr:101',
    ]);
    expect(mb1.points[0]).toMatchObject({ value: 0, errors: 0 });
    expect(mb1.links[0].href).toMatch(/\/v1\/plc-channels\/MB1$/);
  });

  it('a changed plcState register sets the location\'s plcState (as the channel\'s PLC) and raises the alarm; a repeated value does nothing', async () => {
    m.holding.set(100, 12);
    await until(async () => (await location(s.C1)).plcState === 12, 'plcState 12');
    const history = async () =>
      (await wms.get(`/v1/events/history?types=location.stateChanged&subjectKind=location&subject=${enc(s.C1)}`)).body as { actor: unknown; data: Record<string, unknown> }[];
    const events = await history();
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events.at(-1)!.actor)).toContain('MB1');
    const alarms = (await wms.get('/v1/alarms')).body as { kind: string; source: { key: string } }[];
    expect(alarms.some((a) => a.kind === 'location.plcState')).toBe(true);
    // Polled again and again at 12: no further event.
    const before = (await channel()).counters.repeats;
    await until(async () => (await channel()).counters.repeats > before + 10, 'ten more polls');
    expect((await history()).length).toBe(events.length);
    m.holding.set(100, 0);
    await until(async () => (await location(s.C1)).plcState === 0, 'plcState 0');
  });

  it('a lock coil locks the location for units coming in, and the routing decision avoids it', async () => {
    await unitWithOrder(wms, 'MBT-LOCK', s.INFEED, s.STOCK);
    const decide = async () => (await wms.get(`/v1/api/routes/decision?location=${enc(s.INFEED)}&barcode=MBT-LOCK`)).body;
    expect(await decide()).toMatchObject({ result: expect.any(String), nextLocation: s.C1 });
    m.coils.set(7, true);
    await until(async () => (await location(s.C1)).incomingActive === false, 'C1 locked for units coming in');
    const locked = await decide();
    expect(locked.nextLocation).toBeUndefined();
    expect(locked.lock).toBe('NEXT_LOCKED');
    m.coils.set(7, false);
    await until(async () => (await location(s.C1)).incomingActive === true, 'C1 open again');
    expect((await decide()).nextLocation).toBe(s.C1);
  });

  it('a group state word sets the group\'s availability in (bit 0) and out (bit 1)', async () => {
    const group = async () => (await wms.get(`/v1/location-groups?name=${AREA}`)).body;
    m.holding.set(101, 2);
    await until(async () => (await group()).groupStateIn === 'NOT_AVAILABLE', 'group not available in');
    expect((await group()).groupStateOut).toBe('AVAILABLE');
    m.holding.set(101, 3);
    await until(async () => (await group()).groupStateIn === 'AVAILABLE', 'group available again');
  });

  it('the arrival handshake: trigger rises → barcode read → the next hop\'s PLC code in target → done; trigger falls → done cleared', async () => {
    const order = await unitWithOrder(wms, 'MBT-4711', s.INFEED, s.STOCK);
    putText(m, 20, 10, 'MBT-4711');
    m.writes.length = 0;
    m.coils.set(0, true);
    await until(() => m.coils.get(1) === true, 'done set');
    expect(handshakeWrites()).toEqual(['hr:40=17', 'coil:1=true']);
    expect(m.holding.get(40)).toBe(17);
    m.coils.set(0, false);
    await until(() => m.coils.get(1) === false, 'done cleared');
    // The signal log: the barcode read (with the unit, location and order) and the writes.
    const log = (await wms.get('/v1/plc-channels/MB1/telegrams?type=SIG_&barcode=MBT-4711')).body;
    expect(log.map((e: { direction: string; fields: { point: string; value: unknown }; outcome: string }) => `${e.direction} ${e.fields.point} ${String(e.fields.value)} ${e.outcome}`)).toEqual([
      'in p2.barcode MBT-4711 ok', 'out p2.target 17 written',
    ]);
    expect(log[0]).toMatchObject({ type: 'SIG_', location: s.INFEED, order, channel: 'MB1', fields: { address: 'hr:20*10' } });
    expect(log[1].latencyMs).toEqual(expect.any(Number));
    // And in the unit's trace, beside its events.
    const trace = (await wms.get('/v1/transport-units/MBT-4711/history')).body as { source: string; type: string }[];
    expect(trace.some((e) => e.source === 'telegram' && e.type === 'SIG_')).toBe(true);
  });

  it('a no-read writes the fallback (0) and still sets done', async () => {
    putText(m, 20, 10, '');
    m.writes.length = 0;
    m.coils.set(0, true);
    await until(() => m.coils.get(1) === true, 'done set');
    expect(handshakeWrites()).toEqual(['hr:40=0', 'coil:1=true']);
    m.coils.set(0, false);
    await until(() => m.coils.get(1) === false, 'done cleared');
    expect((await channel()).counters.outcomes['no-read']).toBe(1);
  });

  it('is counted in /metrics: its state, the changes acted on, the handshakes and the writes', async () => {
    const reply = await wms.get('/metrics');
    expect(reply.status).toBe(200);
    const sample = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(reply.text)?.[1]);
    expect(sample('wms_plc_signal_channel_state{channel="MB1",state="ONLINE"}')).toBe(1);
    expect(sample('wms_plc_signal_channel_state{channel="MB1",state="OFFLINE"}')).toBe(0);
    // The handshakes and changes of the tests before this one.
    expect(sample('wms_plc_signal_changes_total{channel="MB1"}')).toBeGreaterThan(0);
    expect(sample('wms_plc_signal_arrivals_total{channel="MB1"}')).toBe((await channel()).counters.arrivals);
    expect(sample('wms_plc_signal_writes_total{channel="MB1"}')).toBeGreaterThan(0);
  });

  it('writes an incrementing heartbeat counter', async () => {
    const first = m.holding.get(200) ?? 0;
    await until(() => (m.holding.get(200) ?? 0) > first + 2, 'the heartbeat counter goes up');
    expect((await channel()).counters.heartbeats).toBeGreaterThan(2);
  });

  it('a server restart: the channel goes OFFLINE, reconnects by itself and acts on changes again', async () => {
    await slave.close();
    await until(async () => (await channel()).state !== 'ONLINE', 'the channel notices');
    m.holding.set(100, 33);
    slave = await tcpSlave(m, port);
    await until(async () => (await channel()).state === 'ONLINE', 'ONLINE again', 20_000);
    await until(async () => (await location(s.C1)).plcState === 33, 'plcState 33 after the reconnect');
    const c = await channel();
    expect(c.reconnects).toBeGreaterThan(0);
    expect(c.counters.stateChanges.OFFLINE).toBeGreaterThan(0);
    const states = (await wms.get('/v1/events/history?types=plcChannel.stateChanged&subjectKind=plcChannel&subject=MB1')).body as { data: { state: string } }[];
    expect(states.map((e) => e.data.state)).toEqual(expect.arrayContaining(['ONLINE', 'OFFLINE']));
    expect(await pointValue('p0')).toBe(33);
  }, 30_000);
});

// ---- Modbus RTU over a serial line: a socat pseudo-terminal pair, modbus-serial's serial server on the far end ----

describe('a Modbus RTU signal channel over a serial line (socat pty pair)', () => {
  const rtu = memory();
  let socat: ChildProcess | undefined;
  let dir: string;
  let serial: Slave;
  let box: TestAppliance;
  const RTU_AREA = 'MBR';
  const at = (n: number) => `${RTU_AREA}/000${n}/0000/0000/0000`;
  let rtuSite: Site;
  const rtuChannel = async () => (await box.get('/v1/plc-channels/MB2')).body;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'wms-modbus-pty-'));
    const host = path.join(dir, 'ttyHOST');
    const plc = path.join(dir, 'ttyPLC');
    socat = spawn('socat', [`pty,raw,echo=0,link=${host}`, `pty,raw,echo=0,link=${plc}`], { stdio: 'ignore' });
    await until(() => existsSync(host) && existsSync(plc), 'socat made the pty pair');
    serial = await serialSlave(rtu, plc, 38_400, 2);
    box = await startTestAppliance({
      plc: {
        signals: [{
          name: 'MB2', protocol: 'modbus-rtu', device: host, baudRate: 38_400, unitId: 2, pollMs: 30, timeoutMs: 500,
          points: [
            { kind: 'outboundLock', location: at(2), address: 'hr:10.3' },
            { kind: 'plcState', location: at(2), address: 'ir:5', words: 2 },
          ],
        }],
      },
    });
    rtuSite = await site(box, RTU_AREA);
    await until(async () => (await rtuChannel()).state === 'ONLINE', 'the RTU channel is ONLINE');
  }, 30_000);

  afterAll(async () => {
    await box?.close();
    await serial?.close();
    if (socat && socat.exitCode === null) {
      const exited = new Promise((r) => socat!.once('exit', r));
      socat.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('a bit of a holding register locks the location for units going out; a 32-bit input register sets its plcState', async () => {
    const loc = async () => (await box.get(`/v1/locations/${rtuSite.pKey[at(2)]}`)).body;
    rtu.holding.set(10, 0b1000);
    await until(async () => (await loc()).outgoingActive === false, 'locked for units going out');
    rtu.inputRegisters.set(5, 0);
    rtu.inputRegisters.set(6, 42);
    await until(async () => (await loc()).plcState === 42, 'plcState 42 from the double word');
    rtu.holding.set(10, 0b0001);
    await until(async () => (await loc()).outgoingActive === true, 'open again');
    const c = await rtuChannel();
    expect(c).toMatchObject({ protocol: 'modbus-rtu', state: 'ONLINE' });
    expect(c.driver.reads).toBeGreaterThan(0);
  });
});
