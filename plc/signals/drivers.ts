import type { Logger } from '../../src/core/log.ts';
import type { SignalChannelConfig } from './config.ts';
import type { SignalDriver } from './driver.ts';

// The protocol of a signal channel, loaded when a channel of that protocol starts: a site
// with Modbus PLCs loads no OPC UA code, and one without signal channels neither
// (docs/plc.md). Each protocol module exports `createDriver`.

/** What a protocol module is given besides its channel's configuration. */
export interface DriverContext {
  log: Logger;
  /** The appliance's data directory (an OPC UA client keeps its certificates there). */
  dataDir: string | undefined;
  /** Reconnect delays (tests); default the link's (1 s, 2 s, 5 s, then every 10 s). */
  backoffMs?: readonly number[] | undefined;
}

interface DriverModule {
  createDriver(config: SignalChannelConfig, context: DriverContext): SignalDriver;
}

async function moduleOf(protocol: SignalChannelConfig['protocol']): Promise<DriverModule> {
  switch (protocol) {
    case 'modbus-tcp':
    case 'modbus-rtu':
      return import('./modbus/driver.ts');
    case 'opcua':
      return import('./opcua/driver.ts');
  }
}

/** The driver of a channel's protocol; throws one line saying why not when it cannot be loaded. */
export async function loadDriver(config: SignalChannelConfig, context: DriverContext): Promise<SignalDriver> {
  let module: DriverModule;
  try {
    module = await moduleOf(config.protocol);
  } catch (err) {
    throw new Error(`the ${config.protocol} driver cannot be loaded (${(err as Error).message.split('\n')[0]})`);
  }
  if (typeof module.createDriver !== 'function') throw new Error(`the ${config.protocol} driver module has no createDriver`);
  return module.createDriver(config, context);
}
