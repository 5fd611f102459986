import { computed, signal } from '@preact/signals';
import { get } from './api.ts';
import { now } from './clock.ts';
import { readAgain } from './read-again.ts';
import { subscribe, type LiveEvent } from './live.ts';
import { ALARM_EVENTS } from './live-types.ts';
import { can } from './session.ts';
import { SoundSwitch, type Tone } from './sound.ts';
import type * as Wire from '../../contract/replies.ts';

// The open alarms, kept by the shell for every screen: the badge counts them wherever
// the user is, the alarms screen lists them, and a new critical alarm can sound. They
// are read from GET /v1/alarms and read again whenever an alarm event arrives (the
// list is short by nature; its order and counts are the appliance's).

export const SEVERITIES = ['critical', 'major', 'minor', 'warning'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** A severity's chip, filled in its colour (styles/tones.css). */
export const severityChip = (severity: string) => `chip sev sev-${severity} fill-${severity}`;

/** An alarm as the API sends it; alarm-text.ts words it in the user's language from its kind and `params`. */
export type Alarm = Wire.Alarm;

/** Open alarms (active and acknowledged) as last read; undefined before the first read. */
export const openAlarms = signal<Alarm[] | undefined>(undefined);
export const openAlarmsError = signal<unknown>(undefined);

/** Shelved now: its time is not up (the appliance's `shelved` is as of the read). */
export const isShelved = (alarm: Alarm, at: number) => alarm.shelvedUntil !== null && Date.parse(alarm.shelvedUntil) > at;

/** What the badge counts: active (unacknowledged) alarms that are not shelved. */
export const unacknowledged = computed(() => (openAlarms.value ?? []).filter((a) => a.state === 'active' && !isShelved(a, now.value)));

/** Reads the open alarms; a call while a read is under way reads once more after it. */
export const refreshAlarms = readAgain(async () => {
  try {
    openAlarms.value = (await get<Alarm[]>('/v1/alarms')).body;
    openAlarmsError.value = undefined;
  } catch (err) {
    openAlarmsError.value = err;
  }
});

/** Watches the alarms while the user may read them; returns the stop. */
export function watchAlarms(): () => void {
  if (!can('alarms:read')) return () => {};
  void refreshAlarms();
  const off = subscribe(ALARM_EVENTS, onAlarmEvent, () => void refreshAlarms());
  return () => {
    off();
    openAlarms.value = undefined;
  };
}

function onAlarmEvent(event: LiveEvent<(typeof ALARM_EVENTS)[number]>): void {
  // A new critical alarm, not a repeat of one already open.
  if (event.type === 'alarm.raised' && event.data.severity === 'critical' && event.data.count === 1) beep();
  void refreshAlarms();
}

// ---- sound on a new critical alarm: off until the user turns it on ---------------

/** Three short square-wave beeps at 880 Hz: heard over a conveyor, not mistaken for a phone. */
const CRITICAL: Tone = {
  wave: 'square',
  hz: 880,
  beeps: [
    [0, 0.15],
    [0.25, 0.15],
    [0.5, 0.15],
  ],
  end: 0.75,
};

const alarmSound = new SoundSwitch('wms.hmi.alarmSound');
export const soundOn = alarmSound.on;

export const setSound = (on: boolean): void => alarmSound.set(on, CRITICAL);

const beep = (): void => alarmSound.play(CRITICAL);
