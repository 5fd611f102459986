// The OPC UA signal driver against a real OPC UA server (node-opcua, in process): values
// arrive through the subscription, writes are confirmed by the server, wrong node ids are
// reported at start, and a server restart is carried through (offline → online, the
// subscription re-created, values flowing again); Sign with a user name token. Then the
// whole way through the appliance: an OPC UA channel's signals change the warehouse,
// seen over REST, and its arrival handshake writes the routing decision to the PLC.

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { DataType } from 'node-opcua-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DriverHandlers, DriverState, SignalDriver, SignalValue, WatchedPoint } from '../plc/signals/driver.ts';
import { createOpcuaDriver, type OpcuaDriverConfig } from '../plc/signals/opcua/driver.ts';
import { createLogger } from '../src/core/log.ts';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { CONVEYOR_VARIABLES, startOpcuaServer, type TestOpcuaServer } from './support/opcua-server.ts';
import { site, unitWithOrder, until as untilHolds, type Site } from './support/warehouse.ts';

const POINTS: WatchedPoint[] = [
  { id: 'c1-error', address: 'ns=1;s=Conv.C1.Error', kind: 'word' },
  { id: 'c1-lock-in', address: 'ns=1;s=Conv.C1.LockIn', kind: 'bit' },
  { id: 'group1', address: 'ns=1;s=Conv.Group1.Available', kind: 'bit' },
  { id: 'scan2-code', address: 'ns=1;s=Scan2.Code', kind: 'string' },
  { id: 'scan2-new', address: 'ns=1;s=Scan2.New', kind: 'bit' },
  { id: 'c1-count', address: 'ns=1;s=Conv.C1.Count', kind: 'dword' },
];

/** What a channel would see of the driver: values, states and errors, in order. */
class Recorder implements DriverHandlers {
  values: Array<[string, SignalValue]> = [];
  states: Array<[DriverState, string | undefined]> = [];
  errors: Array<[string | undefined, string]> = [];
  onValue(pointId: string, value: SignalValue): void {
    this.values.push([pointId, value]);
  }
  onState(state: DriverState, detail?: string): void {
    this.states.push([state, detail]);
  }
  onError(pointId: string | undefined, err: Error): void {
    this.errors.push([pointId, err.message]);
  }
  last(pointId: string): SignalValue | undefined {
    return this.values.findLast(([id]) => id === pointId)?.[1];
  }
  state(): DriverState | undefined {
    return this.states.at(-1)?.[0];
  }
}

