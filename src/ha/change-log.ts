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
 */
export class ChangePublisher {
  private readonly js: JetStreamClient;
  private readonly subject: string;
  private readonly stored: (commit: number, streamSeq: number) => void;
  private readonly failed: (commit: number, error: unknown) => void;
  /** The acknowledgements not yet handed on, in publishing order. */
  private readonly inFlight: { commit: number; ack: Promise<PubAck> }[] = [];
  private draining = false;
  private broken = false;
  /** The stream sequence of the last entry published. */
  private last: number;

  /** `after`: the stream's last sequence when this active began (its first entry is the one after it). */
  constructor(
    js: JetStreamClient,
    names: ChangeLogNames,
    after: number,
    stored: (commit: number, streamSeq: number) => void,
    failed: (commit: number, error: unknown) => void,
  ) {
    this.js = js;
    this.subject = names.subject;
    this.last = after;
    this.stored = stored;
    this.failed = failed;
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
    const ack = this.js.publish(this.subject, entry, { expect: { lastSequence: this.last } });
    this.last += 1;
    // Heard of in order below; a rejection is handled there, not unhandled here.
    ack.catch(() => undefined);
    this.inFlight.push({ commit, ack });
    void this.drain();
  }

  /** Hands on the acknowledgements in publishing order: a later one never overtakes an earlier one. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.inFlight.length > 0) {
        const { commit, ack } = this.inFlight[0]!;
        try {
          const stored = await ack;
          this.inFlight.shift();
          if (!this.broken) this.stored(commit, stored.seq);
        } catch (error) {
          this.inFlight.shift();
          // After a gap in the log, nothing later may count as stored.
          this.broken = true;
          this.failed(commit, error);
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
