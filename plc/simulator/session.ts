// The simulated PLC's link to the appliance (docs/plc.md ("The simulator")): opening it
// (dial, listen, serial), writing telegrams with sequence numbers and framing (at an
// emulated line speed: line.ts), and reading what comes back into a log that callers
// wait on (inbox.ts). The conversation on top of it: conversation.ts; the misbehaviour
// on request: simulator.ts.

import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Conveyor } from './conveyor.ts';
import { encode, type OsipTime, type ResTelegram, type Telegram, type TelegramInput } from './encoder.ts';
import { Deframer, frame, type FramingOptions } from './framing.ts';
import { SimulatorInbox, type LinkInfo } from './inbox.ts';
import { writeOnLine, type Split } from './line.ts';
import { dialTcp, openSerial, TcpListener, type Link, type LinkHandlers, type TransportOptions } from './link.ts';

export type { ReceivedTelegram } from './inbox.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A telegram to send: the header is filled in (sender, receiver, next sequence number) unless given. */
export type Outgoing = DistributiveOmit<TelegramInput, 'sender' | 'receiver' | 'seq'> & {
  sender?: string;
  receiver?: string;
  seq?: number;
};

export interface SimulatorOptions {
  transport: TransportOptions;
  /** Same options as the appliance's channels; default `line` with CR LF. */
  framing?: FramingOptions;
  /** The PLC's name, the sender of every telegram; default `CNV01`. */
  name?: string;
  /** The host's name, the receiver; default `MFC__`. */
  host?: string;
  /** Telegram length; default 160. */
  telegramLength?: number;
  /** First sequence number; default 1. */
  firstSeq?: number;
  /** After this number the counter starts again at 1 (32767 keeps a Java peer happy); default 32767. */
  seqWrap?: number;
  /** Default timeout of request() and synq(); default 500 ms. */
  requestTimeoutMs?: number;
  /** The conveyor runTu() moves TUs over; default: every move takes 0 ms. */
  conveyor?: Conveyor;
  /** Emulated line speed in bit/s (10 bits per byte, 8N1): writes are paced, e.g. 9600 for a slow serial line. */
  lineSpeed?: number;
  /** Received telegrams kept in the log; default 10000. */
  logLimit?: number;
}

export interface SentTelegram {
  /** Position in the sent log. */
  index: number;
  link: number;
  /** performance.now() after the last byte was handed to the OS. */
  at: number;
  /** The telegram text (before framing); for raw sends the bytes as latin1. */
  text: string;
  /** Exactly what went on the wire. */
  bytes: Buffer;
  seq: number | undefined;
  /** What was done to it, for fault injections. */
  fault?: string;
}

export interface RequestFields {
  barcode: string | null;
  actualLocation: string;
  targetLocation?: string | null;
  /** Default `********` (not set: "no error" in the docs/plc.md example). */
  errorCode?: string;
  created?: OsipTime;
}

export interface Exchange<T extends Telegram> {
  sent: SentTelegram;
  reply: T;
  /** From the request handed to the OS to the reply's last byte. */
  latencyMs: number;
}

interface TuStep {
  /** Where the TU asked (AREA/AISLE/X/Y/Z). */
  at: string;
  res: ResTelegram;
  target: string | null;
  latencyMs: number;
  /** Travel time to the target (0 when there is none). */
  travelMs: number;
}

export interface TuTrace {
  barcode: string;
  /** The start and every location the TU moved to, in order. */
  visited: string[];
  steps: TuStep[];
  end: 'no-target' | 'step-limit';
}

export class RunTuError extends Error {
  override name = 'RunTuError';
  readonly trace: TuTrace;
  constructor(message: string, trace: TuTrace, cause: unknown) {
    super(message, { cause });
    this.trace = trace;
  }
}

export interface Heartbeat {
  /** SYNQs sent so far. */
  readonly sent: number;
  /** SYNCs received that answer them (sequence number equal or +1). */
  readonly answered: number;
  /** Beats that fell in a silence and sent nothing. */
  readonly paused: number;
  stop(): void;
}

const SEQ_MODULUS = 100_000;

/** A reply's sequence number answers a request's: +1 (the default, docs/plc.md) or echoed. */
export function answers(replySeq: number, requestSeq: number): boolean {
  return replySeq === requestSeq || replySeq === (requestSeq + 1) % SEQ_MODULUS;
}

/** The link, the sequence numbers, the framing and the log of sent telegrams; the received ones: SimulatorInbox. */
export class SimulatorSession extends SimulatorInbox {
  readonly name: string;
  readonly host: string;
  readonly sent: SentTelegram[] = [];

