// Test support only: a tiny stand-in for the appliance, so the simulator can be tested
// without it. It records every byte it receives (per connection), answers SYNQ with
// SYNC, UPDX with ACK_ and REQ_ with a RES_ from a routing table.
//
// It reads and writes telegrams by plain slicing at the docs/plc.md offsets, deliberately
// without the simulator's encoder, so the simulator is checked against a third,
// independent reading of the protocol.

import net from 'node:net';

export interface FakeHostOptions {
  /** Next hop per actual location, both as the 20-character coordinate; missing or null = RES_ without target. */
  routes?: Record<string, string | null>;
  /** Framing of both directions; default line (CR LF out, LF in); fixed = 160 bytes, no terminator. */
  framing?: 'line' | 'fixed' | 'stxetx-bcc';
  /** Replaces the standard answer: return the telegram texts to send back (empty = no answer), or undefined for the standard one. */
  reply?: (telegram: string, connection: FakeConnection) => string[] | undefined;
}

/** Anything that carries bytes both ways: a socket or an open serial port. */
export interface ByteStream {
  write(data: Uint8Array): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
}

interface FakeConnection {
  readonly id: number;
  /** Every byte received, in order. */
  bytes: Buffer;
  /** How many 'data' events delivered them (a split write shows up here). */
  chunks: number;
  /** Complete telegram texts, without framing. */
  telegrams: string[];
  closed: boolean;
  stream: ByteStream;
}

const time14 = (d = new Date()) => d.toISOString().replace(/\D/g, '').slice(0, 14);
const seq5 = (n: number) => String(n % 100_000).padStart(5, '0');
const pad160 = (text: string) => text.padEnd(160, '*');

/** SYNC for a SYNQ: header swapped, sequence number + 1, host time. */
function syncFor(synq: string): string {
  return pad160(`###00160${synq.slice(13, 18)}${synq.slice(8, 13)}${seq5(Number(synq.slice(18, 23)) + 1)}SYNC${time14()}`);
}

/** RES_ for a REQ_: barcode and actual location echoed, target from the table, error code echoed. */
export function resFor(req: string, target: string | null, group: string | null = null): string {
  const barcode = req.slice(27, 47);
  const actual = req.slice(47, 67);
  const groupField = (group ?? '').padEnd(20, '*');
  return pad160(
    `###00160${req.slice(13, 18)}${req.slice(8, 13)}${seq5(Number(req.slice(18, 23)) + 1)}RES_` +
      `${barcode}${actual}${target ?? '*'.repeat(20)}${groupField}${req.slice(87, 95)}${time14()}`,
  );
}

/** An unsolicited RES_ (a move order) from MFC__ to a PLC. */
export function moveOrder(plc: string, seq: number, barcode20: string, actual20: string, target20: string | null): string {
  return pad160(`###00160MFC__${plc}${seq5(seq)}RES_${barcode20}${actual20}${target20 ?? '*'.repeat(20)}${'*'.repeat(28)}${time14()}`);
}

function bccOf(bytes: Buffer): number {
  let x = 0;
  for (const b of bytes) x ^= b;
  return x;
}

export class FakeHost {
  readonly connections: FakeConnection[] = [];
  private readonly options: FakeHostOptions;
  private server: net.Server | undefined;
  private readonly waiters = new Set<() => void>();

  constructor(options: FakeHostOptions = {}) {
    this.options = options;
  }

  /** Listens on 127.0.0.1 (port 0 = any) and returns the port. */
  async listen(port = 0): Promise<number> {
    this.server = net.createServer((socket) => this.attach(socket));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Connects to a simulator that listens (an appliance channel in tcp-client mode). */
  async dial(port: number): Promise<FakeConnection> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return this.attach(socket);
  }

