import { statfsSync } from 'node:fs';
import type { Logger } from '../../core/log.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import type { AlarmRaising } from './raising.ts';
import type { AlarmStore } from './store.ts';

// The alarms no single change causes, watched by timers: a PLC channel that stays away
// from ONLINE for longer than alarms.channelDownSeconds, and the free space of the data
// directory. A channel going ONLINE clears its alarm as a reaction (causes.ts); the
// timers here only decide when staying away has lasted long enough to raise one.

const DISK_CHECK_MS = 30_000;

export interface AlarmWatchOptions {
  channelDownSeconds: number;
  minFreeDiskMb: number;
  /** Whose free space is watched. */
  dataDir: string;
}

/** The configured PLC channels and their states now (watched from the start). */
export type ChannelStates = () => readonly { name: string; state: string }[];

interface AlarmWatcherDeps {
  work: UnitOfWork;
  store: AlarmStore;
  log: Logger;
  options: AlarmWatchOptions;
  raising: AlarmRaising;
}

export function createAlarmWatchers({ work, store, log, options, raising }: AlarmWatcherDeps) {
  const { raise, clear } = raising;
  const down = new Map<string, NodeJS.Timeout>();
  // The PLC side is built after the alarms and tells them its channels (watchChannels).
  let channels: ChannelStates = () => [];
  let diskTimer: NodeJS.Timeout | undefined;

  function watchChannel(name: string, state: string): void {
    const timer = down.get(name);
    if (state === 'ONLINE' || state === 'DISABLED') {
      if (timer) clearTimeout(timer);
      down.delete(name);
      return;
    }
    if (timer) return; // already counting since it left ONLINE
    const started = Date.now();
    const t = setTimeout(() => {
      down.delete(name);
      const seconds = Math.round((Date.now() - started) / 1000);
      raise({
        condition: `plcChannel.down:${name}`,
        kind: 'plcChannel.down',
        severity: 'critical',
        message: `PLC channel ${name} has not been ONLINE for ${seconds} s (state ${state})`,
        params: { channel: name, seconds, state },
        source: { kind: 'plcChannel', key: name },
        clearsOnAck: false,
      });
    }, options.channelDownSeconds * 1000);
    t.unref();
    down.set(name, t);
  }
  let unwatch: (() => void) | undefined;

  function checkDisk(): void {
    let freeMb: number;
    try {
      const stat = statfsSync(options.dataDir);
      freeMb = Math.floor((stat.bavail * stat.bsize) / (1024 * 1024));
    } catch (err) {
      log.warn({ err, dataDir: options.dataDir }, 'alarms: cannot read the free space of the data directory');
      return;
    }
    const open = store.openFor('disk.low');
    if (freeMb < options.minFreeDiskMb) {
      // Raised once; not counted again every half minute while it lasts.
      if (!open) {
        raise({
          condition: 'disk.low',
          kind: 'disk.low',
          severity: 'critical',
          message: `Only ${freeMb} MB free in ${options.dataDir} (alarm below ${options.minFreeDiskMb} MB)`,
          params: { freeMb, dataDir: options.dataDir, minFreeMb: options.minFreeDiskMb },
          source: { kind: 'disk', key: options.dataDir },
          clearsOnAck: false,
        });
      }
    } else if (open) {
      clear('disk.low');
    }
  }

  return {
    /** The PLC channels to watch from the start (a channel that stays away raises plcChannel.down). */
    watchChannels(states: ChannelStates): void {
      channels = states;
    },

    /** Starts the watchers: the channels as they are now, and the disk. */
    start(): void {
      // Subscribed here, not when created: only the conveyor thread starts its modules, and
      // only there may a watcher raise an alarm (docs/realtime.md).
      unwatch = work.bus.on('plcChannel.stateChanged', (e) => watchChannel(e.data.name, e.data.state));
      const configured = new Set<string>();
      for (const channel of channels()) {
        configured.add(channel.name);
        watchChannel(channel.name, channel.state);
      }
      // A channel removed from the configuration cannot come back ONLINE.
      for (const alarm of store.openOfKind('plcChannel.down')) {
        if (!configured.has(alarm.source.key)) clear(alarm.condition);
      }
      checkDisk();
      diskTimer = setInterval(checkDisk, DISK_CHECK_MS);
      diskTimer.unref();
    },

    stop(): void {
      unwatch?.();
      unwatch = undefined;
      for (const timer of down.values()) clearTimeout(timer);
      down.clear();
      if (diskTimer) clearInterval(diskTimer);
      diskTimer = undefined;
    },
  };
}
