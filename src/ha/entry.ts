import { deserialize, serialize } from 'node:v8';
import type { CapturedCommit } from './capture.ts';

// One entry of the pair's change log (docs/ha.md): one committed transaction of the
// active, as bytes for the stream. V8's serialisation keeps every SQLite value as it is
// (integers, text, BLOBs as Buffers) and is read back by the same Node on the standby;
// `format` names this layout, so a standby refuses one it does not know.

export const ENTRY_FORMAT = 1;
/** The first entry of an active that rebased the log on its own database (rebase.ts): a format of its own, so that a build that does not know it stops there. */
export const REBASE_FORMAT = 2;

export interface Entry extends CapturedCommit {
  format: number;
  /** The term of the lease the active held as it committed (lease.ts): an entry of an older term is refused. */
  term: number;
  /** The log goes on from the writer's database, not from the entries before: a follower fetches a copy. */
  rebase?: true;
  /**
   * The schema of the writer's database (its `user_version`, src/core/migrations.ts); a
   * follower whose database is at another schema applies none of it (follower.ts). Absent
   * on a fencing entry (it has no rows).
   */
  schema?: number;
}

export function encodeEntry(commit: CapturedCommit, term: number, rebase = false, schema?: number): Buffer {
  const entry: Entry = { format: rebase ? REBASE_FORMAT : ENTRY_FORMAT, term, changes: commit.changes, eventIds: commit.eventIds };
  if (rebase) entry.rebase = true;
  if (schema !== undefined) entry.schema = schema;
  return serialize(entry);
}

export function decodeEntry(bytes: Uint8Array): Entry {
  const entry = deserialize(bytes) as Partial<Entry>;
  if (entry?.format !== ENTRY_FORMAT && entry?.format !== REBASE_FORMAT)
    throw new Error(`a change-log entry of format ${String(entry?.format)}; this build reads formats ${ENTRY_FORMAT} and ${REBASE_FORMAT}`);
  return entry as Entry;
}
