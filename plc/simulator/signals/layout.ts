// The simulated conveyor of signal mode and its point map: which signals it has, where
// each one lives in Modbus terms (`coil:0`, `hr:1000*10`) and in OPC UA terms
// (`ns=1;s=L1.Scan.New`), and the `plc.signals` entry the appliance needs to read and
// write them (docs/plc.md, "Signal channels"). Pure: the servers, the handshake driver
// and the command line all work from this one map.
//
// Every location of the layout is a conveyor segment with a scanner: an error word
// (plcState), an inbound and an outbound lock bit, and the arrival handshake's barcode,
// trigger, target and done. Each group of the layout has an availability word (bit 0 in,
// bit 1 out). The appliance writes a heartbeat counter; the simulator keeps a life
// counter of its own. Modbus addresses are grouped by kind, so the appliance reads the
// watched ones (error words, coils) in few requests:
//
//   hr:0            the appliance's heartbeat          ir:0     the simulator's life counter
//   hr:10 + g       group g's availability (bit 0 in, bit 1 out)
//   hr:100 + i      location i's error word (plcState)
//   coil:10·i + 0…3 location i's trigger, done, inbound lock, outbound lock
//   hr:1000 + 100·i location i's barcode (10 registers, 20 characters), then its target (text)
//
// This file is the simulator's own, independent of the appliance's plc/signals code: it
// is the other side of the wire.

/** The signal protocols the simulator serves. */
export const SIGNAL_PROTOCOLS = ['opcua', 'modbus-tcp', 'modbus-rtu'] as const;
export type SignalProtocol = (typeof SIGNAL_PROTOCOLS)[number];

type ValueKind = 'bit' | 'word' | 'text';
export type Value = boolean | number | string;

export type Role = 'plcState' | 'inboundLock' | 'outboundLock' | 'barcode' | 'trigger' | 'target' | 'done' | 'groupState' | 'heartbeat' | 'plcLife';

export type ModbusArea = 'coil' | 'di' | 'hr' | 'ir';

/** Where a signal lives on a Modbus device. */
interface ModbusPlace {
  area: ModbusArea;
  offset: number;
  /** Text: the registers it spans. */
  words?: number;
}

/** A location of the conveyor: a segment with a scanner. */
export interface Place {
  coordinate: string;
  /** The PLC code the appliance knows it by (its target when routing sends a unit there). */
  plcCode: string | undefined;
  /** 0-based, in the order given. */
  index: number;
  /** Its short name in OPC UA node ids: L1, L2, … */
  tag: string;
}

export interface Signal {
  /** `L1.trigger`, `G1.groupState`, `heartbeat`, `plcLife`. */
  id: string;
  role: Role;
  kind: ValueKind;
  /** Who writes it: the appliance (target, done, heartbeat) or the simulated PLC (everything else). */
  writer: 'appliance' | 'plc';
  modbus: ModbusPlace;
  /** The OPC UA node id. */
  node: string;
  place?: Place;
  group?: string;
  initial: Value;
}

/** Text of the arrival's barcode: 10 registers, the appliance's default. */
export const BARCODE_WORDS = 10;
/** Registers of a target at least: a 5 × 4 coordinate with its slashes is 24 characters. */
const MIN_TARGET_WORDS = 16;
const MAX_LOCATIONS = 100;
const MAX_GROUPS = 90;

export class LayoutError extends Error {}

/** `coil:0`, `hr:1000*10`: as the appliance's configuration writes a Modbus address. */
function modbusText(m: ModbusPlace): string {
  return `${m.area}:${m.offset}${m.words === undefined ? '' : `*${m.words}`}`;
}

/** The address a person reads: the Modbus address or the OPC UA node id. */
export function addressOf(signal: Signal, protocol: SignalProtocol): string {
  return protocol === 'opcua' ? signal.node : modbusText(signal.modbus);
}

const PART = /^[A-Za-z0-9_.-]{1,20}$/;
const PLC_CODE = /^[\x21-\x7e]{1,20}$/;
const GROUP = /^[^\s,]{1,64}$/;

