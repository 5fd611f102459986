import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { EntityCache } from './cache.ts';

interface Item {
  pk: string;
  code: string | null;
}

const setup = (limit = 100) => {
  const db = new Database(':memory:');
  const cache = new EntityCache<Item>(db, { code: (i) => i.code }, limit);
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

  it('clears everything', () => {
    const { cache } = setup();
    cache.remember({ pk: 'p1', code: 'C1' });
    cache.clear();
    expect(cache.get('p1')).toBeUndefined();
    expect(cache.getBy('code', 'C1')).toBeUndefined();
  });
});
