import type { Db } from '../../../core/db.ts';
import { prepared, type Listing } from '../../../core/listing.ts';
import type { ReadPool } from '../../../core/read-pool.ts';
import { COORDINATE_PARTS, type Coordinate } from '../../../core/coordinate.ts';

// The wildcard search `?area=&aisle=&x=&y=&z=` without reading the whole table when a
// part starts with a wildcard. Every search reads in coordinate order (keyset pages
// and chunks, core/listing.ts); what changes is the index that drives it:
// - `prefix`: the literal start of the whole pattern (`AR03/0010/…` when area and
//   aisle are exact) is a range of the coordinate's own unique index, in order;
// - `aisle`, `x`, `y`, `z`: an exact part (no wildcard) is one key of the index
//   `(part, location_id)` (migration 0150), also in coordinate order, so a page reads
//   the rows it answers and few more, wherever the wildcard stands;
// - `scan`: nothing exact (`area=%&x=%1`): the coordinate index in order, each row
//   tested, in windows of SCAN_WINDOW coordinates (`scanListing`), so that no read
//   tests more than a window, however few rows match: a page reads at most
//   SCAN_WINDOWS_PER_PAGE windows and may come back short, even empty, with a cursor
//   where it stopped; a stream turns the event loop between windows.
// Of several candidates the one with the fewest rows wins, counted in its index up to
// PROBE_ROWS: a part like z, the same in every rack, is never chosen over x. Counting
// costs a few hundred microseconds and needs no statistics kept up to date
// (scripts/wildcard-index.ts measured the choices on a million locations).

const INDEXED_PARTS = ['aisle', 'x', 'y', 'z'] as const;
export type Driver = 'scan' | 'prefix' | (typeof INDEXED_PARTS)[number];
/** The drivers that read through an index (`scan` reads in windows, `scanListing`). */
export const INDEXED_DRIVERS: readonly Exclude<Driver, 'scan'>[] = ['prefix', ...INDEXED_PARTS];

/** Rows counted at most per candidate: enough to tell a selective part from one every rack shares. */
const PROBE_ROWS = 2000;

/** GLOB patterns of the five parts and what the chosen driver needs (`exact`, `from`, `to`). */
export type SearchParams = Coordinate & { exact?: string; from?: string; to?: string };

