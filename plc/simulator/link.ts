// Byte pipes between the simulated PLC and the appliance: a TCP client (the usual
// case: the appliance listens), a TCP server (for an appliance channel in
// `tcp-client` mode) and a serial line (`serialport`, loaded only when used).
// Framing and telegrams live above this layer; a link only moves bytes.

import net from 'node:net';

export type TransportOptions =
  | { kind: 'tcp-client'; host: string; port: number; connectTimeoutMs?: number }
  | { kind: 'tcp-server'; host?: string; port: number }
  | { kind: 'serial'; path: string; baudRate?: number };

export interface LinkHandlers {
  data(link: Link, chunk: Buffer): void;
  closed(link: Link, reason: string): void;
}

/** One open connection (a socket or an open serial port). */
export interface Link {
  /** 1, 2, … in the order the simulator's links were opened. */
  readonly id: number;
  readonly description: string;
  readonly isOpen: boolean;
  /** Resolves when the bytes are handed to the OS (serial: drained). */
  write(bytes: Uint8Array): Promise<void>;
  /** Orderly close (TCP FIN). */
  end(): Promise<void>;
  /** Abrupt close, as a pulled cable or a PLC reset looks from the other side. */
  destroy(): void;
}

let nextId = 1;

class SocketLink implements Link {
  readonly id = nextId++;
  readonly description: string;
  private readonly socket: net.Socket;
  private closedReason: string | undefined;

  constructor(socket: net.Socket, handlers: LinkHandlers) {
    this.socket = socket;
    this.description = `tcp ${socket.localAddress}:${socket.localPort} → ${socket.remoteAddress}:${socket.remotePort}`;
    // Telegrams are small and latency-bound: no Nagle delay, and a split write stays split.
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => handlers.data(this, chunk));
    socket.on('error', (err) => {
      this.closedReason ??= err.message;
    });
    socket.on('close', () => handlers.closed(this, this.closedReason ?? 'closed'));
  }

  get isOpen(): boolean {
    return !this.socket.destroyed && this.socket.writable;
  }

  write(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.isOpen) return reject(new Error(`link ${this.id} is closed`));
      this.socket.write(bytes, (err) => (err ? reject(err) : resolve()));
    });
  }

  end(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.end();
      // A peer that never closes its side must not keep us waiting.
      setTimeout(() => this.socket.destroy(), 1000).unref();
    });
  }

  destroy(): void {
    this.closedReason ??= 'dropped';
    this.socket.destroy();
  }
}

/** Connects to the appliance's listener. */
export function dialTcp(options: { host: string; port: number; connectTimeoutMs?: number }, handlers: LinkHandlers): Promise<Link> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: options.host, port: options.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connect to ${options.host}:${options.port} timed out`));
    }, options.connectTimeoutMs ?? 3000);
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`connect to ${options.host}:${options.port} failed: ${err.message}`));
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(new SocketLink(socket, handlers));
    });
  });
}

/** Listens for the appliance (its channel in `tcp-client` mode); each accepted connection becomes a link. */
export class TcpListener {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** Callers of nextAccepted(), told of the next connection after `accepted` was. */
  private readonly waiting = new Set<(link: Link) => void>();

  constructor(handlers: LinkHandlers, accepted: (link: Link) => void) {
    this.server = net.createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      const link = new SocketLink(socket, handlers);
      accepted(link);
      for (const waiter of [...this.waiting]) waiter(link);
    });
  }

  /** The next connection the appliance makes, within `timeoutMs`. */
  nextAccepted(timeoutMs: number): Promise<Link> {
    return new Promise((resolve, reject) => {
      const got = (link: Link) => {
        clearTimeout(timer);
        this.waiting.delete(got);
        resolve(link);
      };
      const timer = setTimeout(() => {
        this.waiting.delete(got);
        reject(new Error(`no connection from the appliance within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.add(got);
    });
  }

  listen(host: string, port: number): Promise<net.AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.removeListener('error', reject);
        resolve(this.server.address() as net.AddressInfo);
      });
    });
  }

  get address(): net.AddressInfo | undefined {
    return (this.server.address() as net.AddressInfo | null) ?? undefined;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
    });
  }
}

// The few members of serialport 13's SerialPort that we use; typed here so that the
// import stays dynamic (TCP-only use loads no native code).
interface SerialPortLike {
  readonly isOpen: boolean;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'close', listener: (err?: Error | null) => void): this;
  write(data: Uint8Array, callback?: (err: Error | null | undefined) => void): boolean;
  drain(callback?: (err: Error | null) => void): void;
  close(callback?: (err: Error | null) => void): void;
  destroy(): void;
}

class SerialLink implements Link {
  readonly id = nextId++;
  readonly description: string;
  private readonly port: SerialPortLike;
  private closedReason: string | undefined;
  private closedSent = false;

  constructor(port: SerialPortLike, description: string, handlers: LinkHandlers) {
    this.port = port;
    this.description = description;
    port.on('data', (chunk) => handlers.data(this, chunk));
    port.on('error', (err) => {
      this.closedReason ??= err.message;
    });
    port.on('close', (err) => {
      if (this.closedSent) return;
      this.closedSent = true;
      handlers.closed(this, this.closedReason ?? err?.message ?? 'closed');
    });
  }

  get isOpen(): boolean {
    return this.port.isOpen;
  }

  write(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.port.isOpen) return reject(new Error(`link ${this.id} is closed`));
      this.port.write(bytes, (err) => {
        if (err) return reject(err);
        this.port.drain((drainErr) => (drainErr ? reject(drainErr) : resolve()));
      });
    });
  }

  end(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.port.isOpen) return resolve();
      this.port.close(() => resolve());
    });
  }

  destroy(): void {
    this.closedReason ??= 'dropped';
    if (this.port.isOpen) this.port.close();
  }
}

/** Opens a serial device, e.g. one end of a socat pty pair; 8N1. */
export async function openSerial(options: { path: string; baudRate?: number }, handlers: LinkHandlers): Promise<Link> {
  const baudRate = options.baudRate ?? 38_400;
  const { SerialPort } = await import('serialport');
  const port = await new Promise<SerialPortLike>((resolve, reject) => {
    const p: SerialPortLike = new SerialPort({ path: options.path, baudRate, dataBits: 8, parity: 'none', stopBits: 1, autoOpen: true }, (err) =>
      err ? reject(new Error(`open ${options.path} failed: ${err.message}`)) : resolve(p),
    );
  });
  return new SerialLink(port, `serial ${options.path} @ ${baudRate} 8N1`, handlers);
}
