// The appliance listens, the PLC connects (the default, docs/plc.md). A peer not in
// `allowFrom` is closed before anything else; every other socket is accepted and
// reported, however many there are. Which one is the PLC's and which ones give way
// when too many wait (the newest one whose first valid telegram names the right PLC
// supersedes the older one) is the session's decision, since only it reads telegrams:
// a cap here would refuse the newest connection, which may be the PLC's reconnect.

import net, { type AddressInfo } from 'node:net';
import type { AllowList } from './allow-list.ts';
import { connectionId, hostPort, type Connection, type Link, type LinkContext } from './link.ts';

interface TcpServerOptions {
  host: string;
  port: number;
  /** TCP keep-alive probe delay (default 30 s): a dead peer is noticed even when no telegram is due. */
  keepAliveMs?: number;
  /** Peers that may connect; others are closed at once. Undefined: anyone. */
  allowFrom?: AllowList | undefined;
  /** A peer not in `allowFrom` was turned away (its address). */
  refused?: ((address: string) => void) | undefined;
}

/** An accepted or dialled socket as a Connection (also used by tcp-client). */
export class SocketConnection implements Connection {
  readonly id = connectionId();
  readonly peer: string;
  private readonly socket: net.Socket;
  private reason: string | undefined;

  constructor(socket: net.Socket, context: LinkContext, keepAliveMs: number) {
    this.socket = socket;
    this.peer = hostPort(socket.remoteAddress, socket.remotePort);
    // Telegrams are small and latency-bound: no Nagle delay.
    socket.setNoDelay(true);
    socket.setKeepAlive(true, keepAliveMs);
    socket.on('data', (chunk: Buffer) => context.events.data(this, chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.reason ??= err.code ?? err.message;
    });
    socket.on('end', () => {
      this.reason ??= 'closed by peer';
    });
    socket.on('close', () => context.events.closed(this, this.reason ?? 'closed'));
  }

  get isOpen(): boolean {
    return this.reason === undefined && !this.socket.destroyed && this.socket.writable;
  }

  write(bytes: Uint8Array): boolean {
    if (!this.isOpen) return false;
    this.socket.write(bytes);
    return true;
  }

  close(reason: string): void {
    this.reason ??= reason;
    if (this.socket.destroyed) return;
    // FIN after what is queued (an ERR_ before closing a wrong peer goes out); a
    // peer that never closes its side is cut off a second later.
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  abort(reason: string): void {
    this.reason ??= reason;
    this.socket.destroy();
  }
}

export class TcpServerLink implements Link {
  private readonly options: Required<Omit<TcpServerOptions, 'allowFrom' | 'refused'>> & Pick<TcpServerOptions, 'allowFrom' | 'refused'>;
  /** Addresses refused so far, logged once each (bounded: a scan of the subnet does not grow it for ever). */
  private readonly refusedLogged = new Set<string>();
  private readonly context: LinkContext;
  private readonly server: net.Server;
  private readonly connections = new Set<SocketConnection>();

  constructor(options: TcpServerOptions, context: LinkContext) {
    this.options = { keepAliveMs: 30_000, ...options };
    this.context = context;
    this.server = net.createServer((socket) => this.accept(socket));
  }

  get endpoint(): string {
    const bound = this.address();
    return `listen ${hostPort(bound?.address ?? this.options.host, bound?.port ?? this.options.port)}`;
  }

  /** The bound address (the real port when configured with port 0); undefined unless listening. */
  address(): AddressInfo | undefined {
    const a = this.server.address();
    return a && typeof a === 'object' ? a : undefined;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const failed = (err: NodeJS.ErrnoException) => {
        err.message = `listen on ${hostPort(this.options.host, this.options.port)} failed: ${err.message}`;
        reject(err);
      };
      this.server.once('error', failed);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', failed);
        this.server.on('error', (err) => this.context.log.error({ err }, 'listener error'));
        this.context.log.info({ address: this.endpoint }, 'listening for the PLC');
        this.context.events.waiting();
        resolve();
      });
    });
  }

  private accept(socket: net.Socket): void {
    const remote = socket.remoteAddress ?? 'unknown';
    if (this.options.allowFrom && !this.options.allowFrom.allows(socket.remoteAddress)) {
      socket.destroy();
      this.options.refused?.(remote);
      if (!this.refusedLogged.has(remote) && this.refusedLogged.size < 1000) {
        this.refusedLogged.add(remote);
        this.context.log.warn({ remote }, 'connection refused: the address is not in allowFrom (further ones from it are counted, not logged)');
      }
      return;
    }
    const conn = new SocketConnection(socket, this.context, this.options.keepAliveMs);
    this.connections.add(conn);
    socket.on('close', () => this.connections.delete(conn));
    this.context.events.opened(conn);
  }

  stop(): Promise<void> {
    // FIN after the replies already written (a stop answers what it has read first); a
    // peer that does not close its side is cut off a second later.
    for (const conn of this.connections) conn.close('stopped');
    return new Promise((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
    });
  }
}
