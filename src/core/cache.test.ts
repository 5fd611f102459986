import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cachesOver, EntityCache } from './cache.ts';

interface Item {
  pk: string;
  code: string | null;
}

const setup = (limit = 100) => {
  const db = new Database(':memory:');
  const cache = new EntityCache<Item>(db, 'items', { code: (i) => i.code }, limit);
  return { db, cache };
};

describe('EntityCache', () => {
  it('finds a remembered entity by pk and by secondary key', () => {
    const { cache } = setup();
    const item = { pk: 'p1', code: 'C1' };
    expect(cache.remember(item)).toBe(item);
    expect(cache.get('p1')).toBe(item);
    expect(cache.getBy('code', 'C1')).toBe(item);
  });

  it('does not index a null secondary key', () => {
    const { cache } = setup();
    cache.remember({ pk: 'p1', code: null });
    expect(cache.getBy('code', 'null')).toBeUndefined();
    expect(cache.get('p1')).toBeDefined();
  });

  it('never remembers what was read inside a transaction (it may still roll back)', () => {
    const { db, cache } = setup();
    db.transaction(() => {
      cache.remember({ pk: 'p1', code: 'C1' });
    })();
    expect(cache.get('p1')).toBeUndefined();
    expect(cache.getBy('code', 'C1')).toBeUndefined();
  });

  it('forgets an entity under all its keys', () => {
    const { cache } = setup();
    cache.remember({ pk: 'p1', code: 'C1' });
    cache.forget('p1');
    expect(cache.get('p1')).toBeUndefined();
    expect(cache.getBy('code', 'C1')).toBeUndefined();
  });

  it('keeps a secondary key that another entity took over when the old one is forgotten', () => {
    const { cache } = setup();
    cache.remember({ pk: 'p1', code: 'C1' });
    cache.remember({ pk: 'p2', code: 'C1' });
    cache.forget('p1');
    expect(cache.getBy('code', 'C1')?.pk).toBe('p2');
  });

  it('evicts the oldest entry at the limit', () => {
    const { cache } = setup(2);
    cache.remember({ pk: 'p1', code: 'C1' });
    cache.remember({ pk: 'p2', code: 'C2' });
    cache.remember({ pk: 'p3', code: 'C3' });
    expect(cache.get('p1')).toBeUndefined();
    expect(cache.getBy('code', 'C1')).toBeUndefined();
    expect(cache.get('p3')?.code).toBe('C3');
  });

  it('evicts the least recently used: an entry read again stays', () => {
    const { cache } = setup(2);
    cache.remember({ pk: 'p1', code: 'C1' });
    cache.remember({ pk: 'p2', code: 'C2' });
    expect(cache.getBy('code', 'C1')?.pk).toBe('p1');
    cache.remember({ pk: 'p3', code: 'C3' });
    expect(cache.get('p2')).toBeUndefined();
    expect(cache.get('p1')?.pk).toBe('p1');
    expect(cache.size).toBe(2);
  });

  it('a re-read entity replaces its old copy and its old secondary keys', () => {
    const { cache } = setup();
    cache.remember({ pk: 'p1', code: 'OLD' });
    cache.remember({ pk: 'p1', code: 'NEW' });
    expect(cache.getBy('code', 'OLD')).toBeUndefined();
    expect(cache.getBy('code', 'NEW')?.pk).toBe('p1');
    expect(cache.size).toBe(1);
  });

  it('stays within its limit over many evictions and forgets, and finds what it keeps', () => {
    const { cache } = setup(1000);
    for (let i = 0; i < 50_000; i++) {
      cache.remember({ pk: `p${i}`, code: `C${i}` });
      if (i % 7 === 0) cache.forget(`p${i - 3}`);
      if (i % 5 === 0) cache.get(`p${i - 500}`);
    }
    expect(cache.size).toBeLessThanOrEqual(1000);
    expect(cache.getBy('code', 'C49999')?.pk).toBe('p49999');
    expect(cache.get('p0')).toBeUndefined();
  });

  it('clears everything', () => {
    const { cache } = setup();
    cache.remember({ pk: 'p1', code: 'C1' });
    cache.clear();
    expect(cache.get('p1')).toBeUndefined();
    expect(cache.getBy('code', 'C1')).toBeUndefined();
  });
});

