// Cutting a byte stream into telegram frames, and wrapping telegrams for the wire
// (docs/plc.md). The same three modes serve TCP and serial:
//
// - `line`:   a frame ends at LF; one CR before the LF is dropped (OpenWMS writes
//             CR LF and reads up to LF).
// - `fixed`:  a frame is exactly `length` bytes starting with the sync (PLCs with a
//             fixed-length receive and no terminator handling).
// - `stxetx`: STX (0x02) … ETX (0x03), optionally followed by a BCC byte, the XOR of
//             every byte after STX up to and including ETX (serial lines with noise).
//
// Every mode resynchronises on the sync (`###`): bytes before it are dropped and
// reported as `resync`. A frame that grows past `maxFrame` without ending is
// dropped up to the next frame start and reported as `overflow`. The framer never
// throws on input and keeps at most `maxFrame` (+ a few) bytes, whatever arrives.
//
// Frames come out as latin1 strings: one character per byte, so a non-ASCII byte
// reaches the codec as a character above U+007E and is rejected there with an
// ERR_; the framer also reports it as `non-ascii`.

export type FramingMode = 'line' | 'fixed' | 'stxetx';

export interface FramerOptions {
  mode: FramingMode;
  /** `fixed`: the frame length in bytes (default 160, the telegram length). */
  length?: number;
  /** Default `###`. */
  sync?: string;
  /** `stxetx`: a BCC byte follows ETX (default false). */
  bcc?: boolean;
  /** Frame buffer cap in bytes, excluding framing bytes (default 1024). */
  maxFrame?: number;
}

export type FramingEventKind = 'resync' | 'overflow' | 'bcc-error' | 'non-ascii';

/**
 * Something the framer dropped or noticed, for the channel's counters.
 * resync: bytes before a sync (or, in `stxetx`, outside STX…ETX), or a frame
 * without any sync. overflow: bytes of a frame past the cap, up to the next frame
 * start. bcc-error: a whole stxetx frame (STX through BCC) with a wrong BCC.
 * non-ascii: bytes outside 0x20–0x7E in a frame that was still delivered.
 */
interface FramingEvent {
  kind: FramingEventKind;
  bytes: number;
}

interface PushResult {
  /** Complete frames in arrival order, framing bytes removed. */
  frames: string[];
  /** Consecutive events of one kind within one push are merged into one (bytes summed). */
  events: FramingEvent[];
}

export interface Framer {
  readonly mode: FramingMode;
  push(chunk: Uint8Array): PushResult;
  /** Forgets a partial frame (the connection dropped); returns how many bytes were discarded. */
  reset(): number;
  /** Bytes held for an incomplete frame. */
  readonly buffered: number;
}

export const STX = 0x02;
export const ETX = 0x03;
const LF = 0x0a;
const CR = 0x0d;

const DEFAULT_MAX_FRAME = 1024;
const DEFAULT_LENGTH = 160;

/** Bytes outside printable ASCII. */
function countNonPrintable(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) if (b < 0x20 || b > 0x7e) n++;
  return n;
}

/** The longest suffix of `data[from..]` that is a proper prefix of `sync` (a sync split across chunks). */
function partialSyncAtEnd(data: Buffer, from: number, sync: Buffer): number {
  for (let n = Math.min(sync.length - 1, data.length - from); n > 0; n--) {
    if (data.subarray(data.length - n).equals(sync.subarray(0, n))) return n;
  }
  return 0;
}

/**
 * The first sync at or after `from`, moved along a run of repeats: in `#x####00160`
 * the frame starts at the last `###`, since the byte after a sync is a length digit.
 * -1: no sync; -2: a sync whose next byte has not arrived yet (unless `complete`).
 */
function findSync(data: Buffer, from: number, sync: Buffer, complete: boolean): number {
  let at = data.indexOf(sync, from);
  if (at < 0) return -1;
  while (true) {
    if (at + sync.length >= data.length) return complete ? at : -2;
    if (!data.subarray(at + 1, at + 1 + sync.length).equals(sync)) return at;
    at++;
  }
}

