import type { StoredEvent } from '../../core/event-log.ts';
import type { StreamFilter } from './filter.ts';
import { storedFrameOf } from './frames.ts';

// Pages of the event log as replays send them (replay.ts): framed once, encoded once,
// and the full ones kept a while for the next replay that reads the same page.

/**
 * The frames of a page of the log, framed and encoded once for every replay that reads
 * it. Kept as bytes: written to every client as they are, and outside the JavaScript
 * heap, where pages kept for a while would be copied by every young-generation garbage
 * collection (a pause of the whole thread).
 */
export class FramedPage {
  readonly count: number;
  readonly lastId: number;
  /** Every event's frame, in order, UTF-8. */
  private readonly bytes: Buffer;
  private readonly types: string[];
  private readonly subjectKinds: string[];
  private readonly subjectKeys: string[];
  /** Where each event's frame ends in `bytes`. */
  private readonly ends: number[];

  constructor(rows: StoredEvent[]) {
    this.count = rows.length;
    this.lastId = rows.length > 0 ? rows[rows.length - 1]!.id : 0;
    this.types = rows.map((row) => row.type);
    this.subjectKinds = rows.map((row) => row.subject_kind);
    this.subjectKeys = rows.map((row) => row.subject_key);
    this.ends = [];
    const frames: string[] = [];
    let end = 0;
    for (const row of rows) {
      const frame = storedFrameOf(row);
      frames.push(frame);
      end += Buffer.byteLength(frame);
      this.ends.push(end);
    }
    this.bytes = Buffer.from(frames.join(''));
  }

  get size(): number {
    return this.bytes.length;
  }

  /** What a stream with this filter is sent of the page: all of it, or its wanted events' frames. */
  framesFor(wanted: StreamFilter): Buffer {
    const parts: Buffer[] = [];
    for (let i = 0; i < this.count; i++) {
      if (wanted(this.types[i]!, this.subjectKinds[i]!, this.subjectKeys[i]!)) parts.push(this.bytes.subarray(i === 0 ? 0 : this.ends[i - 1], this.ends[i]));
    }
    return parts.length === this.count ? this.bytes : Buffer.concat(parts);
  }
}

/**
 * Full pages framed lately, by the id they follow: replays from the same point (views
 * reconnecting with the same id, clients replaying from the start of the log) read and
 * frame a page once, not once per client. Only a full page is kept: its events never
 * change (later events get higher ids). Bounded by the size of the frames kept; the
 * page used longest ago goes first.
 */
export class FramedPages {
  private readonly pages = new Map<number, FramedPage>();
  private readonly maxSize: number;
  private size = 0;

  constructor(maxSize: number) {
    this.maxSize = maxSize;
  }

  after(id: number): FramedPage | undefined {
    const page = this.pages.get(id);
    if (page) {
      // Used again: to the end of the line.
      this.pages.delete(id);
      this.pages.set(id, page);
    }
    return page;
  }

  keep(after: number, page: FramedPage): void {
    if (page.size > this.maxSize || this.pages.has(after)) return;
    this.pages.set(after, page);
    this.size += page.size;
    for (const [id, oldest] of this.pages) {
      if (this.size <= this.maxSize) break;
      this.pages.delete(id);
      this.size -= oldest.size;
    }
  }

  clear(): void {
    this.pages.clear();
    this.size = 0;
  }
}
