// Identical resends (docs/plc.md): a PLC that got no answer in time sends the same
// telegram again, with the same sender and sequence number. Within duplicateWindowMs
// such a resend gets the reply bytes of the first again instead of being handled twice
// (a REQ_ handled twice would route its unit twice). The last DUPLICATE_CACHE telegrams
// are remembered, each with the replies written to it.

import type { Logger } from '../../src/core/log.ts';
import type { Telegram } from './telegrams.ts';

export interface CachedReply {
  sender: string;
  seq: number;
  /** Type and payload as received. */
  payload: string;
  at: number;
  /** As written; `bytes` absent for replies kept in the database (encoded again when sent). */
  replies: { text: string; bytes?: Buffer | undefined }[];
}

/**
 * Where a box of a pair keeps its channels' recent telegrams and their replies
 * (plc/resend-keeper.ts): written with each batch, read by the channel as it is made,
 * so that the box that takes over answers a resend as the one before it did.
 */
export interface ResendKeeper {
  keep(channel: string, telegrams: readonly { entry: CachedReply; texts: readonly string[] }[]): void;
  load(channel: string): CachedReply[];
}

const DUPLICATE_CACHE = 32;

export class ResendCache {
  private readonly cache: CachedReply[] = [];
  private readonly log: Logger;

  constructor(log: Logger) {
    this.log = log;
  }

  /**
   * The earlier telegram within `windowMs` that this one repeats exactly, if any. One with
   * the same sequence number but another payload is new (a PLC whose counter was reset):
   * the earlier one is forgotten.
   */
  resent(telegram: Telegram, payload: string, now: number, windowMs: number): CachedReply | undefined {
    const header = telegram.header;
    const i = this.cache.findIndex((c) => c.sender === header.sender && c.seq === header.seq && now - c.at <= windowMs);
    const cached = i >= 0 ? this.cache[i]! : undefined;
    if (cached && cached.payload === payload) return cached;
    if (cached) {
      this.log.warn({ seq: header.seq, type: telegram.type }, 'same sequence number, different telegram: handled as new (PLC counter reset?)');
      this.cache.splice(i, 1);
    }
    return undefined;
  }

  /** Telegrams kept by the box before (ResendKeeper), oldest first. */
  seed(entries: readonly CachedReply[]): void {
    for (const entry of entries.slice(-DUPLICATE_CACHE)) this.cache.push(entry);
  }

  /** A new telegram, remembered before it is handled; its replies are added as they are written. */
  remember(telegram: Telegram, payload: string, now: number): CachedReply {
    const entry: CachedReply = { sender: telegram.header.sender, seq: telegram.header.seq, payload, at: now, replies: [] };
    this.cache.push(entry);
    if (this.cache.length > DUPLICATE_CACHE) this.cache.shift();
    return entry;
  }
}
