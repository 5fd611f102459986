import type { EventRecord } from './event-catalogue.ts';

// What the pair (src/ha/, docs/ha.md) takes from every commit of the write connection:
// the row changes of the transaction, collected inside it just before its COMMIT, and,
// once the COMMIT has succeeded, handed on with the events it wrote, in commit order.
// What follows each commit of the unit of work (after-commit.ts, `captureWith`) calls it
// at each of them; without a pair nothing is installed and nothing is collected.

export interface CommitCapture<Changes = unknown> {
  /** Inside the transaction, just before its COMMIT: the changes it made (undefined: none), and forgets them. */
  collect(): Changes | undefined;
  /** The COMMIT succeeded: what `collect` returned for it (undefined: no changes), and the events the transaction wrote. */
  afterCommit(changes: Changes | undefined, events: readonly EventRecord[]): void;
}
