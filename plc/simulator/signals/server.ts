import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { compileFunction } from 'node:vm';
import type { ModbusSlaveOptions } from './modbus-slave.ts';
import type { OpcuaServerOptions } from './opcua-server.ts';

// The protocol side of signal mode: a server that holds the PLC memory for the appliance
// to read and write. Each protocol's library is loaded only for its protocol: Modbus
// (modbus-serial, which the appliance ships anyway) for modbus-tcp and modbus-rtu,
// node-opcua's server for opcua.
//
// From the sources the OPC UA server is imported by a computed name, so that a bundler
// following the appliance's imports does not pull node-opcua's server (megabytes) into
// the appliance's bundle. There it is a file of its own, `opcua-simulator.cjs` beside the
// bundle or an asset of the single executable (./opcua-bundle.ts); a build without it
// has no OPC UA mode, and says so.

export interface SignalServer {
  /** `Modbus TCP slave on 0.0.0.0:5020, unit 1`. */
  description: string;
  /** TCP: the port it listens on. */
  port?: number;
  /** Connection news worth a line: a session opened, the first request. */
  onNote(listener: (line: string) => void): void;
  close(): Promise<void>;
}

/** A port free right now, for `--listen …:0`: neither server library takes port 0. */
export async function freePort(host: string): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, host, resolve);
  });
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

type StartModbusSlave = (o: ModbusSlaveOptions) => Promise<SignalServer>;
type StartOpcuaServer = (o: OpcuaServerOptions) => Promise<SignalServer>;

/** The file (or single-executable asset) the OPC UA server is bundled into. */
export const OPCUA_SIMULATOR_ASSET = 'opcua-simulator.cjs';

/** This build has no OPC UA server: a bad argument for it, not a failure of the exchange. */
export class NotInThisBuild extends Error {}

/** A library that does not load is an installation fault: said in one line. */
async function loading<T>(library: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof NotInThisBuild) throw err;
    throw new Error(`the ${library} library cannot be loaded (${(err as Error).message.split('\n')[0]})`);
  }
}

export function loadModbusSlave(): Promise<StartModbusSlave> {
  return loading('Modbus', async () => (await import('./modbus-slave.ts')).startModbusSlave);
}

export function loadOpcuaServer(): Promise<StartOpcuaServer> {
  return loading('OPC UA', async () => {
    if (typeof import.meta.url === 'string') {
      // From the sources (`npm run plc:sim`): a name the bundler cannot follow.
      const file = new URL('./opcua-server.ts', import.meta.url).href;
      const loaded = (await import(file)) as typeof import('./opcua-server.ts');
      return loaded.startOpcuaServer;
    }
    const bundled = bundledOpcuaServer();
    if (!bundled) throw new NotInThisBuild(`OPC UA needs ${OPCUA_SIMULATOR_ASSET} beside the bundle (the build writes it there; copy it with wms.cjs)`);
    return bundled;
  });
}

interface Sea {
  isSea(): boolean;
  getAsset(key: string, encoding: string): string;
}

/** The OPC UA server's bundle (./opcua-bundle.ts), when the build ships it. */
function bundledOpcuaServer(): StartOpcuaServer | undefined {
  let sea: Sea | undefined;
  try {
    sea = process.getBuiltinModule('node:sea') as Sea | undefined;
  } catch {
    sea = undefined;
  }
  let exports: unknown;
  if (sea?.isSea()) {
    let text: string;
    try {
      text = sea.getAsset(OPCUA_SIMULATOR_ASSET, 'utf8');
    } catch {
      return undefined;
    }
    // A single executable has no file to require: the asset's text runs as a CommonJS
    // module; it requires only Node's own modules, which the executable's require serves.
    const module = { exports: {} as unknown };
    const run = compileFunction(text, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: OPCUA_SIMULATOR_ASSET });
    run(module.exports, require, module, OPCUA_SIMULATOR_ASSET, '.');
    exports = module.exports;
  } else {
    const file = path.join(__dirname, OPCUA_SIMULATOR_ASSET);
    if (!existsSync(file)) return undefined;
    exports = createRequire(__filename)(file);
  }
  const start = (exports as { startOpcuaServer?: StartOpcuaServer }).startOpcuaServer;
  return typeof start === 'function' ? start : undefined;
}
