import { z } from 'zod';
import { notFound } from '../src/core/errors.ts';
import { decodeCursor, DEFAULT_PAGE, encodeCursor, MAX_PAGE } from '../src/core/paging.ts';
import { pageParams, timestampParam } from '../src/core/schema.ts';
import type { RequestContext } from '../src/http/context.ts';
import { indexRoute, link, ok, pageReply } from '../src/http/hal.ts';
import type { Route } from '../src/http/router.ts';
import type { ChannelSnapshot } from './channel.ts';
import type { PlcChannels } from './channels.ts';
import { listSerialPorts } from './link/ports.ts';
import { ChannelSnapshotSchema, SerialPortSchema, SignalChannelSnapshotSchema, TelegramLogEntrySchema } from './openapi.ts';
import type { SignalChannelSnapshot } from './signals/channel.ts';
import type { TelegramLog } from './telegram-log.ts';

// PLC channel diagnostics (docs/plc.md): state, peer, counters and the last 100
// telegrams of every configured channel, read-only; the durable telegram log of a
// channel, paged and decoded. Signal channels (OPC UA, Modbus) are listed beside the
// OSIP channels (`kind: 'signals'`) with the last value of every point, and their log
// of changes and writes. Plus the serial devices of the box, for whoever configures a
// serial channel.

const READ = 'plc-channels:read';
const BASE = '/v1/plc-channels';

/** Entry-index link of the PLC channels. */
export const plcIndexLinks = { 'plc-channel-index': `${BASE}/index` };

/** A channel as the diagnostics show it: its snapshot, the answer budget it is judged by, its link. */
const channelVO = (ctx: RequestContext, snapshot: ChannelSnapshot | SignalChannelSnapshot, lateAfterMs: number) => ({
  ...snapshot,
  lateAfterMs,
  links: [link(ctx, 'plc-channels-findbyname', `${BASE}/${encodeURIComponent(snapshot.name)}`)],
});

const AnyChannelSchema = z.union([ChannelSnapshotSchema, SignalChannelSnapshotSchema]);

const telegramQuery = z.object({
  direction: z.enum(['in', 'out']).optional(),
  type: z
    .string()
    .regex(/^[A-Z_]{4}$/, 'a telegram type of four characters, e.g. REQ_')
    .optional(),
  barcode: z.string().min(1).max(64).optional(),
  from: timestampParam.optional(),
  to: timestampParam.optional(),
  ...pageParams(DEFAULT_PAGE, MAX_PAGE),
});

/** `details=true` (anything else: without details). */
const serialPortQuery = z.object({ details: z.enum(['true', 'false']).optional() });

export function plcRoutes(channels: PlcChannels, telegramLog?: TelegramLog): Route[] {
  const routes: Route[] = [
    {
      method: 'GET',
      path: BASE,
      // The links' live state is the conveyor thread's (docs/realtime.md).
      thread: 'conveyor',
      grant: READ,
      link: 'plc-channels-findall',
      responseSchema: z.array(AnyChannelSchema),
      summary:
        "Every configured PLC channel: an OSIP channel's state, peer, last rx/tx, counters and last 100 telegrams; " +
        "a signal channel's (kind signals) protocol, state, counters, points with their last values, errors and reconnects.",
      handler: (ctx) => ok([...channels.snapshot(), ...channels.signalSnapshot()].map((s) => channelVO(ctx, s, channels.lateAfterMs))),
    },
    {
      method: 'GET',
      path: `${BASE}/{name}`,
      thread: 'conveyor',
      grant: READ,
      link: 'plc-channels-findbyname',
      responseSchema: AnyChannelSchema,
      summary: "One PLC channel by its name (an OSIP channel's 5-character name, or a signal channel's).",
      handler: (ctx) => {
        const name = ctx.param('name');
        const channel = channels.find(name) ?? channels.findSignals(name);
        if (!channel) throw notFound(`PLC channel [${name}] is not configured`, [name]);
        return ok(channelVO(ctx, channel.snapshot(), channels.lateAfterMs));
      },
    },
    ...(telegramLog ? [telegramRoute(channels, telegramLog)] : []),
    {
      method: 'GET',
      path: '/v1/plc-serial-ports',
      // The serial line binding loads where the channels run.
      thread: 'conveyor',
      optionalQuery: ['details'],
      grant: READ,
      link: 'plc-serial-ports',
      querySchema: serialPortQuery,
      responseSchema: z.array(SerialPortSchema),
      summary:
        "The serial devices of this box (/dev/serial/by-id, ttyS, ttyUSB, ttyACM) for a serial channel's device; details=true adds maker and serial number where udev can tell.",
      // Details load the serial addon and ask udevadm, so only on request.
      handler: async (ctx) => ok(await listSerialPorts({ details: ctx.query.get('details') === 'true' })),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the PLC channel diagnostics.'), ...routes];
}

function telegramRoute(channels: PlcChannels, telegramLog: TelegramLog): Route {
  return {
    method: 'GET',
    path: `${BASE}/{name}/telegrams`,
    grant: READ,
    link: 'plc-channel-telegrams',
    optionalQuery: ['direction', 'type', 'barcode', 'from', 'to', 'limit', 'after'],
    querySchema: telegramQuery,
    responseSchema: z.array(TelegramLogEntrySchema),
    summary:
      'The telegram log of a channel, oldest first, paged (limit ≤ 1000, default 100; Link rel="next"): time, direction, type, sequence number, text, ' +
      'decoded fields, outcome, barcode, location, transport order, and for a reply the milliseconds since its telegram arrived. ' +
      "A signal channel's log (type SIG_): every change it acted on (in) and value it wrote (out), its fields the point, address and value.",
    handler: async (ctx) => {
      const name = ctx.param('name');
      const channel = channels.find(name);
      const signals = channels.findSignals(name);
      const q = ctx.queryAs(telegramQuery);
      const after = q.after === undefined ? 0 : decodeCursor(q.after, ['id'] as const).id;
      const page = await telegramLog.page({ channel: name, direction: q.direction, type: q.type, barcode: q.barcode, from: q.from, to: q.to }, after, q.limit);
      if (!channel && !signals && page.items.length === 0 && after === 0)
        throw notFound(`PLC channel [${name}] is not configured and has no telegrams in the log`, [name]);
      const entries = await channels.withFields(page.items);
      return pageReply(ctx, entries, page.next === undefined ? undefined : encodeCursor({ id: page.next }));
    },
  };
}
