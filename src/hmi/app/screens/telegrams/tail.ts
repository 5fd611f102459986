import { page } from '../../lists/pages.ts';
import { LogTail } from '../../lists/tail.ts';
import type * as Wire from '../../../../contract/replies.ts';

// Following a channel's telegram log (GET /v1/plc-channels/{name}/telegrams, docs/events.md
// "Telegram log"). There is no live event per telegram (a busy conveyor sends thousands a
// second; the event stream carries changes of state), so the log is polled, oldest
// first, as a log tail (lists/tail.ts):
//
// - the first read starts at `from` (a time on the appliance's clock) and follows
//   `Link: rel="next"` to the end; each later read asks for the last page again, and
//   gets what came since;
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
  private from: string;
  private readonly tail: LogTail<Telegram>;
  /**
   * The newest telegram handed out. A skip ahead starts the log afresh from a time, which
   * may lie before telegrams read already: those (ids grow with time) are not handed
   * out twice.
   */
  private lastId = 0;

  constructor(channel: string, filter: TailFilter, from: number) {
    const path = `/v1/plc-channels/${encodeURIComponent(channel)}/telegrams`;
    this.from = new Date(from).toISOString();
    this.tail = new LogTail((limit, after) => page<Telegram>(path, { ...filter, from: this.from }, limit, after));
  }

  async read(limit: number, pages: number, skipTo: () => number): Promise<TailRead> {
    const read = await this.tail.next(limit, pages);
    const rows = read.rows.filter((row) => row.id > this.lastId);
    if (rows.length) this.lastId = rows[rows.length - 1]!.id;
    if (read.behind) {
      this.from = new Date(skipTo()).toISOString();
      this.tail.restart();
    }
    return { rows, skipped: read.behind };
  }
}
