import { z } from 'zod';
import { instant, LinkSchema } from '../src/http/openapi/representation.ts';
import { TelegramSchema } from '../src/modules/events/openapi.ts';
import { CHANNEL_STATES, REJECT_REASONS } from './channel.ts';
import type { ChannelConfig } from './config.ts';
import { LAYOUTS, TELEGRAM_TYPES, type FieldSpec } from './osip/index.ts';
import { SIGNAL_STATES } from './signals/channel.ts';

// The PLC channel diagnostics as schemas of the API description: a channel's snapshot
// with its counters and last telegrams, the telegram log with each telegram's decoded
// fields, and the serial devices of the box.

const TRANSPORTS = ['tcp-server', 'tcp-client', 'serial'] as const satisfies readonly ChannelConfig['transport'][];
const count = z.number().int().min(0);
const countsOf = <K extends string>(keys: readonly K[]) => z.object(Object.fromEntries(keys.map((k) => [k, count])) as Record<K, typeof count>);

export const ChannelCountersSchema = z
  .object({
    rxOk: count.meta({ description: 'Telegrams that passed the codec and the address check.' }),
    rxRejected: countsOf(REJECT_REASONS).meta({ description: 'Telegrams rejected before the adapter saw them, by reason.' }),
    outcomes: z.record(z.string(), count).meta({ description: 'What the adapter said of the telegrams it handled (`ok`, `unknown-location`, …).' }),
    tx: count.meta({ description: 'Telegrams written (replies, cached replies, unsolicited, ERR_).' }),
    duplicates: count.meta({ description: 'Identical resends answered from the cache.' }),
    resyncs: count.meta({ description: "Bytes dropped before a sync (the framer's resynchronisations)." }),
    overflows: count.meta({ description: 'Frames over the size limit, dropped.' }),
    bccErrors: count,
    partialFrames: count.meta({ description: 'Partial telegrams discarded because their connection dropped.' }),
    errorRepliesSuppressed: count.meta({ description: 'ERR_ replies not sent because of errorRepliesPerSecond.' }),
    repliesDropped: count.meta({ description: 'Replies not sent because their connection had gone.' }),
    warnings: count.meta({ description: 'Date or length fields the codec tolerated.' }),
    connections: count.meta({ description: 'Connections opened.' }),
    superseded: count.meta({ description: 'Connections closed because the PLC connected anew.' }),
    refusedPeers: count.meta({ description: 'Connections from addresses not in allowFrom, closed at once.' }),
    gaveWay: count.meta({ description: 'Connections that had sent no valid telegram, closed to make room for a newer one.' }),
    stateChanges: countsOf(CHANNEL_STATES).meta({ description: 'Entries into each state.' }),
  })
  .meta({ id: 'PlcChannelCounters', description: 'The counters of a PLC channel since the appliance started.' });

/** An entry of a channel's last telegrams (plc/osip/protocol.ts TelegramLogEntry). */
const ChannelTelegramSchema = z
  .object({
    direction: z.enum(['in', 'out']),
    at: instant,
    text: z.string().meta({ description: 'The telegram without its framing; a rejected frame as received.' }),
    outcome: z.string().meta({
      description:
        "in: `ok`, the adapter's outcome, `duplicate`, `sync` or the reject reason; out: `reply`, `cached-reply`, `unsolicited`, `error-reply`, `not-sent`.",
    }),
    connection: z.number().int().optional(),
    barcode: z.string().optional(),
    location: z.string().optional(),
    order: z.string().optional(),
    latencyMs: z.number().optional().meta({ description: "A reply: milliseconds from its telegram's arrival to the reply's write." }),
  })
  .meta({ id: 'PlcChannelTelegram', description: 'A telegram in or out of a channel, as its last-100 history keeps it.' });

/** The site's answer budget, shown with every channel (the telegram monitor marks later answers). */
const lateAfterMs = z
  .number()
  .int()
  .meta({ description: "The site's answer budget in ms (plc.lateAfterMs): a reply (latencyMs) or a written target later than this is late." });

