// The event types screens subscribe to (live.ts `subscribe`), in a file of their own that
// imports nothing: bench:mixed (scripts/bench-mixed.ts) opens its event streams with the
// same types as an HMI page with the map and the alarm badge.

/** What the plan (the map) follows: locations, groups, units, routes. */
export const PLAN_EVENTS = [
  'location.created',
  'location.changed',
  'location.deleted',
  'location.stateChanged',
  'locationGroup.created',
  'locationGroup.changed',
  'locationGroup.deleted',
  'locationGroup.stateChanged',
  'transportUnit.created',
  'transportUnit.changed',
  'transportUnit.moved',
  'transportUnit.deleted',
  'route.created',
  'route.changed',
  'route.deleted',
  'route.hopsReplaced',
  'routing.defaultHopsReplaced',
] as const;

/** What the alarm badge and the alarm list follow. */
export const ALARM_EVENTS = ['alarm.raised', 'alarm.acknowledged', 'alarm.shelved', 'alarm.cleared'] as const;
