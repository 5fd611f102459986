import type { JetStreamManager } from '@nats-io/jetstream';
import type { ChangeLogNames } from './change-log.ts';
import { decodeEntry } from './entry.ts';
import type { AppliedPosition } from './follower.ts';

// A pair whose two boxes both hold commits the change log never stored (docs/ha.md,
// "Rebase"): the active was cut off and stepped down; the other took over, wrote, and
// stepped down too before the first came back. Each must join from a copy of the active,
// and there is none: the hall would stand for good.
//
// One of them may go on from its own database: the box that wrote the log's last entry.
// Its database holds every entry of the log (the last one is its own, in its term) and,
// after it, only commits it never acknowledged (their entries were never stored). Taking
// over with them keeps everything that was acknowledged to anyone. Its first entry marks
// the log as rebased: a box that follows the log stops there and fetches a copy, since
// those unacknowledged commits are in no entry.

export class RebasedLog extends Error {
  readonly streamSeq: number;
  constructor(streamSeq: number) {
    super(`the change log was rebased at entry ${streamSeq}: this box's copy is fetched again from the active`);
    this.streamSeq = streamSeq;
  }
}

/**
 * The log's last sequence when a database at `position` may rebase the log on itself:
 * the log's last entry was written in the position's term, at or before it. Undefined
 * otherwise (another active wrote after it: this box must join).
 */
export async function rebaseFrom(jsm: JetStreamManager, names: ChangeLogNames, position: AppliedPosition): Promise<number | undefined> {
  const last = (await jsm.streams.info(names.stream)).state.last_seq;
  if (last === 0 || last > position.streamSeq) return undefined;
  const stored = await jsm.streams.getMessage(names.stream, { seq: last });
  if (!stored) return undefined;
  return decodeEntry(stored.data).term === position.term ? last : undefined;
}
