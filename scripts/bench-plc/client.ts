// The PLC side of the PLC benchmark: a lean client that sends REQ_ and matches the
// RES_ that answer them, plus the load patterns (paced open loop, closed loop with a
// window of outstanding REQ_).
//
// Telegrams are written with the simulator's own encoder and read with its deframer
// and decoder (plc/simulator), independent of the appliance's codec. The simulator's
// request() is not used: it takes the send time after the write callback and an await
// (later than the bytes left), keeps logs and scans a list of waiters per reply; here
// the send time is taken right before the write and a reply is matched by one map
// lookup, so the figures are the appliance's and the line's, not the client's.

import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { decode, Deframer, encode, encodeLocation, frame } from '../../plc/simulator/index.ts';

/** A byte pipe to the host: a TCP socket or one end of a serial line. */
interface Pipe {
  write(bytes: Buffer): void;
  close(): Promise<void>;
}

/** Dials 127.0.0.1:port; with `timeoutMs`, gives up after that long (a host whose backlog a flood has filled). */
export async function dialTcp(port: number, onData: (chunk: Buffer) => void, timeoutMs?: number): Promise<Pipe> {
  const socket = net.connect({ host: '127.0.0.1', port });
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => socket.destroy(new Error(`connect timed out after ${timeoutMs} ms`)), timeoutMs);
  try {
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  } finally {
    clearTimeout(timer);
  }
  // A connection the host resets shows as REQ_ left without RES_, not as a crash.
  socket.on('error', () => {});
  socket.setNoDelay(true);
  socket.on('data', onData);
  return {
    write: (bytes) => void socket.write(bytes),
    close: () => new Promise((resolve) => socket.end(resolve)),
  };
}

interface SerialPortLike {
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  write(data: Uint8Array): boolean;
  close(callback: () => void): void;
}

export async function openSerial(device: string, baudRate: number, onData: (chunk: Buffer) => void): Promise<Pipe> {
  const { SerialPort } = await import('serialport');
  const port = await new Promise<SerialPortLike>((resolve, reject) => {
    const p: SerialPortLike = new SerialPort({ path: device, baudRate }, (err) => (err ? reject(err) : resolve(p)));
  });
  port.on('data', onData);
  return { write: (bytes) => void port.write(bytes), close: () => new Promise((resolve) => port.close(() => resolve())) };
}

/** A transport unit as the PLC sees it: where it stands; it shuttles between two conveyor locations. */
interface Unit {
  barcode: string;
  at: string;
}

export interface RunResult {
  /** REQ_ written. */
  sent: number;
  /** RES_ matched to a REQ_, with a target. */
  answered: number;
  /** Achieved REQ_ per second over the run. */
  rate: number;
  /** REQ_ handed to the OS → RES_ complete, ms, sorted. */
  latencies: number[];
  /** Open loop: how late REQ_ left against their schedule, ms, sorted. */
  lag: number[];
  /** Open loop: REQ_ not sent because every unit had one in flight (the host fell that far behind). */
  skipped: number;
  errors: string[];
}

export interface ClientOptions {
  name: string;
  /** The two conveyor locations the units shuttle between (AREA/AISLE/X/Y/Z). */
  locations: [string, string];
  /** The units; every one starts at the first location. */
  barcodes: string[];
  /** The host's name, the receiver; default `MFC__`. */
  host?: string;
}

/**
 * A simulated PLC with a pool of units. Each REQ_ goes out for an idle unit (one
 * without a REQ_ in flight, so a RES_ is matched unambiguously by barcode + location)
 * with a fresh sequence number; the RES_ must name the other location, where the
 * unit then stands.
 */
export class PlcClient {
  private readonly name: string;
  private readonly host: string;
  private readonly locations: [string, string];
  private readonly idle: Unit[];
  private readonly pending = new Map<string, { unit: Unit; at: number }>();
  private readonly deframer = new Deframer();
  private pipe: Pipe | undefined;
  private seq = 1;
  private run: RunResult | undefined;
  /** Called after each RES_ (closed loop sends the next REQ_ from here). */
  private onAnswer: (() => void) | undefined;
  private drained: (() => void) | undefined;

  constructor(options: ClientOptions) {
    this.name = options.name;
    this.host = options.host ?? 'MFC__';
    this.locations = [decodeLocationText(options.locations[0]), decodeLocationText(options.locations[1])];
    this.idle = options.barcodes.map((barcode) => ({ barcode, at: this.locations[0] }));
  }

  async connect(open: (onData: (chunk: Buffer) => void) => Promise<Pipe>): Promise<void> {
    this.pipe = await open((chunk) => this.received(chunk));
  }

  close(): Promise<void> | undefined {
    return this.pipe?.close();
  }

  private fresh(): RunResult {
    return { sent: 0, answered: 0, rate: 0, latencies: [], lag: [], skipped: 0, errors: [] };
  }

