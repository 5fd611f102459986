import { language } from '../../i18n.ts';

// Numbers and times of telegrams in the user's language: milliseconds to three
// significant digits at most (0.412, 4.21, 142), times to the millisecond.

export const formatNumber = (ms: number): string => new Intl.NumberFormat(language.value, { maximumSignificantDigits: ms >= 1000 ? 4 : 3 }).format(ms);

export const formatMs = (ms: number): string => `${formatNumber(ms)} ms`;

export const formatClock = (iso: string): string =>
  new Intl.DateTimeFormat(language.value, { hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3, hour12: false }).format(
    new Date(iso),
  );

export const formatMinute = (ms: number): string =>
  new Intl.DateTimeFormat(language.value, { hour: '2-digit', minute: '2-digit', hour12: false }).format(new Date(ms));
