import client from 'prom-client';
import { CHANNEL_STATES, type Channel, type TelegramLogEntry } from './channel.ts';
import { TELEGRAM_TYPES } from './osip/index.ts';

// The PLC channels: every telegram in and out, how long replies took, and each
// channel's state and connection counters.
//
// Telegrams are counted from the channel's `telegram` event, the one the telegram log
// is filled from, so both see the same telegrams. States and connection counters are
// the channel's own figures, read at scrape time, not counted a second time.
//
// Every label value comes from a fixed set: channel names from the configuration,
// types from the OSIP catalogue (anything else a PLC sends is `other`), outcomes from
// the code. Barcodes and locations never become labels.
//
// The reply latency's buckets include the site's answer budget (plc.lateAfterMs), so
// the replies within it are a bucket's count and the late ones its complement.

/** Bucket bounds of the reply latency (seconds): a fast answer's sub-millisecond up to a second. */
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** The buckets with the answer budget among them (in order, once). */
const latencyBuckets = (lateAfterMs: number): number[] => [...new Set([...LATENCY_BUCKETS, lateAfterMs / 1000])].sort((a, b) => a - b);

const TYPE_OFFSET = 23;
const TYPE_END = 27;
const TYPES = new Set<string>(TELEGRAM_TYPES);
/** Outcomes are words of the code (`ok`, `unknown-location`, `reply`, …); anything else is `other`. */
const OUTCOME = /^[a-z][a-z0-9-]{0,39}$/;

/** The telegram type of a text, `other` when it names none of the catalogue (a rejected frame). */
const typeOf = (text: string) => {
  const type = text.slice(TYPE_OFFSET, TYPE_END);
  return TYPES.has(type) ? type : 'other';
};

/**
 * A counter per channel read from the channel's own counters at scrape time (OSIP and
 * signal channels alike): the figure the channel shows over REST, not counted twice.
 */
export function perChannel<C extends { name: string; counters: K }, K>(
  registry: client.Registry,
  name: string,
  help: string,
  channels: readonly C[],
  read: (counters: K) => number,
): client.Counter<'channel'> {
  return new client.Counter({
    name,
    help,
    labelNames: ['channel'],
    registers: [registry],
    collect() {
      this.reset();
      for (const channel of channels) this.inc({ channel: channel.name }, read(channel.counters));
    },
  });
}

export class PlcMetrics {
  private readonly telegrams: client.Counter<'channel' | 'direction' | 'type' | 'outcome'>;
  private readonly latency: client.Histogram<'channel' | 'type'>;

  constructor(registry: client.Registry, channels: readonly Channel[], lateAfterMs: number) {
    const registers = [registry];
    this.telegrams = new client.Counter({
      name: 'wms_plc_telegrams_total',
      help: 'PLC telegrams received (in) and written (out), by channel, telegram type and outcome',
      labelNames: ['channel', 'direction', 'type', 'outcome'],
      registers,
    });
    this.latency = new client.Histogram({
      name: 'wms_plc_reply_latency_seconds',
      help: `Time from a telegram arriving to its reply being written (REQ_ → RES_: type RES_), by channel and reply type; later than ${lateAfterMs / 1000} s (plc.lateAfterMs) is late`,
      labelNames: ['channel', 'type'],
      buckets: latencyBuckets(lateAfterMs),
      registers,
    });
    new client.Gauge({
      name: 'wms_plc_channel_state',
      help: 'State of each PLC channel: 1 for the state it is in, 0 for the others',
      labelNames: ['channel', 'state'],
      registers,
      collect() {
        this.reset();
        for (const channel of channels) {
          for (const state of CHANNEL_STATES) this.set({ channel: channel.name, state }, channel.state === state ? 1 : 0);
        }
      },
    });
    new client.Counter({
      name: 'wms_plc_channel_state_entries_total',
      help: 'Entries of each PLC channel into each state (ONLINE more than once: the PLC came back)',
      labelNames: ['channel', 'state'],
      registers,
      collect() {
        this.reset();
        for (const channel of channels) {
          for (const state of CHANNEL_STATES) this.inc({ channel: channel.name, state }, channel.counters.stateChanges[state]);
        }
      },
    });
    const fromCounters = (name: string, help: string, read: (c: Channel['counters']) => number) => perChannel(registry, name, help, channels, read);
    fromCounters(
      'wms_plc_connections_total',
      'Connections of each PLC channel opened (accepted, dialled, serial device opened); more than one: reconnects',
      (c) => c.connections,
    );
    fromCounters(
      'wms_plc_connections_superseded_total',
      'Connections closed because the PLC connected anew (a reconnect before the old socket timed out)',
      (c) => c.superseded,
    );
    fromCounters('wms_plc_connections_refused_total', "Connections from addresses not in the channel's allowFrom, closed at once", (c) => c.refusedPeers);
    fromCounters('wms_plc_connections_gave_way_total', 'Connections that had sent no valid telegram, closed to make room for a newer one', (c) => c.gaveWay);

    for (const channel of channels) channel.on('telegram', (entry) => this.telegram(channel.name, entry));
  }

  /** One telegram in or out of a channel. */
  private telegram(channel: string, entry: TelegramLogEntry): void {
    const type = typeOf(entry.text);
    this.telegrams.inc({ channel, direction: entry.direction, type, outcome: OUTCOME.test(entry.outcome) ? entry.outcome : 'other' });
    // Replies carry the time since their telegram arrived; one that was not sent answered nobody.
    if (entry.direction === 'out' && entry.latencyMs !== undefined && entry.outcome !== 'not-sent') {
      this.latency.observe({ channel, type }, entry.latencyMs / 1000);
    }
  }
}
