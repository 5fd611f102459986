import type { Db } from './db.ts';

/**
 * A read-through cache of entities a store reads far more often than it writes
 * (locations: every HMI view, every PLC telegram, every routing decision).
 *
 * The appliance is the only writer of its database, so the cache is exact as long
 * as the store forgets an entity whenever it writes it. Two rules keep it so:
 * - Entities read inside a transaction are never remembered: the transaction may
 *   still roll back, and the cache must only hold committed rows.
 * - A write forgets the entity before it happens; the next read after the commit
 *   fetches the row again.
 * Entities are found by primary key or by any unique secondary key (e.g. a
 * coordinate or a PLC code). The size is bounded; the least recently used go first.
 *
 * Recency is a doubly linked list through the entries, so a hit, a miss and an
 * eviction cost O(1) whatever the size. (Evicting by `Map.keys().next()` looks O(1)
 * but walks the holes that deletions leave at the front of a V8 map until it is
 * rehashed: at a million locations read at random that was most of a miss.)
 */
export class EntityCache<T extends { pk: string }> {
  private readonly db: Db;
  private readonly limit: number;
  /** Secondary indexes: name, key function, key → entry. */
  private readonly indexes: readonly { name: string; keyOf: (entity: T) => string | null; entries: Map<string, Entry<T>> }[];
  private readonly byName: Record<string, Map<string, Entry<T>>> = {};
  private readonly byPk = new Map<string, Entry<T>>();
  /** Most recently used first; `newest.older` … `oldest`. */
  private newest: Entry<T> | undefined;
  private oldest: Entry<T> | undefined;

  constructor(db: Db, keysOf: Record<string, (entity: T) => string | null>, limit = 20_000) {
    this.db = db;
    this.limit = limit;
    this.indexes = Object.entries(keysOf).map(([name, keyOf]) => ({ name, keyOf, entries: new Map<string, Entry<T>>() }));
    for (const index of this.indexes) this.byName[index.name] = index.entries;
  }

  get size(): number {
    return this.byPk.size;
  }

  get(pk: string): T | undefined {
    const entry = this.byPk.get(pk);
    if (entry === undefined) return undefined;
    this.touch(entry);
    return entry.entity;
  }

  /** By a secondary key, e.g. `getBy('locationId', 'A/B/C/D/E')`. */
  getBy(index: string, key: string): T | undefined {
    const entry = this.byName[index]!.get(key);
    if (entry === undefined) return undefined;
    this.touch(entry);
    return entry.entity;
  }

  /** Keeps a freshly read entity (outside transactions only) and returns it. */
  remember(entity: T | undefined): T | undefined {
    if (!entity || this.db.inTransaction) return entity;
    const known = this.byPk.get(entity.pk);
    if (known) this.unlink(known);
    else if (this.byPk.size >= this.limit && this.oldest) this.unlink(this.oldest);
    const entry: Entry<T> = { entity, keys: [], newer: undefined, older: undefined };
    this.byPk.set(entity.pk, entry);
    for (const index of this.indexes) {
      const key = index.keyOf(entity);
      entry.keys.push(key);
      if (key !== null) index.entries.set(key, entry);
    }
    this.pushNewest(entry);
    return entity;
  }

  forget(pk: string): void {
    const entry = this.byPk.get(pk);
    if (entry) this.unlink(entry);
  }

  /** After a change that touches many entities (e.g. a renamed group all locations show). */
  clear(): void {
    this.byPk.clear();
    for (const index of this.indexes) index.entries.clear();
    this.newest = undefined;
    this.oldest = undefined;
  }

  /** Removes an entry from the maps and the recency list. */
  private unlink(entry: Entry<T>): void {
    this.byPk.delete(entry.entity.pk);
    for (let i = 0; i < this.indexes.length; i++) {
      const key = entry.keys[i];
      const entries = this.indexes[i]!.entries;
      // A key another entity has taken over since stays with it.
      if (key != null && entries.get(key) === entry) entries.delete(key);
    }
    this.detach(entry);
  }

  private touch(entry: Entry<T>): void {
    if (entry === this.newest) return;
    this.detach(entry);
    this.pushNewest(entry);
  }

  private detach(entry: Entry<T>): void {
    if (entry.newer) entry.newer.older = entry.older;
    else if (this.newest === entry) this.newest = entry.older;
    if (entry.older) entry.older.newer = entry.newer;
    else if (this.oldest === entry) this.oldest = entry.newer;
    entry.newer = undefined;
    entry.older = undefined;
  }

  private pushNewest(entry: Entry<T>): void {
    entry.older = this.newest;
    if (this.newest) this.newest.newer = entry;
    this.newest = entry;
    this.oldest ??= entry;
  }
}

interface Entry<T> {
  entity: T;
  /** The entity's secondary keys when remembered, in index order (to forget them exactly). */
  keys: (string | null)[];
  newer: Entry<T> | undefined;
  older: Entry<T> | undefined;
}
