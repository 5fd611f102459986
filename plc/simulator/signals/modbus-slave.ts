import type { IServiceVector } from 'modbus-serial/ServerTCP.js';
import type { Layout, ModbusArea, Signal, Value } from './layout.ts';
import type { PlcMemory } from './memory.ts';
import { freePort, type SignalServer } from './server.ts';

// The simulated conveyor as a Modbus slave: modbus-serial's own server, over TCP
// (ServerTCP) or a serial line (ServerSerial, RTU), answering from the PLC memory. A
// register or coil no signal lives at reads as 0 (the appliance reads neighbouring points
// in one request, gaps included); a write there is reported as stray. Text is two
// characters a register, the first in the high byte, padded with NUL, as the appliance
// reads and writes it.

export type ModbusTransport = { kind: 'tcp'; host: string; port: number } | { kind: 'rtu'; path: string; baudRate: number; parity: 'none' | 'even' | 'odd' };

export interface ModbusSlaveOptions {
  layout: Layout;
  memory: PlcMemory;
  transport: ModbusTransport;
  unitId: number;
}

/** The words a value takes in its registers. */
function wordsOf(signal: Signal, value: Value): number[] {
  if (signal.kind !== 'text') return [typeof value === 'boolean' ? Number(value) : Number(value) & 0xffff];
  const words = signal.modbus.words ?? 1;
  const bytes = Buffer.alloc(words * 2);
  bytes.write(String(value).slice(0, words * 2), 'latin1');
  return Array.from({ length: words }, (_, i) => bytes.readUInt16BE(2 * i));
}

/** A text from its registers, without the NUL padding. */
function textOf(words: readonly number[]): string {
  const bytes = Buffer.alloc(words.length * 2);
  words.forEach((w, i) => bytes.writeUInt16BE(w & 0xffff, 2 * i));
  return bytes.toString('latin1').replace(/\0+$/, '');
}

/** Which signal each coil and register belongs to, and the register's place in it. */
function addressMap(layout: Layout): Map<string, { signal: Signal; i: number }> {
  const map = new Map<string, { signal: Signal; i: number }>();
  for (const signal of layout.signals) {
    const { area, offset, words } = signal.modbus;
    for (let i = 0; i < (words ?? 1); i++) map.set(`${area}:${offset + i}`, { signal, i });
  }
  return map;
}

type Loaded = typeof import('modbus-serial');

function vectorOf(o: ModbusSlaveOptions, onRequest: () => void): IServiceVector {
  const map = addressMap(o.layout);
  const { memory } = o;
  const read = (area: ModbusArea, addr: number): number => {
    onRequest();
    const at = map.get(`${area}:${addr}`);
    return at ? (wordsOf(at.signal, memory.get(at.signal))[at.i] ?? 0) : 0;
  };
  /** The appliance wrote `values` from `addr` on: each signal it touched gets its new value. */
  const write = (area: ModbusArea, addr: number, values: readonly number[]) => {
    onRequest();
    const touched = new Map<Signal, number[]>();
    values.forEach((word, k) => {
      const at = map.get(`${area}:${addr + k}`);
      if (!at) {
        memory.stray(`${area}:${addr + k}`, area === 'coil' ? word !== 0 : word);
        return;
      }
      const words = touched.get(at.signal) ?? wordsOf(at.signal, memory.get(at.signal));
      words[at.i] = word;
      touched.set(at.signal, words);
    });
    for (const [signal, words] of touched) {
      const value: Value = signal.kind === 'text' ? textOf(words) : signal.kind === 'bit' ? words[0] !== 0 : words[0]!;
      memory.written(signal, value);
    }
  };
  return {
    getCoil: (addr: number) => read('coil', addr) !== 0,
    getDiscreteInput: (addr: number) => read('di', addr) !== 0,
    getHoldingRegister: (addr: number) => read('hr', addr),
    getInputRegister: (addr: number) => read('ir', addr),
    setCoil: (addr: number, value: boolean) => write('coil', addr, [value ? 1 : 0]),
    setRegister: (addr: number, value: number) => write('hr', addr, [value]),
    setRegisterArray: (addr: number, values: number[]) => write('hr', addr, values),
  };
}

export async function startModbusSlave(o: ModbusSlaveOptions): Promise<SignalServer> {
  const loaded = (await import('modbus-serial')) as Loaded & { default?: Loaded };
  const { ServerTCP, ServerSerial } = loaded.default ?? loaded;
  const listeners = new Set<(line: string) => void>();
  let requested = false;
  const vector = vectorOf(o, () => {
    if (requested) return;
    requested = true;
    for (const l of listeners) l('the appliance sent its first request');
  });
  const { transport: t, unitId } = o;
  if (t.kind === 'tcp') {
    const port = t.port === 0 ? await freePort(t.host) : t.port;
    const server = new ServerTCP(vector, { host: t.host, port, unitID: unitId });
    // A connection the appliance drops is its business; the slave stays up.
    server.on('socketError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('initialized', () => resolve());
      server.once('serverError', (err) => reject(new Error(`cannot listen on ${t.host}:${port}: ${(err as Error).message}`)));
    });
    return {
      description: `Modbus TCP slave on ${t.host}:${port}, unit ${unitId}`,
      port,
      onNote: (l) => void listeners.add(l),
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }
  if (!ServerSerial) throw new Error('the serial line library cannot be loaded');
  let server: InstanceType<NonNullable<Loaded['ServerSerial']>> | undefined;
  await new Promise<void>((resolve, reject) => {
    server = new ServerSerial(vector, {
      path: t.path,
      baudRate: t.baudRate,
      parity: t.parity,
      dataBits: 8,
      stopBits: 1,
      unitID: unitId,
      openCallback: (err: Error | null) => (err ? reject(new Error(`cannot open ${t.path}: ${err.message}`)) : resolve()),
    } as never);
    server.on('error', () => undefined);
  });
  return {
    description: `Modbus RTU slave on ${t.path} (${t.baudRate} baud, 8${t.parity[0]!.toUpperCase()}1), unit ${unitId}`,
    onNote: (l) => void listeners.add(l),
    close: () => new Promise<void>((resolve) => server!.close(() => resolve())),
  };
}
