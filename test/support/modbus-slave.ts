import ModbusRTU from 'modbus-serial';
import { freePort } from './ports.ts';

// A Modbus slave for tests: modbus-serial's own server over TCP (ServerTCP) or a serial
// line (ServerSerial), over a memory of coils, discrete inputs, holding and input
// registers that the test sets and reads, with a log of every write the master made.
// Addresses put in `refused` are refused as a device refuses an address it does not
// have: a read or write touching one is answered with the Modbus exception 2 (illegal
// data address).

export interface SlaveMemory {
  coils: Map<number, boolean>;
  inputs: Map<number, boolean>;
  holding: Map<number, number>;
  inputRegisters: Map<number, number>;
  /** Every write of the master, in order: `coil:1=true`, `hr:40=17`. */
  writes: string[];
  /** Addresses the device refuses (`hr:500`, `coil:9`, `di:3`, `ir:7`): exception 2 for any request touching one. */
  refused: Set<string>;
}

export const memory = (): SlaveMemory => ({
  coils: new Map(),
  inputs: new Map(),
  holding: new Map(),
  inputRegisters: new Map(),
  writes: [],
  refused: new Set(),
});

/** The exception modbus-serial's server answers with (a thrown `modbusErrorCode`). */
const ILLEGAL_DATA_ADDRESS = { modbusErrorCode: 0x02, msg: 'Illegal data address' };

/** Text into registers, two characters each, the first in the high byte, NUL-padded. */
export function putText(m: SlaveMemory, start: number, words: number, text: string): void {
  const bytes = Buffer.alloc(words * 2);
  bytes.write(text, 'latin1');
  for (let i = 0; i < words; i++) m.holding.set(start + i, bytes.readUInt16BE(2 * i));
}

function vector(m: SlaveMemory) {
  const at = (area: string, addr: number) => {
    if (m.refused.has(`${area}:${addr}`)) throw ILLEGAL_DATA_ADDRESS;
  };
  return {
    getCoil: (addr: number) => (at('coil', addr), m.coils.get(addr) ?? false),
    getDiscreteInput: (addr: number) => (at('di', addr), m.inputs.get(addr) ?? false),
    getHoldingRegister: (addr: number) => (at('hr', addr), m.holding.get(addr) ?? 0),
    getInputRegister: (addr: number) => (at('ir', addr), m.inputRegisters.get(addr) ?? 0),
    setCoil: (addr: number, value: boolean) => {
      at('coil', addr);
      m.coils.set(addr, value);
      m.writes.push(`coil:${addr}=${value}`);
    },
    setRegister: (addr: number, value: number) => {
      at('hr', addr);
      m.holding.set(addr, value);
      m.writes.push(`hr:${addr}=${value}`);
    },
    // FC 16: all or nothing, as a device checks the whole range before it writes.
    setRegisterArray: (addr: number, values: number[]) => {
      values.forEach((_, i) => at('hr', addr + i));
      values.forEach((value, i) => {
        m.holding.set(addr + i, value);
        m.writes.push(`hr:${addr + i}=${value}`);
      });
    },
  };
}

/** modbus-serial's server takes no port 0: tests ask for a free one. */
export { freePort };

export interface Slave {
  close(): Promise<void>;
}

export async function tcpSlave(m: SlaveMemory, port: number, unitId = 1): Promise<Slave> {
  const server = new ModbusRTU.ServerTCP(vector(m), { host: '127.0.0.1', port, unitID: unitId });
  server.on('socketError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.on('initialized', () => resolve());
    server.on('serverError', reject);
  });
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function serialSlave(m: SlaveMemory, path: string, baudRate: number, unitId = 1): Promise<Slave> {
  const ServerSerial = ModbusRTU.ServerSerial!;
  const server = new ServerSerial(vector(m), { path, baudRate, unitID: unitId, parity: 'even' } as never);
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.on('initialized', () => resolve()));
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
