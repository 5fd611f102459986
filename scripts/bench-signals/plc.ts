// The PLC of the signal benchmark, in the benchmark's own process: an OPC UA server
// (node-opcua) or a Modbus TCP slave (modbus-serial's ServerTCP) holding both signal sets
// of layout.ts. The load sets words, barcodes and triggers as a PLC program would; every
// write a client makes to a target or done signal, and every read of a barcode, is
// reported with the moment the server took it.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ModbusRTU from 'modbus-serial';
import { OPCUACertificateManager } from 'node-opcua-certificate-manager';
import { DataType, MessageSecurityMode, SecurityPolicy, StatusCodes, Variant } from 'node-opcua-client';
import { OPCUAServer } from 'node-opcua-server';
import { BARCODE_WORDS, MAX_SCANNERS, modbusSignals, opcuaSignals, type Protocol, type SignalSet } from './layout.ts';
import { freePort } from '../../test/support/ports.ts';

/** Wall-clock milliseconds with sub-millisecond resolution, comparable between processes of one machine. */
export const epochNow = () => performance.timeOrigin + performance.now();

export interface WriteSeen {
  set: SignalSet;
  scanner: number;
  role: 'target' | 'done';
  value: number | boolean;
  /** epochNow() when the server took the write. */
  at: number;
}

export interface ReadSeen {
  set: SignalSet;
  scanner: number;
  /** epochNow() when the server answered a read of the scanner's barcode. */
  at: number;
}

export interface BenchPlc {
  protocol: Protocol;
  /** For the channel's configuration: the OPC UA endpoint or the Modbus port. */
  where: { endpoint?: string; port?: number };
  setWord(set: SignalSet, i: number, value: number): void;
  setBarcode(set: SignalSet, scanner: number, barcode: string): void;
  setTrigger(set: SignalSet, scanner: number, on: boolean): void;
  onWrite: (w: WriteSeen) => void;
  onBarcodeRead: (r: ReadSeen) => void;
  close(): Promise<void>;
}

export const startPlc = (protocol: Protocol): Promise<BenchPlc> => (protocol === 'opcua' ? startOpcuaPlc() : startModbusPlc());

// ---- OPC UA ----------------------------------------------------------------------------------

interface UAVariable {
  setValueFromSource(value: Variant): void;
}

async function startOpcuaPlc(): Promise<BenchPlc> {
  const port = await freePort();
  const pkiDir = mkdtempSync(path.join(os.tmpdir(), 'wms-bench-opcua-server-'));
  const server = new OPCUAServer({
    port,
    hostname: '127.0.0.1',
    alternateHostname: ['127.0.0.1'],
    serverCertificateManager: new OPCUACertificateManager({ rootFolder: pkiDir, automaticallyAcceptUnknownCertificate: true }),
    securityModes: [MessageSecurityMode.None],
    securityPolicies: [SecurityPolicy.None],
    allowAnonymous: true,
    buildInfo: { productName: 'wms-bench-plc', buildNumber: '1' },
  });
  await server.initialize();
  const addressSpace = server.engine.addressSpace!;
  const namespace = addressSpace.getOwnNamespace();
  const variables = new Map<string, UAVariable>();
  const short = (nodeId: string) => nodeId.replace(/^ns=1;s=/, '');
  const plain = (nodeId: string, dataType: DataType, value: unknown) => {
    const name = short(nodeId);
    variables.set(
      nodeId,
      namespace.addVariable({
        organizedBy: addressSpace.rootFolder.objects,
        nodeId: `s=${name}`,
        browseName: name,
        dataType,
        accessLevel: 'CurrentRead | CurrentWrite',
        userAccessLevel: 'CurrentRead | CurrentWrite',
        minimumSamplingInterval: 0,
        value: new Variant({ dataType, value }),
      }) as unknown as UAVariable,
    );
  };
  const plc: BenchPlc = {
    protocol: 'opcua',
    where: { endpoint: `opc.tcp://127.0.0.1:${port}` },
    setWord: (set, i, value) => variables.get(signals[set].words[i]!)!.setValueFromSource(new Variant({ dataType: DataType.UInt16, value })),
    setBarcode: (set, s, barcode) => void barcodes.set(signals[set].scanners[s]!.barcode, barcode),
    setTrigger: (set, s, on) => variables.get(signals[set].scanners[s]!.trigger)!.setValueFromSource(new Variant({ dataType: DataType.Boolean, value: on })),
    onWrite: () => undefined,
    onBarcodeRead: () => undefined,
    async close() {
      await server.shutdown(0);
      rmSync(pkiDir, { recursive: true, force: true });
    },
  };
  // The written signals answer through get/set, so that every write is seen as it is taken
  // (a write of the value the variable already holds included).
  const hooked = (nodeId: string, dataType: DataType, initial: number | boolean, seen: (value: number | boolean) => void) => {
    let value = initial;
    const name = short(nodeId);
    namespace.addVariable({
      organizedBy: addressSpace.rootFolder.objects,
      nodeId: `s=${name}`,
      browseName: name,
      dataType,
      accessLevel: 'CurrentRead | CurrentWrite',
      userAccessLevel: 'CurrentRead | CurrentWrite',
      minimumSamplingInterval: 1000,
      value: {
        get: () => new Variant({ dataType, value }),
        set: (variant: Variant) => {
          value = variant.value as number | boolean;
          seen(value);
          return StatusCodes.Good;
        },
      },
    });
  };
  // A barcode is text set by the load and read by the host: each read is seen.
  const barcodes = new Map<string, string>();
  const readHooked = (nodeId: string, seen: () => void) => {
    const name = short(nodeId);
    barcodes.set(nodeId, '');
    namespace.addVariable({
      organizedBy: addressSpace.rootFolder.objects,
      nodeId: `s=${name}`,
      browseName: name,
      dataType: DataType.String,
      accessLevel: 'CurrentRead | CurrentWrite',
      userAccessLevel: 'CurrentRead | CurrentWrite',
      // Read on demand, never monitored (said, so that the server does not warn about a getter).
      minimumSamplingInterval: 1000,
      value: {
        get: () => {
          seen();
          return new Variant({ dataType: DataType.String, value: barcodes.get(nodeId) });
        },
      },
    });
  };
  const signals = { A: opcuaSignals('A', MAX_SCANNERS), B: opcuaSignals('B', MAX_SCANNERS) };
  for (const set of ['A', 'B'] as const) {
    const s = signals[set];
    for (const word of s.words) plain(word, DataType.UInt16, 0);
    s.scanners.forEach((sc, i) => {
      readHooked(sc.barcode, () => plc.onBarcodeRead({ set, scanner: i, at: epochNow() }));
      plain(sc.trigger, DataType.Boolean, false);
      hooked(sc.target, DataType.UInt16, 0, (value) => plc.onWrite({ set, scanner: i, role: 'target', value, at: epochNow() }));
      hooked(sc.done, DataType.Boolean, false, (value) => plc.onWrite({ set, scanner: i, role: 'done', value, at: epochNow() }));
    });
    plain(s.heartbeat, DataType.UInt16, 0);
  }
  await server.start();
  return plc;
}

