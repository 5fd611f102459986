import { DomainError } from '../../core/errors.ts';

// The message keys of the alarms module (docs/events.md, "Alarms"). The refusal of a
// cleared alarm shares its words with the event that cleared it.

export const ALARM_KEYS = {
  cleared: 'alarm.cleared',
} as const;

/** 409: an operator acts on an alarm that is cleared meanwhile. */
export const alarmCleared = (id: number, clearedAt: string | null, nothingTo: 'acknowledge' | 'shelve') =>
  new DomainError(409, ALARM_KEYS.cleared, `Alarm [${id}] was cleared at ${clearedAt}; there is nothing to ${nothingTo}`, { obj: [id] });