  /** Serves any byte stream, e.g. the host end of a socat pty pair. */
  attach(stream: ByteStream): FakeConnection {
    const connection: FakeConnection = { id: this.connections.length + 1, bytes: Buffer.alloc(0), chunks: 0, telegrams: [], closed: false, stream };
    this.connections.push(connection);
    if (stream instanceof net.Socket) stream.setNoDelay(true);
    let pending: Buffer = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      connection.bytes = Buffer.concat([connection.bytes, chunk]);
      connection.chunks++;
      pending = Buffer.concat([pending, chunk]);
      pending = this.split(pending, (text) => {
        connection.telegrams.push(text);
        this.answer(text, connection);
      });
      this.notify();
    });
    stream.on('close', () => {
      connection.closed = true;
      this.notify();
    });
    this.notify();
    return connection;
  }

  /** Cuts complete frames off the front of `pending` and returns the rest. */
  private split(pending: Buffer, onFrame: (text: string) => void): Buffer {
    if (this.options.framing === 'stxetx-bcc') {
      for (;;) {
        const stx = pending.indexOf(0x02);
        const etx = pending.indexOf(0x03, stx + 1);
        if (stx < 0 || etx < 0 || pending.length < etx + 2) return pending;
        const ok = bccOf(pending.subarray(stx + 1, etx + 1)) === pending[etx + 1];
        if (ok) onFrame(pending.subarray(stx + 1, etx).toString('latin1'));
        pending = pending.subarray(etx + 2);
      }
    }
    if (this.options.framing === 'fixed') {
      for (; pending.length >= 160; pending = pending.subarray(160)) onFrame(pending.subarray(0, 160).toString('latin1'));
      return pending;
    }
    for (let lf = pending.indexOf(0x0a); lf >= 0; lf = pending.indexOf(0x0a)) {
      onFrame(pending.subarray(0, lf).toString('latin1').replace(/\r$/, ''));
      pending = pending.subarray(lf + 1);
    }
    return pending;
  }

  private answer(text: string, connection: FakeConnection): void {
    const custom = this.options.reply?.(text, connection);
    const answers = custom ?? this.standardAnswer(text);
    for (const answer of answers) this.send(connection, answer);
  }

  private standardAnswer(text: string): string[] {
    const at = text.indexOf('###');
    if (at < 0) return [];
    const telegram = text.slice(at);
    switch (telegram.slice(23, 27)) {
      case 'SYNQ':
        return [syncFor(telegram)];
      case 'REQ_':
        return [resFor(telegram, this.options.routes?.[telegram.slice(47, 67)] ?? null)];
      case 'UPDX':
        return [pad160(`###00160${telegram.slice(13, 18)}${telegram.slice(8, 13)}${telegram.slice(18, 23)}ACK_${telegram.slice(67, 75)}${time14()}`)];
      default:
        return [];
    }
  }

  /** Sends one telegram text in this host's framing. */
  send(connection: FakeConnection, text: string): void {
    const body = Buffer.from(text, 'latin1');
    if (this.options.framing === 'stxetx-bcc') {
      const inner = Buffer.concat([body, Buffer.from([0x03])]);
      connection.stream.write(Buffer.concat([Buffer.from([0x02]), inner, Buffer.from([bccOf(inner)])]));
    } else if (this.options.framing === 'fixed') {
      connection.stream.write(body);
    } else {
      connection.stream.write(Buffer.concat([body, Buffer.from('\r\n')]));
    }
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Waits until the condition holds (checked on every event), or fails after the timeout. */
  until(condition: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`fake host: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Waits until connection `id` (1-based) has received at least `n` bytes. */
  async bytesOf(id: number, n: number): Promise<Buffer> {
    await this.until(() => (this.connections[id - 1]?.bytes.length ?? 0) >= n, 5000, `${n} bytes on connection ${id}`);
    return this.connections[id - 1]!.bytes;
  }

  async close(): Promise<void> {
    for (const c of this.connections) if (c.stream instanceof net.Socket) c.stream.destroy();
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