// ---- Modbus TCP ------------------------------------------------------------------------------

async function startModbusPlc(): Promise<BenchPlc> {
  const port = await freePort();
  const holding = new Uint16Array(65_536);
  const coils = new Uint8Array(65_536);
  const signals = { A: modbusSignals('A', MAX_SCANNERS), B: modbusSignals('B', MAX_SCANNERS) };
  const offset = (address: string) => Number(/:(\d+)/.exec(address)![1]);
  /** Written address → which scanner's target or done it is. */
  const written = new Map<string, { set: SignalSet; scanner: number; role: 'target' | 'done' }>();
  /** First register of a barcode → whose. */
  const barcodes = new Map<number, { set: SignalSet; scanner: number }>();
  for (const set of ['A', 'B'] as const) {
    signals[set].scanners.forEach((sc, scanner) => {
      barcodes.set(offset(sc.barcode), { set, scanner });
      written.set(`hr:${offset(sc.target)}`, { set, scanner, role: 'target' });
      written.set(`coil:${offset(sc.done)}`, { set, scanner, role: 'done' });
    });
  }
  const plc: BenchPlc = {
    protocol: 'modbus-tcp',
    where: { port },
    setWord: (set, i, value) => void (holding[offset(signals[set].words[i]!)] = value),
    setBarcode: (set, s, barcode) => {
      const bytes = Buffer.alloc(BARCODE_WORDS * 2);
      bytes.write(barcode, 'latin1');
      const start = offset(signals[set].scanners[s]!.barcode);
      for (let w = 0; w < BARCODE_WORDS; w++) holding[start + w] = bytes.readUInt16BE(2 * w);
    },
    setTrigger: (set, s, on) => void (coils[offset(signals[set].scanners[s]!.trigger)] = on ? 1 : 0),
    onWrite: () => undefined,
    onBarcodeRead: () => undefined,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const seen = (key: string, value: number | boolean) => {
    const at = epochNow();
    const w = written.get(key);
    if (w) plc.onWrite({ ...w, value, at });
  };
  const server = new ModbusRTU.ServerTCP(
    {
      getCoil: (addr: number) => coils[addr] === 1,
      getHoldingRegister: (addr: number) => holding[addr]!,
      getMultipleHoldingRegisters: (addr: number, length: number) => {
        const barcode = barcodes.get(addr);
        if (barcode) plc.onBarcodeRead({ ...barcode, at: epochNow() });
        return Array.from(holding.subarray(addr, addr + length));
      },
      getInputRegister: () => 0,
      getDiscreteInput: () => false,
      setCoil: (addr: number, value: boolean) => {
        coils[addr] = value ? 1 : 0;
        seen(`coil:${addr}`, value);
      },
      setRegister: (addr: number, value: number) => {
        holding[addr] = value;
        seen(`hr:${addr}`, value);
      },
    },
    { host: '127.0.0.1', port, unitID: 1 },
  );
  server.on('socketError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.on('initialized', () => resolve());
    server.on('serverError', reject);
  });
  return plc;
}
