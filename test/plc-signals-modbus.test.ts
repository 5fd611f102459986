import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { failUpdatesOf } from './support/faults.ts';
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
  // The conveyor's group is available in and out (bit 0, bit 1): the group gets that when it is created.
  m.holding.set(101, 3);
  slave = await tcpSlave(m, port);
  const coordinate = (n: number) => `${AREA}/000${n}/0000/0000/0000`;
  wms = await startTestAppliance(
    {
      plc: {
        signals: [
          {
            name: 'MB1',
            protocol: 'modbus-tcp',
            host: '127.0.0.1',
            port,
            unitId: 1,
            pollMs: 20,
            timeoutMs: 500,
            points: [
              { kind: 'plcState', location: coordinate(2), address: 'hr:100' },
              { kind: 'inboundLock', location: coordinate(2), address: 'coil:7' },
              { kind: 'arrival', location: coordinate(1), barcode: 'hr:20*10', trigger: 'coil:0', target: 'hr:40', done: 'coil:1' },
              { kind: 'heartbeat', address: 'hr:200', periodMs: 50 },
              { kind: 'groupState', group: AREA, address: 'hr:101' },
              // A second scanner at the infeed, told the next location's coordinate in 4 characters: only the fallback fits.
              {
                kind: 'arrival',
                location: coordinate(1),
                barcode: 'hr:60*10',
                trigger: 'coil:2',
                target: 'hr:50*2',
                done: 'coil:3',
                targetAs: 'coordinate',
                fallback: 'NO',
              },
            ],
          },
        ],
      },
    },
    undefined,
  );
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
    expect(mb1).toMatchObject({
      kind: 'signals',
      protocol: 'modbus-tcp',
      state: 'ONLINE',
      endpoint: `127.0.0.1:${port} unit 1`,
      reconnects: 0,
      lateAfterMs: 150,
    });
    expect(mb1.points.map((p: { id: string; kind: string; address: string }) => `${p.id} ${p.kind} ${p.address}`)).toEqual([
      'p0 plcState hr:100',
      'p1 inboundLock coil:7',
      'p2 arrival coil:0',
      'p3 heartbeat hr:200',
      'p4 groupState hr:101',
      'p5 arrival coil:2',
    ]);
    expect(mb1.points[0]).toMatchObject({ value: 0, errors: 0 });
    expect(mb1.links[0].href).toMatch(/\/v1\/plc-channels\/MB1$/);
  });

  it("a changed plcState register sets the location's plcState (as the channel's PLC) and raises the alarm; a repeated value does nothing", async () => {
    m.holding.set(100, 12);
    await until(async () => (await location(s.C1)).plcState === 12, 'plcState 12');
    const history = async () =>
      (await wms.get(`/v1/events/history?types=location.stateChanged&subjectKind=location&subject=${enc(s.C1)}`)).body as {
        actor: unknown;
        data: Record<string, unknown>;
      }[];
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

  it("a group state word sets the group's availability in (bit 0) and out (bit 1)", async () => {
    const group = async () => (await wms.get(`/v1/location-groups?name=${AREA}`)).body;
    m.holding.set(101, 2);
    await until(async () => (await group()).groupStateIn === 'NOT_AVAILABLE', 'group not available in');
    expect((await group()).groupStateOut).toBe('AVAILABLE');
    m.holding.set(101, 3);
    await until(async () => (await group()).groupStateIn === 'AVAILABLE', 'group available again');
  });

  it("the arrival handshake: trigger rises → barcode read → the next hop's PLC code in target → done; trigger falls → done cleared", async () => {
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
    expect(
      log.map(
        (e: { direction: string; fields: { point: string; value: unknown }; outcome: string }) =>
          `${e.direction} ${e.fields.point} ${String(e.fields.value)} ${e.outcome}`,
      ),
    ).toEqual(['in p2.barcode MBT-4711 ok', 'out p2.target 17 written']);
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

  it("a next location too long for the target's registers: the fallback is written, then done; counted and logged with the reason", async () => {
    await unitWithOrder(wms, 'MBT-LONG', s.INFEED, s.STOCK);
    putText(m, 60, 10, 'MBT-LONG');
    const before = (await channel()).counters;
    m.writes.length = 0;
    m.coils.set(2, true);
    await until(() => m.coils.get(3) === true, 'done set');
    // 'NO' in the high and low byte of hr:50, hr:51 empty.
    expect(handshakeWrites()).toEqual(['hr:50=20047', 'hr:51=0', 'coil:3=true']);
    m.coils.set(2, false);
    await until(() => m.coils.get(3) === false, 'done cleared');
    const after = await channel();
    expect(after.counters.targetFallbacks - before.targetFallbacks).toBe(1);
    expect(after.counters.outcomes.ok - before.outcomes.ok).toBe(1);
    // Among the point's errors (its last error may be a poll's since, on a busy box).
    expect(after.errors).toContainEqual(
      expect.objectContaining({ point: 'p5', message: expect.stringMatching(/text of 23 characters does not fit 2 registers/) }),
    );
    const warned = wms
      .logs()
      .map((line) => JSON.parse(line))
      .filter((l) => l.msg?.includes('target cannot be written'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({
      level: 'warn',
      channel: 'MB1',
      point: 'p5',
      address: 'hr:50*2',
      next: s.C1,
      target: s.C1,
      fallback: 'NO',
      barcode: 'MBT-LONG',
    });
    expect(warned[0].reason).toMatch(/writing it failed: .*text of 23 characters does not fit 2 registers/);
    // The signal log: the refused write, then the fallback.
    const log = (await wms.get('/v1/plc-channels/MB1/telegrams?type=SIG_&barcode=MBT-LONG')).body;
    expect(
      log.map(
        (e: { direction: string; fields: { point: string; value: unknown }; outcome: string }) =>
          `${e.direction} ${e.fields.point} ${String(e.fields.value)} ${e.outcome}`,
      ),
    ).toEqual(['in p5.barcode MBT-LONG ok', `out p5.target ${s.C1} write-failed`, 'out p5.target NO written']);
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
    expect(sample('wms_plc_signal_target_fallbacks_total{channel="MB1"}')).toBe(1);
  });

  it("writes an incrementing heartbeat counter; wms_plc_signal_writes_total counts its writes with the handshakes' ones", async () => {
    const first = m.holding.get(200) ?? 0;
    await until(() => (m.holding.get(200) ?? 0) > first + 2, 'the heartbeat counter goes up');
    const before = (await channel()).counters;
    expect(before.heartbeats).toBeGreaterThan(2);
    const metric = Number(/^wms_plc_signal_writes_total\{channel="MB1"\} (\S+)$/m.exec((await wms.get('/metrics')).text)?.[1]);
    const after = (await channel()).counters;
    // REST keeps them apart (writes: the handshakes'); the metric is every write the PLC confirmed.
    expect(metric).toBeGreaterThanOrEqual(before.writes + before.heartbeats);
    expect(metric).toBeLessThanOrEqual(after.writes + after.heartbeats);
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

// ---- a poll's changes in one commit; a location created after its word changed ----

describe('a Modbus TCP signal channel: the changes of a poll are committed together; a place created later gets the current value', () => {
  const plc = memory();
  let box: TestAppliance;
  let server: Slave;
  const at = (area: string, n: number) => `${area}/${String(n).padStart(4, '0')}/0000/0000/0000`;
  /** Eight locations, each with its word at hr:300 + i; MBB/0009 (hr:308) is made to fail; MBB/0099 (hr:309) does not exist; hr:310 is out of range. */
  const WORDS = 8;
  const FAILING = at('MBB', 9);
  const LATER = at('MBL', 1);
  const pKeys: Record<string, string> = {};
  const mb3 = async () => (await box.get('/v1/plc-channels/MB3')).body;
  const plcStateOf = async (coordinate: string) => (await box.get(`/v1/locations/${pKeys[coordinate]}`)).body.plcState as number;
  const commits = async () => Number(/^wms_db_commit_duration_seconds_count (\S+)$/m.exec((await box.get('/metrics')).text)?.[1]);
  /** The signal log's entry of a point's change to a value, once the channel has applied it. */
  const applied = async (point: string, value: unknown) =>
    ((await mb3()).recent as { direction: string; point: string; value: unknown; outcome: string }[]).find(
      (e) => e.direction === 'in' && e.point === point && e.value === value,
    );

  beforeAll(async () => {
    const port = await freePort();
    server = await tcpSlave(plc, port);
    const words = Array.from({ length: WORDS }, (_, i) => ({ kind: 'plcState' as const, location: at('MBB', i + 1), address: `hr:${300 + i}` }));
    box = await startTestAppliance({
      plc: {
        signals: [
          {
            name: 'MB3',
            protocol: 'modbus-tcp',
            host: '127.0.0.1',
            port,
            unitId: 1,
            pollMs: 20,
            timeoutMs: 500,
            points: [
              ...words, // p0–p7
              { kind: 'plcState', location: FAILING, address: 'hr:308' }, // p8
              { kind: 'plcState', location: at('MBB', 99), address: 'hr:309' }, // p9
              { kind: 'plcState', location: at('MBB', 1), address: 'hr:310' }, // p10
              { kind: 'plcState', location: LATER, address: 'hr:320' }, // p11
              { kind: 'outboundLock', location: LATER, address: 'coil:20' }, // p12
              { kind: 'groupState', group: 'MBL', address: 'hr:321' }, // p13
            ],
          },
        ],
      },
    });
    expect((await box.post('/v1/location-groups', { name: 'MBB', parentName: 'WAREHOUSE' })).status).toBe(201);
    for (let n = 1; n <= WORDS + 1; n++) {
      const created = await box.post('/v1/locations', { locationId: at('MBB', n), locationGroupName: 'MBB' });
      expect(created.status, created.text).toBe(201);
      pKeys[at('MBB', n)] = created.body.pKey;
    }
    await until(async () => (await mb3()).state === 'ONLINE', 'MB3 is ONLINE');
  }, 30_000);

  afterAll(async () => {
    await box?.close();
    await server?.close();
  });

  it('one poll with eleven changed words: fewer commits than changes; the failing, the unknown and the out-of-range one undo none of the others', async () => {
    // The first values (all 0) are applied, the locations created meanwhile have had theirs.
    await until(async () => (await applied('p9', 0)) !== undefined && (await applied('p10', 0)) !== undefined, 'the first poll applied');
    const before = await mb3();
    const commitsBefore = await commits();
    // A real failure of one change: its UPDATE of the location is refused by the database.
    const repair = failUpdatesOf(box, 'locations', `OLD.location_id = '${FAILING}'`);
    try {
      // Set in one go: the next poll reads them all in one request.
      for (let i = 0; i < WORDS; i++) plc.holding.set(300 + i, 11 + i);
      plc.holding.set(308, 19);
      plc.holding.set(309, 20);
      plc.holding.set(310, 10_000);
      await until(
        async () => (await applied('p8', 19)) !== undefined && (await applied('p9', 20)) !== undefined && (await applied('p10', 10_000)) !== undefined,
        'the poll applied',
      );
      for (let i = 0; i < WORDS; i++) await until(async () => (await applied(`p${i}`, 11 + i)) !== undefined, `p${i} applied`);
    } finally {
      repair();
    }
    const changes = WORDS + 3;
    const commitsAfter = await commits();
    // Applied one by one, each of the eight kept changes would be a commit of its own.
    expect(commitsAfter - commitsBefore).toBeGreaterThan(0);
    expect(commitsAfter - commitsBefore).toBeLessThan(WORDS);

    const after = await mb3();
    expect(after.counters.changes - before.counters.changes).toBe(changes);
    const more = (outcome: string) => (after.counters.outcomes[outcome] ?? 0) - (before.counters.outcomes[outcome] ?? 0);
    expect([more('ok'), more('failed'), more('unknown-location'), more('out-of-range')]).toEqual([WORDS, 1, 1, 1]);
    expect(after.counters.effectErrors - before.counters.effectErrors).toBe(1);
    expect((await applied('p8', 19))!.outcome).toBe('failed');
    // Every other location has its word; the failing one kept what it had.
    for (let i = 0; i < WORDS; i++) expect(await plcStateOf(at('MBB', i + 1))).toBe(11 + i);
    expect(await plcStateOf(FAILING)).toBe(0);
    const history = (await box.get(`/v1/events/history?types=location.stateChanged&subjectKind=location&subject=${encodeURIComponent(FAILING)}`))
      .body as unknown[];
    expect(history).toEqual([]);
  });

  it('a location and a group created after their words changed get the current plcState, lock and availability, with no further change on the PLC', async () => {
    plc.holding.set(320, 7);
    plc.coils.set(20, true);
    plc.holding.set(321, 2); // out available, in not
    await until(async () => (await applied('p11', 7))?.outcome === 'unknown-location', 'plcState 7 found no location');
    await until(async () => (await applied('p12', true))?.outcome === 'unknown-location', 'the lock found no location');
    await until(async () => (await applied('p13', 2))?.outcome === 'unknown-group', 'the group state found no group');
    const writes = plc.writes.length;

    expect((await box.post('/v1/location-groups', { name: 'MBL', parentName: 'WAREHOUSE' })).status).toBe(201);
    const created = await box.post('/v1/locations', { locationId: LATER, locationGroupName: 'MBL' });
    expect(created.status, created.text).toBe(201);
    pKeys[LATER] = created.body.pKey;

    await until(async () => (await plcStateOf(LATER)) === 7, 'the new location has plcState 7');
    await until(async () => (await box.get(`/v1/locations/${pKeys[LATER]}`)).body.outgoingActive === false, 'and is locked for units going out');
    const group = async () => (await box.get('/v1/location-groups?name=MBL')).body;
    await until(async () => (await group()).groupStateIn === 'NOT_AVAILABLE', 'the new group is not available in');
    expect((await group()).groupStateOut).toBe('AVAILABLE');
    // Done as the channel's PLC, said by the point.
    const events = (await box.get(`/v1/events/history?types=location.stateChanged&subjectKind=location&subject=${encodeURIComponent(LATER)}`)).body as {
      actor: unknown;
      reason?: string;
    }[];
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events[0]!.actor)).toContain('MB3');
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(['plcState hr:320=7', 'outboundLock coil:20=true']));
    // Nothing was written to the PLC: the values were those the channel had read.
    expect(plc.writes.slice(writes)).toEqual([]);
    expect((await applied('p11', 7))!.outcome).toBe('unknown-location');
    expect(((await mb3()).recent as { point: string; outcome: string }[]).filter((e) => e.point === 'p11').at(-1)!.outcome).toBe('ok');
  });
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
        signals: [
          {
            name: 'MB2',
            protocol: 'modbus-rtu',
            device: host,
            baudRate: 38_400,
            unitId: 2,
            pollMs: 30,
            timeoutMs: 500,
            points: [
              { kind: 'outboundLock', location: at(2), address: 'hr:10.3' },
              { kind: 'plcState', location: at(2), address: 'ir:5', words: 2 },
            ],
          },
        ],
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

// ---- addresses the device refuses ----

describe('a Modbus TCP signal channel with addresses the device refuses (exception 2, illegal data address)', () => {
  const plc = memory();
  let box: TestAppliance;
  let server: Slave;
  const mb4 = async () => (await box.get('/v1/plc-channels/MB4')).body;
  const point = async (id: string) => (await mb4()).points.find((p: { id: string }) => p.id === id);
  /** The log lines of the appliance that say `text`, parsed. */
  const said = (text: string) =>
    box
      .logs()
      .map((line) => JSON.parse(line))
      .filter((l) => typeof l.msg === 'string' && l.msg.includes(text));
  /** Waits for this many more poll rounds. */
  const polls = async (n: number) => {
    const from = (await mb4()).driver.polls;
    await until(async () => (await mb4()).driver.polls >= from + n, `${n} more polls`);
  };

  beforeAll(async () => {
    const port = await freePort();
    // hr:500 does not exist; nor does hr:602, between two watched registers read in one request.
    for (const address of ['hr:500', 'hr:602']) plc.refused.add(address);
    plc.holding.set(100, 1);
    plc.holding.set(600, 6);
    plc.holding.set(605, 7);
    server = await tcpSlave(plc, port);
    box = await startTestAppliance({
      plc: {
        signals: [
          {
            name: 'MB4',
            protocol: 'modbus-tcp',
            host: '127.0.0.1',
            port,
            unitId: 1,
            pollMs: 20,
            // Long enough that a busy test box never lets a request go unanswered: the counts below are refusals only.
            timeoutMs: 5000,
            points: [
              { kind: 'plcState', location: 'MBX/0001/0000/0000/0000', address: 'hr:100' }, // p0
              { kind: 'plcState', location: 'MBX/0002/0000/0000/0000', address: 'hr:500' }, // p1: refused
              { kind: 'plcState', location: 'MBX/0003/0000/0000/0000', address: 'hr:600' }, // p2 ┐ one request
              { kind: 'plcState', location: 'MBX/0004/0000/0000/0000', address: 'hr:605' }, // p3 ┘ over hr:602
            ],
          },
        ],
      },
    });
    await until(async () => (await mb4()).state === 'ONLINE', 'MB4 is ONLINE');
  }, 30_000);

  afterAll(async () => {
    await box?.close();
    await server?.close();
  });

  it('a refused address: its point fails at every poll, logged once with the address and the exception; the others are read', async () => {
    await polls(20);
    const failing = said('Modbus: reading hr:500 fails');
    expect(failing).toHaveLength(1);
    expect(failing[0]).toMatchObject({ level: 'warn', channel: 'MB4', address: 'hr:500', points: ['p1'], exception: 2 });
    expect(failing[0].reason).toMatch(/Illegal data address/);
    const p1 = await point('p1');
    expect(p1).toMatchObject({ value: null, lastError: expect.stringMatching(/Modbus exception 2: Illegal data address/) });
    expect(p1.errors).toBeGreaterThanOrEqual(20);
    expect(await point('p0')).toMatchObject({ value: 1, errors: 0 });
  });

  it('a request over an address the device lacks between two points: those points are read one by one from then on, logged once', async () => {
    const split = said('the device refuses reading hr:600–605 in one request');
    expect(split).toHaveLength(1);
    expect(split[0]).toMatchObject({ level: 'warn', address: 'hr:600–605', points: ['p2', 'p3'], exception: 2 });
    expect(await point('p2')).toMatchObject({ value: 6 });
    expect(await point('p3')).toMatchObject({ value: 7 });
    // Neither is failing now: no line says either fails.
    expect(said('Modbus: reading hr:60')).toEqual([]);
  });

  it('the driver counts poll rounds, answered reads and failed ones (each refusal an exception)', async () => {
    await polls(10);
    const { driver, points } = await mb4();
    // Each round reads hr:100, hr:500, hr:600 and hr:605, one request each (the one round over hr:600–605 aside):
    // one fails, three are answered (a round may be under way).
    expect(driver.readErrors).toBeGreaterThanOrEqual(driver.polls - 1);
    expect(driver.readErrors).toBeLessThanOrEqual(driver.polls + 1);
    expect(driver.reads).toBeGreaterThanOrEqual(3 * (driver.polls - 2));
    expect(driver.reads).toBeLessThanOrEqual(3 * driver.polls);
    expect(driver.exceptions).toBe(driver.readErrors);
    expect(driver.timeouts).toBe(0);
    expect(driver).toMatchObject({ connects: 1, reconnects: 0, connectFailures: 0 });
    expect(points.find((p: { id: string }) => p.id === 'p1').errors).toBe(driver.readErrors - 1);
  });

  it('answered again: logged once, and the point gets its value; refused again: logged once more', async () => {
    plc.holding.set(500, 5);
    plc.refused.delete('hr:500');
    await until(async () => (await point('p1')).value === 5, 'p1 read');
    await polls(10);
    const answered = said('Modbus: reading hr:500 is answered again');
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatchObject({ level: 'info', address: 'hr:500', points: ['p1'], failedPolls: expect.any(Number) });
    expect(answered[0].failedPolls).toBeGreaterThanOrEqual(20);
    expect(said('Modbus: reading hr:500 fails')).toHaveLength(1);

    plc.refused.add('hr:500');
    await polls(10);
    expect(said('Modbus: reading hr:500 fails')).toHaveLength(2);
    expect(said('Modbus: reading hr:500 is answered again')).toHaveLength(1);
  });
});
