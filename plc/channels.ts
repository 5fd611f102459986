// The configured PLC channels together: started and stopped with the appliance, shown
// by the diagnostics route, and the directory the adapter sends unsolicited telegrams
// through (plc/osip/port.ts ChannelDirectory; docs/routing.md). The OSIP channels
// (plc.channels) and the signal channels (plc.signals, plc/signals/) share one name
// space and one diagnostics list; only OSIP channels are told of new routes (a signal
// PLC asks at its scanner).

import type { ResendKeeper } from './osip/resends.ts';
import { asActor } from '../src/core/actor.ts';
import type { Logger } from '../src/core/log.ts';
import type { UnitOfWork } from '../src/core/unit-of-work.ts';
import { Channel, type ChannelSnapshot } from './channel.ts';
import type { PlcConfig } from './config.ts';
import type { PlcOperations } from './port.ts';
import { SignalChannel, type SignalChannelSnapshot } from './signals/channel.ts';
import { loadDriver } from './signals/drivers.ts';
import { SIGNAL_TYPE, signalText, type SignalLog } from './signals/log.ts';
import { fieldFromCoordinate, osipOptions } from './osip/index.ts';
import type { ChannelDirectory, ReplyInput, TelegramHandler } from './osip/port.ts';
import { decoded, type DecodedRecord, type TelegramLog, type TelegramRecord } from './telegram-log.ts';

/** Locations remembered with the channel that last reported them (a warehouse has fewer). */
const MAX_REPORTED = 100_000;

interface PlcChannelsOptions {
  /** Link retry delays (tests); default BACKOFF_MS. */
  backoffMs?: readonly number[];
  /** Records channel state changes as events (`plcChannel.stateChanged`), for live views and alarms. */
  work?: UnitOfWork;
  /** Keeps every telegram received and sent. */
  telegramLog?: TelegramLog;
  /** Keeps every change a signal channel acted on and every value it wrote. */
  signalLog?: SignalLog;
  /** The data directory (an OPC UA driver keeps its certificates there). */
  dataDir?: string;
  /** A box of a pair: the OSIP channels' duplicate caches kept in the database too. */
  keeper?: ResendKeeper;
}

/** Telegrams decoded between two turns of the event loop (about a millisecond's work). */
const DECODE_RUN = 100;

export class PlcChannels implements ChannelDirectory {
  private readonly channels = new Map<string, Channel>();
  private readonly signals = new Map<string, SignalChannel>();
  /** `c:<coordinate>` and `f:<20-character field>` → channel name, least recently reported first. */
  private readonly reported = new Map<string, string>();
  private readonly log: Logger;
  private started = false;
  /** The site's answer budget (plc.lateAfterMs): later answers are late, on every channel. */
  readonly lateAfterMs: number;

  constructor(config: PlcConfig, log: Logger, options: PlcChannelsOptions = {}) {
    this.log = log;
    this.lateAfterMs = config.lateAfterMs;
    for (const channelConfig of config.channels) {
      const channel = new Channel({
        config: channelConfig,
        hostName: config.hostName,
        timeZone: config.timeZone,
        log,
        locationReported: (name, coordinate, field) => this.noteReported(name, coordinate, field),
        keeper: options.keeper,
        ...(options.backoffMs ? { backoffMs: options.backoffMs } : {}),
      });
      const { work, telegramLog } = options;
      if (work) {
        channel.on('state', (state, from, reason) =>
          asActor({ kind: 'plc', name: channel.name }, () =>
            work.run(() =>
              work.emit({ type: 'plcChannel.stateChanged', key: channel.name, data: { name: channel.name, state, from, ...(reason ? { reason } : {}) } }),
            ),
          ),
        );
      }
      if (telegramLog) channel.on('telegram', (entry) => telegramLog.record(channel.name, entry));
      this.channels.set(channel.name, channel);
    }
    for (const signalConfig of config.signals ?? []) {
      const channel = new SignalChannel({
        config: signalConfig,
        log,
        driver: (c) => loadDriver(c, { log: log.child({ channel: c.name }), dataDir: options.dataDir, backoffMs: options.backoffMs }),
      });
      const { work, signalLog } = options;
      if (work) {
        channel.on('state', (state, from, reason) =>
          asActor({ kind: 'plc', name: channel.name }, () =>
            work.run(() =>
              work.emit({ type: 'plcChannel.stateChanged', key: channel.name, data: { name: channel.name, state, from, ...(reason ? { reason } : {}) } }),
            ),
          ),
        );
      }
      if (signalLog) channel.on('logged', (entry) => signalLog.record(channel.name, entry));
      this.signals.set(channel.name, channel);
    }
  }

