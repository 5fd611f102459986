import { z } from 'zod';
import { COORDINATE_RULE, parseCoordinate } from '../src/core/coordinate.ts';
import { allowEntryProblem } from './link/allow-list.ts';
import { signalChannelSchema } from './signals/config.ts';

// The `plc` section of the configuration (docs/plc.md): our host name,
// the time zone of telegram dates, the answer time a PLC waits for, and one entry per
// PLC channel. src/config.ts holds
// it under `plc`; a channel list set by environment is JSON:
//   WMS_PLC_CHANNELS='[{"name":"CNV01","transport":"tcp-server","port":5020}]'
// Everything that can be wrong with a channel is found here, at start-up, and named
// by its key (`plc.channels.0.port`), not when the first PLC connects.

/** Exactly 5 printable ASCII characters: the width of the sender and receiver fields. */
const name5 = z.string().regex(/^[\x20-\x7e]{5}$/, 'exactly 5 printable ASCII characters');

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

const ms = (min: number) => z.number().int().min(min);

/**
 * The default answer budget: the conveyor's PLC waits this long for a reply before the
 * unit passes the diverter it decides (its own requirement: within 150 ms).
 */
export const LATE_AFTER_MS = 150;
/** A budget below a millisecond would call every answer late; above ten seconds, none. */
const LATE_AFTER_RANGE = { min: 1, max: 10_000 } as const;

