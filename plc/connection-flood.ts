import net from 'node:net';

// Test and benchmark support (not used by the appliance): a flood of TCP connections
// against a tcp-server channel's port, as a port scan, a client stuck in a reconnect
// loop or an attack makes one, from other local addresses and ports than the PLC's.
// Two kinds at once:
// - idle sockets that connect, never send a byte and do not answer the appliance's FIN
//   (a peer that does not close its side) for HALF_OPEN_MS: `idle` of them open at all
//   times, one the appliance closes is replaced at once;
// - `churn` loops, each connecting and closing again at once, as fast as it can.

interface FloodOptions {
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Idle sockets held open at all times (default 0). */
  idle?: number;
  /** Connect-and-close loops running at once (default 0). */
  churn?: number;
}

/**
 * The local addresses connections to `host` come from, in turn: to 127.0.0.1 from
 * 127.0.0.2 … 127.0.0.9 (loopback answers the whole 127/8), so the flood is never from
 * the PLC's address and has ports to spare; elsewhere the system's choice.
 */
function sources(host: string): readonly (string | undefined)[] {
  return host === '127.0.0.1' ? Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`) : [undefined];
}
/** After a failed connect a loop waits this long, so a port that is down is not hammered in a busy loop. */
const RETRY_MS = 5;
/** How long an idle socket leaves the appliance's FIN unanswered (longer than a peer is given to answer it). */
const HALF_OPEN_MS = 2000;

/**
 * Idle sockets open at once (n of them), from the flood's source addresses; resolves
 * when all are connected. They do not answer the appliance's FIN: `closedByPeer(socket)`
 * tells whether it has closed one.
 */
export function openIdle(port: number, n: number, host = '127.0.0.1'): Promise<net.Socket[]> {
  const from = sources(host);
  return Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = idleSocket(port, host, from[i % from.length]);
          socket.once('error', reject);
          socket.once('connect', () => {
            socket.off('error', reject);
            socket.on('error', () => {});
            resolve(socket);
          });
        }),
    ),
  );
}

function idleSocket(port: number, host: string, localAddress: string | undefined): net.Socket {
  // allowHalfOpen: the appliance's FIN is not answered with ours.
  const socket = net.connect({ port, host, allowHalfOpen: true, ...(localAddress ? { localAddress } : {}) });
  socket.once('end', () => closedByAppliance.add(socket));
  socket.once('close', () => closedByAppliance.add(socket));
  return socket;
}

const closedByAppliance = new WeakSet<net.Socket>();

/** The appliance has closed this socket (sent its FIN or reset it). */
export function closedByPeer(socket: net.Socket): boolean {
  return closedByAppliance.has(socket);
}

export class ConnectionFlood {
  /** Connections made (the connect succeeded). */
  connected = 0;
  /** Connects that failed (refused, reset before they were made). */
  failed = 0;
  private readonly options: Required<FloodOptions>;
  private readonly from: readonly (string | undefined)[];
  private readonly sockets = new Set<net.Socket>();
  private running = false;
  private next = 0;

  constructor(options: FloodOptions) {
    this.options = { host: '127.0.0.1', idle: 0, churn: 0, ...options };
    this.from = sources(this.options.host);
  }

  start(): void {
    this.running = true;
    for (let i = 0; i < this.options.idle; i++) this.idleOne();
    for (let i = 0; i < this.options.churn; i++) this.churnOne();
  }

  /** Stops the loops and closes every socket the flood holds. */
  async stop(): Promise<void> {
    this.running = false;
    const closing = [...this.sockets].map(
      (s) =>
        new Promise((resolve) => {
          s.once('close', resolve);
          s.destroy();
        }),
    );
    await Promise.all(closing);
  }

  private source(): string | undefined {
    return this.from[this.next++ % this.from.length];
  }

  /** Counts the socket and calls `again` once it is closed (or, idle, once the appliance closed it). */
  private track(socket: net.Socket, again: () => void): void {
    let made = false;
    let replaced = false;
    const replace = () => {
      if (replaced || !this.running) return;
      replaced = true;
      if (made) setImmediate(again);
      else setTimeout(again, RETRY_MS);
    };
    this.sockets.add(socket);
    socket.on('error', () => {});
    socket.once('connect', () => {
      made = true;
      this.connected++;
    });
    socket.once('end', () => {
      // The appliance closed it: replaced now; our side stays open a while yet.
      replace();
      setTimeout(() => socket.destroy(), HALF_OPEN_MS).unref();
    });
    socket.once('close', () => {
      this.sockets.delete(socket);
      if (!made) this.failed++;
      replace();
    });
  }

  private idleOne(): void {
    if (!this.running) return;
    const socket = idleSocket(this.options.port, this.options.host, this.source());
    this.track(socket, () => this.idleOne());
  }

  private churnOne(): void {
    if (!this.running) return;
    const { port, host } = this.options;
    const localAddress = this.source();
    const socket = net.connect({ port, host, ...(localAddress ? { localAddress } : {}) });
    socket.once('connect', () => socket.destroy());
    this.track(socket, () => this.churnOne());
  }
}
