// The signal benchmark's conveyor: its signals as the PLC exposes them (OPC UA node ids or
// Modbus addresses), the appliance's channel over them, and the site over REST that gives
// every scan a real routing decision.
//
// Two copies of the signals live in the one PLC: set A for the appliance's channel, set B
// for the bare baseline client, so that neither sees the other's load.

import type { Appliance } from '../bench-plc/appliance.ts';

export type Protocol = 'opcua' | 'modbus-tcp';
export type SignalSet = 'A' | 'B';

export const AREA = 'SIGB';
/** The conveyor locations with a plcState word each; location n has PLC code n. */
export const WORDS = 50;
export const MAX_SCANNERS = 50;
/** Written by the handshake when routing has no next location (a PLC's reject lane). */
export const FALLBACK = 999;
export const BARCODE_WORDS = 10;

export const conveyor = (n: number) => `${AREA}/0001/${String(n).padStart(4, '0')}/0000/0000`;
export const scanner = (n: number) => `${AREA}/0002/${String(n).padStart(4, '0')}/0000/0000`;
export const STOCK = `${AREA}/0003/0001/0000/0000`;
/** Where scanner s (0-based) sends a unit: its hop, a conveyor location (1-based number = PLC code). */
export const hopOf = (s: number) => ((s * 5) % WORDS) + 1;

/** Where one scanner's signals are. */
export interface ScannerSignals {
  barcode: string;
  trigger: string;
  target: string;
  done: string;
}

interface SetSignals {
  /** The plcState word of conveyor location i + 1. */
  words: string[];
  scanners: ScannerSignals[];
  heartbeat: string;
}

const two = (n: number) => String(n).padStart(2, '0');

/** OPC UA node ids in namespace 1 (`ns=1;s=A.C01.Error`), as the benchmark's server names them. */
export function opcuaSignals(set: SignalSet, scanners: number): SetSignals {
  const node = (name: string) => `ns=1;s=${set}.${name}`;
  return {
    words: Array.from({ length: WORDS }, (_, i) => node(`C${two(i + 1)}.Error`)),
    scanners: Array.from({ length: scanners }, (_, s) => ({
      barcode: node(`S${two(s + 1)}.Code`),
      trigger: node(`S${two(s + 1)}.New`),
      target: node(`S${two(s + 1)}.Target`),
      done: node(`S${two(s + 1)}.Ack`),
    })),
    heartbeat: node('Host.Life'),
  };
}

/**
 * Modbus addresses (0-based), set B 1000 above set A: plcState words hr:100–149, targets
 * hr:150–199, barcodes hr:200… (10 registers each), triggers coil:0…, done coil:100…,
 * heartbeat hr:900. The watched ones (words, triggers) are two requests per poll.
 */
export function modbusSignals(set: SignalSet, scanners: number): SetSignals {
  const base = set === 'A' ? 0 : 1000;
  return {
    words: Array.from({ length: WORDS }, (_, i) => `hr:${base + 100 + i}`),
    scanners: Array.from({ length: scanners }, (_, s) => ({
      barcode: `hr:${base + 200 + BARCODE_WORDS * s}*${BARCODE_WORDS}`,
      trigger: `coil:${base + s}`,
      target: `hr:${base + 150 + s}`,
      done: `coil:${base + 100 + s}`,
    })),
    heartbeat: `hr:${base + 900}`,
  };
}

export const signalsOf = (protocol: Protocol, set: SignalSet, scanners: number) =>
  protocol === 'opcua' ? opcuaSignals(set, scanners) : modbusSignals(set, scanners);

interface ChannelTiming {
  /** OPC UA: the monitored items' sampling interval (publishing: the same, at least 20 ms). */
  samplingMs: number;
  /** Modbus: the poll period. */
  pollMs: number;
}