describe('EntityCache: revised from the cached entity, and caches that show another', () => {
  interface Unit {
    pk: string;
    barcode: string;
    place: string;
    ol: number;
  }
  const twoCaches = (db = new Database(':memory:')) => {
    const places = new EntityCache<Item>(db, 'places', { code: (i) => i.code });
    const units = new EntityCache<Unit>(db, 'units', { barcode: (u) => u.barcode });
    units.shows('places');
    units.shows('unit_types');
    return { db, places, units };
  };

  it('revises a cached entity by a function of it', () => {
    const { units } = twoCaches();
    units.remember({ pk: 'u1', barcode: 'B1', place: 'P1', ol: 3 });
    units.revise('u1', (unit) => ({ place: 'P2', ol: unit.ol + 1 }));
    expect(units.getBy('barcode', 'B1')).toEqual({ pk: 'u1', barcode: 'B1', place: 'P2', ol: 4 });
  });

  it('forgets everything when an entity it shows is forgotten or all of them are, and not when one is revised', () => {
    const { places, units } = twoCaches();
    const fill = () => {
      places.remember({ pk: 'p1', code: 'P1' });
      units.remember({ pk: 'u1', barcode: 'B1', place: 'P1', ol: 0 });
      units.remember({ pk: 'u2', barcode: 'B2', place: 'P2', ol: 0 });
    };
    fill();
    places.revise('p1', { code: 'P1' });
    expect(units.size).toBe(2);
    places.forget('p1');
    expect(units.size).toBe(0);
    expect(units.getBy('barcode', 'B2')).toBeUndefined();
    fill();
    places.clear();
    expect(units.size).toBe(0);
  });

  it('forgets everything when a table it shows changed, and the other thread hears of it', () => {
    const db = new Database(':memory:');
    const { units } = twoCaches(db);
    const set = cachesOver(db);
    set.recording = true;
    units.remember({ pk: 'u1', barcode: 'B1', place: 'P1', ol: 0 });
    set.tableChanged('unit_types');
    expect(units.size).toBe(0);
    const forgotten = set.take();
    expect(forgotten).toEqual({ units: 'all' });

    // The other thread's caches of the same names, over a connection of their own.
    const other = twoCaches();
    other.units.remember({ pk: 'u1', barcode: 'B1', place: 'P1', ol: 0 });
    cachesOver(other.db).apply(forgotten!);
    expect(other.units.size).toBe(0);
  });

  it('the other thread empties a cache that shows another only when the writer says so, not for every place it forgot', () => {
    const db = new Database(':memory:');
    const { places } = twoCaches(db);
    const set = cachesOver(db);
    set.recording = true;
    places.remember({ pk: 'p1', code: 'P1' });
    places.revise('p1', { code: 'P1' }); // a booking: nothing a unit shows
    const revised = set.take()!;
    expect(revised).toEqual({ places: ['p1'] });
    places.forget('p1'); // an edit
    const edited = set.take()!;
    expect(edited).toEqual({ places: ['p1'], units: 'all' });

    const other = twoCaches();
    other.units.remember({ pk: 'u1', barcode: 'B1', place: 'P1', ol: 0 });
    cachesOver(other.db).apply(revised);
    expect(other.units.size).toBe(1);
    cachesOver(other.db).apply(edited);
    expect(other.units.size).toBe(0);
  });

  it('inside a unit of work, remembers nothing more once an entity it shows was forgotten', () => {
    const db = new Database(':memory:');
    const { places, units } = twoCaches(db);
    const set = cachesOver(db);
    db.exec('BEGIN');
    set.began();
    places.forget('p1');
    units.remember({ pk: 'u1', barcode: 'B1', place: 'P1 (renamed in this unit)', ol: 0 });
    expect(units.get('u1')).toBeUndefined();
    db.exec('COMMIT');
    set.ended(true);
    units.remember({ pk: 'u1', barcode: 'B1', place: 'P1', ol: 0 });
    expect(units.get('u1')).toBeDefined();
  });
});
