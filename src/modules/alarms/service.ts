import { statfsSync } from 'node:fs';
import { currentActor } from '../../core/actor.ts';
import { SUBJECT_KINDS, type EventRecord, type Subject, type SubjectKind } from '../../core/event-catalogue.ts';
import { notFound, validationError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { nowIso } from '../../core/time.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { NO_ROUTE_PROBLEM } from '../transport-orders/service.ts';
import { alarmCleared } from './errors.ts';
import type { Alarm, AlarmState, AlarmStore, NewAlarm } from './store.ts';

// Alarms the appliance raises and clears by itself from what it sees (docs/events.md):
//
//   location.plcState    a location reports plcState > 0; cleared at 0 (or when it is deleted)
//   plcChannel.down      a PLC channel not ONLINE for alarms.channelDownSeconds; cleared when ONLINE
//   plc.error            an ERR_ telegram from a PLC; cleared when its group is available in and out
//                        again, or, for an ERR_ without group, when acknowledged
//   transportOrder.failed  an order went ONFAILURE; cleared when acknowledged
//   transportOrder.noRoute an order whose unit has no route onwards; cleared when it has one or the order ends
//   backup.failed        a backup could not be taken; cleared by the next good one
//   disk.low             free space of the data directory below alarms.minFreeDiskMb; cleared above it
//
// Alarms caused by a change are raised in the unit of work of that change (reactions),
// so the alarm and its cause commit together. At most one alarm per condition is open;
// a repeat counts. Every change of an alarm is an event (`alarm.*`). Each alarm keeps,
// besides its English message, the values it is made of (`params`, by name), so that
// the HMI and other clients word it in their user's language.

const DISK_CHECK_MS = 30_000;
/** The longest an alarm may be shelved: a week. */
export const MAX_SHELVE_MINUTES = 7 * 24 * 60;

interface AlarmOptions {
  channelDownSeconds: number;
  minFreeDiskMb: number;
  /** Whose free space is watched. */
  dataDir: string;
}

interface AlarmDeps {
  work: UnitOfWork;
  store: AlarmStore;
  log: Logger;
  options: AlarmOptions;
  /** True when a location group is available in and out (an ERR_ on it is over). */
  groupAvailable: (name: string) => boolean;
}

/** The configured PLC channels and their states now (watched from the start). */
type ChannelStates = () => readonly { name: string; state: string }[];

const isSubject = (kind: string): kind is SubjectKind => (SUBJECT_KINDS as readonly string[]).includes(kind);

export function createAlarmService({ work, store, log, options, groupAvailable }: AlarmDeps) {
  const down = new Map<string, NodeJS.Timeout>();
  // The PLC side is built after the alarms and tells them its channels (watchChannels).
  let channels: ChannelStates = () => [];
  let diskTimer: NodeJS.Timeout | undefined;

  function byId(id: number): Alarm {
    const alarm = store.byId(id);
    if (!alarm) throw notFound(`Alarm [${id}] does not exist`, [id]);
    return alarm;
  }

  function emit(type: 'alarm.raised' | 'alarm.acknowledged' | 'alarm.shelved' | 'alarm.cleared', alarm: Alarm, extra: Record<string, unknown> = {}) {
    const refs: Subject[] = isSubject(alarm.source.kind) ? [{ kind: alarm.source.kind, key: alarm.source.key }] : [];
    const data = {
      alarmId: alarm.id,
      kind: alarm.kind,
      severity: alarm.severity,
      state: alarm.state,
      message: alarm.message,
      params: alarm.params,
      source: alarm.source,
      count: alarm.count,
      ...extra,
    };
    work.emit({ type, key: String(alarm.id), data, refs } as Parameters<UnitOfWork['emit']>[0]);
  }

  /** Raises an alarm for a condition, or counts a repeat of the open one. Joins a running unit of work. */
  function raise(alarm: NewAlarm): void {
    work.run(() => {
      const now = nowIso();
      const open = store.openFor(alarm.condition);
      if (open) store.repeat(open.id, alarm, now);
      const id = open?.id ?? store.insert(alarm, now);
      emit('alarm.raised', store.byId(id)!);
    });
  }

  /** Clears the open alarm of a condition, if there is one. Joins a running unit of work. */
  function clear(condition: string): void {
    work.run(() => {
      const open = store.openFor(condition);
      if (!open) return;
      store.clear(open.id, nowIso());
      emit('alarm.cleared', store.byId(open.id)!);
    });
  }

  // ---- what raises and clears them, inside the unit of work of the cause ------------

  work.react('location.stateChanged', (e) => {
    if (e.data.field !== 'plcState') return;
    const condition = `location.plcState:${e.data.locationId}`;
    const value = Number(e.data.value);
    if (value > 0) {
      raise({
        condition,
        kind: 'location.plcState',
        severity: 'major',
        message: `Location ${e.data.locationId} reports PLC state ${value}`,
        params: { location: e.data.locationId, plcState: value },
        source: { kind: 'location', key: e.data.locationId },
        clearsOnAck: false,
      });
    } else {
      clear(condition);
    }
  });
  work.react('location.deleted', (e) => clear(`location.plcState:${e.data.locationId}`));

  work.react('plcChannel.stateChanged', (e) => {
    if (e.data.state === 'ONLINE') clear(`plcChannel.down:${e.data.name}`);
  });

  work.react('plc.groupError', (e) => {
    const where = e.data.name === null ? '' : ` on location group ${e.data.name}`;
    raise({
      condition: `plc.error:${e.data.channel}:${e.data.name ?? ''}`,
      kind: 'plc.error',
      severity: 'major',
      message: `PLC ${e.data.channel} reports error ${e.data.code}${where}`,
      // The group is the alarm's source; without one, the channel is.
      params: e.data.name === null ? { channel: e.data.channel, code: e.data.code } : { channel: e.data.channel, code: e.data.code, group: e.data.name },
      source: e.data.name === null ? { kind: 'plcChannel', key: e.data.channel } : { kind: 'locationGroup', key: e.data.name },
      clearsOnAck: e.data.name === null,
    });
  });
  work.react('locationGroup.stateChanged', (e) => {
    if (e.data.value !== 'AVAILABLE' || !groupAvailable(e.data.name)) return;
    for (const alarm of store.openOfKind('plc.error')) {
      if (alarm.source.kind === 'locationGroup' && alarm.source.key === e.data.name) clear(alarm.condition);
    }
  });

  const orderEnded = (e: EventRecord<'transportOrder.finished' | 'transportOrder.canceled' | 'transportOrder.changed'>) => {
    if (['FINISHED', 'CANCELED', 'ONFAILURE', 'INTERRUPTED'].includes(e.data.state)) clear(`transportOrder.noRoute:${e.data.pKey}`);
  };
  work.react('transportOrder.finished', orderEnded);
  work.react('transportOrder.canceled', orderEnded);
  work.react('transportOrder.changed', (e) => {
    orderEnded(e);
    if (e.data.state === 'ONFAILURE' && e.data.from !== 'ONFAILURE') {
      raise({
        condition: `transportOrder.failed:${e.data.pKey}`,
        kind: 'transportOrder.failed',
        severity: 'minor',
        message: `Transport order ${e.data.pKey} of unit ${e.data.transportUnitBK} went ONFAILURE${e.data.message ? `: ${e.data.message}` : ''}`,
        // The problem is the order's own text, as whoever set it wrote it.
        params: { order: e.data.pKey, unit: e.data.transportUnitBK, ...(e.data.message ? { problem: e.data.message } : {}) },
        source: { kind: 'transportOrder', key: e.data.pKey },
        clearsOnAck: true,
      });
    }
    if (!e.data.fields.includes('message') || e.data.message === undefined) return;
    const condition = `transportOrder.noRoute:${e.data.pKey}`;
    if (e.data.message?.startsWith(NO_ROUTE_PROBLEM) && e.data.state === 'STARTED') {
      raise({
        condition,
        kind: 'transportOrder.noRoute',
        severity: 'major',
        message: `Transport order ${e.data.pKey}: unit ${e.data.transportUnitBK} has ${e.data.message}`,
        params: { order: e.data.pKey, unit: e.data.transportUnitBK, location: e.data.message.slice(NO_ROUTE_PROBLEM.length).trim() },
        source: { kind: 'transportOrder', key: e.data.pKey },
        clearsOnAck: false,
      });
    } else {
      clear(condition);
    }
  });

  work.react('backup.failed', (e) =>
    raise({
      condition: 'backup.failed',
      kind: 'backup.failed',
      severity: 'major',
      message: `A backup could not be taken: ${e.data.error}`,
      params: { error: e.data.error },
      source: { kind: 'backup', key: 'backup' },
      clearsOnAck: false,
    }),
  );
  work.react('backup.created', () => clear('backup.failed'));

  // ---- PLC channels that stay away, and the disk: watched by timers -----------------

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
  work.bus.on('plcChannel.stateChanged', (e) => watchChannel(e.data.name, e.data.state));

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

  const openStates = (state: readonly AlarmState[] | undefined) => {
    if (!state?.length) return store.open();
    return state.flatMap((s) => (s === 'cleared' ? [] : store.inState(s)));
  };

  return {
    byId,
    raise,
    clear,

    /** Open alarms (active and acknowledged): critical first, then the oldest. */
    open: (states?: readonly AlarmState[]) => openStates(states),

    /** The journal of cleared alarms, newest first: ids below `beforeId`. */
    cleared: (beforeId: number, limit: number) => store.cleared(beforeId, limit),

    /** An operator has seen the alarm. An alarm of an event with no lasting condition is cleared by it. */
    acknowledge(id: number, comment: string | undefined): Alarm {
      return work.run(() => {
        const alarm = byId(id);
        if (alarm.state === 'cleared') throw alarmCleared(id, alarm.clearedAt, 'acknowledge');
        if (alarm.state === 'active') {
          store.acknowledge(id, currentActor().name, comment ?? null, nowIso());
          emit('alarm.acknowledged', store.byId(id)!, { comment: comment ?? null });
        }
        if (alarm.clearsOnAck) clear(alarm.condition);
        return byId(id);
      });
    },

    /** Hides an open alarm from the active views for a while (it stays open; a repeat still counts). */
    shelve(id: number, minutes: number, comment: string | undefined): Alarm {
      if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_SHELVE_MINUTES) {
        throw validationError(`Validation failed: minutes: a whole number from 1 to ${MAX_SHELVE_MINUTES}`);
      }
      return work.run(() => {
        const alarm = byId(id);
        if (alarm.state === 'cleared') throw alarmCleared(id, alarm.clearedAt, 'shelve');
        const until = new Date(Date.now() + minutes * 60_000).toISOString();
        store.shelve(id, until, currentActor().name, comment ?? null);
        emit('alarm.shelved', store.byId(id)!, { until, comment: comment ?? null });
        return byId(id);
      });
    },

    /** The PLC channels to watch from the start (a channel that stays away raises plcChannel.down). */
    watchChannels(states: ChannelStates): void {
      channels = states;
    },

    /** Starts the watchers: the channels as they are now, and the disk. */
    start(): void {
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
      for (const timer of down.values()) clearTimeout(timer);
      down.clear();
      if (diskTimer) clearInterval(diskTimer);
      diskTimer = undefined;
    },

    /** How many open alarms wait for someone (not shelved now), by severity (metrics). */
    unshelvedBySeverity: () => store.unshelvedBySeverity(nowIso()),

    /** Deletes cleared alarms older than `before`, a batch at a time (retention). */
    prune: (before: string, batch: number) => store.prune(before, batch),
  };
}

export type AlarmService = ReturnType<typeof createAlarmService>;
