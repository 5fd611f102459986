import type { Page } from './pages.ts';

// A log followed at its end: a list the appliance pages oldest first and only ever
// appends to (a channel's telegram log, a unit's trace). The last page read is asked
// for again, from the cursor that led to it: it gives what it had and what came since,
// so a read costs at most one page already seen. Where a read stands is that cursor and
// how many entries after it were handed out; the page size may differ from read to read.

export interface TailRead<T> {
  /** Entries not read before, oldest first. */
  rows: T[];
  /** The read stopped at its page bound before the log's end. */
  behind: boolean;
}

export class LogTail<T> {
  private readonly read: (limit: number, after: string | undefined) => Promise<Page<T>>;
  /** The cursor of the last page read (undefined: the log's start). */
  private after: string | undefined;
  /** Entries after that cursor handed out already. */
  private seen = 0;

  /** `read`: one page of the log, from its start or after a cursor. */
  constructor(read: (limit: number, after: string | undefined) => Promise<Page<T>>) {
    this.read = read;
  }

  /** What came since the last read: at most `pages` pages of `limit` entries. */
  async next(limit: number, pages = Infinity): Promise<TailRead<T>> {
    const rows: T[] = [];
    let { after, seen } = this;
    for (let n = 1; ; n++) {
      const page = await this.read(limit, after);
      rows.push(...page.items.slice(seen));
      if (!page.next) {
        // The end: asked for again next time, from the same cursor.
        this.after = after;
        this.seen = Math.max(seen, page.items.length);
        return { rows, behind: false };
      }
      after = page.next;
      seen = Math.max(0, seen - page.items.length);
      if (n >= pages) {
        this.after = after;
        this.seen = seen;
        return { rows, behind: true };
      }
    }
  }

  /** From the log's start again (as `read` now asks for it). */
  restart(): void {
    this.after = undefined;
    this.seen = 0;
  }
}