export function createFramer(options: FramerOptions): Framer {
  const mode = options.mode;
  if (mode !== 'line' && mode !== 'fixed' && mode !== 'stxetx') throw new RangeError(`unknown framing mode ${String(mode)}`);
  const sync = Buffer.from(options.sync ?? '###', 'latin1');
  const length = options.length ?? DEFAULT_LENGTH;
  const maxFrame = options.maxFrame ?? DEFAULT_MAX_FRAME;
  const bcc = options.bcc ?? false;
  if (sync.length === 0 || sync.includes(LF) || sync.includes(STX) || sync.includes(ETX)) {
    throw new RangeError('sync must be non-empty and free of LF, STX and ETX');
  }
  if (!Number.isInteger(maxFrame) || maxFrame < sync.length) throw new RangeError(`maxFrame must be an integer >= ${sync.length}`);
  if (mode === 'fixed' && (!Number.isInteger(length) || length < sync.length || length > maxFrame)) {
    throw new RangeError(`fixed length must be an integer ${sync.length}..maxFrame (${maxFrame}), got ${length}`);
  }

  // Unconsumed bytes. In `seek` they precede the next frame start; in `frame` they
  // are the frame so far (from the sync, or in stxetx from the byte after STX).
  let pending: Buffer = Buffer.alloc(0);
  let phase: 'seek' | 'frame' = 'seek';
  // What bytes dropped while seeking are called: `overflow` right after a frame
  // outgrew the cap (until the next frame start), `resync` otherwise.
  let seekKind: 'resync' | 'overflow' = 'resync';

  function push(chunk: Uint8Array): PushResult {
    const frames: string[] = [];
    const events: FramingEvent[] = [];
    const note = (kind: FramingEventKind, bytes: number) => {
      if (bytes <= 0) return;
      const last = events[events.length - 1];
      if (last && last.kind === kind) last.bytes += bytes;
      else events.push({ kind, bytes });
    };
    const deliver = (frame: Buffer) => {
      note('non-ascii', countNonPrintable(frame));
      frames.push(frame.toString('latin1'));
    };
    /** Drop data[from..to) while seeking; in line mode bare CR/LF between frames are not noise. */
    const dropSeeking = (data: Buffer, from: number, to: number) => {
      let n = to - from;
      if (mode === 'line') for (let i = from; i < to; i++) if (data[i] === CR || data[i] === LF) n--;
      note(seekKind, n);
    };

    // A view, not a copy: only the unconsumed tail is copied, at the end.
    const data = pending.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([pending, chunk]);
    let pos = 0;

    /** Seek the sync from pos; true when found (pos at it), false when data ran out. */
    const seekSync = (): boolean => {
      while (true) {
        const found = findSync(data, pos, sync, false);
        const at = found === -2 ? data.indexOf(sync, pos) : found;
        // Line mode: an overflowing line ends at its LF; what follows is ordinary noise.
        if (mode === 'line' && seekKind === 'overflow') {
          const lf = data.indexOf(LF, pos);
          if (lf >= 0 && (at < 0 || lf < at)) {
            dropSeeking(data, pos, lf + 1);
            pos = lf + 1;
            seekKind = 'resync';
            continue;
          }
        }
        if (at < 0) {
          const keep = partialSyncAtEnd(data, pos, sync);
          dropSeeking(data, pos, data.length - keep);
          pos = data.length - keep;
          return false;
        }
        dropSeeking(data, pos, at);
        pos = at;
        if (found === -2) return false; // wait for the byte after the sync
        seekKind = 'resync';
        return true;
      }
    };

    /** The frame at pos grew past the cap: step past its sync and drop while seeking the next one. */
    const overflow = () => {
      note('overflow', 1);
      pos += 1;
      phase = 'seek';
      seekKind = 'overflow';
    };

    loop: while (pos < data.length || phase === 'frame') {
      if (mode === 'line') {
        if (phase === 'seek') {
          if (!seekSync()) break;
          phase = 'frame';
        }
        const lf = data.indexOf(LF, pos);
        const end = lf < 0 ? data.length : lf;
        // Without LF yet, one more byte may still be the CR that is not counted.
        const contentEnd = lf >= 0 && end > pos && data[end - 1] === CR ? end - 1 : end;
        const tooLong = lf >= 0 ? contentEnd - pos > maxFrame : end - pos > maxFrame + 1;
        if (tooLong) {
          overflow();
          continue;
        }
        if (lf < 0) break;
        const frame = data.subarray(pos, contentEnd);
        pos = lf + 1;
        phase = 'seek';
        deliver(frame);
        continue;
      }

      if (mode === 'fixed') {
        if (phase === 'seek') {
          if (!seekSync()) break;
          phase = 'frame';
        }
        if (data.length - pos < length) break;
        deliver(data.subarray(pos, pos + length));
        pos += length;
        phase = 'seek';
        continue;
      }

      // stxetx: frames start at STX; the content is resynchronised on the sync at the end.
      if (phase === 'seek') {
        const stx = data.indexOf(STX, pos);
        if (stx < 0) {
          dropSeeking(data, pos, data.length);
          pos = data.length;
          break;
        }
        dropSeeking(data, pos, stx);
        pos = stx + 1;
        seekKind = 'resync';
        phase = 'frame';
      }
      const etx = data.indexOf(ETX, pos);
      const stx = data.indexOf(STX, pos);
      if (stx >= 0 && (etx < 0 || stx < etx) && stx - pos <= maxFrame) {
        // A new STX before ETX: the frame before it lost its end.
        note('resync', stx - pos + 1);
        pos = stx + 1;
        continue;
      }
      const contentEnd = etx < 0 ? data.length : etx;
      if (contentEnd - pos > maxFrame) {
        note('overflow', 1); // the STX of the dropped frame; the rest goes while seeking
        phase = 'seek';
        seekKind = 'overflow';
        continue;
      }
      if (etx < 0) break;
      if (bcc) {
        if (etx + 1 >= data.length) break loop; // the BCC byte has not arrived yet
        let x = 0;
        for (let i = pos; i <= etx; i++) x ^= data[i]!;
        if (x !== data[etx + 1]) {
          note('bcc-error', etx + 2 - (pos - 1));
          pos = etx + 2;
          phase = 'seek';
          continue;
        }
      }
      const content = data.subarray(pos, etx);
      pos = etx + 1 + (bcc ? 1 : 0);
      phase = 'seek';
      const at = findSync(content, 0, sync, true);
      if (at < 0) {
        note('resync', content.length + 2 + (bcc ? 1 : 0));
        continue;
      }
      note('resync', at);
      deliver(content.subarray(at));
    }

    // Keep the unconsumed tail as a copy, so a large chunk is not held on to.
    pending = Buffer.from(data.subarray(pos));
    return { frames, events };
  }

  return {
    mode,
    push,
    reset() {
      const discarded = pending.length;
      pending = Buffer.alloc(0);
      phase = 'seek';
      seekKind = 'resync';
      return discarded;
    },
    get buffered() {
      return pending.length;
    },
  };
}