export const ChannelSnapshotSchema = z
  .object({
    name: z.string().meta({ description: "The PLC's 5-character name." }),
    transport: z.enum(TRANSPORTS),
    enabled: z.boolean(),
    state: z.enum(CHANNEL_STATES),
    since: instant.meta({ description: 'When the channel entered its state.' }),
    endpoint: z.string().meta({ description: 'What the link listens on, dials or opens.' }),
    peer: z.string().nullable().meta({ description: "The active connection's remote address or device." }),
    connections: count.meta({ description: 'Open connections (tcp-server: also those not yet bound to the PLC).' }),
    lastRx: instant.nullable(),
    lastTx: instant.nullable(),
    counters: ChannelCountersSchema,
    telegrams: z.array(ChannelTelegramSchema).meta({ description: 'The last 100 telegrams, oldest first.' }),
    lateAfterMs: lateAfterMs,
    links: z.array(LinkSchema),
  })
  .meta({ id: 'PlcChannel', description: 'A configured PLC channel: state, peer, counters and its last 100 telegrams; links: `plc-channels-findbyname`.' });

/** A decoded field as JSON shows it (plc/osip/decode.ts readField); absent values are left out. */
function fieldSchemas(spec: FieldSpec): Record<string, z.ZodType> {
  const raw = `raw${spec.name[0]!.toUpperCase()}${spec.name.slice(1)}`;
  switch (spec.kind) {
    case 'barcode':
    case 'location':
      return { [spec.name]: z.string().optional(), [raw]: z.string().meta({ description: 'The field as sent.' }) };
    case 'group':
      return { [spec.name]: z.string().optional() };
    case 'errorCode':
      return { [spec.name]: z.string() };
    case 'date':
      return { [spec.name]: instant.optional() };
    case 'number':
      return { [spec.name]: count.optional() };
  }
}

