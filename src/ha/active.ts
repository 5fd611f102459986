import type { JetStreamClient } from '@nats-io/jetstream';
import type { Db } from '../core/db.ts';
import type { Logger } from '../core/log.ts';
import { TriggerCapture } from './capture.ts';
import { ChangePublisher, type ChangeLogNames } from './change-log.ts';
import { encodeEntry } from './entry.ts';
import { ReplicationGate } from './gate.ts';
import type { AppliedPosition } from './follower.ts';
import { positionWriter } from './position.ts';

// The active's write connection as the pair needs it (docs/ha.md): every transaction's
// row changes captured, its entry published to the change log as its COMMIT succeeds
// (fenced on the stream's last sequence, change-log.ts), and nothing acknowledged before
// the entry is stored and while the lease is held. Each transaction with an entry also
// records, inside itself, the entry's sequence and term: a copy of this database says
// where in the log it ends (position.ts).

export interface ActiveOptions {
  db: Db;
  js: JetStreamClient;
  names: ChangeLogNames;
  /** The stream's last sequence as this active begins (its fencing entry). */
  after: number;
  term: number;
  /** Asked before anything counts: the lease is still held (lease.ts, `holds`). */
  holds: () => boolean;
  /** Told of the position each commit with an entry records (and of the fencing entry's, at once). */
  written?: (position: AppliedPosition) => void;
  /** An entry could not be stored: this box acknowledges nothing more and must step down. */
  broken: (error: unknown) => void;
  log: Logger;
}

export function attachActive(options: ActiveOptions): ReplicationGate {
  const { db, term } = options;
  const capture = new TriggerCapture(db);
  const write = positionWriter(db);
  const record = (position: AppliedPosition) => {
    write(position);
    options.written?.(position);
  };
  // The fencing entry is this box's too: its database ends there before its first commit.
  record({ streamSeq: options.after, term });
  let gate: ReplicationGate | undefined;
  const publisher = new ChangePublisher(
    options.js,
    options.names,
    options.after,
    (commit) => gate!.stored(commit),
    (commit, error) => {
      gate!.failed(commit, error);
      options.broken(error);
    },
    // An entry the cluster cannot take yet is sent again while the lease holds: only then could it count.
    () => options.holds(),
  );
  const positioned = {
    collect() {
      const changes = capture.collect();
      // Inside the transaction: the sequence its entry gets is the next one, or none at all.
      if (changes) record({ streamSeq: publisher.next, term });
      return changes;
    },
  };
  // Migrated at this start if at all (src/main.ts): each entry says which schema its rows are of.
  const schema = db.pragma('user_version', { simple: true }) as number;
  gate = new ReplicationGate(
    positioned,
    (seq, changes, events) => publisher.publish(seq, encodeEntry({ changes, eventIds: events.map((e) => e.id) }, term, false, schema)),
    (err) => options.log.error({ err }, 'an answer waiting for the change log failed'),
    options.holds,
  );
  return gate;
}
