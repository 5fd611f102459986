import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../db/migrations/index.ts';
import { asActor } from './actor.ts';
import { flushElsewhere, openDatabase, type Db } from './db.ts';
import { WalFlusher } from './durability/index.ts';
import type { EventRecord } from './event-catalogue.ts';
import { EntityCache } from './cache.ts';
import { EventLog } from './event-log.ts';
import { createLogger } from './log.ts';
import { migrate } from './migrations.ts';
import { PRUNE_BATCH } from './retention.ts';
import { UnitOfWork } from './unit-of-work.ts';

// The transaction runner and the event log on a real SQLite file.

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

function setUp(busyTimeoutMs = 1000) {
  const dir = mkdtempSync(path.join(tmpdir(), 'wms-uow-'));
  const db: Db = openDatabase({ file: path.join(dir, 'db.sqlite'), busyTimeoutMs });
  migrate(db, migrations, { backupDir: path.join(dir, 'backups'), backupsToKeep: 1, log: createLogger({ level: 'silent' }) });
  cleanup.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => db.close(),
  );
  db.exec('CREATE TABLE probe (name TEXT PRIMARY KEY)');
  const log = new EventLog(db);
  const errors: unknown[] = [];
  const work = new UnitOfWork(db, log, (err) => errors.push(err));
  const delivered: EventRecord[] = [];
  work.bus.onAny((e) => delivered.push(e));
  const insert = db.prepare('INSERT INTO probe (name) VALUES (?)');
  const rows = () => db.prepare('SELECT name FROM probe ORDER BY name').pluck().all();
  /** A change with its event. */
  const change = (name: string) => {
    insert.run(name);
    return work.emit({ type: 'backup.deleted', key: name, data: { name } });
  };
  return { db, log, work, delivered, errors, change, rows };
}

