// The baseline of the signal benchmark, run as its own process as the appliance is: a bare
// protocol client over signal set B with the channel's own timing and nothing else. It
// watches the plcState words and the scanners' triggers the way the appliance's driver does
// (OPC UA: one subscription, the same sampling and publishing intervals and queue; Modbus:
// the same two read requests every pollMs, one request at a time) and reports every change
// it sees with the moment it saw it. On a trigger that rises it reads the barcode, writes the
// scanner's hop as target and sets done; on a fall it clears done — the handshake without a
// warehouse behind it.
//
//   node scripts/bench-signals/bare-client.ts '<json BareConfig>'   (with an IPC channel)

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ModbusRTU from 'modbus-serial';
import type { ModbusRTU as ModbusClient } from 'modbus-serial/ModbusRTU.js';
import { OPCUACertificateManager } from 'node-opcua-certificate-manager';
import { AttributeIds, DataType, MessageSecurityMode, OPCUAClient, SecurityPolicy, TimestampsToReturn, type DataValue } from 'node-opcua-client';
import { BARCODE_WORDS, hopOf, type Protocol, type ScannerSignals } from './layout.ts';
import { subscriptionRequest } from '../../plc/signals/opcua/subscription.ts';

export interface BareConfig {
  protocol: Protocol;
  endpoint?: string;
  port?: number;
  samplingMs: number;
  pollMs: number;
  words: string[];
  scanners: ScannerSignals[];
}

export type BareMessage = { kind: 'ready' } | { kind: 'value'; word: number; value: number; from: number; at: number } | { kind: 'error'; message: string };

const epochNow = () => performance.timeOrigin + performance.now();
const say = (m: BareMessage) => process.send!(m);

/** One handshake at a time per scanner, as the appliance does. */
class Handshakes {
  private readonly busy: Promise<void>[];
  private readonly last: (boolean | undefined)[];
  private readonly io: {
    readBarcode(s: number): Promise<void>;
    writeTarget(s: number, value: number): Promise<void>;
    writeDone(s: number, on: boolean): Promise<void>;
  };

  constructor(scanners: number, io: Handshakes['io']) {
    this.busy = Array.from({ length: scanners }, () => Promise.resolve());
    this.last = Array.from({ length: scanners }, () => undefined);
    this.io = io;
  }

  trigger(s: number, on: boolean): void {
    const before = this.last[s];
    this.last[s] = on;
    if (before === on) return;
    const step = on
      ? async () => {
          await this.io.readBarcode(s);
          await this.io.writeTarget(s, hopOf(s));
          await this.io.writeDone(s, true);
        }
      : before === undefined
        ? undefined
        : async () => {
            await this.io.writeDone(s, false);
          };
    if (!step) return;
    this.busy[s] = this.busy[s]!.then(step).catch((err: Error) => {
      say({ kind: 'error', message: err.message });
    });
  }
}

async function modbus(c: BareConfig): Promise<void> {
  // The package's module object is the client class (CommonJS), whatever its types say.
  const client = new (ModbusRTU as unknown as new () => ModbusClient)();
  await client.connectTCP('127.0.0.1', { port: c.port! });
  client.setID(1);
  client.setTimeout(1000);
  const offset = (address: string) => Number(/:(\d+)/.exec(address)![1]);
  let queue: Promise<unknown> = Promise.resolve();
  const request = <T>(fn: () => Promise<T>): Promise<T> => {
    const result = queue.then(fn);
    queue = result.catch(() => undefined);
    return result;
  };
  const handshakes = new Handshakes(c.scanners.length, {
    readBarcode: async (s) => void (await request(() => client.readHoldingRegisters(offset(c.scanners[s]!.barcode), BARCODE_WORDS))),
    writeTarget: async (s, value) => void (await request(() => client.writeRegister(offset(c.scanners[s]!.target), value))),
    writeDone: async (s, on) => void (await request(() => client.writeCoil(offset(c.scanners[s]!.done), on))),
  });
  const wordStart = offset(c.words[0]!);
  const triggerStart = offset(c.scanners[0]!.trigger);
  const words: (number | undefined)[] = c.words.map(() => undefined);
  const poll = async () => {
    try {
      const read = await request(() => client.readHoldingRegisters(wordStart, c.words.length));
      const at = epochNow();
      read.data.forEach((value, i) => {
        if (words[i] !== undefined && words[i] !== value) say({ kind: 'value', word: i, value, from: words[i]!, at });
        words[i] = value;
      });
      const triggers = await request(() => client.readCoils(triggerStart, c.scanners.length));
      for (let s = 0; s < c.scanners.length; s++) handshakes.trigger(s, triggers.data[s]!);
    } catch (err) {
      say({ kind: 'error', message: (err as Error).message });
    }
    setTimeout(() => void poll(), c.pollMs);
  };
  await poll();
}

async function opcua(c: BareConfig): Promise<void> {
  const pkiDir = mkdtempSync(path.join(os.tmpdir(), 'wms-bench-bare-opcua-'));
  process.once('exit', () => rmSync(pkiDir, { recursive: true, force: true }));
  const client = OPCUAClient.create({
    applicationName: 'wms-bench-bare',
    securityMode: MessageSecurityMode.None,
    securityPolicy: SecurityPolicy.None,
    endpointMustExist: false,
    clientCertificateManager: new OPCUACertificateManager({ rootFolder: pkiDir, automaticallyAcceptUnknownCertificate: true }),
  });
  await client.connect(c.endpoint!);
  const session = await client.createSession();
  const handshakes = new Handshakes(c.scanners.length, {
    readBarcode: async (s) => void (await session.read({ nodeId: c.scanners[s]!.barcode, attributeId: AttributeIds.Value })),
    writeTarget: async (s, value) => {
      const status = await session.write({
        nodeId: c.scanners[s]!.target,
        attributeId: AttributeIds.Value,
        value: { value: { dataType: DataType.UInt16, value } },
      });
      if (!status.isGood()) throw new Error(`write target: ${status.name}`);
    },
    writeDone: async (s, on) => {
      const status = await session.write({
        nodeId: c.scanners[s]!.done,
        attributeId: AttributeIds.Value,
        value: { value: { dataType: DataType.Boolean, value: on } },
      });
      if (!status.isGood()) throw new Error(`write done: ${status.name}`);
    },
  });
  // As the appliance's driver subscribes.
  const subscription = await session.createSubscription2(subscriptionRequest(c.samplingMs));
  const nodes = [...c.words, ...c.scanners.map((s) => s.trigger)];
  const group = await subscription.monitorItems(
    nodes.map((nodeId) => ({ nodeId, attributeId: AttributeIds.Value })),
    { samplingInterval: c.samplingMs, discardOldest: true, queueSize: 10 },
    TimestampsToReturn.Neither,
  );
  const words: (number | undefined)[] = c.words.map(() => undefined);
  group.on('changed', (_item: unknown, dataValue: DataValue, index: number) => {
    const at = epochNow();
    const value = dataValue.value.value as number | boolean;
    if (index < c.words.length) {
      if (words[index] !== undefined && words[index] !== value) say({ kind: 'value', word: index, value: value as number, from: words[index]!, at });
      words[index] = value as number;
    } else {
      handshakes.trigger(index - c.words.length, value === true);
    }
  });
}

const config = JSON.parse(process.argv[2]!) as BareConfig;
await (config.protocol === 'opcua' ? opcua(config) : modbus(config));
say({ kind: 'ready' });
process.on('disconnect', () => process.exit(0));
// Stopped by the benchmark: exit as such, so that the certificate folder is removed.
process.once('SIGTERM', () => process.exit(0));
