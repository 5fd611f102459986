// The simulator's framing (docs/plc.md), independent of plc/link.
//
//   line    send: telegram + terminator (CR LF by default, LF or none);
//           receive: split on LF, drop one trailing CR.
//   fixed   send: the telegram alone; receive: exactly `length` bytes.
//   stxetx  send: STX telegram ETX [BCC]; receive: STX … ETX [BCC].
//           BCC = XOR of every byte after STX up to and including ETX.
//
// Every mode resynchronises on the sync field: bytes before `###` are dropped and
// reported, never silently glued to the next telegram.

export type FramingMode = 'line' | 'fixed' | 'stxetx';
export type Terminator = '\r\n' | '\n' | '';

export interface FramingOptions {
  mode?: FramingMode;
  /** `line` only; default CR LF. */
  terminator?: Terminator;
  /** `stxetx` only: append (send) and require (receive) the BCC byte. */
  bcc?: boolean;
  /** `fixed` only: bytes per telegram; default 160. */
  length?: number;
  /** Bytes a frame may grow to before it is given up; default 1024. */
  maxFrame?: number;
  sync?: string;
}

export const STX = 0x02;
export const ETX = 0x03;
const LF = 0x0a;
const CR = 0x0d;

/** XOR of the bytes (for stxetx: the telegram and the ETX). */
export function bcc(bytes: Uint8Array): number {
  let x = 0;
  for (const b of bytes) x ^= b;
  return x;
}

/** The bytes that carry one telegram (its text or raw bytes) on the wire. */
export function frame(telegram: string | Uint8Array, options: FramingOptions = {}): Buffer {
  const body = typeof telegram === 'string' ? Buffer.from(telegram, 'latin1') : Buffer.from(telegram);
  switch (options.mode ?? 'line') {
    case 'line':
      return Buffer.concat([body, Buffer.from(options.terminator ?? '\r\n', 'latin1')]);
    case 'fixed':
      return body;
    case 'stxetx': {
      const inner = Buffer.concat([body, Buffer.from([ETX])]);
      const parts = [Buffer.from([STX]), inner];
      if (options.bcc) parts.push(Buffer.from([bcc(inner)]));
      return Buffer.concat(parts);
    }
  }
}

export type DeframeEvent = { kind: 'frame'; bytes: Buffer } | { kind: 'dropped'; bytes: Buffer; reason: 'before-sync' | 'overflow' | 'bcc' | 'no-sync' };

/**
 * Receiving side: feed it chunks as they arrive (one telegram may span chunks, one
 * chunk may hold several telegrams) and get frames and dropped bytes back in order.
 */
export class Deframer {
  private readonly mode: FramingMode;
  private readonly withBcc: boolean;
  private readonly length: number;
  private readonly maxFrame: number;
  private readonly sync: Buffer;
  private buffer = Buffer.alloc(0);

  constructor(options: FramingOptions = {}) {
    this.mode = options.mode ?? 'line';
    this.withBcc = options.bcc ?? false;
    this.length = options.length ?? 160;
    this.maxFrame = options.maxFrame ?? 1024;
    this.sync = Buffer.from(options.sync ?? '###', 'latin1');
  }

  /** Bytes received but not yet part of a whole frame. */
  get pending(): number {
    return this.buffer.length;
  }

  reset(): void {
    this.buffer = Buffer.alloc(0);
  }

  push(chunk: Uint8Array): DeframeEvent[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const events: DeframeEvent[] = [];
    if (this.mode === 'line') this.lines(events);
    else if (this.mode === 'fixed') this.fixed(events);
    else this.stxEtx(events);
    return events;
  }

  /**
   * Where the next telegram starts: the first sync, moved past a longer run of
   * sync characters (`#####00160…` starts at the third `#`: the length follows the sync).
   */
  private syncIn(bytes: Buffer): number {
    let at = bytes.indexOf(this.sync);
    while (at >= 0 && bytes.indexOf(this.sync, at + 1) === at + 1) at++;
    return at;
  }

  private take(n: number): Buffer {
    const head = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    return Buffer.from(head);
  }

  /** A frame's content, with anything before the sync reported as dropped. */
  private emit(events: DeframeEvent[], content: Buffer): void {
    const at = this.syncIn(content);
    if (at < 0) {
      if (content.length > 0) events.push({ kind: 'dropped', bytes: content, reason: 'no-sync' });
      return;
    }
    if (at > 0) events.push({ kind: 'dropped', bytes: content.subarray(0, at), reason: 'before-sync' });
    events.push({ kind: 'frame', bytes: content.subarray(at) });
  }

  /** No end of frame within maxFrame: give up up to the next start marker after the first byte. */
  private overflow(events: DeframeEvent[], marker: Buffer = this.sync): void {
    while (this.buffer.length > this.maxFrame) {
      const next = this.buffer.indexOf(marker, 1);
      const cut = next > 0 ? next : this.buffer.length - (marker.length - 1);
      events.push({ kind: 'dropped', bytes: this.take(cut), reason: 'overflow' });
    }
  }

  private lines(events: DeframeEvent[]): void {
    for (let lf = this.buffer.indexOf(LF); lf >= 0; lf = this.buffer.indexOf(LF)) {
      const line = this.take(lf + 1).subarray(0, lf);
      this.emit(events, line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, -1) : line);
    }
    this.overflow(events);
  }

  private fixed(events: DeframeEvent[]): void {
    for (;;) {
      const at = this.syncIn(this.buffer);
      if (at !== 0) {
        // Keep a possible start of the sync at the end of the buffer.
        const cut = at > 0 ? at : Math.max(0, this.buffer.length - (this.sync.length - 1));
        if (cut > 0) events.push({ kind: 'dropped', bytes: this.take(cut), reason: 'before-sync' });
        if (at < 0) return;
      }
      if (this.buffer.length < this.length) return;
      events.push({ kind: 'frame', bytes: this.take(this.length) });
    }
  }

  private stxEtx(events: DeframeEvent[]): void {
    for (;;) {
      const stx = this.buffer.indexOf(STX);
      if (stx < 0) {
        if (this.buffer.length > 0) events.push({ kind: 'dropped', bytes: this.take(this.buffer.length), reason: 'before-sync' });
        return;
      }
      if (stx > 0) events.push({ kind: 'dropped', bytes: this.take(stx), reason: 'before-sync' });
      const etx = this.buffer.indexOf(ETX, 1);
      if (etx < 0) {
        this.overflow(events, Buffer.from([STX]));
        return;
      }
      const end = etx + 1 + (this.withBcc ? 1 : 0);
      if (this.buffer.length < end) return;
      const whole = this.take(end);
      const content = whole.subarray(1, etx);
      if (this.withBcc && bcc(whole.subarray(1, etx + 1)) !== whole[etx + 1]) {
        events.push({ kind: 'dropped', bytes: whole, reason: 'bcc' });
        continue;
      }
      this.emit(events, Buffer.from(content));
    }
  }
}
