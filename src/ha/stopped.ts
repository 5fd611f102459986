import type { Logger } from '../core/log.ts';
import { OtherSchema } from './follower.ts';
import { BEAT_MS } from './peers.ts';
import { RebasedLog } from './rebase.ts';

// What a standby does when its follower stops at an entry (docs/ha.md):
// - the log was rebased on another box's database (rebase.ts): it fetches a copy at once;
// - the entry's rows are of an older schema than its database (this box runs a newer
//   build, and migrated its copy at its start): it says so, and fetches a copy once the
//   other box's database has its schema too (that box was upgraded and migrated);
// - anything else (rows of a newer schema: an older build here; a broken entry): it says
//   so and stays there. Nothing of the entry is applied in any case.

export interface StoppedBox {
  /** Says why this box cannot go on (its status's `problem`). */
  fail: (problem: string) => void;
  /** Whether the box still stands where `problem` left it (a standby, stopped for that). */
  stillStopped: (problem: string) => boolean;
  /** The schema of the other box's database, as it last said. */
  peerSchema: () => number | undefined;
  /** Ends the standby's part and joins from a copy of the active. */
  rejoin: () => void;
}

export function followingStopped(error: unknown, streamSeq: number, log: Logger, box: StoppedBox): void {
  if (error instanceof RebasedLog) {
    log.warn({ streamSeq }, error.message);
    return box.rejoin();
  }
  const problem = `entry ${streamSeq} of the change log cannot be applied: ${(error as Error).message}`;
  box.fail(problem);
  log.error({ err: error, streamSeq }, 'the standby stopped following the change log');
  if (error instanceof OtherSchema && error.active < error.here) rejoinOnceOtherIsAt(error.here, problem, log, box);
}

/** Looks once a second, while the problem lasts, whether the other box's database has `schema`; then rejoins. */
function rejoinOnceOtherIsAt(schema: number, problem: string, log: Logger, box: StoppedBox): void {
  const look = setInterval(() => {
    if (!box.stillStopped(problem)) return clearInterval(look);
    if (box.peerSchema() !== schema) return;
    clearInterval(look);
    log.warn({ schema }, 'the other box now has the schema of this build: this box joins from a copy of it');
    box.rejoin();
  }, BEAT_MS);
  look.unref();
}
