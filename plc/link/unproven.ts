// tcp-server: the connections that have yet to prove they are our PLC (docs/plc.md,
// "Who gets a connection"). Each one holds its slot for `graceMs` at most; when more
// than MAX_UNPROVEN wait, the one heard from least recently gives way to the newcomer,
// never the newcomer itself: the newest connection may be the PLC's reconnect. The
// order is the Map's: taking a connection in, or hearing from it, puts it last.

/**
 * Unproven connections held at once. Under a flood every newcomer pushes the quietest
 * one out, so the PLC's own connection is pushed out only when this many come after it
 * before its first bytes are read. Idle sockets are cheap; turning the PLC away is not.
 */
export const MAX_UNPROVEN = 256;

export class UnprovenConnections<P> {
  /** Each connection with the timer that closes it when its grace is over. */
  private readonly waiting = new Map<P, NodeJS.Timeout>();
  private readonly graceMs: number;
  private readonly expired: (peer: P) => void;

  constructor(graceMs: number, expired: (peer: P) => void) {
    this.graceMs = graceMs;
    this.expired = expired;
  }

  get size(): number {
    return this.waiting.size;
  }

  /** The one heard from last (under a flood of idle sockets: the newest). */
  newest(): P | undefined {
    let last: P | undefined;
    for (const peer of this.waiting.keys()) last = peer;
    return last;
  }

  /** Takes `peer` in; returns the one that has to give way to it when too many wait now (never `peer`). */
  admit(peer: P): P | undefined {
    const timer = setTimeout(() => this.expired(peer), this.graceMs);
    timer.unref();
    this.waiting.set(peer, timer);
    return this.waiting.size > MAX_UNPROVEN ? this.waiting.keys().next().value : undefined;
  }

  /** Bytes came from `peer`: it is the last to give way now (its telegram is read before a flood can push it out). */
  heard(peer: P): void {
    const timer = this.waiting.get(peer);
    if (!timer) return;
    this.waiting.delete(peer);
    this.waiting.set(peer, timer);
  }

  /** `peer` has proven itself, or is gone. */
  remove(peer: P): void {
    clearTimeout(this.waiting.get(peer));
    this.waiting.delete(peer);
  }

  clear(): void {
    for (const timer of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }
}