export interface EncodeFrameOptions {
  mode: FramingMode;
  /** `line` only (default CR LF, as OpenWMS); `fixed` and `stxetx` frames carry none. */
  terminator?: '\r\n' | '\n' | '';
  /** `stxetx`: append the BCC byte (default false). */
  bcc?: boolean;
}

/**
 * Wraps one telegram for the wire. Throws when the telegram has a byte outside
 * printable ASCII: such a byte could be a terminator and would break the framing.
 */
export function encodeFrame(telegram: string, options: EncodeFrameOptions): Buffer {
  if (!/^[\x20-\x7e]*$/.test(telegram)) throw new RangeError('a telegram must be printable ASCII (0x20-0x7E)');
  const body = Buffer.from(telegram, 'latin1');
  switch (options.mode) {
    case 'line':
      return Buffer.concat([body, Buffer.from(options.terminator ?? '\r\n', 'latin1')]);
    case 'fixed':
      return body;
    case 'stxetx': {
      const frame = Buffer.alloc(body.length + 2 + (options.bcc ? 1 : 0));
      frame[0] = STX;
      body.copy(frame, 1);
      frame[body.length + 1] = ETX;
      if (options.bcc) {
        let x = 0;
        for (let i = 1; i <= body.length + 1; i++) x ^= frame[i]!;
        frame[body.length + 2] = x;
      }
      return frame;
    }
    default:
      throw new RangeError(`unknown framing mode ${String(options.mode)}`);
  }
}
