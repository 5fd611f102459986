import { z } from 'zod';
import { COORDINATE_RULE, parseCoordinate } from '../../src/core/coordinate.ts';
import { isBitAddress, isWritable, parseModbusAddress } from './modbus/address.ts';

// The `plc.signals` section (docs/plc.md, "Signal channels"): one entry per PLC read
// and written as signals over OPC UA or Modbus, each with the points that map its
// signals onto the warehouse. Everything is checked here, at start, and named by its
// key (`plc.signals.1.points.0.address`): a point the protocol cannot address, a write
// to a read-only area, a key of the other protocol.

const coordinate = z.string().refine((v) => parseCoordinate(v) !== undefined, COORDINATE_RULE);
/** A protocol address: an OPC UA node id or a Modbus address; which one is checked with the channel's protocol. */
const address = z.string().min(1).max(512);
const words = z.union([z.literal(1), z.literal(2)]).optional();

const where = {
  /** OPC UA: the node id (`ns=3;s=Conv.C1.Error`). */
  node: address.optional(),
  /** Modbus: `hr:100`, `coil:7`, `hr:12.3`, … */
  address: address.optional(),
};

const plcStatePoint = z.strictObject({
  kind: z.literal('plcState'),
  location: coordinate,
  ...where,
  /** 2: a 32-bit value (two registers, high word first). */
  words,
});

const lockPoint = z.strictObject({
  kind: z.enum(['inboundLock', 'outboundLock']),
  location: coordinate,
  ...where,
});

const groupStatePoint = z.strictObject({
  kind: z.literal('groupState'),
  group: z.string().min(1),
  ...where,
  /** OPC UA: whether the node is a bit (true: available in and out) or a word (bit 0 in, bit 1 out); Modbus: from the address. */
  type: z.enum(['bit', 'word']).optional(),
});

const arrivalPoint = z.strictObject({
  kind: z.literal('arrival'),
  /** The decision point the scanner reads at. */
  location: coordinate,
  /** The scanner's barcode (text). */
  barcode: address,
  /** Rises when a new barcode is there. */
  trigger: address,
  /** Where the next location goes. */
  target: address,
  /** Set once `target` is written; cleared when `trigger` falls. */
  done: address,
  /** What `target` receives: the next location's PLC code (its coordinate when it has none), or its coordinate. */
  targetAs: z.enum(['plcCode', 'coordinate']).default('plcCode'),
  /** The type of `target`: a number (the PLC code as a number) or text. Modbus: from the address (`*W` is text); OPC UA: default text. */
  targetType: z.enum(['word', 'dword', 'string']).optional(),
  /** Written to `target` on a no-read, an unknown unit or no route; default 0 (a number) or the empty text. */
  fallback: z.union([z.number().int().min(0).max(4_294_967_295), z.string().max(250)]).optional(),
});

const heartbeatPoint = z.strictObject({
  kind: z.literal('heartbeat'),
  /** Where our counter is written (1, 2, … 65535, 1, …). */
  ...where,
  periodMs: z.number().int().min(50).max(3_600_000).default(1000),
  /** The PLC's own life counter, to watch (optional). */
  plcLife: address.optional(),
  /** The PLC's life counter not changing this long: the channel is STALE; default three periods. */
  staleMs: z.number().int().min(100).max(3_600_000).optional(),
});

const signalPointSchema = z.discriminatedUnion('kind', [plcStatePoint, lockPoint, groupStatePoint, arrivalPoint, heartbeatPoint]);

export type SignalPointConfig = z.infer<typeof signalPointSchema>;

/** Letters, digits, `_ . -`: a channel's name is part of its URL. */
const channelName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,32}$/, '1 to 32 letters, digits, _ . or -')
  .refine((n) => n !== 'index', 'index is the name of the module index (/v1/plc-channels/index)');