const channelFields = z.strictObject({
  /** The PLC's 5-character name: the sender of its telegrams and the receiver of ours. */
  // `index` would be unreachable: GET /v1/plc-channels/index is the module index.
  name: name5.refine((n) => n !== 'index', 'index is the name of the module index (/v1/plc-channels/index)'),
  /** Off: configured, but not started (state DISABLED). */
  enabled: z.boolean().default(true),
  transport: z.enum(['tcp-server', 'tcp-client', 'serial']).default('tcp-server'),
  /** tcp-server: the address to listen on (default 0.0.0.0); tcp-client: the PLC to dial (required). */
  host: z.string().min(1).optional(),
  /** tcp-server: the port to listen on (0 picks a free one, for tests); tcp-client: the PLC's port. */
  port: z.number().int().min(0).max(65535).optional(),
  /**
   * tcp-server: the addresses (`10.0.5.20`) and CIDR ranges (`10.0.5.0/24`, IPv6 too) that
   * may connect; others are closed at once, counted and logged once. Unset: anyone that
   * reaches the port (OSIP has no authentication: keep the port on the conveyor network).
   */
  allowFrom: z
    .array(
      z.string().superRefine((entry, ctx) => {
        const problem = allowEntryProblem(entry);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    )
    .min(1, 'name at least one address, or leave allowFrom out')
    .optional(),
  /** serial: the device, e.g. /dev/ttyUSB0 or a /dev/serial/by-id/… name. */
  device: z.string().min(1).optional(),
  /** serial: 8N1 at this rate. At 9600 a 162-byte telegram alone takes 169 ms. */
  baudRate: z.number().int().min(50).max(4_000_000).default(38_400),
  framing: z.enum(['line', 'fixed', 'stxetx']).default('line'),
  /** `line` framing: what ends each telegram we send (we read up to LF in any case). */
  terminator: z.enum(['CRLF', 'LF', 'NONE']).default('CRLF'),
  /** `stxetx` framing: a BCC byte follows ETX, both ways. */
  bcc: z.boolean().default(false),
  telegramLength: z.number().int().min(129).max(99_999).default(160),
  /** Sequence number of a reply: the request's + 1 (OpenWMS RES_) or the same (`echo`); ACK_ always echoes. */
  replySeq: z.enum(['plus-one', 'echo']).default('plus-one'),
  /** No valid telegram for this long: STALE (the PLC should send SYNQ more often). */
  idleTimeoutMs: ms(10).default(60_000),
  /** No valid telegram for this long: the connection is dropped (OpenWMS's socket timeout). */
  staleTimeoutMs: ms(10).default(300_000),
  /** An identical telegram (same sender, sequence number and payload) this soon gets the cached reply (0 = off). */
  duplicateWindowMs: ms(0).default(30_000),
  /** May the host send unsolicited telegrams (move orders)? Off for half-duplex RS-485 lines. */
  unsolicited: z.boolean().default(true),
  /** ERR_ replies at most this often per second (0 = never), so a broken PLC cannot flood the line. */
  errorRepliesPerSecond: z.number().int().min(0).max(10_000).default(10),
  /** Location groups whose locations this PLC drives: the channel for unsolicited RES_. */
  locationGroups: z.array(z.string().min(1)).default([]),
  /** Our REQ_ weight/dimension extension in the filler area. */
  reqExtension: z.boolean().default(false),
  // The telegram handler's options (plc/osip/port.ts AdapterOptions).
  /** RES_ error code: our reason codes instead of the REQ_'s code echoed. */
  resReasonCodes: z.boolean().default(false),
  /** Answer UPDX with ACK_. */
  updx: z.boolean().default(false),
  /** Create an unknown TU at the reporting location, of this type. */
  autoCreateTu: z.boolean().default(false),
  autoCreateTuType: z.string().min(1).default('EURO'),
  /** How the location field is looked up. */
  locationAddressing: z.enum(['coordinate', 'plcCode', 'coordinateThenPlcCode']).default('coordinateThenPlcCode'),
  /** Where a no-read is sent, as a coordinate; none when unset. */
  noReadLocation: z
    .string()
    .refine((v) => parseCoordinate(v) !== undefined, COORDINATE_RULE)
    .optional(),
});

export const channelSchema = channelFields
  .superRefine((c, ctx) => {
    const need = (key: 'host' | 'port' | 'device', why: string) => {
      if (c[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: `required ${why}` });
    };
    if (c.transport === 'tcp-server' || c.transport === 'tcp-client') need('port', `for transport ${c.transport}`);
    if (c.transport === 'tcp-client') need('host', 'for transport tcp-client (the PLC to connect to)');
    if (c.transport === 'tcp-client' && c.port === 0) {
      ctx.addIssue({ code: 'custom', path: ['port'], message: "a tcp-client needs the PLC's port, not 0" });
    }
    if (c.transport === 'serial') need('device', 'for transport serial');
    if (c.allowFrom && c.transport !== 'tcp-server') {
      ctx.addIssue({ code: 'custom', path: ['allowFrom'], message: 'applies to transport tcp-server only (the appliance dials or opens the others)' });
    }
    if (c.staleTimeoutMs <= c.idleTimeoutMs) {
      ctx.addIssue({ code: 'custom', path: ['staleTimeoutMs'], message: `must be longer than idleTimeoutMs (${c.idleTimeoutMs})` });
    }
    if (c.framing === 'fixed' && c.terminator !== 'CRLF') {
      // Harmless, but a sign of a misunderstanding: fixed frames carry no terminator.
      ctx.addIssue({ code: 'custom', path: ['terminator'], message: 'applies to line framing only; fixed frames carry no terminator' });
    }
  })
  // A tcp-server listens on every interface unless told otherwise.
  .transform((c) => (c.transport === 'tcp-server' && c.host === undefined ? { ...c, host: '0.0.0.0' } : c));

export type ChannelConfig = z.infer<typeof channelSchema>;
export type ChannelConfigInput = z.input<typeof channelSchema>;
export type Transport = ChannelConfig['transport'];

export const plcConfigSchema = z
  .strictObject({
    /** Our 5-character name: the receiver of every telegram we accept and the sender of ours. */
    hostName: name5.default('MFC__'),
    /** IANA zone of the 14-digit telegram dates. */
    timeZone: z.string().refine(isTimeZone, 'not a known IANA time zone').default('UTC'),
    /**
     * An answer later than this (from the PLC's telegram or trigger to our reply or
     * target) is late: marked in the telegram monitor, a bucket bound of the reply
     * latency metric. The PLC's budget, not the appliance's own target.
     */
    lateAfterMs: z
      .number()
      .int('whole milliseconds')
      .min(LATE_AFTER_RANGE.min, `at least ${LATE_AFTER_RANGE.min} ms`)
      .max(LATE_AFTER_RANGE.max, `at most ${LATE_AFTER_RANGE.max} ms: a PLC that waits longer than that for an answer has given up`)
      .default(LATE_AFTER_MS),
    /** The durable telegram log of every channel: how long and how many telegrams are kept. */
    telegramLog: z
      .strictObject({
        keepDays: z.number().int().min(1).max(365).default(7),
        maxRows: z.number().int().min(1000).default(5_000_000),
      })
      .prefault({}),
    /** The PLC channels (none by default: the appliance then speaks no OSIP). */
    channels: z
      .array(channelSchema)
      .superRefine((channels, ctx) => {
        const names = new Map<string, number>();
        const listeners = new Map<string, number>();
        const devices = new Map<string, number>();
        channels.forEach((c, i) => {
          const clash = (seen: Map<string, number>, key: string, field: string, what: string) => {
            const first = seen.get(key);
            if (first === undefined) seen.set(key, i);
            else ctx.addIssue({ code: 'custom', path: [i, field], message: `${what} as channel ${first} (${channels[first]!.name})` });
          };
          clash(names, c.name, 'name', 'the same name');
          if (c.transport === 'tcp-server' && c.port !== 0) clash(listeners, `${c.host}:${c.port}`, 'port', 'listens on the same address and port');
          if (c.transport === 'serial') clash(devices, c.device!, 'device', 'the same device');
        });
      })
      .default([]),
    /**
     * The signal channels: PLCs read and written as signals over OPC UA or Modbus
     * (plc/signals/config.ts). Left out of the effective configuration when none are set.
     */
    signals: z.array(signalChannelSchema).optional(),
  })
  .superRefine((plc, ctx) => {
    plc.channels.forEach((c, i) => {
      if (c.name === plc.hostName) {
        ctx.addIssue({ code: 'custom', path: ['channels', i, 'name'], message: `is the host's own name (plc.hostName)` });
      }
    });
    // One name space for OSIP and signal channels (GET /v1/plc-channels/{name}), and a
    // serial device opened by one channel only.
    const names = new Map(plc.channels.map((c, i) => [c.name, `channel ${i} (plc.channels)`]));
    const devices = new Map<string, string>(
      plc.channels.flatMap((c, i) => (c.transport === 'serial' ? [[c.device!, `channel ${i} (${c.name})`] as const] : [])),
    );
    (plc.signals ?? []).forEach((s, i) => {
      const first = names.get(s.name);
      if (first) ctx.addIssue({ code: 'custom', path: ['signals', i, 'name'], message: `the same name as ${first}` });
      else names.set(s.name, `signal channel ${i}`);
      if (s.protocol !== 'modbus-rtu') return;
      const taken = devices.get(s.device!);
      if (taken) ctx.addIssue({ code: 'custom', path: ['signals', i, 'device'], message: `the same device as ${taken}` });
      else devices.set(s.device!, `signal channel ${i} (${s.name})`);
    });
  })
  .prefault({});

export type PlcConfig = z.infer<typeof plcConfigSchema>;
