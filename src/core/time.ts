// Timestamps travel as ISO-8601 strings. We always write UTC with exactly three
// fractional digits and `Z` (what the spec's clients sort and compare on), and we
// accept what the spec says clients send: 0, 3 or up to 9 fractional digits, `Z` or
// a numeric offset. Sub-millisecond digits are truncated, not rounded, so a value
// never moves into the next millisecond.

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/;

/** The current instant, formatted for the API. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Formats epoch milliseconds for the API. */
export function formatIso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/**
 * Parses an API timestamp and returns it normalised to `YYYY-MM-DDTHH:mm:ss.SSSZ`,
 * or `undefined` when the text is not a valid ISO-8601 date-time with a zone.
 */
export function parseIso(text: string): string | undefined {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone] = m;
  const year = Number(y),
    month = Number(mo),
    day = Number(d);
  const hour = Number(h),
    minute = Number(mi),
    second = Number(s);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Number((frac + '000').slice(0, 3));
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC silently rolls 31 February into March; a round trip catches it.
  const check = new Date(local);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== undefined) {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2)),
      om = Number(digits.slice(2, 4));
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  return new Date(local - offsetMinutes * 60_000).toISOString();
}