const signalChannelFields = z.strictObject({
  name: channelName,
  /** Off: configured, but not started. */
  enabled: z.boolean().default(true),
  protocol: z.enum(['opcua', 'modbus-tcp', 'modbus-rtu']),
  // OPC UA
  /** opc.tcp://host:port[/path] */
  endpoint: z
    .string()
    .regex(/^opc\.tcp:\/\/\S+$/, 'an OPC UA endpoint, opc.tcp://host:port')
    .optional(),
  securityMode: z.enum(['None', 'Sign', 'SignAndEncrypt']).optional(),
  user: z.string().min(1).optional(),
  password: z.string().min(1).optional(),
  /** How often the server samples the monitored items. */
  samplingMs: z.number().int().min(0).max(60_000).optional(),
  // Modbus TCP
  host: z.string().min(1).optional(),
  port: z.number().int().min(1).max(65535).optional(),
  // Modbus RTU
  device: z.string().min(1).optional(),
  baudRate: z.number().int().min(300).max(4_000_000).optional(),
  /** The Modbus specification's default is even parity. */
  parity: z.enum(['none', 'even', 'odd']).optional(),
  // Modbus
  /** The device's unit (slave) id. */
  unitId: z.number().int().min(0).max(255).optional(),
  /** How often the watched points are read. */
  pollMs: z.number().int().min(10).max(60_000).optional(),
  /** A request without an answer this long has failed. */
  timeoutMs: z.number().int().min(50).max(60_000).default(1000),
  points: z.array(signalPointSchema).min(1, 'a signal channel needs at least one point'),
});

const MODBUS_ONLY = ['host', 'port', 'device', 'baudRate', 'parity', 'unitId', 'pollMs'] as const;
const OPCUA_ONLY = ['endpoint', 'securityMode', 'user', 'password', 'samplingMs'] as const;

/** The addresses of a point, by key (`at`: the point's own node or address), whether each is written, whether it must be a bit. */
function addressesOf(p: SignalPointConfig): { key: string; value: string | undefined; write: boolean; bit?: boolean }[] {
  switch (p.kind) {
    case 'arrival':
      return [
        { key: 'barcode', value: p.barcode, write: false },
        { key: 'trigger', value: p.trigger, write: false, bit: true },
        { key: 'target', value: p.target, write: true },
        { key: 'done', value: p.done, write: true, bit: true },
      ];
    case 'heartbeat':
      return [
        { key: 'at', value: undefined, write: true },
        { key: 'plcLife', value: p.plcLife, write: false },
      ];
    case 'inboundLock':
    case 'outboundLock':
      return [{ key: 'at', value: undefined, write: false, bit: true }];
    default:
      return [{ key: 'at', value: undefined, write: false }];
  }
}