  protected transport: TransportOptions;
  protected readonly length: number;
  protected readonly seqWrap: number;
  protected readonly requestTimeoutMs: number;
  protected readonly conveyor: Conveyor;
  protected lineSpeed: number | undefined;
  protected nextSeqValue: number;
  protected sentCount = 0;
  protected current: Link | undefined;
  protected readonly links = new Set<Link>();
  protected readonly heartbeats = new Set<() => void>();
  protected listener: TcpListener | undefined;
  protected silentUntil = 0;
  protected closed = false;

  constructor(options: SimulatorOptions) {
    super({ mode: 'line', ...options.framing, length: options.telegramLength ?? options.framing?.length ?? 160 }, options.logLimit ?? 10_000);
    this.transport = options.transport;
    this.name = options.name ?? 'CNV01';
    this.host = options.host ?? 'MFC__';
    this.length = options.telegramLength ?? 160;
    this.seqWrap = options.seqWrap ?? 32_767;
    this.nextSeqValue = options.firstSeq ?? 1;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 500;
    this.conveyor = options.conveyor ?? new Conveyor();
    this.lineSpeed = options.lineSpeed;
  }

  // ---- connection ------------------------------------------------------------

  protected readonly handlers: LinkHandlers = {
    data: (link, chunk) => this.onData(link, chunk),
    closed: (link, reason) => this.onClosed(link, reason),
  };

  get isConnected(): boolean {
    return this.current?.isOpen ?? false;
  }

  /** The link writes go to (the newest one). */
  get link(): LinkInfo | undefined {
    return this.current && { id: this.current.id, description: this.current.description };
  }

  /** tcp-server only: starts listening (connect() does it too) and returns the address to give the appliance. */
  async listen(): Promise<AddressInfo> {
    if (this.transport.kind !== 'tcp-server') throw new Error('listen() is for the tcp-server transport');
    if (this.listener?.address) return this.listener.address;
    this.listener = new TcpListener(this.handlers, (link) => this.adopt(link, true));
    return this.listener.listen(this.transport.host ?? '127.0.0.1', this.transport.port);
  }

  /**
   * Opens the link: dials the appliance (tcp-client), opens the device (serial), or
   * listens and waits until the appliance connects (tcp-server).
   */
  async connect(options: { timeoutMs?: number } = {}): Promise<LinkInfo> {
    if (this.closed) throw new Error('the simulator is closed');
    if (this.current?.isOpen) return this.link!;
    const link = await this.open(options.timeoutMs);
    return { id: link.id, description: link.description };
  }

  protected async open(timeoutMs?: number): Promise<Link> {
    switch (this.transport.kind) {
      case 'tcp-client': {
        const { host, port, connectTimeoutMs } = this.transport;
        const link = await dialTcp({ host, port, connectTimeoutMs: timeoutMs ?? connectTimeoutMs }, this.handlers);
        this.adopt(link, false);
        return link;
      }
      case 'serial': {
        const link = await openSerial(this.transport, this.handlers);
        this.adopt(link, false);
        return link;
      }
      case 'tcp-server': {
        await this.listen();
        return this.listener!.nextAccepted(timeoutMs ?? 10_000);
      }
    }
  }

  protected adopt(link: Link, supersede: boolean): void {
    const old = this.current;
    this.links.add(link);
    this.deframers.set(link.id, new Deframer(this.framing));
    this.current = link;
    // Accepted connections: the newest one wins, as the appliance's own rule.
    if (supersede && old?.isOpen) void old.end();
    this.emit('connected', { id: link.id, description: link.description });
  }

  protected onClosed(link: Link, reason: string): void {
    this.links.delete(link);
    this.deframers.delete(link.id);
    if (this.current === link) this.current = undefined;
    this.emit('disconnected', { id: link.id, description: link.description, reason });
  }

  /**
   * Dials `host:port` from the next connect or reconnect on (a tcp-client simulator): the
   * address a PLC dials moved to another box (a pair's floating address; in tests, where
   * each box listens on a port of its own, the other box's port).
   */
  dialNext(host: string, port: number): void {
    if (this.transport.kind !== 'tcp-client') throw new Error('dialNext() is for the tcp-client transport');
    this.transport = { ...this.transport, host, port };
  }

