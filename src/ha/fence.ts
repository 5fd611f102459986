import type { JetStreamClient } from '@nats-io/jetstream';
import type { ChangeLogNames } from './change-log.ts';
import { encodeEntry } from './entry.ts';

// The new active's first entry (docs/ha.md, "Takeover"): an entry without changes, in
// its term, published expecting the stream's last sequence to be the last entry this box
// holds. Stored, it fences the log: every later publish of a former active (which
// expects an older last sequence) is refused by the stream, and this box holds every
// entry before it. Refused because the log holds more (entries the former active
// stored after this box last looked), it waits for its follower to apply them and tries again.

/** How long a box waits for its follower between two tries. */
const CATCH_UP_MS = 20;

/**
 * Publishes the fencing entry; its stream sequence, or undefined when the lease was lost
 * meanwhile or the box cannot catch up. `held()` is the box's last entry; `own`: the box
 * has no follower to catch up with, its database is where the log goes on from: a pair's
 * first box (`held` 0) or a box that rebases the log on its database (rebase.ts; its
 * entry says so).
 */
export async function fence(
  js: JetStreamClient,
  names: ChangeLogNames,
  term: number,
  lease: { holds(): boolean },
  held: () => number,
  own?: 'origin' | 'rebase',
): Promise<number | undefined> {
  const entry = encodeEntry({ changes: { columns: {}, rows: [] }, eventIds: [] }, term, own === 'rebase');
  while (lease.holds()) {
    const last = held();
    try {
      const ack = await js.publish(names.subject, entry, { expect: { lastSequence: last } });
      return ack.seq;
    } catch (err) {
      // The log holds entries this box does not, and it has no follower to catch up with.
      if (own && isWrongLast(err)) return undefined;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_MS));
    }
  }
  return undefined;
}

function isWrongLast(err: unknown): boolean {
  return (err as { code?: number }).code === 10071 || (err as { code?: number }).code === 10164;
}