function place(text: string, index: number): Place {
  const [coordinate = '', plcCode, ...more] = text.split('=');
  const parts = coordinate.split('/');
  if (parts.length !== 5 || !parts.every((p) => PART.test(p))) {
    throw new LayoutError(`"${coordinate}" is not a location coordinate AREA/AISLE/X/Y/Z (each part 1-20 of A-Z a-z 0-9 _ . -)`);
  }
  if (more.length > 0 || (plcCode !== undefined && !PLC_CODE.test(plcCode))) {
    throw new LayoutError(`"${text}": a PLC code after = is 1 to 20 printable characters without spaces`);
  }
  return { coordinate, plcCode, index, tag: `L${index + 1}` };
}

/** The items of repeated, comma-separated option values: `--locations A,B --locations C`. */
export const listOf = (values: readonly string[] | undefined): string[] =>
  (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');

/** The conveyor's locations and groups, and the signals they have. */
export class Layout {
  readonly places: readonly Place[];
  readonly groups: readonly string[];
  readonly signals: readonly Signal[];
  /** Characters a target holds (Modbus: two per register). */
  readonly targetChars: number;
  private readonly byId = new Map<string, Signal>();

  /** `locations`: `COORDINATE[=PLCCODE]`; throws LayoutError naming what is wrong. */
  constructor(locations: readonly string[], groups: readonly string[] = []) {
    if (locations.length === 0) throw new LayoutError("give the conveyor's locations: --locations COORDINATE[=PLCCODE],…");
    if (locations.length > MAX_LOCATIONS) throw new LayoutError(`at most ${MAX_LOCATIONS} locations, got ${locations.length}`);
    if (groups.length > MAX_GROUPS) throw new LayoutError(`at most ${MAX_GROUPS} groups, got ${groups.length}`);
    const places = locations.map(place);
    const seen = new Set<string>();
    for (const p of places) {
      for (const name of [p.coordinate, p.plcCode]) {
        if (name === undefined) continue;
        if (seen.has(name)) throw new LayoutError(`${name} is named twice in --locations`);
        seen.add(name);
      }
    }
    for (const g of groups) if (!GROUP.test(g)) throw new LayoutError(`"${g}" is not a group name (1 to 64 characters, no spaces or commas)`);
    if (new Set(groups).size !== groups.length) throw new LayoutError('a group is named twice in --groups');
    this.places = places;
    this.groups = [...groups];
    const longest = Math.max(...places.map((p) => Math.max(p.coordinate.length, p.plcCode?.length ?? 0)));
    const targetWords = Math.max(MIN_TARGET_WORDS, Math.ceil(longest / 2));
    this.targetChars = targetWords * 2;
    const signals: Signal[] = [];
    for (const p of places) {
      const hr = (offset: number, words?: number): ModbusPlace => ({ area: 'hr', offset, ...(words === undefined ? {} : { words }) });
      const coil = (n: number): ModbusPlace => ({ area: 'coil', offset: 10 * p.index + n });
      const text = 1000 + 100 * p.index;
      const at = (role: Role, kind: ValueKind, writer: Signal['writer'], modbus: ModbusPlace, node: string, initial: Value): Signal => ({
        id: `${p.tag}.${role}`,
        role,
        kind,
        writer,
        modbus,
        node: `ns=1;s=${p.tag}.${node}`,
        place: p,
        initial,
      });
      signals.push(
        at('plcState', 'word', 'plc', hr(100 + p.index), 'Error', 0),
        at('inboundLock', 'bit', 'plc', coil(2), 'LockIn', false),
        at('outboundLock', 'bit', 'plc', coil(3), 'LockOut', false),
        at('barcode', 'text', 'plc', hr(text, BARCODE_WORDS), 'Scan.Code', ''),
        at('trigger', 'bit', 'plc', coil(0), 'Scan.New', false),
        at('target', 'text', 'appliance', hr(text + BARCODE_WORDS, targetWords), 'Scan.Target', ''),
        at('done', 'bit', 'appliance', coil(1), 'Scan.Ack', false),
      );
    }
    this.groups.forEach((group, g) => {
      // Available in and out until the simulator is told otherwise.
      signals.push({
        id: `G${g + 1}.groupState`,
        role: 'groupState',
        kind: 'word',
        writer: 'plc',
        modbus: { area: 'hr', offset: 10 + g },
        node: `ns=1;s=G${g + 1}.Available`,
        group,
        initial: 3,
      });
    });
    signals.push(
      { id: 'heartbeat', role: 'heartbeat', kind: 'word', writer: 'appliance', modbus: { area: 'hr', offset: 0 }, node: 'ns=1;s=Host.Life', initial: 0 },
      { id: 'plcLife', role: 'plcLife', kind: 'word', writer: 'plc', modbus: { area: 'ir', offset: 0 }, node: 'ns=1;s=Plc.Life', initial: 0 },
    );
    this.signals = signals;
    for (const s of signals) this.byId.set(s.id, s);
  }

  /** A location by its coordinate or PLC code. */
  place(name: string): Place | undefined {
    return this.places.find((p) => p.coordinate === name || p.plcCode === name);
  }

  /** The signal of a location, a group or the conveyor (heartbeat, plcLife). */
  signal(role: Role, of?: Place | string): Signal {
    const id = of === undefined ? role : typeof of === 'string' ? `G${this.groups.indexOf(of) + 1}.${role}` : `${of.tag}.${role}`;
    const s = this.byId.get(id);
    if (!s) throw new Error(`the layout has no signal ${id}`);
    return s;
  }

  /** What a person calls the signal: `trigger at CONV/0001/0001/0000/0000`, `group CONV`, `heartbeat`. */
  describe(s: Signal): string {
    if (s.place) return `${s.role} at ${s.place.coordinate}`;
    if (s.group !== undefined) return `group ${s.group}`;
    return s.role;
  }
}

/** How the appliance reaches the simulator, for the printed entry. */
export type Reach =
  | { protocol: 'opcua'; endpoint: string }
  | { protocol: 'modbus-tcp'; host: string; port: number; unitId: number }
  | { protocol: 'modbus-rtu'; device: string; baudRate: number; parity: 'none' | 'even' | 'odd'; unitId: number };

type Entry = Record<string, unknown> & { points: Record<string, unknown>[] };

/** The channel entry of `plc.signals` that has the appliance read and write this conveyor. */
export function channelEntry(layout: Layout, name: string, reach: Reach): Entry {
  const opcua = reach.protocol === 'opcua';
  const at = (s: Signal) => (opcua ? s.node : modbusText(s.modbus));
  const own = (s: Signal) => (opcua ? { node: s.node } : { address: modbusText(s.modbus) });
  const points: Record<string, unknown>[] = [];
  for (const p of layout.places) {
    const sig = (role: Role) => layout.signal(role, p);
    points.push(
      { kind: 'plcState', location: p.coordinate, ...own(sig('plcState')) },
      { kind: 'inboundLock', location: p.coordinate, ...own(sig('inboundLock')) },
      { kind: 'outboundLock', location: p.coordinate, ...own(sig('outboundLock')) },
      { kind: 'arrival', location: p.coordinate, barcode: at(sig('barcode')), trigger: at(sig('trigger')), target: at(sig('target')), done: at(sig('done')) },
    );
  }
  for (const group of layout.groups) points.push({ kind: 'groupState', group, ...own(layout.signal('groupState', group)), ...(opcua ? { type: 'word' } : {}) });
  points.push({ kind: 'heartbeat', ...own(layout.signal('heartbeat')), plcLife: at(layout.signal('plcLife')) });
  const { protocol, ...connection } = reach;
  return { name, protocol, ...(opcua ? { ...connection, securityMode: 'None' } : connection), points };
}

/** One object on one line, `"key": value` as the configuration examples write it. */
const line = (o: Record<string, unknown>) =>
  `{${Object.entries(o)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(', ')}}`;

/** The entry as JSON, one point a line, ready to paste into `"plc": {"signals": [ … ]}`. */
export function formatEntry(entry: Entry): string[] {
  const { points, ...channel } = entry;
  const head = line(channel);
  return [`${head.slice(0, -1)},`, ' "points": [', ...points.map((p, i) => `  ${line(p)}${i < points.length - 1 ? ',' : ''}`), ' ]}'];
}
