import { readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, redactedConfig } from '../src/config.ts';
import { tempDir } from './support/appliance.ts';
import { configError } from './support/config.ts';

// The `plc.signals` configuration (plc/signals/config.ts): defaults, and the one-line
// start-up error naming the key of whatever is wrong with a signal channel.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const load = (signals: unknown, channels: unknown = []) => {
  const dir = tempDir('wms-plc-signals-');
  dirs.push(dir);
  return loadConfig({ WMS_DATA_DIR: dir, WMS_PLC_SIGNALS: JSON.stringify(signals), WMS_PLC_CHANNELS: JSON.stringify(channels) });
};

const LOC = 'HAL1/CONV/0003/0000/0000';
const tcp = (points: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'CONV2', protocol: 'modbus-tcp', host: '10.0.0.20', points, ...extra });

describe('plc.signals', () => {
  it('takes the example of the documentation, with the defaults of each protocol', () => {
    const { config } = load([
      {
        name: 'HALL1',
        protocol: 'opcua',
        endpoint: 'opc.tcp://10.0.0.10:4840',
        user: 'wms',
        password: 'secret',
        points: [
          { kind: 'plcState', location: 'HAL1/CONV/0001/0000/0000', node: 'ns=3;s=Conv.C1.Error' },
          {
            kind: 'arrival',
            location: 'HAL1/CONV/0002/0000/0000',
            barcode: 'ns=3;s=Scan2.Code',
            trigger: 'ns=3;s=Scan2.New',
            target: 'ns=3;s=Scan2.Target',
            done: 'ns=3;s=Scan2.Ack',
          },
          { kind: 'heartbeat', node: 'ns=3;s=Host.Life', periodMs: 1000 },
        ],
      },
      tcp([{ kind: 'plcState', location: LOC, address: 'hr:100' }]),
      { name: 'CONV3', protocol: 'modbus-rtu', device: '/dev/ttyUSB0', unitId: 2, points: [{ kind: 'outboundLock', location: LOC, address: 'coil:7' }] },
    ]);
    const [opcua, modbusTcp, rtu] = config.plc.signals!;
    expect(opcua).toMatchObject({ securityMode: 'None', samplingMs: 100, timeoutMs: 1000, enabled: true });
    expect(opcua!.points[1]).toMatchObject({ targetAs: 'plcCode' });
    expect(modbusTcp).toMatchObject({ port: 502, unitId: 1, pollMs: 100 });
    expect(rtu).toMatchObject({ baudRate: 19_200, parity: 'even', unitId: 2, pollMs: 100 });
    expect(JSON.stringify(redactedConfig(config))).not.toContain('secret');
  });

  it('takes the worked Modbus TCP example of docs/plc.md as it stands', () => {
    const doc = readFileSync(new URL('../docs/plc.md', import.meta.url), 'utf8');
    const example = doc.slice(doc.indexOf('### Example: a Modbus TCP coupler')).split('```json\n')[1]!.split('```')[0]!;
    const { config } = load(JSON.parse(example).plc.signals);
    expect(config.plc.signals![0]!.points.map((p) => p.kind)).toEqual(['plcState', 'inboundLock', 'outboundLock', 'groupState', 'arrival', 'heartbeat']);
  });

  it('is absent from the configuration when no signal channel is set', () => {
    const dir = tempDir('wms-plc-signals-');
    dirs.push(dir);
    expect(loadConfig({ WMS_DATA_DIR: dir }).config.plc.signals).toBeUndefined();
  });

  it.each([
    ['a Modbus address that is none', [tcp([{ kind: 'plcState', location: LOC, address: 'hr100' }])], 'plc.signals.0.points.0.address: not a Modbus address'],
    [
      'a bit of a coil',
      [tcp([{ kind: 'inboundLock', location: LOC, address: 'coil:7.1' }])],
      'plc.signals.0.points.0.address: a bit (.B) applies to registers',
    ],
    ['a lock that is a word', [tcp([{ kind: 'inboundLock', location: LOC, address: 'hr:7' }])], 'plc.signals.0.points.0.address: must be a bit'],
    [
      'a target in an input register',
      [tcp([{ kind: 'arrival', location: LOC, barcode: 'hr:0*10', trigger: 'coil:0', target: 'ir:4', done: 'coil:1' }])],
      'plc.signals.0.points.0.target: is written by the appliance',
    ],
    [
      'done in a discrete input',
      [tcp([{ kind: 'arrival', location: LOC, barcode: 'hr:0*10', trigger: 'coil:0', target: 'hr:4', done: 'di:1' }])],
      'plc.signals.0.points.0.done: is written by the appliance',
    ],
    [
      'a coordinate into a number target',
      [tcp([{ kind: 'arrival', location: LOC, barcode: 'hr:0*10', trigger: 'coil:0', target: 'hr:4', done: 'coil:1', targetAs: 'coordinate' }])],
      'plc.signals.0.points.0.targetAs: a coordinate is text',
    ],
    [
      'a node on a Modbus point',
      [tcp([{ kind: 'plcState', location: LOC, node: 'ns=3;s=X' }])],
      'plc.signals.0.points.0.node: a Modbus point names its address',
    ],
    [
      'a Modbus channel without host',
      [{ name: 'CONV2', protocol: 'modbus-tcp', points: [{ kind: 'plcState', location: LOC, address: 'hr:1' }] }],
      'plc.signals.0.host: required for protocol modbus-tcp',
    ],
    [
      'an OPC UA key on a Modbus channel',
      [tcp([{ kind: 'plcState', location: LOC, address: 'hr:1' }], { endpoint: 'opc.tcp://x:4840' })],
      'plc.signals.0.endpoint: applies to OPC UA channels',
    ],
    [
      'an OPC UA channel without endpoint',
      [{ name: 'HALL1', protocol: 'opcua', points: [{ kind: 'plcState', location: LOC, node: 'ns=3;s=X' }] }],
      'plc.signals.0.endpoint: required for protocol opcua',
    ],
    ['a location that is no coordinate', [tcp([{ kind: 'plcState', location: 'C1', address: 'hr:1' }])], 'plc.signals.0.points.0.location:'],
    ['an unknown point kind', [tcp([{ kind: 'photoEye', location: LOC, address: 'hr:1' }])], 'plc.signals.0.points.0.kind:'],
    ['no points', [tcp([])], 'plc.signals.0.points: a signal channel needs at least one point'],
    [
      'two channels of one name',
      [tcp([{ kind: 'plcState', location: LOC, address: 'hr:1' }]), tcp([{ kind: 'plcState', location: LOC, address: 'hr:1' }])],
      'plc.signals.1.name: the same name as signal channel 0',
    ],
  ])('%s: one line naming the key', (_what, signals, message) => {
    // `invalid config <key> (from WMS_PLC_SIGNALS): <why>`
    const [key, why] = message.split(/: ?(.*)/s) as [string, string];
    expect(configError(() => load(signals))).toContain(`invalid config ${key} (from WMS_PLC_SIGNALS): ${why}`);
  });

  it('shares the name space with the OSIP channels', () => {
    const message = configError(() => load([tcp([{ kind: 'plcState', location: LOC, address: 'hr:1' }], { name: 'CNV01' })], [{ name: 'CNV01', port: 5020 }]));
    expect(message).toContain('invalid config plc.signals.0.name (from WMS_PLC_SIGNALS): the same name as channel 0 (plc.channels)');
  });
});
