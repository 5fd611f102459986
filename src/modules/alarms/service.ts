import { currentActor } from '../../core/actor.ts';
import { notFound, validationError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { nowIso } from '../../core/time.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { raiseOnCauses } from './causes.ts';
import { alarmCleared } from './errors.ts';
import { createAlarmRaising } from './raising.ts';
import type { Alarm, AlarmState, AlarmStore } from './store.ts';
import { createAlarmWatchers, type AlarmWatchOptions } from './watchers.ts';

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
// Alarms caused by a change are raised in the unit of work of that change (reactions,
// causes.ts), so the alarm and its cause commit together; the channels and the disk are
// watched by timers (watchers.ts). At most one alarm per condition is open; a repeat
// counts (raising.ts). Every change of an alarm is an event (`alarm.*`). Each alarm keeps,
// besides its English message, the values it is made of (`params`, by name), so that
// the HMI and other clients word it in their user's language. Here: the alarms as
// people see and handle them — the open ones, the journal of cleared ones, acknowledging
// and shelving.

/** The longest an alarm may be shelved: a week. */
export const MAX_SHELVE_MINUTES = 7 * 24 * 60;

interface AlarmDeps {
  work: UnitOfWork;
  store: AlarmStore;
  log: Logger;
  options: AlarmWatchOptions;
  /** True when a location group is available in and out (an ERR_ on it is over). */
  groupAvailable: (name: string) => boolean;
}

export function createAlarmService({ work, store, log, options, groupAvailable }: AlarmDeps) {
  const raising = createAlarmRaising({ work, store });
  const { emit, raise, clear } = raising;
  // The reactions to causes are registered once, here; the channel watch subscribes when it starts.
  raiseOnCauses({ work, store, raising, groupAvailable });
  const watchers = createAlarmWatchers({ work, store, log, options, raising });

  function byId(id: number): Alarm {
    const alarm = store.byId(id);
    if (!alarm) throw notFound(`Alarm [${id}] does not exist`, [id]);
    return alarm;
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

    ...watchers,

    /** How many open alarms wait for someone (not shelved now), by severity (metrics). */
    unshelvedBySeverity: () => store.unshelvedBySeverity(nowIso()),

    /** Deletes cleared alarms older than `before`, a batch at a time (retention). */
    prune: (before: string, batch: number) => store.prune(before, batch),
  };
}

export type AlarmService = ReturnType<typeof createAlarmService>;
