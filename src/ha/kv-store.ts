import type { KV } from '@nats-io/kv';
import type { NatsConnection, NatsLibraries } from '../nats/connect.ts';
import type { LeaseEntry, LeaseStore, LeaseValue } from './lease.ts';

// The lease's key in a NATS key-value bucket of the pair's cluster: `wms_ha_<pair>`,
// three replicas, the key `lease`. Only the lease lives in it.

export const LEASE_KEY = 'lease';

/** The bucket of a pair's lease. */
export function leaseBucket(pair: string): string {
  return `wms_ha_${pair}`;
}

/**
 * Opens the pair's lease bucket, creating it on first use. Three replicas: one on each
 * box's node and one on the witness's, so that any two of them are a quorum. Creating
 * it may take the cluster a while (`setupTimeoutMs`); every call of the lease after that
 * is bounded by `timeoutMs` (a quarter of its TTL: an answer later than that is of no
 * use to a renewal, and the next one is due).
 */
export async function openLeaseStore(
  lib: NatsLibraries,
  nc: NatsConnection,
  pair: string,
  timeoutMs: number,
  options: { replicas?: number; setupTimeoutMs?: number } = {},
): Promise<LeaseStore> {
  const setup = lib.js.jetstream(nc, { timeout: options.setupTimeoutMs ?? 30_000 });
  await new lib.kv.Kvm(setup).create(leaseBucket(pair), {
    replicas: options.replicas ?? 3,
    history: 10,
    description: `the active's lease of the pair ${pair} (wms)`,
  });
  // Bound without asking the server again; reads go to the stream's leader, not a replica.
  const bucket = await new lib.kv.Kvm(lib.js.jetstream(nc, { timeout: timeoutMs, checkAPI: false })).open(leaseBucket(pair));
  return new KvLeaseStore(lib, bucket, timeoutMs);
}

class KvLeaseStore implements LeaseStore {
  private readonly lib: NatsLibraries;
  private readonly bucket: KV;
  private readonly timeoutMs: number;

  constructor(lib: NatsLibraries, bucket: KV, timeoutMs: number) {
    this.lib = lib;
    this.bucket = bucket;
    this.timeoutMs = timeoutMs;
  }

  async get(): Promise<LeaseEntry | null> {
    const entry = await this.bucket.get(LEASE_KEY);
    if (entry === null) return null;
    if (entry.operation !== 'PUT') return { revision: entry.revision, value: undefined };
    return { revision: entry.revision, value: decode(entry.string()) };
  }

  create(value: LeaseValue): Promise<number> {
    return this.bucket.create(LEASE_KEY, JSON.stringify(value));
  }

  update(value: LeaseValue, revision: number): Promise<number> {
    return this.bucket.update(LEASE_KEY, JSON.stringify(value), revision, this.timeoutMs);
  }

  lostRace(error: unknown): boolean {
    const { JetStreamApiError, JetStreamApiCodes } = this.lib.js;
    return (
      error instanceof JetStreamApiError &&
      (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
    );
  }
}

/**
 * A value written by another build or by hand: what cannot be read names no node this
 * pair knows, so it is treated as a holder that does not renew (taken over after a TTL).
 */
function decode(text: string): LeaseValue {
  try {
    const value = JSON.parse(text) as Partial<LeaseValue>;
    if (typeof value.node === 'string' && (typeof value.term === 'number' || value.term === null)) {
      return {
        node: value.node,
        term: value.term,
        at: String(value.at ?? ''),
        ...(value.released === true ? { released: true } : {}),
        ...(typeof value.url === 'string' ? { url: value.url } : {}),
      };
    }
  } catch {
    /* below */
  }
  return { node: '(unreadable)', term: null, at: '' };
}
