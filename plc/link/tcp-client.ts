// The appliance dials the PLC (a PLC that only listens). One connection at a time;
// when it fails or drops, the link dials again after 1 s, 2 s, 5 s, then every 10 s
// (OpenWMS's interval), logging a repeated failure once (docs/plc.md).

import net from 'node:net';
import { Backoff, ProblemLog, hostPort, type Link, type LinkContext } from './link.ts';
import { SocketConnection } from './tcp-server.ts';

interface TcpClientOptions {
  host: string;
  port: number;
  keepAliveMs?: number;
  /** A dial that has not connected after this long is given up (default 5 s; the OS waits minutes). */
  connectTimeoutMs?: number;
  /** Retry delays (default BACKOFF_MS). */
  backoffMs?: readonly number[];
}

export class TcpClientLink implements Link {
  private readonly options: TcpClientOptions;
  private readonly context: LinkContext;
  private readonly backoff: Backoff;
  private readonly problems: ProblemLog;
  private socket: net.Socket | undefined;
  private current: SocketConnection | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(options: TcpClientOptions, context: LinkContext) {
    this.options = options;
    this.context = context;
    this.backoff = new Backoff(options.backoffMs);
    this.problems = new ProblemLog(context.log);
  }

  get endpoint(): string {
    return `connect ${hostPort(this.options.host, this.options.port)}`;
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.dial();
  }

  private dial(): void {
    this.retry = undefined;
    if (this.stopped) return;
    this.context.events.waiting();
    const { host, port } = this.options;
    const socket = net.connect({ host, port });
    this.socket = socket;
    const timer = setTimeout(
      () => socket.destroy(new Error(`connect timed out after ${this.options.connectTimeoutMs ?? 5000} ms`)),
      this.options.connectTimeoutMs ?? 5000,
    );
    timer.unref();
    const failed = (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      this.socket = undefined;
      this.problems.problem(`connect ${err.code ?? err.message}`, { peer: hostPort(host, port) });
      this.schedule();
    };
    socket.once('error', failed);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', failed);
      if (this.stopped) {
        socket.destroy();
        return;
      }
      this.problems.recovered('connected');
      this.backoff.opened();
      const conn = new SocketConnection(socket, this.context, this.options.keepAliveMs ?? 30_000);
      this.current = conn;
      this.context.log.info({ peer: conn.peer, connection: conn.id }, 'connected to the PLC');
      socket.on('close', () => {
        if (this.current === conn) this.current = undefined;
        this.socket = undefined;
        this.schedule();
      });
      this.context.events.opened(conn);
    });
  }

  private schedule(): void {
    if (this.stopped || this.retry) return;
    const delay = this.backoff.next();
    this.retry = setTimeout(() => this.dial(), delay);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    const socket = this.socket;
    if (this.current)
      this.current.close('stopped'); // FIN after the replies already written
    else socket?.destroy();
    if (socket && !socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
  }
}
