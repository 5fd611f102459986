import { existsSync, readFileSync, renameSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { LOGS_SCHEMA, LOGS_VERSION, TELEGRAM_COLUMNS, type RefRow, type WriterReply, type WriterRequest } from './schema.ts';
import { firstIdAt } from '../retention.ts';
import { yieldToConveyor } from '../thread-priority.ts';
import { takeCheckpoints } from './checkpoints.ts';

// The log writer thread: the one writer of the logs database (schema.ts). The appliance
// posts rows; this thread inserts them, a message per transaction, in the order they
// came. Nothing here ever makes a PLC telegram wait: this thread has its own event loop
// and its own SQLite connection, and it never flushes to disk (synchronous = OFF): the
// disk's flushes belong to the appliance's commits, which a flush of logs beside them
// would hold up. So a power cut (or a crash of the operating system) can leave this
// database damaged; it is checked when the appliance starts after one — told apart from
// a mere stop or crash of the process by the kernel's boot id — and, if damaged, put
// aside and started afresh: the telegram log up to then is lost (it is diagnostics),
// the event index is rebuilt from the events.

// Diagnostics yield the core to the PLC (src/core/thread-priority.ts).
// Below the process's main thread from the start, and below the conveyor thread once it
// opens the database (it may have been started ahead, before the conveyor thread took its priority).
yieldToConveyor();
const port = parentPort!;
const reply = (message: WriterReply) => port.postMessage(message);

/** The kernel's id of this boot (Linux); undefined elsewhere. */
function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Opens the logs database and serves the appliance's requests. */
function run(file: string, nativeBinding: string | undefined): void {
  function open(): Database.Database {
    const opened = new Database(file, { nativeBinding });
    opened.pragma('journal_mode = WAL');
    opened.pragma('synchronous = OFF');
    opened.pragma('cache_size = -16384');
    return opened;
  }

  /** The verdict on a database the machine may have lost writes of: `ok`, or what is wrong. */
  function inspect(db: Database.Database): string {
    try {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version !== LOGS_VERSION) return 'ok';
      const meta = db.prepare('SELECT value FROM meta WHERE name = ?').pluck();
      const clean = meta.get('clean') === '1';
      const boot = bootId();
      // Unflushed writes are lost only with the machine: after a clean stop, or a crash of
      // the process within the same boot, there is nothing to check.
      if (clean || (boot !== undefined && meta.get('boot') === boot)) return 'ok';
      return String(db.pragma('quick_check', { simple: true }));
    } catch (err) {
      return (err as Error).message;
    }
  }

  /** After a power cut: checks the database, and puts a damaged one aside for a fresh one. */
  function checked(opening: () => Database.Database): Database.Database {
    let db: Database.Database | undefined;
    let verdict: string;
    try {
      db = opening();
      verdict = inspect(db);
    } catch (err) {
      verdict = (err as Error).message;
    }
    if (verdict === 'ok') return db!;
    db?.close();
    const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
    reply({ op: 'notice', message: `the logs database was damaged after a power cut (${verdict}); put aside as ${aside} and started afresh` });
    return open();
  }

  const db = checked(open);
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === 0) {
    db.exec(LOGS_SCHEMA);
    db.pragma(`user_version = ${LOGS_VERSION}`);
  } else if (version !== LOGS_VERSION) {
    throw new Error(`the logs database ${file} has version ${version}, this build knows ${LOGS_VERSION}`);
  }
  const setMeta = db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value');
  setMeta.run('boot', bootId() ?? '');
  setMeta.run('clean', '0');

  const PER_STATEMENT = 50;
  function batchInsert(sql: string, columns: number): (rows: readonly (readonly unknown[])[]) => void {
    const row = `(${Array(columns).fill('?').join(', ')})`;
    const statements: Database.Statement[] = [];
    return (rows) => {
      for (let i = 0; i < rows.length; i += PER_STATEMENT) {
        const chunk = rows.slice(i, i + PER_STATEMENT);
        (statements[chunk.length] ??= db.prepare(`${sql} VALUES ${Array(chunk.length).fill(row).join(', ')}`)).run(...chunk.flat());
      }
    };
  }

  const insertTelegrams = batchInsert(`INSERT INTO telegram_log (${TELEGRAM_COLUMNS.join(', ')})`, TELEGRAM_COLUMNS.length);
  const insertRefs = batchInsert('INSERT OR IGNORE INTO event_refs (kind, key, event_id)', 3);
  const setPosition = db.prepare(
    "INSERT INTO positions (name, position) VALUES ('event_refs', ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position",
  );
  const position = () => (db.prepare("SELECT position FROM positions WHERE name = 'event_refs'").pluck().get() as number | undefined) ?? 0;
  const oldestTelegram = db.prepare('SELECT min(id) FROM telegram_log').pluck();
  const newestTelegram = db.prepare('SELECT max(id) FROM telegram_log').pluck();
  const firstFrom = db.prepare('SELECT id, at FROM telegram_log WHERE id >= ? ORDER BY id LIMIT 1');
  const deleteTelegrams = db.prepare('DELETE FROM telegram_log WHERE id <= ?');
  const deleteRefs = db.prepare('DELETE FROM event_refs WHERE event_id <= ?');

  function pruneTelegrams(olderThan: string, maxRows: number, batch: number): number {
    const oldest = oldestTelegram.get() as number | null;
    if (oldest === null) return 0;
    const newest = (newestTelegram.get() as number | null) ?? 0;
    const upto = Math.min(Math.max(newest - maxRows, firstIdAt(firstFrom, oldest, newest, olderThan) - 1), oldest + batch - 1);
    if (upto < oldest) return 0;
    deleteTelegrams.run(upto);
    return upto - oldest + 1;
  }

  let stopCheckpoints: (() => void) | undefined;

  function handle(message: WriterRequest): void {
    switch (message.op) {
      case 'open':
        return; // the thread's first message, taken by run()'s caller
      case 'checkpoints':
        stopCheckpoints?.();
        stopCheckpoints = takeCheckpoints(message.file, nativeBinding, (failure) => reply({ op: 'checkpointsStopped', message: failure }));
        return;
      case 'telegrams':
        db.transaction(() => insertTelegrams(message.rows))();
        return;
      case 'refs':
        db.transaction(() => {
          insertRefs(message.rows);
          const last = message.rows[message.rows.length - 1] as RefRow | undefined;
          if (last) setPosition.run(last[2]);
        })();
        return;
      case 'sync':
        return reply({ op: 'done', id: message.id });
      case 'pruneTelegrams':
        return reply({ op: 'done', id: message.id, count: pruneTelegrams(message.olderThan, message.maxRows, message.batch) });
      case 'pruneRefs':
        return reply({ op: 'done', id: message.id, count: deleteRefs.run(message.upto).changes });
      case 'resetRefs':
        db.transaction(() => {
          db.exec('DELETE FROM event_refs');
          setPosition.run(0);
        })();
        return reply({ op: 'done', id: message.id });
      case 'close':
        stopCheckpoints?.();
        setMeta.run('clean', '1');
        db.close();
        reply({ op: 'done', id: message.id });
        port.close();
        return;
    }
  }

  port.on('message', (message: WriterRequest) => {
    try {
      handle(message);
    } catch (err) {
      reply({ op: 'failed', ...('id' in message ? { id: message.id } : {}), message: (err as Error).message });
    }
  });
  reply({ op: 'ready', position: position() });
}

// The database to open comes in the first message: the thread may be started before
// the appliance knows it (see prestartLogWriter in index.ts).
port.once('message', (message: WriterRequest) => {
  if (message.op !== 'open') return;
  yieldToConveyor();
  run(message.file, message.nativeBinding);
});
