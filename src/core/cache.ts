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
 * coordinate or a PLC code). The size is bounded; the oldest entries go first.
 */
export class EntityCache<T extends { pk: string }> {
  private readonly db: Db;
  private readonly limit: number;
  private readonly keysOf: Record<string, (entity: T) => string | null>;
  private readonly byPk = new Map<string, T>();
  private readonly byKey = new Map<string, Map<string, string>>();

  constructor(db: Db, keysOf: Record<string, (entity: T) => string | null>, limit = 20_000) {
    this.db = db;
    this.keysOf = keysOf;
    this.limit = limit;
    for (const name of Object.keys(keysOf)) this.byKey.set(name, new Map());
  }

  get(pk: string): T | undefined {
    return this.byPk.get(pk);
  }

  /** By a secondary key, e.g. `getBy('locationId', 'A/B/C/D/E')`. */
  getBy(index: string, key: string): T | undefined {
    const pk = this.byKey.get(index)!.get(key);
    return pk === undefined ? undefined : this.byPk.get(pk);
  }

  /** Keeps a freshly read entity (outside transactions only) and returns it. */
  remember(entity: T | undefined): T | undefined {
    if (!entity || this.db.inTransaction) return entity;
    if (this.byPk.size >= this.limit) this.forget(this.byPk.keys().next().value!);
    this.byPk.set(entity.pk, entity);
    for (const [name, keyOf] of Object.entries(this.keysOf)) {
      const key = keyOf(entity);
      if (key !== null) this.byKey.get(name)!.set(key, entity.pk);
    }
    return entity;
  }

  forget(pk: string): void {
    const entity = this.byPk.get(pk);
    if (!entity) return;
    this.byPk.delete(pk);
    for (const [name, keyOf] of Object.entries(this.keysOf)) {
      const key = keyOf(entity);
      if (key !== null && this.byKey.get(name)!.get(key) === pk) this.byKey.get(name)!.delete(key);
    }
  }

  /** After a change that touches many entities (e.g. a renamed group all locations show). */
  clear(): void {
    this.byPk.clear();
    for (const map of this.byKey.values()) map.clear();
  }
}
