import type { ConsumerMessages, JetStreamClient } from '@nats-io/jetstream';
import type { Db } from '../core/db.ts';
import { ChangeApplier } from './apply.ts';
import type { ChangeLogNames } from './change-log.ts';
import { decodeEntry } from './entry.ts';

// The standby's end of the change log (docs/ha.md): reads the stream in order from the
// entry after the last one applied and applies each in one transaction, which also
// records its stream sequence and term (table ha_applied). A crash between two entries
// loses nothing and applies nothing twice: the next start reads on from what the
// database says. An entry of an older term than one already applied was written by an
// active that had lost the lease by then, and is skipped: nothing of it was acknowledged.

export interface AppliedPosition {
  streamSeq: number;
  term: number;
}

export interface FollowerOptions {
  db: Db;
  js: JetStreamClient;
  names: ChangeLogNames;
  /** Told of every entry applied (or skipped), after its transaction. */
  applied?: (position: AppliedPosition, skipped: boolean) => void;
  /** Told when an entry cannot be applied (another build's schema, a broken entry): the follower stops there. */
  failed: (error: unknown, streamSeq: number) => void;
}

export class StandbyFollower {
  private readonly options: FollowerOptions;
  private readonly applier: ChangeApplier;
  private readonly record: (position: AppliedPosition) => void;
  /** Where this box's copy stands: read from the database once, then kept with each entry it applies. */
  private at: AppliedPosition;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;
  /** After the last entry applied: how many the stream held after it, and how long ago it was stored. */
  private behind = { entries: 0, ms: 0 };

  constructor(options: FollowerOptions) {
    this.options = options;
    const { db } = options;
    this.applier = new ChangeApplier(db);
    const read = db.prepare('SELECT stream_seq AS streamSeq, term FROM ha_applied WHERE id = 1');
    this.at = (read.get() as AppliedPosition | undefined) ?? { streamSeq: 0, term: 0 };
    const write = db.prepare(
      'INSERT INTO ha_applied (id, stream_seq, term) VALUES (1, @streamSeq, @term) ON CONFLICT (id) DO UPDATE SET stream_seq = excluded.stream_seq, term = excluded.term',
    );
    this.record = (position) => write.run(position);
  }

  /** Where this box's copy stands. */
  get position(): AppliedPosition {
    return this.at;
  }

  /** How far behind the change log this copy was at the last entry applied. */
  get lag(): { entries: number; ms: number } {
    return this.behind;
  }

  /** Starts reading the stream after the last entry applied. */
  async start(): Promise<void> {
    const from = this.at.streamSeq + 1;
    const consumer = await this.options.js.consumers.get(this.options.names.stream, { opt_start_seq: from });
    this.messages = await consumer.consume();
    this.loop = this.follow(this.messages);
  }

  /** Stops reading; an entry under way is applied whole or not at all. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close();
    await this.loop;
  }

  private async follow(messages: ConsumerMessages): Promise<void> {
    for await (const message of messages) {
      if (this.stopped) break;
      const streamSeq = message.seq;
      try {
        this.applyOne(streamSeq, message.data);
        this.behind = { entries: message.info.pending, ms: Math.max(0, Date.now() - message.info.timestampNanos / 1e6) };
      } catch (error) {
        this.options.failed(error, streamSeq);
        await messages.close();
        break;
      }
    }
  }

  private applyOne(streamSeq: number, data: Uint8Array): void {
    const { db } = this.options;
    const at = this.at;
    if (streamSeq <= at.streamSeq) return; // applied before a restart of the reading
    const entry = decodeEntry(data);
    const skipped = entry.term < at.term;
    const position = { streamSeq, term: skipped ? at.term : entry.term };
    // The standby's connection refuses every other write (query_only, pair.ts): lifted
    // for this transaction alone, on this thread, with nothing else running in between.
    const fenced = db.pragma('query_only', { simple: true }) === 1;
    if (fenced) db.pragma('query_only = 0');
    try {
      db.transaction(() => {
        if (!skipped) this.applier.apply(entry.changes);
        this.record(position);
      })();
    } finally {
      if (fenced) db.pragma('query_only = 1');
    }
    this.at = position;
    this.options.applied?.(position, skipped);
  }
}
