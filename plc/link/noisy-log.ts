import type { Logger } from '../../src/core/log.ts';

// Problems a peer can repeat many times a second (rejected frames, oversized frames,
// wrong BCCs) are logged at warn once per kind every NOISY_LOG_MS, with how many were
// held back meanwhile; at debug otherwise. A misconfigured PLC must not fill the log.

/** Warnings of one kind are logged at most this often. */
const NOISY_LOG_MS = 10_000;

export class NoisyLog {
  private readonly log: Logger;
  private readonly seen = new Map<string, { at: number; suppressed: number }>();

  constructor(log: Logger) {
    this.log = log;
  }

  warn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    const seen = this.seen.get(kind);
    if (seen && now - seen.at < NOISY_LOG_MS) {
      seen.suppressed++;
      this.log.debug(fields, message);
      return;
    }
    this.seen.set(kind, { at: now, suppressed: 0 });
    this.log.warn({ ...fields, ...(seen?.suppressed ? { notLogged: seen.suppressed } : {}) }, message);
  }
}