/** One object per telegram type, from the codec's field tables (plc/osip/layout.ts): the description cannot drift from the codec. */
const DecodedTelegramSchema = z
  .discriminatedUnion(
    'type',
    TELEGRAM_TYPES.map((type) =>
      z.object({
        type: z.literal(type),
        header: z.object({ length: count, sender: z.string(), receiver: z.string(), seq: count }),
        ...Object.assign({}, ...LAYOUTS[type].map(fieldSchemas)),
      }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  )
  .meta({ id: 'DecodedTelegram', description: "A telegram's fields as the codec reads them, by type (the telegram catalogue of docs/plc.md)." });

/** The fields of a signal channel's entry (type SIG_; plc/signals/log.ts). */
const SignalFieldsSchema = z
  .object({
    point: z.string().meta({ description: 'The point within its channel: `p<index>` (configuration order), `p<index>.barcode|target|done` of an arrival.' }),
    address: z.string().meta({ description: 'The node id or Modbus address.' }),
    value: z.union([z.number(), z.boolean(), z.string()]),
  })
  .meta({ id: 'PlcSignalFields', description: 'A signal change or write: the point, its address and the value.' });

export const TelegramLogEntrySchema = TelegramSchema.extend({
  fields: z
    .union([DecodedTelegramSchema, SignalFieldsSchema])
    .nullable()
    .meta({ description: "The decoded fields (a signal channel's entry: point, address, value); null when the text does not decode (a rejected frame)." }),
}).meta({ id: 'PlcTelegramLogEntry', description: 'A telegram of the telegram log with its fields decoded.' });

export const SerialPortSchema = z
  .object({
    path: z.string().meta({ description: 'The device node, e.g. /dev/ttyUSB0.' }),
    byId: z.string().optional().meta({ description: 'Its stable name under /dev/serial/by-id, when udev made one.' }),
    manufacturer: z.string().optional(),
    serialNumber: z.string().optional(),
  })
  .meta({ id: 'SerialPort', description: 'A serial device of this box.' });

// ---- signal channels (plc/signals/) ------------------------------------------------------

const signalValue = z.union([z.number(), z.boolean(), z.string()]);

const SignalCountersSchema = z
  .object({
    changes: count.meta({ description: 'Value changes acted on.' }),
    repeats: count.meta({ description: 'Values read again unchanged (nothing done).' }),
    outcomes: z
      .record(z.string(), count)
      .meta({ description: 'What the warehouse said of the changes and arrivals (`ok`, `unknown-location`, `no-route`, …).' }),
    arrivals: count.meta({ description: 'Arrival handshakes (trigger rose).' }),
    writes: count.meta({ description: 'Values written and confirmed by the device (targets, done, …; heartbeats apart).' }),
    writeErrors: count,
    readErrors: count,
    effectErrors: count.meta({ description: 'Changes whose warehouse effect failed (nothing kept).' }),
    targetFallbacks: count.meta({
      description:
        'Arrivals whose next location could not be written to the target (a PLC code that does not fit, a write the device refused), answered with the fallback instead.',
    }),
    heartbeats: count.meta({ description: 'Heartbeat counters written.' }),
    stateChanges: countsOf(SIGNAL_STATES).meta({ description: 'Entries into each state.' }),
  })
  .meta({ id: 'PlcSignalCounters', description: 'The counters of a signal channel since the appliance started.' });

const SignalLogEntryShape = {
  at: instant,
  direction: z.enum(['in', 'out']).meta({ description: "in: a change read (or an arrival's barcode); out: a value written." }),
  point: z.string().meta({ description: 'The point within its channel: `p<index>` (configuration order), `p<index>.trigger|barcode|target|done`.' }),
  address: z.string().meta({ description: 'The node id or Modbus address.' }),
  value: signalValue,
  outcome: z
    .string()
    .meta({ description: "in: the warehouse's outcome (`ok`, `unknown-location`, `no-read`, `no-route`, …); out: `written` or `write-failed`." }),
  barcode: z.string().nullish(),
  location: z.string().nullish(),
  order: z.string().nullish(),
  latencyMs: z.number().nullish().meta({ description: 'A target written: milliseconds since the trigger rose.' }),
};

export const SignalChannelSnapshotSchema = z
  .object({
    name: z.string(),
    kind: z.literal('signals'),
    protocol: z.enum(['opcua', 'modbus-tcp', 'modbus-rtu']),
    enabled: z.boolean(),
    state: z.enum(SIGNAL_STATES),
    since: instant,
    endpoint: z.string().meta({ description: 'The OPC UA endpoint, host:port and unit, or the serial device.' }),
    counters: SignalCountersSchema,
    driver: z.record(z.string(), count).meta({
      description:
        "The protocol driver's counters: Modbus polls, reads, readErrors, writes, writeErrors, exceptions, timeouts, connects, reconnects, connectFailures; OPC UA reads, writes, errors, reconnects, notifications, connectFailures.",
    }),
    reconnects: count.meta({ description: 'Connections the driver opened again after one was lost.' }),
    points: z.array(
      z.object({
        id: z.string(),
        kind: z.enum(['plcState', 'inboundLock', 'outboundLock', 'groupState', 'arrival', 'heartbeat']),
        address: z.string(),
        location: z.string().optional(),
        group: z.string().optional(),
        value: signalValue.nullable().meta({ description: 'The last value read (a heartbeat without plcLife: the last counter written).' }),
        at: instant.nullable().meta({ description: 'When the value last changed.' }),
        errors: count,
        lastError: z.string().nullable(),
      }),
    ),
    errors: z.array(z.object({ at: instant, point: z.string().nullable(), message: z.string() })).meta({ description: 'The last 20 read and write errors.' }),
    recent: z.array(z.object(SignalLogEntryShape)).meta({ description: 'The last 100 changes and writes, oldest first.' }),
    lateAfterMs: lateAfterMs,
    links: z.array(LinkSchema),
  })
  .meta({
    id: 'PlcSignalChannel',
    description: 'A configured signal channel (OPC UA or Modbus): state, counters, the last value of every point, errors and reconnects.',
  });
