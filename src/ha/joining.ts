import type { Logger } from '../core/log.ts';
import type { PairCluster } from './cluster.ts';
import type { AppliedPosition } from './follower.ts';
import { putCopyInPlace } from './join.ts';
import { followsFrom } from './position.ts';
import { rebaseFrom } from './rebase.ts';
import { everySecond } from './retry.ts';

// A box that cannot follow the change log (docs/ha.md, "Joining"): it asks the active for
// a copy of its database once a second until one is in place and follows on from the log.
// When no active has answered for a while and this box wrote the log's last entry, it may
// go on from its own database instead (rebase.ts).

export interface JoinOptions {
  cluster: PairCluster;
  pair: string;
  /** The database file the copy takes the place of. */
  file: string;
  /** Where the database file stands now. */
  position: () => AppliedPosition | undefined;
  /** How long without an answer before this box may rebase the log on its own database. */
  rebaseAfterMs: number;
  log: Logger;
  stop: AbortSignal;
  /** Told of each failed try (what `GET /v1/ha` says as `problem`). */
  failing: (message: string) => void;
}

/** Where a database at `position` stands: it can follow the log, it is the pair's first box's, or it must join. */
export async function standingOf(cluster: PairCluster, position: AppliedPosition | undefined): Promise<'follows' | 'origin' | 'joins'> {
  if (position && (await followsFrom(cluster.jsm, cluster.names, position))) return 'follows';
  const info = await cluster.jsm.streams.info(cluster.names.stream);
  const lease = await cluster.store.get();
  // The pair's first box: its database (empty, or a single box's that joins a pair) is the truth.
  if (!position && info.state.last_seq === 0 && (!lease?.value || lease.value.released)) return 'origin';
  return 'joins';
}

/** A copy in place (`copied`), the log's last sequence to rebase from (`rebase`), or undefined once stopped. */
export async function joinPair(options: JoinOptions): Promise<{ kind: 'copied' } | { kind: 'rebase'; last: number } | undefined> {
  const { cluster } = options;
  const since = performance.now();
  const attempt = async () => {
    try {
      await putCopyInPlace(cluster.nc, options.pair, options.file, options.log);
    } catch (err) {
      const position = options.position();
      const waited = performance.now() - since > options.rebaseAfterMs;
      const last = waited && position ? await rebaseFrom(cluster.jsm, cluster.names, position) : undefined;
      if (last === undefined) throw err;
      return { kind: 'rebase' as const, last };
    }
    const position = options.position();
    if (!position || !(await followsFrom(cluster.jsm, cluster.names, position))) throw new Error('the copy ends at an entry the change log does not hold');
    return { kind: 'copied' as const };
  };
  return everySecond(attempt, options.stop, (err, n) => {
    options.failing(`joining: ${(err as Error).message}`);
    if (n % 10 === 0) options.log.warn({ err }, 'no copy of the active yet; trying again');
  });
}
