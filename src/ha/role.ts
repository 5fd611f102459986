import type { Flushes } from '../core/after-commit.ts';
import type { CommitCapture } from '../core/commit-capture.ts';
import type { Db } from '../core/db.ts';
import type { UnitOfWork } from '../core/unit-of-work.ts';
import type { ServerDeclined } from '../http/errors.ts';
import type { PairStatus } from './status.ts';

// How the appliance runs as one box of a pair (docs/ha.md): what src/main.ts asks of the
// pair (src/ha/pair.ts) at its start. The pair starts the appliance once for each role
// it takes, and closes it before it takes another: every cache, counter and timer of a
// role begins from the database as it stands at that role's start.

/** The commits' line and capture of an active: the replication gate (gate.ts). */
export interface ReplicationLine extends Flushes, CommitCapture {
  /** The line, whose cells are shared with the HTTP thread as the flush thread's are. */
  readonly line: { readonly cells: Int32Array };
}

export type PairPart =
  | {
      /**
       * Serves reads from this box's copy; refuses every write (HTTP: 503 with the spec's
       * error body and Retry-After; the connection itself: query_only); starts none of the
       * modules that act (PLC channels, the hub link, retention, alarms).
       */
      role: 'standby';
      refusal: () => ServerDeclined;
      status: () => PairStatus;
    }
  | {
      /** Everything as one box, with every commit acknowledged only once its entry is stored. */
      role: 'active';
      /** Installs the gate on the write connection before anything writes (the first start's seeds included). */
      attach: (db: Db, work: UnitOfWork) => ReplicationLine;
      status: () => PairStatus;
      /** Hands the active role to the standby (`POST /v1/ha/switchover`); returns at once, the handover follows. */
      switchover: () => void;
    };
