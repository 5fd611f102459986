import type { RequestContext } from '../src/http/context.ts';
import { notFound } from '../src/core/errors.ts';
import { indexRoute, link, ok } from '../src/http/hal.ts';
import type { Route } from '../src/http/router.ts';
import type { ChannelSnapshot } from './channel.ts';
import type { PlcChannels } from './channels.ts';
import { listSerialPorts } from './link/ports.ts';

// PLC channel diagnostics (plc-osip.md §B3): state, peer, counters and the last 100
// telegrams of every configured channel, read-only. Plus the serial devices of the
// box, for whoever configures a serial channel.

const READ = 'plc-channels:read';
const BASE = '/v1/plc-channels';

/** Entry-index link of the PLC channels. */
export const plcIndexLinks = { 'plc-channel-index': `${BASE}/index` };

const channelVO = (ctx: RequestContext, snapshot: ChannelSnapshot) => ({
  ...snapshot,
  links: [link(ctx, 'plc-channels-findbyname', `${BASE}/${encodeURIComponent(snapshot.name)}`)],
});

export function plcRoutes(channels: PlcChannels): Route[] {
  const routes: Route[] = [
    {
      method: 'GET', path: BASE, grant: READ, link: 'plc-channels-findall',
      summary: 'Every configured PLC channel: state, peer, last rx/tx, counters and its last 100 telegrams.',
      handler: (ctx) => ok(channels.snapshot().map((s) => channelVO(ctx, s))),
    },
    {
      method: 'GET', path: `${BASE}/{name}`, grant: READ, link: 'plc-channels-findbyname',
      summary: 'One PLC channel by its 5-character name.',
      handler: (ctx) => {
        const name = ctx.param('name');
        const channel = channels.find(name);
        if (!channel) throw notFound(`PLC channel [${name}] is not configured`, [name]);
        return ok(channelVO(ctx, channel.snapshot()));
      },
    },
    {
      method: 'GET', path: '/v1/plc-serial-ports', optionalQuery: ['details'], grant: READ, link: 'plc-serial-ports',
      summary: 'The serial devices of this box (/dev/serial/by-id, ttyS, ttyUSB, ttyACM) for a serial channel\'s device; details=true adds maker and serial number where udev can tell.',
      // Details load the serial addon and ask udevadm, so only on request.
      handler: async (ctx) => ok(await listSerialPorts({ details: ctx.query.get('details') === 'true' })),
    },
  ];
  return [indexRoute(`${BASE}/index`, READ, routes, 'Links of the PLC channel diagnostics.'), ...routes];
}