async function until(what: string, condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const dirs: string[] = [];
const drivers: SignalDriver[] = [];
const log = createLogger({ level: 'warn', destination: new PassThrough().resume() });

function driverFor(
  server: TestOpcuaServer,
  config: Partial<OpcuaDriverConfig> = {},
  points = POINTS,
): { driver: SignalDriver; rec: Recorder; dataDir: string } {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wms-opcua-client-'));
  dirs.push(dataDir);
  const driver = createOpcuaDriver({ name: 'HALL1', endpoint: server.endpoint, securityMode: 'None', samplingMs: 50, ...config }, { dataDir, log });
  drivers.push(driver);
  driver.watch(points);
  return { driver, rec: new Recorder(), dataDir };
}

afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => d.stop()));
});

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('OPC UA signal driver', () => {
  let server: TestOpcuaServer;
  beforeAll(async () => {
    server = await startOpcuaServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('watches the points through one subscription and maps values by kind', async () => {
    const { driver, rec } = driverFor(server);
    await driver.start(rec);
    await until('online', () => rec.state() === 'online');
    expect(rec.states[0]?.[0]).toBe('connecting');
    // Every watched point reports its current value when the subscription starts.
    await until('initial values', () => POINTS.every((p) => rec.last(p.id) !== undefined));
    expect(rec.last('c1-error')).toBe(0);
    expect(rec.last('c1-lock-in')).toBe(false);
    expect(rec.last('group1')).toBe(true);
    expect(rec.last('scan2-code')).toBe('');

    server.set('Conv.C1.Error', 12);
    server.set('Conv.C1.LockIn', true);
    server.set('Scan2.Code', 'TU000000000123');
    server.set('Conv.C1.Count', 70_000);
    await until(
      'changes',
      () => rec.last('c1-error') === 12 && rec.last('c1-lock-in') === true && rec.last('scan2-code') === 'TU000000000123' && rec.last('c1-count') === 70_000,
    );

    const counters = driver.counters();
    expect(counters.reads).toBe(0); // nothing polled
    expect(counters.notifications).toBeGreaterThanOrEqual(POINTS.length + 4);
    expect(counters.errors).toBe(0);
    expect(rec.errors).toEqual([]);
  });

  it('a pulse shorter than a publish still arrives as a rise and a fall', async () => {
    const { driver, rec } = driverFor(server, { samplingMs: 200 }, [{ id: 'scan2-new', address: 'ns=1;s=Scan2.New', kind: 'bit' }]);
    await driver.start(rec);
    await until('initial value', () => rec.last('scan2-new') === false);
    const before = rec.values.length;
    server.set('Scan2.New', true);
    await new Promise((resolve) => setTimeout(resolve, 250)); // at least one sample of the raised trigger
    server.set('Scan2.New', false);
    await until('fall', () => rec.values.length >= before + 2);
    expect(rec.values.slice(before).map(([, v]) => v)).toEqual([true, false]);
  });

  it('writes in the variable’s data type and resolves once the server confirmed', async () => {
    const { driver, rec } = driverFor(server, {}, []);
    await driver.start(rec);
    await until('online', () => rec.state() === 'online');

    await driver.write('ns=1;s=Scan2.Target', 'string', 'HAL1/CONV/0003/0000/0000');
    expect(server.get('Scan2.Target')).toBe('HAL1/CONV/0003/0000/0000');
    await driver.write('ns=1;s=Scan2.Ack', 'bit', true);
    expect(server.get('Scan2.Ack')).toBe(true);
    await driver.write('ns=1;s=Host.Life', 'word', 7);
    expect(server.get('Host.Life')).toBe(7);
    // A PLC code written into a text variable, a counter into a 32-bit one.
    await driver.write('ns=1;s=Scan2.Target', 'word', 3);
    expect(server.get('Scan2.Target')).toBe('3');
    await driver.write('ns=1;s=Conv.C1.Count', 'dword', 100_000);
    expect(await driver.read('ns=1;s=Conv.C1.Count', 'dword')).toBe(100_000);
    expect(await driver.read('ns=1;s=Scan2.Ack', 'bit')).toBe(true);

    await expect(driver.write('ns=1;s=Host.Life', 'word', 70_000)).rejects.toThrow(/Host\.Life \(UInt16\).*outside 0…65535/);
    expect(server.get('Host.Life')).toBe(7);
    await expect(driver.write('ns=1;s=Scan2.Nope', 'string', 'x')).rejects.toThrow(/Scan2\.Nope: BadNodeIdUnknown/);
    await expect(driver.read('ns=1;s=Scan2.Nope', 'string')).rejects.toThrow(/BadNodeIdUnknown/);
    await expect(driver.write('ns=1;s', 'string', 'x')).rejects.toThrow(/malformed/);

    const counters = driver.counters();
    expect(counters.writes).toBe(5);
    expect(counters.reads).toBe(2);
    expect(counters.errors).toBe(4);
  });

  it('reports a wrong node id at start, naming it and the status, and watches the rest', async () => {
    const { driver, rec } = driverFor(server, {}, [
      { id: 'c1-error', address: 'ns=1;s=Conv.C1.Error', kind: 'word' },
      { id: 'c9-error', address: 'ns=1;s=Conv.C9.Error', kind: 'word' },
      { id: 'typo', address: 'ns=1;x=Conv', kind: 'bit' },
      { id: 'folder', address: 'i=85', kind: 'bit' },
    ]);
    await driver.start(rec);
    await until('online', () => rec.state() === 'online');
    await until('the good point', () => rec.last('c1-error') !== undefined);
    const byPoint = Object.fromEntries(rec.errors);
    expect(byPoint['c9-error']).toMatch(/ns=1;s=Conv\.C9\.Error of point c9-error.*BadNodeIdUnknown/);
    expect(byPoint['typo']).toMatch(/"ns=1;x=Conv" is malformed/);
    expect(byPoint['folder']).toMatch(/i=85 of point folder.*BadAttributeIdInvalid/);
    expect(rec.values.map(([id]) => id)).not.toContain('c9-error');
    expect(driver.counters().errors).toBe(3);
  });

  it('is offline while the endpoint does not answer, and refuses reads then', async () => {
    const { driver, rec } = driverFor(server, { endpoint: 'opc.tcp://127.0.0.1:1' }, POINTS.slice(0, 1));
    await driver.start(rec);
    await until('offline', () => rec.state() === 'offline');
    await expect(driver.read('ns=1;s=Conv.C1.Error', 'word')).rejects.toThrow(/HALL1 is not connected/);
  });
});

describe('OPC UA signal driver across a server restart', () => {
  let server: TestOpcuaServer;
  beforeAll(async () => {
    server = await startOpcuaServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('goes offline, comes back online by itself and receives changes again (re-subscribed)', async () => {
    const { driver, rec } = driverFor(server);
    await driver.start(rec);
    await until('online', () => rec.state() === 'online');
    server.set('Conv.C1.Error', 3);
    await until('first change', () => rec.last('c1-error') === 3);

    await server.stop();
    await until('offline', () => rec.state() === 'offline');
    await expect(driver.write('ns=1;s=Host.Life', 'word', 1)).rejects.toThrow(/not connected/);
    // The PLC program changes its word while the host is away.
    server.set('Conv.C1.Error', 4);
    await server.start();
    await until('online again', () => rec.state() === 'online', 60_000);
    expect(driver.counters().reconnects).toBe(1);

    await until('value after the restart', () => rec.last('c1-error') === 4, 30_000);
    server.set('Conv.C1.Error', 5);
    server.set('Scan2.Code', 'TU000000000777');
    await until('changes after the restart', () => rec.last('c1-error') === 5 && rec.last('scan2-code') === 'TU000000000777');
    await driver.write('ns=1;s=Host.Life', 'word', 2);
    expect(server.get('Host.Life')).toBe(2);
    expect(rec.states.map(([s]) => s)).toEqual(['connecting', 'online', 'offline', 'online']);
  });
});

describe('OPC UA signal driver with security and a user', () => {
  let server: TestOpcuaServer;
  beforeAll(async () => {
    server = await startOpcuaServer({ users: { plc: 'secret' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('signs with its own certificate, kept in <dataDir>/opcua-pki, and logs in', async () => {
    const { driver, rec, dataDir } = driverFor(server, { securityMode: 'Sign', user: 'plc', password: 'secret' }, POINTS.slice(0, 1));
    await driver.start(rec);
    await until('online', () => rec.state() === 'online', 30_000);
    server.set('Conv.C1.Error', 9);
    await until('a change', () => rec.last('c1-error') === 9);
    await driver.write('ns=1;s=Host.Life', 'word', 11);
    expect(server.get('Host.Life')).toBe(11);
    const own = path.join(dataDir, 'opcua-pki', 'own', 'certs');
    expect(existsSync(own) && readdirSync(own).some((f) => f.endsWith('.pem'))).toBe(true);
  });

  it('encrypts (SignAndEncrypt)', async () => {
    const { driver, rec } = driverFor(server, { securityMode: 'SignAndEncrypt', user: 'plc', password: 'secret' }, POINTS.slice(0, 1));
    await driver.start(rec);
    await until('online', () => rec.state() === 'online', 30_000);
    await until('a value', () => rec.last('c1-error') !== undefined);
  });

  it('reports a refused login as the connection’s error and stays offline', async () => {
    const { driver, rec } = driverFor(server, { securityMode: 'Sign', user: 'plc', password: 'wrong' }, POINTS.slice(0, 1));
    await driver.start(rec);
    await until('offline', () => rec.state() === 'offline', 30_000);
    await until('an error', () => rec.errors.length > 0);
    expect(rec.errors[0]?.[0]).toBeUndefined();
    expect(rec.errors[0]?.[1]).toMatch(/BadUserAccessDenied|BadIdentityTokenRejected|BadIdentityTokenInvalid/);
  });

  it('refuses an unknown security policy at creation', () => {
    expect(() => driverFor(server, { securityMode: 'Sign', securityPolicy: 'Basic512' })).toThrow(/unknown security policy Basic512/);
  });
});

describe('an OPC UA signal channel in the appliance', () => {
  const AREA = 'UAT';
  let server: TestOpcuaServer;
  let wms: TestAppliance;
  let s: Site;
  const coordinate = (n: number) => `${AREA}/000${n}/0000/0000/0000`;
  const channel = async () => (await wms.get('/v1/plc-channels/UA1')).body;
  const location = async (c: string) => (await wms.get(`/v1/locations/${s.pKey[c]}`)).body;

  beforeAll(async () => {
    server = await startOpcuaServer({
      variables: {
        ...CONVEYOR_VARIABLES,
        // A second scanner whose PLC keeps the target in a byte.
        'Scan3.Code': { dataType: DataType.String, value: '' },
        'Scan3.New': { dataType: DataType.Boolean, value: false },
        'Scan3.Target': { dataType: DataType.Byte, value: 0 },
        'Scan3.Ack': { dataType: DataType.Boolean, value: false },
      },
    });
    wms = await startTestAppliance({
      plc: {
        signals: [
          {
            name: 'UA1',
            protocol: 'opcua',
            endpoint: server.endpoint,
            securityMode: 'None',
            samplingMs: 20,
            points: [
              { kind: 'plcState', location: coordinate(2), node: 'ns=1;s=Conv.C1.Error' },
              { kind: 'inboundLock', location: coordinate(2), node: 'ns=1;s=Conv.C1.LockIn' },
              {
                kind: 'arrival',
                location: coordinate(1),
                barcode: 'ns=1;s=Scan2.Code',
                trigger: 'ns=1;s=Scan2.New',
                target: 'ns=1;s=Scan2.Target',
                done: 'ns=1;s=Scan2.Ack',
              },
              {
                kind: 'arrival',
                location: coordinate(1),
                barcode: 'ns=1;s=Scan3.Code',
                trigger: 'ns=1;s=Scan3.New',
                target: 'ns=1;s=Scan3.Target',
                done: 'ns=1;s=Scan3.Ack',
                targetType: 'word',
                fallback: 99,
              },
            ],
          },
        ],
      },
    });
    s = await site(wms, AREA);
    // The PLC names C1 by its code: that is what it gets as target.
    const c1 = await location(s.C1);
    expect((await wms.put('/v1/locations', { ...c1, plcCode: '17' })).status).toBe(200);
    await untilHolds(async () => (await channel()).state === 'ONLINE', 'the channel is ONLINE', 30_000);
  }, 60_000);

  afterAll(async () => {
    await wms?.close();
    await server?.close();
  });

  it('a changed error word sets the location’s plcState, a lock bit locks it for units coming in', async () => {
    server.set('Conv.C1.Error', 12);
    await untilHolds(async () => (await location(s.C1)).plcState === 12, 'plcState 12');
    server.set('Conv.C1.LockIn', true);
    await untilHolds(async () => (await location(s.C1)).incomingActive === false, 'C1 locked for units coming in');
    server.set('Conv.C1.LockIn', false);
    server.set('Conv.C1.Error', 0);
    await untilHolds(async () => (await location(s.C1)).plcState === 0 && (await location(s.C1)).incomingActive === true, 'C1 clear and open');
    const ua1 = await channel();
    expect(ua1).toMatchObject({ kind: 'signals', protocol: 'opcua', state: 'ONLINE' });
    expect(ua1.driver.notifications).toBeGreaterThan(0);
  });

  it('the arrival handshake writes the next hop’s PLC code to target and sets done; done clears when the trigger falls', async () => {
    await unitWithOrder(wms, 'UAT-4711', s.INFEED, s.STOCK);
    server.set('Scan2.Code', 'UAT-4711');
    server.set('Scan2.New', true);
    await untilHolds(() => server.get('Scan2.Ack') === true, 'done set');
    expect(server.get('Scan2.Target')).toBe('17');
    server.set('Scan2.New', false);
    await untilHolds(() => server.get('Scan2.Ack') === false, 'done cleared');
  });

  it("a next location the target's variable cannot hold: the fallback is written, then done; counted and logged with the reason", async () => {
    // C1's code 300 does not fit Scan3's byte.
    const c1 = await location(s.C1);
    expect((await wms.put('/v1/locations', { ...c1, plcCode: '300' })).status).toBe(200);
    try {
      await unitWithOrder(wms, 'UAT-BYTE', s.INFEED, s.STOCK);
      server.set('Scan3.Code', 'UAT-BYTE');
      server.set('Scan3.New', true);
      await untilHolds(() => server.get('Scan3.Ack') === true, 'done set');
      expect(server.get('Scan3.Target')).toBe(99);
      server.set('Scan3.New', false);
      await untilHolds(() => server.get('Scan3.Ack') === false, 'done cleared');
    } finally {
      const now = await location(s.C1);
      expect((await wms.put('/v1/locations', { ...now, plcCode: '17' })).status).toBe(200);
    }
    const ua1 = await channel();
    expect(ua1.counters.targetFallbacks).toBe(1);
    expect(ua1.errors).toContainEqual(expect.objectContaining({ point: 'p3', message: expect.stringMatching(/cannot write 300: outside 0…255/) }));
    const warned = wms
      .logs()
      .map((line) => JSON.parse(line))
      .filter((l) => l.msg?.includes('target cannot be written'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 'warn', channel: 'UA1', point: 'p3', next: s.C1, target: 300, fallback: 99, barcode: 'UAT-BYTE' });
    const log = (await wms.get('/v1/plc-channels/UA1/telegrams?type=SIG_&barcode=UAT-BYTE')).body;
    expect(
      log.map(
        (e: { direction: string; fields: { point: string; value: unknown }; outcome: string }) =>
          `${e.direction} ${e.fields.point} ${String(e.fields.value)} ${e.outcome}`,
      ),
    ).toEqual(['in p3.barcode UAT-BYTE ok', 'out p3.target 300 write-failed', 'out p3.target 99 written']);
  });
});