  /** A channel by name; throws for a name that is not configured. */
  channel(name: string): Channel {
    const channel = this.channels.get(name);
    if (!channel) throw new Error(`no PLC channel named ${JSON.stringify(name)}`);
    return channel;
  }

  find(name: string): Channel | undefined {
    return this.channels.get(name);
  }

  /**
   * Logged telegrams with their fields: decoded with each one's channel's settings of
   * now (a channel since removed: the defaults); a signal channel's row as its point,
   * address and value. A decode costs some microseconds and a page holds up to a
   * thousand: they are decoded a run at a time, with a turn of the event loop between
   * runs, so that a PLC's telegram arriving meanwhile is not held up by a page.
   */
  async withFields(records: readonly TelegramRecord[]): Promise<DecodedRecord[]> {
    const all: DecodedRecord[] = [];
    for (let i = 0; i < records.length; i += DECODE_RUN) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      for (const record of records.slice(i, i + DECODE_RUN)) all.push(this.fieldsOf(record));
    }
    return all;
  }

  private fieldsOf(record: TelegramRecord): DecodedRecord {
    if (record.type === SIGNAL_TYPE) return { ...record, fields: signalText(record.text) as Record<string, unknown> | null };
    return decoded(record, this.channels.get(record.channel)?.osip ?? osipOptions());
  }

  /** The OSIP channels, in configuration order. */
  list(): Channel[] {
    return [...this.channels.values()];
  }

  /** The signal channels, in configuration order. */
  signalChannels(): SignalChannel[] {
    return [...this.signals.values()];
  }

  findSignals(name: string): SignalChannel | undefined {
    return this.signals.get(name);
  }

  /** Every channel's name and state, OSIP and signal channels (for the alarms). */
  states(): { name: string; state: string }[] {
    return [...this.list(), ...this.signalChannels()].map((c) => ({ name: c.name, state: c.state }));
  }

  /**
   * Starts every channel with the adapter. Rejects (with every channel stopped again)
   * when a tcp-server channel cannot listen: a PLC port that is taken is a
   * deployment error, found at start-up.
   */
  async start(handler: TelegramHandler, operations?: PlcOperations): Promise<void> {
    if (this.started) throw new Error('PLC channels already started');
    this.started = true;
    const all = [
      ...this.list().map((c) => ({ name: c.name, start: () => c.start(handler) })),
      ...this.signalChannels().map((c) => ({
        name: c.name,
        start: () => {
          if (!operations) throw new Error('signal channels need the warehouse operations');
          return c.start(operations);
        },
      })),
    ];
    for (const channel of all) {
      try {
        await channel.start();
      } catch (err) {
        await this.stop();
        (err as Error).message = `PLC channel ${channel.name}: ${(err as Error).message}`;
        throw err;
      }
    }
    if (all.length > 0) this.log.info({ channels: all.map((c) => c.name) }, 'PLC channels started');
  }

  async stop(): Promise<void> {
    await Promise.all([...this.list().map((c) => c.stop()), ...this.signalChannels().map((c) => c.stop())]);
  }

  /** The OSIP channels' diagnostics. */
  snapshot(): ChannelSnapshot[] {
    return this.list().map((c) => c.snapshot());
  }

  /** The signal channels' diagnostics. */
  signalSnapshot(): SignalChannelSnapshot[] {
    return this.signalChannels().map((c) => c.snapshot());
  }

  // ---- ChannelDirectory ------------------------------------------------------------

  private noteReported(channel: string, coordinate: string, field: string): void {
    for (const key of [`c:${coordinate}`, `f:${field}`]) {
      this.reported.delete(key); // re-inserted at the end: the most recent report
      this.reported.set(key, channel);
    }
    while (this.reported.size > MAX_REPORTED) this.reported.delete(this.reported.keys().next().value!);
  }

  ownerOf(locationId: string, groupNames: readonly string[]): string | undefined {
    const direct = this.reported.get(`c:${locationId}`);
    if (direct) return direct;
    // `CONV/1/2/0/0` travels as `CONV0001000200000000`, reported back as `CONV/0001/0002/0000/0000`.
    try {
      const byField = this.reported.get(`f:${fieldFromCoordinate(locationId)}`);
      if (byField) return byField;
    } catch {
      // Not writable as 5 × 4 characters: no PLC reported it in that form.
    }
    for (const group of groupNames) {
      const owner = this.list().find((c) => c.config.locationGroups.includes(group));
      if (owner) return owner.name;
    }
    return undefined;
  }

  sendUnsolicited(channelName: string, telegram: ReplyInput): boolean {
    return this.channels.get(channelName)?.sendUnsolicited(telegram) ?? false;
  }
}
