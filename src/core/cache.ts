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
 * A cache over a read-only connection (the HTTP thread's, docs/realtime.md) has no
 * writes to forget by: the conveyor thread's caches tell it what they forgot once the
 * write committed (`CacheSet`), and it remembers inside transactions too, which only read.
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

  private readonly set: CacheSet;
  private readonly name: string;

  /** `name`: the same on every thread (the caches that forget together). */
  constructor(db: Db, name: string, keysOf: Record<string, (entity: T) => string | null>, limit = 20_000) {
    this.db = db;
    this.limit = limit;
    this.name = name;
    this.set = cachesOver(db);
    this.set.add(name, this);
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
    // A transaction on the writer may still roll back; one on a read-only connection only reads.
    if (!entity || (this.db.inTransaction && !this.db.readonly)) return entity;
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
    this.set.forgot(this.name, pk);
    const entry = this.byPk.get(pk);
    if (entry) this.unlink(entry);
  }

  /** After a change that touches many entities (e.g. a renamed group all locations show). */
  clear(): void {
    this.set.forgot(this.name, ALL);
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

const ALL = '*';

/** What the caches over one database forgot: cache name → pKeys, or every entity. */
export type Forgotten = Record<string, string[] | 'all'>;

/**
 * The entity caches over one connection, by name. While `recording`, it keeps what they
 * forget: the conveyor thread hands that to the HTTP thread after each commit, whose
 * caches of the same names forget the same (src/threads).
 */
export class CacheSet {
  recording = false;
  private readonly caches = new Map<string, Pick<EntityCache<{ pk: string }>, 'forget' | 'clear'>>();
  private forgotten = new Map<string, Set<string> | typeof ALL>();

  add(name: string, cache: Pick<EntityCache<{ pk: string }>, 'forget' | 'clear'>): void {
    this.caches.set(name, cache);
  }

  forgot(name: string, pk: string): void {
    if (!this.recording) return;
    const known = this.forgotten.get(name);
    if (known === ALL) return;
    if (pk === ALL) this.forgotten.set(name, ALL);
    else if (known) known.add(pk);
    else this.forgotten.set(name, new Set([pk]));
  }

  /** What was forgotten since the last call; undefined when nothing was. */
  take(): Forgotten | undefined {
    if (this.forgotten.size === 0) return undefined;
    const taken: Forgotten = {};
    for (const [name, keys] of this.forgotten) taken[name] = keys === ALL ? 'all' : [...keys];
    this.forgotten = new Map();
    return taken;
  }

  /** Forgets here what the caches of another thread forgot. */
  apply(forgotten: Forgotten): void {
    for (const [name, keys] of Object.entries(forgotten)) {
      const cache = this.caches.get(name);
      if (!cache) continue;
      if (keys === 'all') cache.clear();
      else for (const pk of keys) cache.forget(pk);
    }
  }
}

const sets = new WeakMap<Db, CacheSet>();

/** The caches over a connection (one set per connection, however many stores it has). */
export function cachesOver(db: Db): CacheSet {
  let set = sets.get(db);
  if (!set) sets.set(db, (set = new CacheSet()));
  return set;
}
