import { ConveyorDriver } from './driver.ts';
import { ApplianceWatch } from './heartbeat.ts';
import { addressOf, channelEntry, type Layout, type Reach, type SignalProtocol } from './layout.ts';
import { PlcMemory } from './memory.ts';
import type { ModbusTransport } from './modbus-slave.ts';
import { freePort, loadModbusSlave, loadOpcuaServer, type SignalServer } from './server.ts';

// Signal mode as a library: a conveyor's signals served over one protocol, with the
// program that drives them and the `plc.signals` entry that has the appliance read and
// write them. The command line (./cli.ts) is this plus printing and commands.

export interface SignalSimulatorOptions {
  protocol: SignalProtocol;
  layout: Layout;
  /** The channel's name in the entry; default SIM01. */
  name?: string;
  /** opcua, modbus-tcp: where to serve (port 0: a free one). */
  listen?: { host: string; port: number };
  /** modbus-rtu: the simulator's end of the line; `applianceDevice` (default `path`) goes into the entry. */
  serial?: { path: string; baudRate: number; parity: 'none' | 'even' | 'odd'; applianceDevice?: string };
  /** Modbus unit id; default 1. */
  unitId?: number;
  /** The appliance's time for each step of a handshake; default 5000 ms. */
  timeoutMs?: number;
  /** How long the driver waits for the appliance's first heartbeat; default 60 s. */
  connectTimeoutMs?: number;
  /** Lines worth showing: a session opened or closed, the appliance's heartbeat starting and stopping. */
  onNote?: (line: string) => void;
}

export class SignalSimulator {
  readonly layout: Layout;
  readonly protocol: SignalProtocol;
  readonly memory: PlcMemory;
  readonly watch: ApplianceWatch;
  readonly driver: ConveyorDriver;
  readonly server: SignalServer;
  /** The `plc.signals` entry for the appliance. */
  readonly entry: ReturnType<typeof channelEntry>;

  private constructor(o: SignalSimulatorOptions, memory: PlcMemory, server: SignalServer) {
    const note = o.onNote ?? (() => undefined);
    this.layout = o.layout;
    this.protocol = o.protocol;
    this.memory = memory;
    this.server = server;
    this.watch = new ApplianceWatch(memory, o.layout, note, addressOf(o.layout.signal('heartbeat'), o.protocol));
    this.driver = new ConveyorDriver({
      layout: o.layout,
      memory,
      watch: this.watch,
      timeoutMs: o.timeoutMs ?? 5000,
      connectTimeoutMs: o.connectTimeoutMs ?? 60_000,
    });
    this.entry = channelEntry(o.layout, o.name ?? 'SIM01', reachOf(o, server));
    server.onNote(note);
    this.watch.start();
  }

  /** Starts the protocol's server; throws when it cannot (a port taken, a device missing, NotInThisBuild). */
  static async start(o: SignalSimulatorOptions): Promise<SignalSimulator> {
    const memory = new PlcMemory(o.layout);
    return new SignalSimulator(o, memory, await serverFor(o, memory));
  }

  async close(): Promise<void> {
    this.watch.stop();
    this.memory.close();
    await this.server.close();
  }
}

/** Whether a listen address is every interface of the machine. */
export const everywhere = (host: string) => host === '0.0.0.0' || host === '::';

async function serverFor(o: SignalSimulatorOptions, memory: PlcMemory): Promise<SignalServer> {
  const { layout } = o;
  if (o.protocol === 'opcua') {
    const start = await loadOpcuaServer();
    const { host, port } = listenOf(o);
    return start({ layout, memory, host, port: port === 0 ? await freePort(host) : port });
  }
  const start = await loadModbusSlave();
  let transport: ModbusTransport;
  if (o.protocol === 'modbus-rtu') {
    const { path, baudRate, parity } = serialOf(o);
    transport = { kind: 'rtu', path, baudRate, parity };
  } else {
    transport = { kind: 'tcp', ...listenOf(o) };
  }
  return start({ layout, memory, transport, unitId: o.unitId ?? 1 });
}

function listenOf(o: SignalSimulatorOptions): { host: string; port: number } {
  if (!o.listen) throw new Error(`${o.protocol} serves on a TCP port: listen is required`);
  return o.listen;
}

function serialOf(o: SignalSimulatorOptions): NonNullable<SignalSimulatorOptions['serial']> {
  if (!o.serial) throw new Error('modbus-rtu serves on a serial line: serial is required');
  return o.serial;
}

/** How the appliance reaches the server: one on every interface at 127.0.0.1, on this machine. */
function reachOf(o: SignalSimulatorOptions, server: SignalServer): Reach {
  const unitId = o.unitId ?? 1;
  if (o.protocol === 'modbus-rtu') {
    const line = serialOf(o);
    return { protocol: 'modbus-rtu', device: line.applianceDevice ?? line.path, baudRate: line.baudRate, parity: line.parity, unitId };
  }
  const listen = listenOf(o);
  const host = everywhere(listen.host) ? '127.0.0.1' : listen.host;
  const port = server.port ?? listen.port;
  return o.protocol === 'opcua' ? { protocol: 'opcua', endpoint: `opc.tcp://${host}:${port}` } : { protocol: 'modbus-tcp', host, port, unitId };
}
