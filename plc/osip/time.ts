// Telegram dates: 14 digits `yyyyMMddHHmmss` in the driver's time zone
// (docs/plc.md ("Telegram catalogue"); OpenWMS defaults to UTC in code, a site may set Europe/Berlin).

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(epochMs: number, timeZone: string): Fields {
  if (timeZone === 'UTC') {
    const d = new Date(epochMs);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
    };
  }
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(epochMs)) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return out as unknown as Fields;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Writes an instant as `yyyyMMddHHmmss` in the given zone (milliseconds are dropped). */
export function formatTelegramDate(date: Date, timeZone: string): string {
  const f = wallClock(date.getTime(), timeZone);
  return pad(f.year, 4) + pad(f.month, 2) + pad(f.day, 2) + pad(f.hour, 2) + pad(f.minute, 2) + pad(f.second, 2);
}

const DATE = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/**
 * Reads `yyyyMMddHHmmss` as a wall-clock time in the given zone; undefined when it
 * is not 14 digits or not a real date/time (month 13, 31 February, hour 24).
 */
export function parseTelegramDate(text: string, timeZone: string): Date | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 31 February into March; a round trip catches it.
  const check = new Date(asUtc);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  if (timeZone === 'UTC') return check;
  // The zone's offset at the guessed instant, corrected once for a DST boundary.
  const offsetAt = (t: number) => {
    const w = wallClock(t, timeZone);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - t;
  };
  let t = asUtc - offsetAt(asUtc);
  const second_ = asUtc - offsetAt(t);
  if (second_ !== t) t = second_;
  return new Date(t);
}
