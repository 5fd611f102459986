import type { Db } from './db.ts';

/**
 * A read-through cache of entities a store reads far more often than it writes
 * (locations: every HMI view, every PLC telegram, every routing decision).
 *
 * The appliance is the only writer of its database, so the cache is exact as long
 * as the store forgets an entity whenever it writes it. Three rules keep it so:
 * - A write forgets the entity before it happens; the next read after the commit
 *   fetches the row again.
 * - Inside a unit of work (the writer's transaction, which the unit of work announces
 *   to the caches: `CacheSet.began`), an entity read is remembered unless the unit has
 *   written it: a row the unit has not written is the committed row. What the unit
 *   remembered is forgotten again should it (or a savepoint of it) roll back. The PLC
 *   reads its locations inside its units: without this every telegram's lookups read
 *   SQLite.
 * - Inside any other transaction on the writer nothing is remembered.
 * A write that changes a field the store knows (`revise`: a location's last movement)
 * updates the cached entity instead of forgetting it, undone the same way.
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
  /** Inside a unit of work: the pKeys it wrote (read from SQLite, never remembered), or all of them. */
  private written = new Set<string>();
  private wroteAll = false;
  /** Inside a unit of work: the pKeys it remembered or revised, forgotten should it roll back; 'all': more than the limit. */
  private kept: string[] | 'all' = [];

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

  /** Keeps a freshly read entity and returns it (inside a transaction: see the class's rules). */
  remember(entity: T | undefined): T | undefined {
    if (!entity) return entity;
    if (this.inWriterTransaction) {
      if (!this.set.inUnit || this.wroteAll || this.written.has(entity.pk)) return entity;
      this.keptInUnit(entity.pk);
    }
    this.keep(entity);
    return entity;
  }

  /**
   * The entity's row changed only in `fields`, which the caller names exactly as the
   * write does (given the cached entity, when they follow from it: a version counted
   * up): the cached entity is replaced by one with them changed, instead of being
   * forgotten. Other threads' caches forget it (they read it anew). Caches that show
   * what this one holds are left alone: a revise changes none of what they show.
   */
  revise(pk: string, fields: Partial<T> | ((entity: T) => Partial<T>)): void {
    this.set.forgot(this.name, pk);
    const entry = this.byPk.get(pk);
    const writing = this.inWriterTransaction;
    if (!entry || (writing && !this.set.inUnit)) {
      this.forgetHere(pk);
      return;
    }
    entry.entity = { ...entry.entity, ...(typeof fields === 'function' ? fields(entry.entity) : fields) };
    if (writing) this.keptInUnit(pk);
  }

  /**
   * This cache's entities show fields of the entities of `source` (another cache's
   * name, or a table's that `CacheSet.tableChanged` announces): a transport unit shows
   * its location's coordinate and its type's name. Whenever one of those is forgotten
   * by a write, this cache forgets everything; the other thread's cache of the same name
   * hears that it did, as of any other forgetting. Such changes are rare (a location or
   * a type edited); the PLC's bookings only revise.
   */
  shows(source: string): void {
    this.set.dependOn(source, this);
  }

  /** A transaction on the writer may still roll back; one on a read-only connection only reads. */
  private get inWriterTransaction(): boolean {
    return this.db.inTransaction && !this.db.readonly;
  }

  /** The unit of work committed (`true`) or rolled back: its writes are settled. */
  unitEnded(committed: boolean): void {
    if (!committed) this.unitUndone();
    this.written.clear();
    this.wroteAll = false;
    this.kept = [];
  }

  /** A part of the unit of work (a savepoint) was undone: what it may have kept goes. */
  unitUndone(): void {
    if (this.kept === 'all') this.empty();
    else {
      for (const pk of this.kept) {
        const entry = this.byPk.get(pk);
        if (entry) this.unlink(entry);
      }
    }
    this.kept = [];
  }

  /** A unit that reads or writes more than the cache holds (an import) is tracked as a whole, not key by key. */
  private keptInUnit(pk: string): void {
    if (this.kept === 'all') return;
    this.kept.push(pk);
    if (this.kept.length > this.limit) this.kept = 'all';
  }

  private keep(entity: T): void {
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
  }

  forget(pk: string): void {
    this.set.forgot(this.name, pk);
    this.forgetHere(pk);
    this.set.changed(this.name);
  }

  private forgetHere(pk: string): void {
    if (this.set.inUnit && !this.wroteAll) {
      this.written.add(pk);
      if (this.written.size > this.limit) {
        this.wroteAll = true;
        this.written.clear();
      }
    }
    const entry = this.byPk.get(pk);
    if (entry) this.unlink(entry);
  }

  /** After a change that touches many entities (e.g. a renamed group all locations show). */
  clear(): void {
    this.set.forgot(this.name, ALL);
    if (this.set.inUnit) this.wroteAll = true;
    this.kept = [];
    this.empty();
    this.set.changed(this.name);
  }

  /** Drops every entry here (other threads' caches are told by the caller, if at all). */
  private empty(): void {
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

type Member = Pick<EntityCache<{ pk: string }>, 'forget' | 'clear' | 'unitEnded' | 'unitUndone'>;

/** What the caches over one database forgot: cache name → pKeys, or every entity. */
export type Forgotten = Record<string, string[] | 'all'>;

/**
 * The entity caches over one connection, by name. While `recording`, it keeps what they
 * forget: the conveyor thread hands that to the HTTP thread after each commit, whose
 * caches of the same names forget the same (src/threads).
 */
export class CacheSet {
  recording = false;
  /** True while a unit of work's transaction is open on this (the writer's) connection. */
  inUnit = false;
  private readonly caches = new Map<string, Member>();
  /** Source name → the caches that show what its entities hold (`EntityCache.shows`). */
  private readonly dependents = new Map<string, Member[]>();
  /**
   * While forgetting what another thread forgot: its message already names every cache
   * that forgot all because of it, and what that thread revised arrives as forgotten
   * (a location's last movement), which must not empty the caches that show it.
   */
  private applying = false;
  private forgotten = new Map<string, Set<string> | typeof ALL>();

  add(name: string, cache: Member): void {
    this.caches.set(name, cache);
  }

  dependOn(source: string, cache: Member): void {
    const known = this.dependents.get(source);
    if (known) known.push(cache);
    else this.dependents.set(source, [cache]);
  }

  /** Entities of `source` were forgotten: the caches that show them forget everything. */
  changed(source: string): void {
    if (this.applying) return;
    const caches = this.dependents.get(source);
    if (caches) for (const cache of caches) cache.clear();
  }

  /**
   * Rows of a table no cache holds changed (a type of the type catalogue): the caches
   * that show them forget everything, here and, once committed, on the other thread.
   */
  tableChanged(table: string): void {
    this.changed(table);
  }

  /** The unit of work opened its transaction (src/core/unit-of-work.ts). */
  began(): void {
    this.inUnit = true;
  }

  /** The unit of work's transaction committed or rolled back. */
  ended(committed: boolean): void {
    this.inUnit = false;
    for (const cache of this.caches.values()) cache.unitEnded(committed);
  }

  /** A savepoint of the running unit rolled back; the unit goes on. */
  undone(): void {
    for (const cache of this.caches.values()) cache.unitUndone();
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

  /**
   * Forgets everything: rows were written past the caches (a standby applying the
   * active's changes, src/ha/follower.ts).
   */
  clearAll(): void {
    for (const cache of this.caches.values()) cache.clear();
  }

  /** Forgets here what the caches of another thread forgot. */
  apply(forgotten: Forgotten): void {
    this.applying = true;
    try {
      for (const [name, keys] of Object.entries(forgotten)) {
        const cache = this.caches.get(name);
        if (!cache) continue;
        if (keys === 'all') cache.clear();
        else for (const pk of keys) cache.forget(pk);
      }
    } finally {
      this.applying = false;
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
