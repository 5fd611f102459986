import { signal } from '@preact/signals';
import { pagesOf } from '../../lists/pages.ts';
import { LogTail } from '../../lists/tail.ts';
import type { LiveEvent } from '../../live.ts';
import type * as Wire from '../../../../contract/replies.ts';

// The trace of one transport unit (GET /v1/transport-units/{bk}/history, docs/events.md):
// its events and the telegrams that named it. The appliance pages it oldest first, and
// the screen shows the newest first, so the trace is read to its end when opened (in
// pages of a thousand) and then shown a page at a time, newer to older. New entries are
// read as a log tail (lists/tail.ts): positions in the two logs make the cursor, and a
// page read again from its own cursor gives what it had and what came since.

/** An event of the trace: the same record as the event stream sends (live.ts). */
export type EventEntry = LiveEvent & { source: 'event' };

/** A telegram that named the unit, as the unit's trace sends it. */
export type TelegramEntry = Extract<Wire.UnitHistoryEntry, { source: 'telegram' }>;

export type TraceEntry = EventEntry | TelegramEntry;

/**
 * The REQ_ each RES_ answered, from a trace oldest first: the latest REQ_ of the same
 * channel before it (between the two come only what the REQ_ caused: the move, the
 * order finished). An unsolicited RES_, or one whose REQ_ is not in the trace, has none.
 */
export function answeredRequests(entries: readonly TraceEntry[]): Map<TraceEntry, TelegramEntry> {
  const answered = new Map<TraceEntry, TelegramEntry>();
  const lastRequest = new Map<string, TelegramEntry>();
  for (const e of entries) {
    if (e.source !== 'telegram') continue;
    if (e.direction === 'in' && e.type === 'REQ_') lastRequest.set(e.channel, e);
    else if (e.direction === 'out' && e.type === 'RES_' && e.outcome !== 'unsolicited') {
      const request = lastRequest.get(e.channel);
      if (request) answered.set(e, request);
      lastRequest.delete(e.channel);
    }
  }
  return answered;
}

const READ_PAGE = 1000;
/** Entries shown at first and added by each "older". */
export const SHOWN = 50;

export class Trace {
  /** Oldest first, as the appliance gives them; undefined until read. */
  readonly entries = signal<readonly TraceEntry[] | undefined>(undefined);
  /** How many of the newest are shown. */
  readonly shown = signal(SHOWN);
  readonly error = signal<unknown>(undefined);
  private readonly log: LogTail<TraceEntry>;
  /** The next read starts the trace afresh. */
  private fresh = false;
  private reading: Promise<void> | undefined;
  private again = false;

  constructor(barcode: string) {
    this.log = new LogTail(pagesOf<TraceEntry>(`/v1/transport-units/${encodeURIComponent(barcode)}/history`));
  }

  /** The whole trace afresh. */
  load(): Promise<void> {
    this.fresh = true;
    return this.readTail();
  }

  /** What came since: the last page again and any after it. Calls while reading run once more after. */
  refresh(): Promise<void> {
    return this.readTail();
  }

  older(): void {
    this.shown.value += SHOWN;
  }

  /** One read at a time: a call while one runs has it read once more after. */
  private readTail(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        try {
          await this.readOn();
          this.error.value = undefined;
        } catch (err) {
          this.error.value = err;
        }
      } while (this.again);
      this.reading = undefined;
    })();
    return this.reading;
  }

  private async readOn(): Promise<void> {
    // Afresh until a fresh read succeeds: one that failed halfway is not read on from.
    const fresh = this.fresh;
    if (fresh) this.log.restart();
    const { rows } = await this.log.next(READ_PAGE);
    if (fresh) {
      this.fresh = false;
      this.entries.value = rows;
      return;
    }
    if (rows.length === 0) return;
    // Entries that came in stay below the newest ones shown, not pushed out of view.
    this.shown.value += rows.length;
    this.entries.value = [...(this.entries.value ?? []), ...rows];
  }
}
