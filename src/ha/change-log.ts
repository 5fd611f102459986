import type { JetStreamClient, JetStreamManager, PubAck } from '@nats-io/jetstream';
import type { JetStreamLib } from '../nats/connect.ts';

// The pair's change log (docs/ha.md): a JetStream stream with three replicas, one entry
// (entry.ts) per commit of the active, in commit order. The active publishes each entry
// as its commit succeeds and hears, in the same order, when each is stored on a quorum;
// the standby reads the stream from the entry after the last one it applied.

export interface ChangeLogNames {
  stream: string;
  subject: string;
}

export function changeLogNames(pair: string): ChangeLogNames {
  return { stream: `WMS_HA_${pair}`, subject: `wms.ha.${pair}.log` };
}

export interface ChangeLogLimits {
  replicas: number;
  /** Entries older than this leave the stream: a standby away for longer rejoins from a copy of the active. */
  maxAgeMs: number;
  maxBytes: number;
}

export const DEFAULT_CHANGE_LOG_LIMITS: ChangeLogLimits = { replicas: 3, maxAgeMs: 24 * 3600_000, maxBytes: 8 * 1024 * 1024 * 1024 };

/** Creates the stream when it is missing (its limits are set at creation); the stream's names. */
export async function ensureChangeLog(lib: JetStreamLib, jsm: JetStreamManager, pair: string, limits = DEFAULT_CHANGE_LOG_LIMITS): Promise<ChangeLogNames> {
  const names = changeLogNames(pair);
  try {
    await jsm.streams.info(names.stream);
    return names;
  } catch (err) {
    if (!(err instanceof lib.JetStreamApiError) || err.code !== lib.JetStreamApiCodes.StreamNotFound) throw err;
  }
  await jsm.streams.add({
    name: names.stream,
    subjects: [names.subject],
    retention: lib.RetentionPolicy.Limits,
    storage: lib.StorageType.File,
    num_replicas: limits.replicas,
    max_age: limits.maxAgeMs * 1_000_000,
    max_bytes: limits.maxBytes,
    discard: lib.DiscardPolicy.Old,
    description: `the change log of the pair ${pair} (wms)`,
  });
  return names;
}

/** The stream's last sequence (0 for an empty stream). */
export async function lastSequence(jsm: JetStreamManager, names: ChangeLogNames): Promise<number> {
  return (await jsm.streams.info(names.stream)).state.last_seq;
}

/** How often the active sends again an entry the cluster could not take yet (a leader being elected). */
const RETRY_EVERY_MS = 100;

/** An answer that says the entry was not stored, nor will be: the stream refused it (fenced, gone). */
const refused = (error: unknown) => {
  const e = error as { name?: string; status?: number };
  return e.name !== undefined && /JetStreamApiError|NotFoundError/.test(e.name) && typeof e.status === 'number' && e.status < 500;
};

/** One entry sent and not yet heard of as stored. */
interface InFlight {
  commit: number;
  entry: Uint8Array;
  /** The stream's last sequence it expects (its own is the next). */
  expect: number;
  ack: Promise<PubAck>;
}

/**
 * The active's end of the change log: publishes each entry as its commit succeeds and
 * tells `stored` of each, in commit order, once the stream has it on a quorum (its
 * sequence in the stream), or `failed` when it could not be stored: what was committed
 * from that one on can no longer be acknowledged by this box.
 *
 * Fenced: every entry is published expecting the stream's last sequence to be the one
 * before it. The active knows each entry's sequence before it publishes it (it is the
 * only writer), and the stream refuses an entry once anyone else wrote to it: a former
 * active that did not notice it lost the lease cannot add a single entry after the new
 * one's first (docs/ha.md, "Takeover"), and after one refusal every later entry is
 * refused too.
 *
 * Sent again: an entry that got no answer, or "no responders" (the stream's replicas are
 * electing a leader, as after a node came back), is sent again with every one after it,
 * in order, for as long as `keepTrying` says (the active: while it holds the lease, which
 * is what may acknowledge anything at all): each carries a message id of its own, so one
 * that was stored after all is answered as a duplicate with its sequence, not stored
 * twice. Only the stream's refusal, or `keepTrying` saying no, fails it.
 */
export class ChangePublisher {
  private readonly js: JetStreamClient;
  private readonly subject: string;
  private readonly stored: (commit: number, streamSeq: number) => void;
  private readonly failed: (commit: number, error: unknown) => void;
  private readonly keepTrying: (failingForMs: number) => boolean;
  /** The entries not yet handed on, in publishing order. */
  private readonly inFlight: InFlight[] = [];
  private draining = false;
  private broken = false;
  /** The stream sequence of the last entry published. */
  private last: number;
  /** This active's first sequence: with an entry's own, its message id (unique to this active). */
  private readonly from: number;

  /** `after`: the stream's last sequence when this active began (its first entry is the one after it). */
  constructor(
    js: JetStreamClient,
    names: ChangeLogNames,
    after: number,
    stored: (commit: number, streamSeq: number) => void,
    failed: (commit: number, error: unknown) => void,
    keepTrying: (failingForMs: number) => boolean = (ms) => ms < 5000,
  ) {
    this.js = js;
    this.subject = names.subject;
    this.last = after;
    this.from = after;
    this.stored = stored;
    this.failed = failed;
    this.keepTrying = keepTrying;
  }

  /** The stream sequence the next entry published will have, if it is stored. */
  get next(): number {
    return this.last + 1;
  }

  /** Entries published and not yet stored. */
  get pending(): number {
    return this.inFlight.length;
  }

  /** Publishes the entry of commit `commit` (a number that rises with every commit). */
  publish(commit: number, entry: Uint8Array): void {
    const expect = this.last;
    this.last += 1;
    this.inFlight.push({ commit, entry, expect, ack: this.send(entry, expect) });
    void this.drain();
  }

  private send(entry: Uint8Array, expect: number): Promise<PubAck> {
    const ack = this.js.publish(this.subject, entry, { expect: { lastSequence: expect }, msgID: `${this.from}-${expect + 1}` });
    // Heard of in order below; a rejection is handled there, not unhandled here.
    ack.catch(() => undefined);
    return ack;
  }

  /** Hands on the acknowledgements in publishing order: a later one never overtakes an earlier one. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    let failingSince: number | undefined;
    try {
      while (this.inFlight.length > 0) {
        const head = this.inFlight[0]!;
        try {
          const stored = await head.ack;
          this.inFlight.shift();
          failingSince = undefined;
          if (!this.broken) this.stored(head.commit, stored.seq);
        } catch (error) {
          failingSince ??= performance.now();
          if (!this.broken && !refused(error) && this.keepTrying(performance.now() - failingSince)) {
            await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
            for (const item of this.inFlight) item.ack = this.send(item.entry, item.expect);
            continue;
          }
          this.inFlight.shift();
          // After a gap in the log, nothing later may count as stored.
          this.broken = true;
          this.failed(head.commit, error);
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
