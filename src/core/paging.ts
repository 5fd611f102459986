import { validationError } from './errors.ts';

// Pages of a list that can grow without bound (history, the telegram log): `limit`
// rows after the opaque cursor `after`; the reply names the next page in a
// `Link: <…>; rel="next"` header while more may exist. Cursors are opaque to clients
// (base64url of the position), so their form can change without breaking anyone.

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

/** A position as a cursor. */
export function encodeCursor(position: Record<string, number>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** A cursor back to its position; 400 for one this appliance did not hand out. */
export function decodeCursor<K extends string>(cursor: string, keys: readonly K[]): Record<K, number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const position = parsed as Record<string, unknown> | undefined;
  const ok = !!position && typeof position === 'object' && keys.every((k) => Number.isSafeInteger(position[k]) && (position[k] as number) >= 0);
  if (!ok) throw validationError(`Validation failed: after: [${cursor}] is not a cursor of this list; use the one a Link header gave`);
  return position as Record<K, number>;
}

export interface ScanResult<T> {
  items: T[];
  /** Where the next page starts (an id), when more may exist. */
  next?: number | undefined;
}

/**
 * A page of rows of a table with increasing integer ids, read in windows of at most
 * `window` ids with a turn of the event loop between windows: a filter that matches
 * little in a big table costs many short reads, never one long one. After
 * `maxWindows` windows without a full page the partial page is answered with a cursor
 * that continues where the scan stopped.
 */
export async function scanById<T>(
  read: (afterId: number, uptoId: number, limit: number) => T[],
  idOf: (row: T) => number,
  range: { after: number; upto: number },
  limit: number,
  { window = 5000, maxWindows = 200 } = {},
): Promise<ScanResult<T>> {
  const items: T[] = [];
  let position = range.after;
  for (let windows = 0; position < range.upto; windows++) {
    if (windows >= maxWindows) return { items, next: position };
    if (windows > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const upto = Math.min(position + window, range.upto);
    const rows = read(position, upto, limit - items.length + 1);
    for (const row of rows) {
      if (items.length === limit) return { items, next: idOf(items[items.length - 1]!) };
      items.push(row);
    }
    position = upto;
  }
  return { items };
}

/** A key of a keyset list (core/listing.ts) as a cursor. */
export function encodeKeyCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** A cursor back to its key, whose parts have these kinds; 400 for one this appliance did not hand out. */
export function decodeKeyCursor(cursor: string, kinds: readonly ('string' | 'number')[]): (string | number)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const ok = Array.isArray(parsed) && parsed.length === kinds.length && parsed.every((v, i) => typeof v === kinds[i]);
  if (!ok) throw validationError(`Validation failed: after: [${cursor}] is not a cursor of this list; use the one a Link header gave`);
  return parsed as (string | number)[];
}
