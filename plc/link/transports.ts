// The link of a channel's transport (docs/plc.md "Channels"): tcp-server listens (and
// turns away peers not in allowFrom), tcp-client dials, serial opens the device; the
// last two retry on the channel's backoff. The session (session.ts) does not care which.

import type { ChannelConfig } from '../config.ts';
import { AllowList } from './allow-list.ts';
import type { Link, LinkContext } from './link.ts';
import { SerialLink } from './serial.ts';
import { TcpClientLink } from './tcp-client.ts';
import { TcpServerLink } from './tcp-server.ts';

export function openLink(config: ChannelConfig, context: LinkContext, options: { backoffMs?: readonly number[] | undefined; refused: () => void }): Link {
  const c = config;
  const backoff = options.backoffMs ? { backoffMs: options.backoffMs } : {};
  return c.transport === 'tcp-server'
    ? new TcpServerLink({ host: c.host!, port: c.port!, allowFrom: c.allowFrom ? new AllowList(c.allowFrom) : undefined, refused: options.refused }, context)
    : c.transport === 'tcp-client'
      ? new TcpClientLink({ host: c.host!, port: c.port!, ...backoff }, context)
      : new SerialLink({ device: c.device!, baudRate: c.baudRate, ...backoff }, context);
}

/** What the link of `config` listens on, dials or opens, before it exists. */
export function configuredEndpoint(c: ChannelConfig): string {
  return c.transport === 'serial' ? `serial ${c.device} @ ${c.baudRate} 8N1` : `${c.transport === 'tcp-server' ? 'listen' : 'connect'} ${c.host}:${c.port}`;
}
