// What the three links (tcp-server, tcp-client, serial) have in common. A link only
// moves bytes: it reports connections coming and going and the bytes they carry, and
// it keeps trying (listening, redialling, reopening) until stopped. Framing,
// telegrams and the channel's state machine live above it (plc/link/session.ts).

import type { Logger } from '../../src/core/log.ts';

/** One open connection: an accepted or dialled socket, or an open serial device. */
export interface Connection {
  /** 1, 2, … per process, for the log. */
  readonly id: number;
  /** `10.0.0.5:49152` (the remote end of a socket) or the device path. */
  readonly peer: string;
  readonly isOpen: boolean;
  /** Hands bytes to the OS; false (nothing written) when the connection is gone. */
  write(bytes: Uint8Array): boolean;
  /** Closes this connection after what was written has gone out; the link carries on. */
  close(reason: string): void;
  /** Closes this connection at once, dropping what is still queued; the link carries on. */
  abort(reason: string): void;
}

export interface LinkEvents {
  /** The link is trying to get a connection: listening, dialling or opening. */
  waiting(): void;
  opened(conn: Connection): void;
  data(conn: Connection, chunk: Buffer): void;
  /** The connection is gone (peer closed, error, our close); `reason` for the log. */
  closed(conn: Connection, reason: string): void;
}

export interface Link {
  /** What the link listens on, dials or opens, for diagnostics. */
  readonly endpoint: string;
  /** tcp-server: resolves when listening (rejects when it cannot); the others: at once, they keep trying. */
  start(): Promise<void>;
  /** Closes every connection and stops trying. */
  stop(): Promise<void>;
}

export interface LinkContext {
  events: LinkEvents;
  /** The channel's logger. */
  log: Logger;
}

let nextConnectionId = 1;
export const connectionId = () => nextConnectionId++;

/** Delays before the 1st, 2nd, … retry; the last one repeats (OpenWMS retries every 10 s). */
export const BACKOFF_MS: readonly number[] = [1000, 2000, 5000, 10_000];

/**
 * The retry schedule of a link that dials or opens. A connection that stayed up at
 * least as long as the longest delay counts as a success and starts the schedule
 * over; one that drops at once (a peer that accepts and hangs up) does not, so a
 * flapping peer is not hammered every second.
 */
export class Backoff {
  private step = 0;
  private openedAt: number | undefined;
  private readonly delays: readonly number[];

  constructor(delays: readonly number[] = BACKOFF_MS) {
    this.delays = delays;
  }

  opened(now = Date.now()): void {
    this.openedAt = now;
  }

  /** The delay before the next attempt (and advance the schedule). */
  next(now = Date.now()): number {
    const longest = this.delays[this.delays.length - 1]!;
    if (this.openedAt !== undefined && now - this.openedAt >= longest) this.step = 0;
    this.openedAt = undefined;
    const delay = this.delays[Math.min(this.step, this.delays.length - 1)]!;
    this.step++;
    return delay;
  }
}

/**
 * Logs the first of a run of equal problems and stays quiet while it repeats
 * ("connect ECONNREFUSED" every 10 s for a night must not fill the log); logs again
 * when the problem changes, and once when it is over.
 */
export class ProblemLog {
  private current: string | undefined;
  private repeats = 0;
  private readonly log: Logger;

  constructor(log: Logger) {
    this.log = log;
  }

  problem(message: string, fields: Record<string, unknown> = {}): void {
    if (message === this.current) {
      this.repeats++;
      return;
    }
    if (this.current !== undefined && this.repeats > 0) {
      this.log.warn({ problem: this.current, repeats: this.repeats }, 'link problem repeated');
    }
    this.current = message;
    this.repeats = 0;
    this.log.warn({ ...fields, problem: message }, 'link problem; retrying (repeats are not logged)');
  }

  /** The link works again: say so once, with how often the last problem repeated. */
  recovered(what: string): void {
    if (this.current === undefined) return;
    this.log.info({ problem: this.current, repeats: this.repeats }, `${what} after link problem`);
    this.current = undefined;
    this.repeats = 0;
  }
}

/** `host:port`, with brackets for IPv6. */
export function hostPort(host: string | undefined, port: number | undefined): string {
  const h = host ?? '?';
  return `${h.includes(':') ? `[${h}]` : h}:${port ?? '?'}`;
}
