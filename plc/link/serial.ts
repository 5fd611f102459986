// A serial line (RS-232/RS-485, or a USB adapter) at 8N1. `serialport` is a native
// addon, so it is imported only when a serial channel starts: a TCP-only site loads no
// native serial code (docs/plc.md). An open device is a connection at once (a
// serial line has no link-level handshake); when the device goes away (a USB adapter
// pulled) or cannot be opened, the link tries again after 1 s, 2 s, 5 s, then every
// 10 s, logging a repeated failure once.
//
// A device that goes away does not always say so: a pseudo-terminal whose other end
// died reads as end-of-file, which serialport's reader retries for ever without an
// error. So an open device is also watched: when its node disappears or is replaced
// (another device number behind the same name), the connection is closed.

import { statSync } from 'node:fs';
import { Backoff, ProblemLog, connectionId, type Connection, type Link, type LinkContext } from './link.ts';

interface SerialOptions {
  device: string;
  baudRate: number;
  backoffMs?: readonly number[];
}

// The few members of serialport 13's SerialPort used here, typed locally so that the
// import can stay dynamic.
interface SerialPortLike {
  readonly isOpen: boolean;
  open(callback: (err: Error | null) => void): void;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'close', listener: (err?: (Error & { disconnected?: boolean }) | null) => void): this;
  write(data: Uint8Array): boolean;
  drain(callback: (err: Error | null) => void): void;
  close(callback?: (err: Error | null) => void): void;
}

type SerialPortConstructor = new (options: { path: string; baudRate: number; dataBits: 8; parity: 'none'; stopBits: 1; autoOpen: false }) => SerialPortLike;

/** How often an open device's node is checked. */
const WATCH_MS = 500;

let loaded: Promise<SerialPortConstructor> | undefined;

/** serialport's SerialPort class, loaded on first use. */
function serialPortClass(): Promise<SerialPortConstructor> {
  loaded ??= import('serialport').then((m) => m.SerialPort as unknown as SerialPortConstructor);
  // A failed load is not cached: the next attempt tries again.
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

class SerialConnection implements Connection {
  readonly id = connectionId();
  readonly peer: string;
  private readonly port: SerialPortLike;
  private reason: string | undefined;
  private reported = false;

  constructor(port: SerialPortLike, device: string, context: LinkContext, onClosed: () => void) {
    this.port = port;
    this.peer = device;
    port.on('data', (chunk) => context.events.data(this, chunk));
    port.on('error', (err) => {
      this.reason ??= err.message;
    });
    port.on('close', (err) => {
      if (this.reported) return;
      this.reported = true;
      this.reason ??= err?.disconnected ? `device gone (${err.message})` : (err?.message ?? 'closed');
      context.events.closed(this, this.reason);
      onClosed();
    });
  }

  get isOpen(): boolean {
    return this.reason === undefined && this.port.isOpen;
  }

  write(bytes: Uint8Array): boolean {
    if (!this.isOpen) return false;
    this.port.write(bytes);
    return true;
  }

  close(reason: string): void {
    this.reason ??= reason;
    if (!this.port.isOpen) return;
    // Let what is queued reach the line first (an ERR_ before a close).
    this.port.drain(() => {
      if (this.port.isOpen) this.port.close();
    });
  }

  /** Closes at once (the device is gone: nothing can drain). */
  abort(reason: string): void {
    this.reason ??= reason;
    if (this.port.isOpen) this.port.close();
  }

  /** Closes without waiting for the output to drain; resolves when closed. */
  stop(): Promise<void> {
    this.reason ??= 'stopped';
    return new Promise((resolve) => {
      if (!this.port.isOpen) return resolve();
      this.port.close(() => resolve());
    });
  }
}

/** The device number behind a path (following links); undefined when it does not exist. */
function deviceNumber(device: string): number | undefined {
  try {
    return statSync(device).rdev;
  } catch {
    return undefined;
  }
}

export class SerialLink implements Link {
  private readonly options: SerialOptions;
  private readonly context: LinkContext;
  private readonly backoff: Backoff;
  private readonly problems: ProblemLog;
  private current: SerialConnection | undefined;
  private retry: NodeJS.Timeout | undefined;
  private opening: Promise<void> | undefined;
  private stopped = false;

  constructor(options: SerialOptions, context: LinkContext) {
    this.options = options;
    this.context = context;
    this.backoff = new Backoff(options.backoffMs);
    this.problems = new ProblemLog(context.log);
  }

  get endpoint(): string {
    return `serial ${this.options.device} @ ${this.options.baudRate} 8N1`;
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.opening = this.open();
  }

  private async open(): Promise<void> {
    this.retry = undefined;
    if (this.stopped) return;
    this.context.events.waiting();
    const { device, baudRate } = this.options;
    let port: SerialPortLike;
    try {
      const SerialPort = await serialPortClass();
      port = new SerialPort({ path: device, baudRate, dataBits: 8, parity: 'none', stopBits: 1, autoOpen: false });
      await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    } catch (err) {
      this.problems.problem(`open ${(err as Error).message}`, { device });
      this.schedule();
      return;
    }
    if (this.stopped) {
      port.close();
      return;
    }
    this.problems.recovered('device open');
    this.backoff.opened();
    const node = deviceNumber(device);
    const watch = setInterval(() => {
      const now = deviceNumber(device);
      if (now === undefined) conn.abort('device gone');
      else if (now !== node) conn.abort('device replaced');
    }, WATCH_MS);
    watch.unref();
    const conn = new SerialConnection(port, device, this.context, () => {
      clearInterval(watch);
      if (this.current === conn) this.current = undefined;
      this.schedule();
    });
    this.current = conn;
    this.context.log.info({ device: this.endpoint, connection: conn.id }, 'serial device open');
    this.context.events.opened(conn);
  }

  private schedule(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.opening = this.open();
    }, this.backoff.next());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    await this.opening;
    await this.current?.stop();
  }
}
