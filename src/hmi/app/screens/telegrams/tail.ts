import { page } from '../../api.ts';
import type * as Wire from '../../../../contract/replies.ts';

// Following a channel's telegram log (GET /v1/plc-channels/{name}/telegrams, docs/events.md
// "Telegram log"). There is no live event per telegram (a busy conveyor sends thousands a
// second; the event stream carries changes of state), so the log is polled, oldest
// first, by its paging cursor:
//
// - the first read starts at `from` (a time on the appliance's clock) and follows
//   `Link: rel="next"` to the end;
// - the last page of a read has no next link, so the next read asks again with the
//   cursor that led to it: what it had already is dropped by id, what came since is new.
//   A read thus costs at most one page of telegrams already seen;
// - a read follows at most `pages` pages. When the log still has more, the channel
//   sends faster than the monitor follows: it skips ahead to `skipTo()` (a moment before
//   now) rather than falling ever further behind, and says so.

/** A telegram of the log as the API sends it. */
export type Telegram = Wire.TelegramLogEntry;

/** The log's own filters (`direction`, `type`, `barcode`); absent ones are left out. */
export interface TailFilter {
  direction?: string | undefined;
  type?: string | undefined;
  barcode?: string | undefined;
}

export interface TailRead {
  /** Telegrams not read before, oldest first. */
  rows: Telegram[];
  /** The read stopped short of the end and skipped ahead. */
  skipped: boolean;
}

export class TelegramTail {
  private readonly path: string;
  private readonly filter: TailFilter;
  private from: string;
  private cursor: string | undefined;
  private lastId = 0;

  constructor(channel: string, filter: TailFilter, from: number) {
    this.path = `/v1/plc-channels/${encodeURIComponent(channel)}/telegrams`;
    this.filter = filter;
    this.from = new Date(from).toISOString();
  }

  async read(limit: number, pages: number, skipTo: () => number): Promise<TailRead> {
    const rows: Telegram[] = [];
    for (let n = 1; ; n++) {
      const next = await page<Telegram>(this.path, { ...this.filter, from: this.from }, limit, this.cursor);
      for (const row of next.items) {
        if (row.id <= this.lastId) continue;
        rows.push(row);
        this.lastId = row.id;
      }
      if (!next.next) return { rows, skipped: false };
      this.cursor = next.next;
      if (n >= pages) {
        this.cursor = undefined;
        this.from = new Date(skipTo()).toISOString();
        return { rows, skipped: true };
      }
    }
  }
}
