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
  replies: { text: string; bytes: Buffer }[];
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

  /** A new telegram, remembered before it is handled; its replies are added as they are written. */
  remember(telegram: Telegram, payload: string, now: number): CachedReply {
    const entry: CachedReply = { sender: telegram.header.sender, seq: telegram.header.seq, payload, at: now, replies: [] };
    this.cache.push(entry);
    if (this.cache.length > DUPLICATE_CACHE) this.cache.shift();
    return entry;
  }
}
