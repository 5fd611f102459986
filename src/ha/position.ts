import { existsSync } from 'node:fs';
import type { JetStreamManager } from '@nats-io/jetstream';
import { openDatabase, type Db } from '../core/db.ts';
import type { ChangeLogNames } from './change-log.ts';
import { decodeEntry } from './entry.ts';
import type { AppliedPosition } from './follower.ts';

// Where a box's database stands in the change log (table ha_applied, docs/ha.md,
// "Rejoin"): the last entry it holds and that entry's term. A standby writes it with each
// entry it applies; an active writes it inside each transaction that has an entry, with
// the sequence the entry will have (it is the log's only writer). A copy of a database
// therefore says which entry it ends with, and whether it can go on from the log is one
// question: does the log hold that entry, written in that term?

/**
 * The position recorded in the database file; undefined when there is no file or none is
 * recorded. `nativeBinding` is asked only when there is a file (the single executable
 * unpacks its SQLite addon into the data directory, which a fresh box does not have yet).
 */
export function readPosition(file: string, nativeBinding: () => unknown = () => undefined): AppliedPosition | undefined {
  if (!existsSync(file)) return undefined;
  const db = openDatabase({ file, busyTimeoutMs: 5000, nativeBinding: nativeBinding() });
  try {
    // A database from before the pair's migration has no position.
    const known = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ha_applied'").get();
    return known ? positionIn(db) : undefined;
  } finally {
    db.close();
  }
}

/** The position recorded in an open database (its migrations done); undefined when none is. */
export function positionIn(db: Db): AppliedPosition | undefined {
  return db.prepare('SELECT stream_seq AS streamSeq, term FROM ha_applied WHERE id = 1').get() as AppliedPosition | undefined;
}

/** A statement that records the position in the database (inside whatever transaction runs). */
export function positionWriter(db: Db): (position: AppliedPosition) => void {
  const write = db.prepare(
    'INSERT INTO ha_applied (id, stream_seq, term) VALUES (1, @streamSeq, @term) ON CONFLICT (id) DO UPDATE SET stream_seq = excluded.stream_seq, term = excluded.term',
  );
  return (position) => write.run(position);
}

/**
 * Whether a database at `position` can go on from the change log: the log holds that
 * entry, written in that term. No: the box committed something the log never stored (a
 * former active), or the log no longer reaches back to it; it rejoins from a copy.
 */
export async function followsFrom(jsm: JetStreamManager, names: ChangeLogNames, position: AppliedPosition): Promise<boolean> {
  if (position.streamSeq === 0) return (await jsm.streams.info(names.stream)).state.first_seq <= 1;
  // None: gone from the log (aged out), or never stored. A log that does not answer throws: asked again.
  const stored = await jsm.streams.getMessage(names.stream, { seq: position.streamSeq });
  if (!stored) return false;
  return decodeEntry(stored.data).term === position.term;
}
