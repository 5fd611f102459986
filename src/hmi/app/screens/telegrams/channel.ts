import { signal } from '@preact/signals';
import { get } from '../../api.ts';
import type { LiveEvent } from '../../live.ts';
import type * as Wire from '../../../../contract/replies.ts';

// The PLC channels as the monitor shows them (docs/plc.md, "Diagnostics"): every
// channel's state for the tabs, read once and then followed by `plcChannel.stateChanged`;
// the shown channel's counters read again every second (counters change with every
// telegram, and no event carries them). The appliance's clock is taken from the replies'
// `Date` header: the log's times and the chart's minutes are the appliance's, not the
// panel's, whose clock may be off.

export const CHANNEL_STATES = ['DISABLED', 'WAITING', 'LINKED', 'ONLINE', 'STALE', 'CLOSED'] as const;

export type ChannelCounters = Wire.ChannelCounters;

/** A channel as the telegram monitor shows it: as read, its state kept up by the channel's events (which name it as text). */
export type Channel = Pick<
  Wire.ChannelSnapshot,
  'name' | 'transport' | 'enabled' | 'since' | 'endpoint' | 'peer' | 'connections' | 'lastRx' | 'lastTx' | 'counters' | 'lateAfterMs'
> & { state: string };

/** The channels by name, in the appliance's order; undefined before the first read. */
export const channels = signal<Channel[] | undefined>(undefined);

/** Milliseconds the appliance's clock is ahead of this browser's. */
let skew = 0;

function noteServerDate(headers: Headers): void {
  const date = Date.parse(headers.get('date') ?? '');
  if (!Number.isNaN(date)) skew = date - Date.now();
}

/** Now on the appliance's clock (to the second its `Date` header gives). */
export const serverNow = (): number => Date.now() + skew;

export async function loadChannels(): Promise<void> {
  const reply = await get<Channel[]>('/v1/plc-channels');
  noteServerDate(reply.headers);
  channels.value = reply.body;
}

/** Reads one channel again and puts it in place. */
export async function refreshChannel(name: string): Promise<Channel> {
  const reply = await get<Channel>(`/v1/plc-channels/${encodeURIComponent(name)}`);
  noteServerDate(reply.headers);
  replace(name, (c) => ({ ...c, ...reply.body }));
  return reply.body;
}

/** A state change as the event says it: shown at once, without waiting for the next read. */
export function onStateChanged(event: LiveEvent<'plcChannel.stateChanged'>): void {
  const { name, state } = event.data;
  replace(name, (c) => ({ ...c, state, since: event.at }));
}

function replace(name: string, change: (c: Channel) => Channel): void {
  const list = channels.value;
  if (!list) return;
  channels.value = list.map((c) => (c.name === name ? change(c) : c));
}

/** The newest time the appliance reported traffic on the channel: where "the newest telegrams" end. */
export function lastTraffic(channel: Channel | undefined): number | undefined {
  const times = [channel?.lastRx, channel?.lastTx].filter((t): t is string => !!t).map(Date.parse);
  return times.length ? Math.max(...times) : undefined;
}