  /** Sends one REQ_ for the next idle unit; false when every unit has one in flight. */
  private send(): boolean {
    const unit = this.idle.shift();
    if (!unit) return false;
    const seq = this.seq;
    this.seq = seq >= 32_767 ? 1 : seq + 1;
    const text = encode({ type: 'REQ_', sender: this.name, receiver: this.host, seq, barcode: unit.barcode, actualLocation: unit.at, errorCode: '********' });
    const bytes = frame(text);
    // Barcode and actual location: what the RES_ echoes at the same offsets.
    this.pending.set(text.slice(27, 67), { unit, at: performance.now() });
    this.pipe!.write(bytes);
    this.run!.sent++;
    return true;
  }

  private received(chunk: Buffer): void {
    const now = performance.now();
    const run = this.run;
    for (const event of this.deframer.push(chunk)) {
      if (event.kind === 'dropped') {
        run?.errors.push(`bytes dropped (${event.reason}): ${JSON.stringify(event.bytes.toString('latin1'))}`);
        continue;
      }
      const text = event.bytes.toString('latin1');
      const request = this.pending.get(text.slice(27, 67));
      if (!request || !run) {
        run?.errors.push(`telegram that answers no REQ_: ${text}`);
        continue;
      }
      this.pending.delete(text.slice(27, 67));
      const { unit } = request;
      let problem: string | undefined;
      try {
        const t = decode(text);
        const other = unit.at === this.locations[0] ? this.locations[1] : this.locations[0];
        if (t.type !== 'RES_') problem = `${t.type} instead of RES_`;
        else if (t.targetLocation !== other) problem = `RES_ target ${t.targetLocation ?? 'none'} at ${unit.at}, expected ${other}`;
        else unit.at = other;
      } catch (err) {
        problem = (err as Error).message;
      }
      if (problem) run.errors.push(`${unit.barcode}: ${problem}: ${text}`);
      else {
        run.answered++;
        run.latencies.push(now - request.at);
      }
      this.idle.push(unit);
      this.onAnswer?.();
    }
    if (this.pending.size === 0) this.drained?.();
  }

  /** Waits until every REQ_ in flight is answered (or `timeoutMs` passed: each one left is an error). */
  private async drain(run: RunResult, timeoutMs = 5000): Promise<void> {
    if (this.pending.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.drained = undefined;
    }
    for (const [key, { unit }] of this.pending) {
      run.errors.push(`no RES_ within ${timeoutMs} ms after the run for ${unit.barcode} at ${unit.at}`);
      this.pending.delete(key);
      this.idle.push(unit);
    }
    run.latencies.sort((a, b) => a - b);
    run.lag.sort((a, b) => a - b);
  }

  /**
   * Open loop: REQ_ at `rate` per second on a fixed schedule for `seconds` (or until
   * `stop` is aborted), whether answers came or not; then up to `drainMs` for the
   * answers still due (a host that stalls for seconds answers late, not never).
   */
  async paced(rate: number, seconds: number, drainMs = 5000, stop?: AbortSignal): Promise<RunResult> {
    const run = (this.run = this.fresh());
    const interval = 1000 / rate;
    const total = Math.round(rate * seconds);
    const start = performance.now();
    let next = 0;
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        // Everything due goes out now: a late timer sends the backlog at once, as a PLC line would.
        while (next < total && start + next * interval <= now) {
          if (this.send()) run.lag.push(now - (start + next * interval));
          else run.skipped++;
          next++;
        }
        if (next >= total || stop?.aborted) return resolve();
        setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
      };
      tick();
    });
    // Over the span the schedule covered: up to the last send plus one interval.
    run.rate = run.sent / ((performance.now() - start + interval) / 1000);
    await this.drain(run, drainMs);
    return run;
  }

  /** One REQ_ and its RES_ (none within `drainMs` is an error): the first telegram on a new connection. */
  async single(drainMs = 5000): Promise<RunResult> {
    const run = (this.run = this.fresh());
    const start = performance.now();
    this.send();
    await this.drain(run, drainMs);
    run.rate = run.answered / ((performance.now() - start) / 1000);
    return run;
  }

  /** Closed loop: `window` REQ_ in flight, each RES_ sends the next at once, for `seconds`. */
  async windowed(window: number, seconds: number): Promise<RunResult> {
    const run = (this.run = this.fresh());
    const start = performance.now();
    const end = start + seconds * 1000;
    let last = start;
    this.onAnswer = () => {
      last = performance.now();
      if (last < end) this.send();
    };
    for (let i = 0; i < window; i++) if (!this.send()) throw new Error(`window ${window} needs that many units`);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    await this.drain(run);
    this.onAnswer = undefined;
    run.rate = run.answered / ((last - start) / 1000);
    return run;
  }
}

/** `AREA/AISLE/X/Y/Z` as the decoder gives it back (numbers padded to 4 digits). */
function decodeLocationText(location: string): string {
  const field = encodeLocation(location);
  return [0, 4, 8, 12, 16].map((i) => field.slice(i, i + 4)).join('/');
}

/** The value at quantile q of a sorted list. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