export const signalChannelSchema = signalChannelFields
  .superRefine((c, ctx) => {
    const opcua = c.protocol === 'opcua';
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    for (const key of opcua ? MODBUS_ONLY : OPCUA_ONLY) {
      if (c[key] !== undefined) issue([key], `applies to ${opcua ? 'Modbus' : 'OPC UA'} channels, not to protocol ${c.protocol}`);
    }
    if (opcua && c.endpoint === undefined) issue(['endpoint'], 'required for protocol opcua (opc.tcp://host:port)');
    if (c.protocol === 'modbus-tcp' && c.host === undefined) issue(['host'], 'required for protocol modbus-tcp (the device to connect to)');
    if (c.protocol === 'modbus-tcp' && c.device !== undefined) issue(['device'], 'applies to protocol modbus-rtu');
    if (c.protocol === 'modbus-rtu' && c.device === undefined) issue(['device'], 'required for protocol modbus-rtu (e.g. /dev/ttyUSB0)');
    if (c.protocol === 'modbus-rtu' && (c.host !== undefined || c.port !== undefined))
      issue([c.host !== undefined ? 'host' : 'port'], 'applies to protocol modbus-tcp');
    if ((c.user === undefined) !== (c.password === undefined)) issue([c.user === undefined ? 'user' : 'password'], 'user and password go together');
    c.points.forEach((p, i) => {
      const path = (key: string) => ['points', i, key];
      const own = opcua ? 'node' : 'address';
      const other = opcua ? 'address' : 'node';
      if (p.kind !== 'arrival') {
        if (p[other] !== undefined)
          issue(path(other), opcua ? 'an OPC UA point names its node id (node), not an address' : 'a Modbus point names its address (address), not a node');
        if (p[own] === undefined) issue(path(own), `required: the ${opcua ? 'node id' : 'Modbus address'} of the ${p.kind} signal`);
      }
      if (p.kind === 'groupState' && p.type !== undefined && !opcua) issue(path('type'), 'applies to OPC UA; a Modbus address says whether it is a bit');
      if (p.kind === 'arrival' && p.targetType !== undefined && !opcua)
        issue(path('targetType'), 'applies to OPC UA; a Modbus address says its type (hr:N*W is text)');
      if (p.kind === 'arrival') {
        const text = opcua ? (p.targetType ?? 'string') === 'string' : /\*\d+$/.test(p.target);
        if (p.targetAs === 'coordinate' && !text)
          issue(path('targetAs'), `a coordinate is text: the target must be text (${opcua ? 'targetType string' : 'hr:N*W'})`);
        if (p.fallback !== undefined && typeof p.fallback === 'string' && !text)
          issue(path('fallback'), 'the target is a number: the fallback must be one too');
      }
      if (p.kind === 'heartbeat' && p.staleMs !== undefined && p.plcLife === undefined)
        issue(path('staleMs'), "applies with plcLife (the PLC's life counter to watch)");
      if (opcua) return;
      for (const a of addressesOf(p)) {
        const key = a.key === 'at' ? 'address' : a.key;
        const text = a.key === 'at' ? (p as { address?: string }).address : a.value;
        if (text === undefined) continue;
        const parsed = parseModbusAddress(text);
        if (typeof parsed === 'string') {
          issue(path(key), parsed);
          continue;
        }
        if (a.write && !isWritable(parsed)) issue(path(key), `is written by the appliance: a coil or a holding register (hr), not ${parsed.area}`);
        if (a.bit && !isBitAddress(parsed)) issue(path(key), "must be a bit: coil:N, di:N or a register's bit hr:N.B");
        if (a.key === 'barcode' && parsed.area !== 'hr' && parsed.area !== 'ir') issue(path(key), 'a barcode is text in registers: hr:N*W or ir:N*W');
        if (a.key === 'barcode' && parsed.bit !== undefined) issue(path(key), 'a barcode is text in registers: hr:N*W or ir:N*W');
        if (a.key === 'target' && parsed.area !== 'hr') issue(path(key), 'the target is a holding register: hr:N, or hr:N*W for text');
        if (a.key === 'target' && parsed.bit !== undefined) issue(path(key), 'the target is a holding register: hr:N, or hr:N*W for text');
        if ((p.kind === 'plcState' || p.kind === 'heartbeat' || a.key === 'plcLife') && (isBitAddress(parsed) || parsed.words !== undefined)) {
          issue(path(key), 'must be a register: hr:N or ir:N');
        }
      }
    });
  })
  .transform((c) => {
    const modbus = c.protocol !== 'opcua';
    return {
      ...c,
      ...(c.protocol === 'opcua' ? { securityMode: c.securityMode ?? 'None', samplingMs: c.samplingMs ?? 100 } : {}),
      ...(modbus ? { unitId: c.unitId ?? 1, pollMs: c.pollMs ?? 100 } : {}),
      ...(c.protocol === 'modbus-tcp' ? { port: c.port ?? 502 } : {}),
      ...(c.protocol === 'modbus-rtu' ? { baudRate: c.baudRate ?? 19_200, parity: c.parity ?? 'even' } : {}),
    };
  });

export type SignalChannelConfig = z.infer<typeof signalChannelSchema>;
export type SignalProtocol = SignalChannelConfig['protocol'];
