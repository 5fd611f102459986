import { hasText, t } from './i18n.ts';

// An alarm in the user's words. The appliance writes each alarm's message in English and
// keeps the values it is made of by name (`params`, docs/events.md "Alarms"); the text
// here is the catalogue's `alarms.message.<kind>` with those values filled in. A kind
// whose alarms may carry an optional value has a second text for it,
// `alarms.message.<kind>.<name>`, used when that value is given. An alarm this HMI has
// no text for, or one that lacks a value its text needs (raised before the values were
// kept), shows the appliance's own message.

export interface AlarmWords {
  kind: string;
  message: string;
  /** Absent in events and alarms of an appliance that does not keep them. */
  params?: Readonly<Record<string, string | number>> | undefined;
}

const PLACEHOLDER = /\{(\w+)\}/g;

export function alarmText({ kind, message, params = {} }: AlarmWords): string {
  const base = `alarms.message.${kind}`;
  if (!hasText(base)) return message;
  const variant = Object.keys(params).find((name) => hasText(`${base}.${name}`));
  const key = variant === undefined ? base : `${base}.${variant}`;
  const needed = [...t(key).matchAll(PLACEHOLDER)].map((m) => m[1]!);
  return needed.every((name) => name in params) ? t(key, params) : message;
}
