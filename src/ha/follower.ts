import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { Db } from '../core/db.ts';
import { ChangeApplier, SchemaMismatch } from './apply.ts';
import type { ChangeLogNames } from './change-log.ts';
import { decodeEntry } from './entry.ts';
import { positionIn, positionWriter } from './position.ts';
import { RebasedLog } from './rebase.ts';

// The standby's end of the change log (docs/ha.md): reads the stream in order from the
// entry after the last one applied and applies the entries that arrived together in one
// transaction, which also records the last one's stream sequence and term (table
// ha_applied). A crash between two transactions loses nothing and applies nothing
// twice: the next start reads on from what the database says. An entry of an older term
// than one already applied was written by an active that had lost the lease by then, and
// is skipped: nothing of it was acknowledged.

/** How long one pull for entries waits on the server, and how often the server says it is there meanwhile. */
const READ_EXPIRES_MS = 5000;
const READ_HEARTBEAT_MS = 1000;

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
  /** The schema of this box's database: rows of another are not applied (entry.ts, `schema`). */
  private readonly schema: number;
  /** Where this box's copy stands: read from the database once, then kept with each entry it applies. */
  private at: AppliedPosition;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;
  /** Entries read and not applied yet, and the turn that applies them. */
  private readonly waiting: JsMsg[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  /** After the last entry applied: how many the stream held after it, and how long ago it was stored. */
  private behind = { entries: 0, ms: 0 };

  constructor(options: FollowerOptions) {
    this.options = options;
    const { db } = options;
    this.applier = new ChangeApplier(db);
    this.at = positionIn(db) ?? { streamSeq: 0, term: 0 };
    this.record = positionWriter(db);
    this.schema = db.pragma('user_version', { simple: true }) as number;
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
    // The reading lives on one of the three nodes: when that node goes (the witness
    // restarted, say), only missed heartbeats tell, and the library makes it again after
    // two. By default that is 30 s of a standby that applies nothing and cannot take
    // over; a heartbeat a second finds it in two.
    this.messages = await consumer.consume({ expires: READ_EXPIRES_MS, idle_heartbeat: READ_HEARTBEAT_MS });
    this.loop = this.follow(this.messages);
  }

  /** Stops reading; entries read and not applied yet are read again at the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.waiting.length = 0;
    await this.messages?.close();
    await this.loop;
  }

  private async follow(messages: ConsumerMessages): Promise<void> {
    for await (const message of messages) {
      if (this.stopped) break;
      // What arrives within one turn of the event loop is applied in one transaction:
      // under a steady stream of entries that is one flush for many, and the standby keeps up.
      this.waiting.push(message);
      this.scheduled ??= setImmediate(() => this.applyWaiting(messages));
    }
  }

  private applyWaiting(messages: ConsumerMessages): void {
    this.scheduled = undefined;
    const batch = this.waiting.splice(0);
    if (this.stopped || batch.length === 0) return;
    try {
      this.applyAll(batch);
      const last = batch.at(-1)!;
      this.behind = { entries: last.info.pending, ms: Math.max(0, Date.now() - last.info.timestampNanos / 1e6) };
    } catch (error) {
      this.stopped = true;
      this.options.failed(error, (error as { streamSeq?: number }).streamSeq ?? batch[0]!.seq);
      void messages.close();
    }
  }

  /** The entries in one transaction, with the position of the last; none of them when one fails. */
  private applyAll(batch: readonly JsMsg[]): void {
    const { db } = this.options;
    let position = this.at;
    const decided: { position: AppliedPosition; skipped: boolean }[] = [];
    // The standby's connection refuses every other write (query_only, pair.ts): lifted
    // for this transaction alone, on this thread, with nothing else running in between.
    const fenced = db.pragma('query_only', { simple: true }) === 1;
    if (fenced) db.pragma('query_only = 0');
    try {
      db.transaction(() => {
        for (const message of batch) {
          if (message.seq <= position.streamSeq) continue; // applied before a restart of the reading
          try {
            const entry = decodeEntry(message.data);
            // The log goes on from another database than this copy: nothing after it applies here.
            if (entry.rebase) throw new RebasedLog(message.seq);
            if (entry.schema !== undefined && entry.schema !== this.schema) throw new OtherSchema(entry.schema, this.schema);
            const skipped = entry.term < position.term;
            if (!skipped) this.applier.apply(entry.changes);
            position = { streamSeq: message.seq, term: skipped ? position.term : entry.term };
            decided.push({ position, skipped });
          } catch (error) {
            throw Object.assign(error as object, { streamSeq: message.seq });
          }
        }
        this.record(position);
      })();
    } finally {
      if (fenced) db.pragma('query_only = 1');
    }
    this.at = position;
    for (const { position: p, skipped } of decided) this.options.applied?.(p, skipped);
  }
}

/**
 * Rows of another schema than this box's database (the boxes run different builds, and
 * the active migrated its database at its start): none are applied, and the follower
 * stops there, saying what to install (docs/ha.md, "Upgrading a pair"). Applying them
 * could mix two schemas in one database.
 */
export class OtherSchema extends SchemaMismatch {
  /** The schema of the entry's rows, and of this box's database. */
  readonly active: number;
  readonly here: number;

  constructor(active: number, here: number) {
    super(
      active > here
        ? `the active writes schema ${active}, this box's database is at schema ${here}: install the active's build on this box (it then joins from a copy)`
        : `the active writes schema ${active}, older than this box's database (schema ${here}): this box runs a newer build; it joins from a copy once the active runs it too`,
    );
    this.active = active;
    this.here = here;
  }
}