/** The appliance's signal channel over set A: a plcState per conveyor location, an arrival per scanner, a heartbeat. */
export function channelConfig(
  protocol: Protocol,
  where: { endpoint?: string; port?: number },
  scanners: number,
  timing: ChannelTiming,
): Record<string, unknown> {
  const s = signalsOf(protocol, 'A', scanners);
  const at = (address: string) => (protocol === 'opcua' ? { node: address } : { address });
  const points = [
    ...s.words.map((address, i) => ({ kind: 'plcState', location: conveyor(i + 1), ...at(address) })),
    ...s.scanners.map((sc, i) => ({
      kind: 'arrival',
      location: scanner(i + 1),
      barcode: sc.barcode,
      trigger: sc.trigger,
      target: sc.target,
      done: sc.done,
      fallback: FALLBACK,
      ...(protocol === 'opcua' ? { targetType: 'word' } : {}),
    })),
    { kind: 'heartbeat', ...at(s.heartbeat), periodMs: 1000 },
  ];
  return protocol === 'opcua'
    ? { name: 'SIG1', protocol, endpoint: where.endpoint, securityMode: 'None', samplingMs: timing.samplingMs, points }
    : { name: 'SIG1', protocol, host: '127.0.0.1', port: where.port, unitId: 1, pollMs: timing.pollMs, timeoutMs: 1000, points };
}

export interface Site {
  /** Coordinate → pKey of the conveyor locations. */
  pKey: Map<string, string>;
  barcodes: string[];
}

/**
 * Over REST: group SIGB with SIGB-CONV (the 50 conveyor locations, PLC codes 1–50),
 * SIGB-SCAN (the scanners) and a stock location; a route SIGB-SCAN → stock whose hop
 * from each scanner leads to a conveyor location; `units` transport units on the last
 * conveyor location, each with a STARTED order to the stock location (never reached).
 * A scan books the unit onto the scanner (a move, committed), finds its order, searches
 * the route and answers the hop's PLC code.
 */
export async function createSite(app: Appliance, scanners: number, units: number): Promise<Site> {
  await app.api('POST', '/v1/location-groups', { name: AREA, parentName: 'WAREHOUSE' });
  await app.api('POST', '/v1/location-groups', { name: `${AREA}-CONV`, parentName: AREA });
  await app.api('POST', '/v1/location-groups', { name: `${AREA}-SCAN`, parentName: AREA });
  const pKey = new Map<string, string>();
  for (let n = 1; n <= WORDS; n++) {
    const created = await app.api('POST', '/v1/locations', { locationId: conveyor(n), locationGroupName: `${AREA}-CONV`, plcCode: String(n) });
    pKey.set(conveyor(n), created.pKey);
  }
  for (let n = 1; n <= scanners; n++) await app.api('POST', '/v1/locations', { locationId: scanner(n), locationGroupName: `${AREA}-SCAN` });
  await app.api('POST', '/v1/locations', { locationId: STOCK, locationGroupName: AREA });
  const route = await app.api('POST', '/v1/api/routes', {
    name: `${AREA}-STOCK`,
    sourceLocationGroupName: `${AREA}-SCAN`,
    targetLocationName: STOCK,
    enabled: true,
  });
  await app.api(
    'PUT',
    `/v1/api/routes/${route.key}/hops`,
    Array.from({ length: scanners }, (_, s) => ({ source: scanner(s + 1), next: conveyor(hopOf(s)) })),
  );
  const barcodes = Array.from({ length: units }, (_, i) => `SB${String(i + 1).padStart(5, '0')}`);
  for (const barcode of barcodes) {
    await app.api('POST', '/v1/transport-units', { barcode, actualLocation: conveyor(WORDS), transportUnitType: 'EURO' });
    const order = await app.api('POST', '/v1/transport-orders', { barcode, targetLocation: STOCK });
    if (order.state !== 'STARTED') throw new Error(`order of ${barcode} is ${order.state}, not STARTED`);
  }
  return { pKey, barcodes };
}