  /**
   * Opens a new link; with `keepOld` the previous one stays open (a PLC that
   * reconnects before its old socket has timed out: the appliance should supersede it).
   */
  async reconnect(options: { keepOld?: boolean; timeoutMs?: number } = {}): Promise<LinkInfo> {
    if (this.transport.kind !== 'tcp-client' && options.keepOld) {
      throw new Error('reconnect({ keepOld }) needs the tcp-client transport');
    }
    const old = this.current;
    if (old && !options.keepOld) await old.end();
    if (this.transport.kind === 'tcp-server') this.current = undefined;
    const link = await this.open(options.timeoutMs);
    return { id: link.id, description: link.description };
  }

  /**
   * Cuts the link abruptly. With `midTelegram`, first writes the start of a telegram
   * (a SYNQ; `true` = its first half, a number = that many bytes of its frame), so the
   * appliance holds a partial frame when the connection dies. Returns the bytes written.
   */
  async dropConnection(options: { midTelegram?: boolean | number } = {}): Promise<Buffer> {
    const link = this.requireLink();
    let written: Buffer = Buffer.alloc(0);
    if (options.midTelegram) {
      const text = this.encode({ type: 'SYNQ' }).text;
      const bytes = this.frame(text);
      const keep = options.midTelegram === true ? Math.floor(bytes.length / 2) : options.midTelegram;
      written = bytes.subarray(0, keep);
      await this.writeLogged(link, written, written.toString('latin1'), undefined, 'drop mid-telegram');
      // Let the kernel put the bytes on the wire before the socket goes away.
      await sleep(20);
    }
    link.destroy();
    return written;
  }

  /** Stops heartbeats, fails pending waits, closes every link and the listener. */
  async close(): Promise<void> {
    this.closed = true;
    for (const stop of [...this.heartbeats]) stop();
    for (const waiter of [...this.waiters]) waiter.reject(new Error('the simulator was closed'));
    await Promise.all([...this.links].map((link) => link.end()));
    await this.listener?.close();
  }

  protected requireLink(): Link {
    const link = this.current;
    if (!link?.isOpen) throw new Error('not connected');
    return link;
  }

  // ---- sending ---------------------------------------------------------------

  /** The sequence number the next telegram gets, without using it up. */
  get nextSeq(): number {
    return this.nextSeqValue;
  }

  /** Sets the counter, e.g. to 1 to play a PLC that restarted. */
  resetSequence(next = 1): void {
    this.nextSeqValue = next;
  }

  protected takeSeq(): number {
    const seq = this.nextSeqValue;
    this.nextSeqValue = seq >= this.seqWrap ? 1 : seq + 1;
    return seq;
  }

  /** Encodes with the simulator's header (and the next sequence number unless given). */
  encode(fields: Outgoing): { text: string; seq: number } {
    const seq = fields.seq ?? this.takeSeq();
    const input = { ...fields, sender: fields.sender ?? this.name, receiver: fields.receiver ?? this.host, seq } as TelegramInput;
    return { text: encode(input, { length: this.length, sync: this.framing.sync }), seq };
  }

  /** The wire bytes of a telegram text in this simulator's framing. */
  frame(text: string): Buffer {
    return frame(text, this.framing);
  }

  /** Emulated line speed in bit/s (undefined = as fast as the link goes). */
  setLineSpeed(bitsPerSecond: number | undefined): void {
    this.lineSpeed = bitsPerSecond;
  }

  async send(fields: Outgoing): Promise<SentTelegram> {
    const link = this.requireLink();
    const { text, seq } = this.encode(fields);
    return this.writeLogged(link, this.frame(text), text, seq);
  }

  /**
   * Writes bytes exactly as given (no framing). `chunks` splits them into writes of
   * those sizes (the rest goes last), `delayMs` between writes (default 5 ms when
   * split, so the pieces really arrive apart).
   */
  async sendRaw(bytes: Uint8Array | string, options: { chunks?: number[]; delayMs?: number; fault?: string } = {}): Promise<SentTelegram> {
    const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
    return this.writeLogged(this.requireLink(), buffer, buffer.toString('latin1'), undefined, options.fault ?? 'raw', options);
  }

  protected async writeLogged(link: Link, bytes: Buffer, text: string, seq: number | undefined, fault?: string, split: Split = {}): Promise<SentTelegram> {
    await writeOnLine(link, bytes, split, () => this.lineSpeed);
    const entry: SentTelegram = { index: this.sentCount++, link: link.id, at: performance.now(), text, bytes, seq };
    if (fault) entry.fault = fault;
    this.sent.push(entry);
    if (this.sent.length > this.logLimit) this.sent.shift();
    this.emit('sent', entry);
    return entry;
  }
}
