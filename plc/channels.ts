// The configured PLC channels together: started and stopped with the appliance, shown
// by the diagnostics route, and the directory the adapter sends unsolicited telegrams
// through (plc/osip/port.ts ChannelDirectory; docs/routing.md).

import { asActor } from '../src/core/actor.ts';
import type { Logger } from '../src/core/log.ts';
import type { UnitOfWork } from '../src/core/unit-of-work.ts';
import { Channel, type ChannelSnapshot } from './channel.ts';
import type { PlcConfig } from './config.ts';
import { fieldFromCoordinate } from './osip/index.ts';
import type { ChannelDirectory, ReplyInput, TelegramHandler } from './osip/port.ts';
import type { TelegramLog } from './telegram-log.ts';

/** Locations remembered with the channel that last reported them (a warehouse has fewer). */
const MAX_REPORTED = 100_000;

export interface PlcChannelsOptions {
  /** Link retry delays (tests); default BACKOFF_MS. */
  backoffMs?: readonly number[];
  /** Records channel state changes as events (`plcChannel.stateChanged`), for live views and alarms. */
  work?: UnitOfWork;
  /** Keeps every telegram received and sent. */
  telegramLog?: TelegramLog;
}

export class PlcChannels implements ChannelDirectory {
  private readonly channels = new Map<string, Channel>();
  /** `c:<coordinate>` and `f:<20-character field>` → channel name, least recently reported first. */
  private readonly reported = new Map<string, string>();
  private readonly log: Logger;
  private started = false;

  constructor(config: PlcConfig, log: Logger, options: PlcChannelsOptions = {}) {
    this.log = log;
    for (const channelConfig of config.channels) {
      const channel = new Channel({
        config: channelConfig,
        hostName: config.hostName,
        timeZone: config.timeZone,
        log,
        locationReported: (name, coordinate, field) => this.noteReported(name, coordinate, field),
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

  /** In configuration order. */
  list(): Channel[] {
    return [...this.channels.values()];
  }

  /**
   * Starts every channel with the adapter. Rejects (with every channel stopped again)
   * when a tcp-server channel cannot listen: a PLC port that is taken is a
   * deployment error, found at start-up.
   */
  async start(handler: TelegramHandler): Promise<void> {
    if (this.started) throw new Error('PLC channels already started');
    this.started = true;
    for (const channel of this.channels.values()) {
      try {
        await channel.start(handler);
      } catch (err) {
        await this.stop();
        (err as Error).message = `PLC channel ${channel.name}: ${(err as Error).message}`;
        throw err;
      }
    }
    if (this.channels.size > 0) this.log.info({ channels: this.list().map((c) => c.name) }, 'PLC channels started');
  }

  async stop(): Promise<void> {
    await Promise.all(this.list().map((c) => c.stop()));
  }

  snapshot(): ChannelSnapshot[] {
    return this.list().map((c) => c.snapshot());
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
