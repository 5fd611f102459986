import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { EntityCache } from './cache.ts';

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
