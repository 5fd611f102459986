import { SUBJECT_KINDS, type Subject, type SubjectKind } from '../../core/event-catalogue.ts';
import { nowIso } from '../../core/time.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import type { Alarm, AlarmStore, NewAlarm } from './store.ts';

// Raising and clearing an alarm, and the `alarm.*` event every change of one records.
// The reactions to causes (causes.ts), the timers (watchers.ts) and the operators'
// acknowledging (service.ts) all write through here, so that at most one alarm per
// condition is open and a repeat counts instead of opening another.

const isSubject = (kind: string): kind is SubjectKind => (SUBJECT_KINDS as readonly string[]).includes(kind);

interface AlarmRaisingDeps {
  work: UnitOfWork;
  store: AlarmStore;
}

export function createAlarmRaising({ work, store }: AlarmRaisingDeps) {
  /** Records a change of an alarm as an event; the alarm's source, when it is a subject of the event log, is its reference. */
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

  return { emit, raise, clear };
}

export type AlarmRaising = ReturnType<typeof createAlarmRaising>;