describe('UnitOfWork', () => {
  it('writes the events with the change and delivers them after the commit, in order, with increasing ids', () => {
    const { work, log, delivered, change, rows } = setUp();
    const seenInside: number[] = [];
    work.run(() => {
      change('a');
      change('b');
      seenInside.push(delivered.length);
    });
    expect(seenInside).toEqual([0]);
    expect(rows()).toEqual(['a', 'b']);
    expect(delivered.map((e) => [e.id, e.data])).toEqual([
      [1, { name: 'a' }],
      [2, { name: 'b' }],
    ]);
    expect(log.after(0, 10)).toEqual(delivered);
  });

  it('a failure rolls the change and its events back; nothing is delivered; the next id follows the last committed one', () => {
    const { work, log, delivered, change, rows } = setUp();
    work.run(() => change('kept'));
    expect(() =>
      work.run(() => {
        change('lost');
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(rows()).toEqual(['kept']);
    expect(delivered).toHaveLength(1);
    expect(log.newest()).toBe(1);
    work.run(() => change('next'));
    expect(delivered.at(-1)!.id).toBe(2);
  });

  it('an isolated part that fails is undone alone, with its events; the rest of the unit commits', () => {
    const { work, delivered, change, rows } = setUp();
    work.run(() => {
      change('outer');
      expect(() =>
        work.isolated(() => {
          change('inner');
          work.run(() => {
            throw new Error('inner refused');
          });
        }),
      ).toThrow('inner refused');
      work.isolated(() => change('second'));
    });
    expect(rows()).toEqual(['outer', 'second']);
    expect(delivered.map((e) => e.subject.key)).toEqual(['outer', 'second']);
  });

  it('a nested run joins the outer one: when its failure is caught, the whole unit still fails and nothing commits', () => {
    const { work, delivered, change, rows } = setUp();
    expect(() =>
      work.run(() => {
        change('outer');
        try {
          work.run(() => {
            change('inner');
            throw new Error('inner refused');
          });
        } catch {
          // swallowed by a careless caller
        }
        change('after');
      }),
    ).toThrow('inner refused');
    expect(rows()).toEqual([]);
    expect(delivered).toEqual([]);
    // The runner is ready for the next unit.
    work.run(() => change('next'));
    expect(rows()).toEqual(['next']);
  });

  it('tells what a part of the unit caused, its reactions included', () => {
    const { work, change } = setUp();
    work.react('backup.deleted', (e) => {
      if (e.data.name === 'cause') change('reaction');
    });
    const seen = work.run(() => {
      change('before');
      const mark = work.mark();
      change('cause');
      return work.recordedSince(mark).map((e) => e.subject.key);
    });
    expect(seen).toEqual(['cause', 'reaction']);
    expect(work.recordedSince(0)).toEqual([]);
  });

  it('reactions run inside the emitting unit: what they write commits or rolls back with it', () => {
    const { work, delivered, change, rows, db } = setUp();
    const insert = db.prepare('INSERT INTO probe (name) VALUES (?)');
    work.react('backup.deleted', (e) => {
      if (e.data.name === 'cause') insert.run('effect');
      if (e.data.name === 'poison') throw new Error('the rule refuses');
    });
    work.run(() => change('cause'));
    expect(rows()).toEqual(['cause', 'effect']);
    expect(() => work.run(() => change('poison'))).toThrow('the rule refuses');
    expect(rows()).toEqual(['cause', 'effect']);
    expect(delivered.map((e) => e.subject.key)).toEqual(['cause']);
  });

  it('names the actor the caller runs as, and the appliance when nobody is', () => {
    const { work, delivered, change } = setUp();
    work.run(() => change('by-system'));
    asActor({ kind: 'plc', name: 'CNV01' }, () => work.run(() => change('by-plc')));
    expect(delivered.map((e) => e.actor)).toEqual([
      { kind: 'system', name: 'appliance' },
      { kind: 'plc', name: 'CNV01' },
    ]);
  });

  it('a subscriber that starts a unit of work of its own gets its events after the ones being delivered; a failing one stops no one', () => {
    const { work, delivered, change, errors } = setUp();
    work.bus.on('backup.deleted', (e) => {
      if (e.data.name === 'first') work.run(() => change('follow-up'));
    });
    work.bus.on('backup.deleted', () => {
      throw new Error('a broken subscriber');
    });
    work.run(() => {
      change('first');
      change('second');
    });
    expect(delivered.map((e) => e.subject.key)).toEqual(['first', 'second', 'follow-up']);
    expect(errors).toHaveLength(3);
  });

  it('refuses an event outside a unit of work, and a unit inside a transaction it does not own', () => {
    const { work, db } = setUp();
    expect(() => work.emit({ type: 'backup.deleted', key: 'x', data: { name: 'x' } })).toThrow(/outside a unit of work/);
    expect(() => db.transaction(() => work.run(() => 1))()).toThrow(/cannot start inside a transaction/);
    expect(() => work.isolated(() => 1)).toThrow(/inside a unit of work/);
  });
});

describe('EventLog retention', () => {
  it('prunes by age and by count, a batch at a time, and never hands out a pruned id again', () => {
    const { work, log, change } = setUp();
    for (let i = 0; i < 3000; i++) work.run(() => change(`n${i}`));
    // Everything is younger than a day: nothing goes by age.
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    expect(log.prune(dayAgo, 10_000, PRUNE_BATCH)).toBe(0);
    // By count: down to 2,500, in one batch.
    expect(log.prune(dayAgo, 2500, PRUNE_BATCH)).toBe(500);
    expect(log.oldest()).toBe(501);
    // By age: everything before a cut in the middle, PRUNE_BATCH at a time.
    const cut = log.after(1999, 1)[0]!.at;
    const ageCut = new Date(Date.parse(cut) + 1).toISOString();
    let pruned = 0;
    for (let n = log.prune(ageCut, 10_000, 1000); n > 0; n = log.prune(ageCut, 10_000, 1000)) {
      expect(n).toBeLessThanOrEqual(1000);
      pruned += n;
    }
    expect(log.after(0, 1)[0]!.at > cut).toBe(true);
    expect(pruned).toBeGreaterThan(0);
    expect(log.newest()).toBe(3000);
    work.run(() => change('after'));
    expect(log.newest()).toBe(3001);
  });

  it('finds the first id at or after a time by binary search over the ids', () => {
    const { work, log, change } = setUp();
    for (let i = 0; i < 500; i++) work.run(() => change(`t${i}`));
    const events = log.after(0, 1000);
    for (const probe of [events[0]!, events[123]!, events[499]!]) {
      expect(log.firstIdAt(probe.at)).toBe(events.find((e) => e.at >= probe.at)!.id);
    }
    expect(log.firstIdAt('2999-01-01T00:00:00.000Z')).toBe(501);
    expect(log.firstIdAt('2000-01-01T00:00:00.000Z')).toBe(1);
  });
});

describe('group commit (the HTTP edge)', () => {
  it('units run in one turn share one commit; a failing one is undone alone; events follow the commit', async () => {
    const { work, delivered, change, rows } = setUp();
    work.grouped(() => work.run(() => change('first')));
    expect(() =>
      work.grouped(() =>
        work.run(() => {
          change('doomed');
          throw new Error('refused');
        }),
      ),
    ).toThrow('refused');
    work.grouped(() => work.run(() => change('second')));
    const committed = work.pendingCommit();
    expect(committed).toBeInstanceOf(Promise);
    // Nothing delivered before the commit.
    expect(delivered).toEqual([]);
    await committed;
    expect(rows()).toEqual(['first', 'second']);
    expect(delivered.map((e) => (e.data as { name: string }).name)).toEqual(['first', 'second']);
    expect(work.pendingCommit()).toBeUndefined();
  });

  it('a unit outside the requests (a PLC batch) commits the open group first, then runs and commits on its own', () => {
    const { db, work, delivered, change, rows } = setUp();
    work.grouped(() => work.run(() => change('request')));
    expect(db.inTransaction).toBe(true);
    work.run(() => change('telegram'));
    expect(db.inTransaction).toBe(false);
    expect(rows()).toEqual(['request', 'telegram']);
    expect(delivered.map((e) => (e.data as { name: string }).name)).toEqual(['request', 'telegram']);
    expect(work.pendingCommit()).toBeUndefined();
  });

  it('the actor of each request is its own', async () => {
    const { work, delivered, change } = setUp();
    asActor({ kind: 'user', name: 'alice' }, () => work.grouped(() => work.run(() => change('by-alice'))));
    asActor({ kind: 'apiKey', name: 'erp' }, () => work.grouped(() => work.run(() => change('by-erp'))));
    await work.pendingCommit();
    expect(delivered.map((e) => `${e.actor.kind}:${e.actor.name}`)).toEqual(['user:alice', 'apiKey:erp']);
  });
});

describe('UnitOfWork: the write lock held by another connection for a moment', () => {
  // Another connection holds the write lock for an instant when it reads the log's index
  // while a commit writes it. Here a connection in a process of its own holds it (this
  // thread waits for the lock, so it cannot be the one to let it go).
  async function holdWriteLock(file: string, ms: number): Promise<void> {
    const betterSqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require(${JSON.stringify(betterSqlite)});
         const db = new Database(${JSON.stringify(file)});
         db.exec('BEGIN IMMEDIATE');
         process.stdout.write('held\\n');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    cleanup.push(() => holder.kill());
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.once('data', () => resolve());
      holder.once('exit', (code) => reject(new Error(`the lock holder ended (${code}) before it held the lock`)));
    });
  }

  it('a unit that reads before it writes waits for the lock, then commits', async () => {
    const { db, work, delivered, change, rows } = setUp(30_000);
    await holdWriteLock(db.name, 300);
    work.run(() => {
      expect(rows()).toEqual([]);
      change('after-the-lock');
    });
    expect(rows()).toEqual(['after-the-lock']);
    expect(delivered.map((e) => (e.data as { name: string }).name)).toEqual(['after-the-lock']);
  });

  it('so does a request of the group commit', async () => {
    const { db, work, change, rows } = setUp(30_000);
    await holdWriteLock(db.name, 300);
    work.grouped(() =>
      work.run(() => {
        expect(rows()).toEqual([]);
        change('grouped-after-the-lock');
      }),
    );
    await work.pendingCommit();
    expect(rows()).toEqual(['grouped-after-the-lock']);
  });
});

describe('UnitOfWork: events outside once on disk', () => {
  /** A subscriber that commits a unit of work of its own for the first event it hears (a rule that acts). */
  function actingSubscriber(work: UnitOfWork, change: (name: string) => EventRecord) {
    let acted = false;
    work.bus.onAny(() => {
      if (acted) return;
      acted = true;
      work.run(() => change('reaction'));
    });
  }

  it("each commit flushing itself: the durable subscribers hear every event in id order, a subscriber's own unit after the unit that caused it", () => {
    const { work, change } = setUp();
    const outside: number[] = [];
    work.bus.onAnyDurable((e) => outside.push(e.id));
    actingSubscriber(work, change);
    work.run(() => {
      change('a');
      change('b');
    });
    expect(outside).toEqual([1, 2, 3]);
  });

  it("with the flush thread: nothing goes out before the flush; then in id order, the acting subscriber's unit after the unit that caused it", async () => {
    const { db, work, change } = setUp();
    const flusher = await WalFlusher.start({
      databaseFile: db.name,
      failed: (message) => expect.fail(message),
      callbackFailed: (err) => expect.fail(String(err)),
    });
    cleanup.push(() => void flusher.stop());
    flushElsewhere(db);
    work.after.flushWith(flusher);
    const inside: number[] = [];
    const outside: number[] = [];
    work.bus.onAny((e) => inside.push(e.id));
    work.bus.onAnyDurable((e) => outside.push(e.id));
    actingSubscriber(work, change);
    const hold = flusher.hold();
    let answered = false;
    try {
      work.run(() => {
        change('a');
        change('b');
      });
      // Inside the appliance at once; outside not before the flush.
      expect(inside).toEqual([1, 2, 3]);
      expect(outside).toEqual([]);
      work.afterFlush(() => (answered = true));
      expect(answered).toBe(false);
    } finally {
      hold.release();
    }
    await work.flushed();
    expect(outside).toEqual([1, 2, 3]);
    expect(answered).toBe(true);
    // With nothing waiting, an answer goes at once.
    let now = false;
    work.afterFlush(() => (now = true));
    expect(now).toBe(true);
    await flusher.stop();
  });
});

describe('UnitOfWork: the entity caches inside a unit', () => {
  /** A store of items with a cache the way the stores keep theirs (src/modules/common/locations/store.ts). */
  function items(db: Db, limit?: number) {
    db.exec('CREATE TABLE item (pk TEXT PRIMARY KEY, code TEXT NOT NULL, seen TEXT)');
    for (const n of [1, 2, 3]) db.prepare('INSERT INTO item (pk, code) VALUES (?, ?)').run(`i${n}`, `C${n}`);
    type Item = { pk: string; code: string; seen: string | null };
    const cache = new EntityCache<Item>(db, 'items', { code: (i) => i.code }, limit);
    const select = db.prepare('SELECT pk, code, seen FROM item WHERE pk = ?');
    let reads = 0;
    return {
      /** How often SQLite was asked. */
      reads: () => reads,
      byPk: (pk: string) => (cache.get(pk) ?? cache.remember((reads++, select.get(pk) as Item)))!,
      rename(pk: string, code: string) {
        cache.forget(pk);
        db.prepare('UPDATE item SET code = ? WHERE pk = ?').run(code, pk);
      },
      see(pk: string, at: string) {
        db.prepare('UPDATE item SET seen = ? WHERE pk = ?').run(at, pk);
        cache.revise(pk, { seen: at });
      },
    };
  }

  it('remembers what a unit read of a row it has not written: the next unit reads no SQLite', () => {
    const { db, work } = setUp();
    const store = items(db);
    work.run(() => store.byPk('i1'));
    work.run(() => expect(store.byPk('i1').code).toBe('C1'));
    expect(store.reads()).toBe(1);
  });

  it('a row the unit wrote is read from SQLite inside it and not remembered; after the commit it is read anew', () => {
    const { db, work } = setUp();
    const store = items(db);
    work.run(() => {
      store.byPk('i1');
      store.rename('i1', 'C2');
      expect(store.byPk('i1').code).toBe('C2');
      expect(store.byPk('i1').code).toBe('C2');
    });
    expect(store.reads()).toBe(3);
    expect(store.byPk('i1').code).toBe('C2');
    expect(store.reads()).toBe(4);
  });

  it('what a unit that rolls back remembered or revised is forgotten; the committed row is read again', () => {
    const { db, work } = setUp();
    const store = items(db);
    expect(() =>
      work.run(() => {
        store.see('i1', 'now');
        expect(store.byPk('i1').seen).toBe('now');
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(store.byPk('i1').seen).toBeNull();
    store.byPk('i1');
    work.run(() => store.see('i1', 'later'));
    const reads = store.reads();
    expect(store.byPk('i1').seen).toBe('later');
    expect(store.reads()).toBe(reads);
  });

  it('an isolated part that fails takes what it revised with it; the rest of the unit commits', () => {
    const { db, work } = setUp();
    const store = items(db);
    store.byPk('i1');
    work.run(() => {
      expect(() =>
        work.isolated(() => {
          store.see('i1', 'undone');
          throw new Error('part');
        }),
      ).toThrow('part');
      expect(store.byPk('i1').seen).toBeNull();
    });
    expect(store.byPk('i1').seen).toBeNull();
  });

  it('a request of the group commit that fails takes what it revised with it', async () => {
    const { db, work } = setUp();
    const store = items(db);
    store.byPk('i1');
    expect(() =>
      work.grouped(() =>
        work.run(() => {
          store.see('i1', 'undone');
          throw new Error('request');
        }),
      ),
    ).toThrow('request');
    work.grouped(() => work.run(() => store.byPk('i1')));
    await work.pendingCommit();
    expect(store.byPk('i1').seen).toBeNull();
  });

  it('a unit that keeps or writes more than the cache holds is undone as a whole', () => {
    const { db, work } = setUp();
    const store = items(db, 2);
    expect(() =>
      work.run(() => {
        for (const pk of ['i1', 'i2', 'i3']) store.byPk(pk);
        for (const pk of ['i1', 'i2', 'i3']) store.see(pk, 'undone');
        throw new Error('no');
      }),
    ).toThrow('no');
    // The newest first: with room for two, reading the others would push them out.
    for (const pk of ['i3', 'i2', 'i1']) expect(store.byPk(pk).seen).toBeNull();
    work.run(() => {
      for (const pk of ['i1', 'i2', 'i3']) store.rename(pk, `${pk}-new`);
      expect(store.byPk('i1').code).toBe('i1-new');
    });
    const reads = store.reads();
    expect(store.byPk('i1').code).toBe('i1-new');
    expect(store.reads()).toBe(reads + 1);
  });

  it('inside a transaction that is not a unit of work nothing is remembered', () => {
    const { db } = setUp();
    const store = items(db);
    db.transaction(() => store.byPk('i1'))();
    store.byPk('i1');
    expect(store.reads()).toBe(2);
  });
});
