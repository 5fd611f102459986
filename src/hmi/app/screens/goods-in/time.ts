import { language } from '../../i18n.ts';

/** A time of day in the user's language, to the second. */
export const formatClock = (iso: string): string =>
  new Intl.DateTimeFormat(language.value, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).format(new Date(iso));
