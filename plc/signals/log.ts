import type { Logs } from '../../src/core/log-store/index.ts';
import type { SignalValue } from './driver.ts';

// The signal log: every value change a signal channel acted on and every value it wrote,
// kept where telegrams are kept (the logs database's telegram_log, written by the log
// writer thread, pruned with `plc.telegramLog`), as rows of type `SIG_`: direction `in`
// for a change read, `out` for a write; `text` holds the point, its address and the
// value as JSON; the barcode, location and transport order of an arrival in their own
// columns, so a unit's trace shows its scans beside its telegrams. Heartbeats are
// counted, not logged (one row a second would bury the rest).

/** The type of a signal row in the telegram log. */
export const SIGNAL_TYPE = 'SIG_';

export interface SignalLogEntry {
  at: string;
  direction: 'in' | 'out';
  /** The point's id within its channel (`p0`, `p3.trigger`). */
  point: string;
  address: string;
  value: SignalValue;
  /** in: `change` or the warehouse's outcome (`ok`, `unknown-location`, …); out: `written` or `write-failed`. */
  outcome: string;
  barcode?: string | undefined;
  location?: string | undefined;
  order?: string | undefined;
  /** A write of an arrival's target: milliseconds since its trigger rose. */
  latencyMs?: number | undefined;
}

/** What `text` holds. */
interface SignalText {
  point: string;
  address: string;
  value: SignalValue;
}

export class SignalLog {
  private readonly store: Logs;

  constructor(store: Logs) {
    this.store = store;
  }

  /** Keeps an entry of a channel (handed to the log writer thread). */
  record(channel: string, e: SignalLogEntry): void {
    const text: SignalText = { point: e.point, address: e.address, value: e.value };
    this.store.addTelegram([
      e.at,
      channel,
      e.direction,
      SIGNAL_TYPE,
      null,
      JSON.stringify(text),
      e.outcome,
      e.barcode ?? null,
      e.location ?? null,
      e.order ?? null,
      e.latencyMs ?? null,
      null,
    ]);
  }
}

/** The point, address and value of a logged signal row; null when the text is not one. */
export function signalText(text: string): SignalText | null {
  try {
    const parsed = JSON.parse(text) as SignalText;
    return typeof parsed === 'object' && parsed !== null && typeof parsed.point === 'string' ? parsed : null;
  } catch {
    return null;
  }
}