/** A GLOB pattern without wildcard or character class matches itself only. */
const isExact = (glob: string) => !/[*?[]/.test(glob);

/** Characters a coordinate can hold, and its separator: a prefix of others matches no location. */
const COORDINATE_TEXT = /^[A-Za-z0-9_.\-/]+$/;

/** The candidates of a search, each with the parameters its statement needs. */
export function candidates(globs: Coordinate): { driver: Driver; params: SearchParams }[] {
  const found: { driver: Driver; params: SearchParams }[] = [];
  const whole = COORDINATE_PARTS.map((p) => globs[p]).join('/');
  const prefix = /^[^*?[]*/.exec(whole)![0];
  if (prefix !== '' && COORDINATE_TEXT.test(prefix)) {
    // Every text starting with the prefix sorts before the prefix with its last character one up.
    const to = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    found.push({ driver: 'prefix', params: { ...globs, from: prefix, to } });
  }
  for (const part of INDEXED_PARTS) {
    if (isExact(globs[part])) found.push({ driver: part, params: { ...globs, exact: globs[part] } });
  }
  return found;
}

/** The driver of a search: the candidate with the fewest rows (`count` counts up to PROBE_ROWS), `scan` without one. */
export function chooseDriver(globs: Coordinate, count: (driver: Driver, params: SearchParams) => number): { driver: Driver; params: SearchParams } {
  let best: { driver: Driver; params: SearchParams; rows: number } | undefined;
  for (const candidate of candidates(globs)) {
    const rows = count(candidate.driver, candidate.params);
    if (!best || rows < best.rows) best = { ...candidate, rows };
    // Nothing beats none.
    if (rows === 0) break;
  }
  return best ? { driver: best.driver, params: best.params } : { driver: 'scan', params: globs };
}

/** The rows a candidate's index holds for the search, counted up to PROBE_ROWS. */
export function probeSql(driver: Exclude<Driver, 'scan'>): string {
  const where = driver === 'prefix' ? 'location_id >= @from AND location_id < @to' : `${driver} = @exact`;
  const hint = driver === 'prefix' ? '' : `INDEXED BY locations_${driver}`;
  return `SELECT count(*) FROM (SELECT 1 FROM locations ${hint} WHERE ${where} LIMIT ${PROBE_ROWS})`;
}

/**
 * The keyset statement of a search driven by `driver` (`@k0` the last coordinate read,
 * `@limit`); `from` is the statement's `FROM locations l …` with `{hint}` where an
 * index hint may stand. The parts are tested with `+` before the column, so that no
 * other index is taken for them.
 */
export function searchSql(driver: Driver, select: (hint: string) => string): string {
  const test = COORDINATE_PARTS.map((p) => `+l.${p} GLOB @${p}`).join(' AND ');
  const drive = driver === 'scan' ? '' : driver === 'prefix' ? 'l.location_id >= @from AND l.location_id < @to AND ' : `l.${driver} = @exact AND `;
  const hint = driver === 'scan' || driver === 'prefix' ? '' : `INDEXED BY locations_${driver}`;
  return `${select(hint)} WHERE ${drive}${test} AND l.location_id > @k0 ORDER BY l.location_id LIMIT @limit`;
}

/** Coordinates tested per read of a search without an exact part: a millisecond or two. */
const SCAN_WINDOW = 2000;
/** Windows a page of such a search reads at most before it answers what it found. */
const SCAN_WINDOWS_PER_PAGE = 10;
/** Above every coordinate (they hold `A–Z a–z 0–9 _ . - /` only): the end of the last window. */
const PAST_THE_END = '~';

const WINDOW_END = 'SELECT location_id FROM locations WHERE location_id > @k0 ORDER BY location_id LIMIT 1 OFFSET @skip';

/**
 * A search without an exact part (`scan`), window by window. `select` as for
 * `searchSql`; `map` turns rows into items.
 */
export function scanListing<Row extends { location_id: string }, T>(options: {
  db: Db;
  reads?: ReadPool | undefined;
  params: SearchParams;
  select: (hint: string) => string;
  map: (rows: Row[]) => T[];
  window?: number;
  windowsPerPage?: number;
}): Listing<T> {
  const { db, reads, params, map, window = SCAN_WINDOW, windowsPerPage = SCAN_WINDOWS_PER_PAGE } = options;
  const test = COORDINATE_PARTS.map((p) => `+l.${p} GLOB @${p}`).join(' AND ');
  const sql = `${options.select('')} WHERE l.location_id > @k0 AND l.location_id <= @upto AND ${test} ORDER BY l.location_id LIMIT @limit`;
  /** The last coordinate of the window after `after` (none when fewer are left). */
  const windowEnd = (on: Db, after: string): string =>
    (prepared(on, WINDOW_END).get({ k0: after, skip: window - 1 }) as { location_id: string } | undefined)?.location_id ?? PAST_THE_END;
  const read = (on: Db, after: string, upto: string, limit: number) => prepared(on, sql).all({ ...params, k0: after, upto, limit }) as Row[];
  /** Every window from the start, its matching rows (the walk of the whole list). */
  function* windows(on: Db): Generator<Row[]> {
    for (let after = ''; ;) {
      const upto = windowEnd(on, after);
      yield read(on, after, upto, -1);
      if (upto === PAST_THE_END) return;
      after = upto;
    }
  }
  async function* chunks(pool: ReadPool): AsyncGenerator<T[]> {
    const snapshot = await pool.snapshot();
    try {
      for (const rows of windows(snapshot.db)) {
        if (rows.length > 0) yield map(rows);
        // Between windows the loop serves everything else.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      snapshot.close();
    }
  }
  return {
    kinds: ['string'],
    page(after, limit) {
      const rows: Row[] = [];
      let at = (after?.[0] as string | undefined) ?? '';
      for (let n = 0; n < windowsPerPage; n++) {
        const upto = windowEnd(db, at);
        // One more than the page needs tells whether the window holds more.
        const found = read(db, at, upto, limit - rows.length + 1);
        if (found.length > limit - rows.length) {
          rows.push(...found.slice(0, limit - rows.length));
          return { items: map(rows), next: [rows.at(-1)!.location_id] };
        }
        rows.push(...found);
        if (upto === PAST_THE_END) return { items: map(rows), next: undefined };
        at = upto;
        if (rows.length === limit) break;
      }
      return { items: map(rows), next: [at] };
    },
    whole: () => (reads ? chunks(reads) : map([...windows(db)].flat())),
  };
}
