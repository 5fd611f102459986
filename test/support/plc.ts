// Test support for the PLC channel tests (not used by the appliance): real sockets,
// real socat pseudo-terminal pairs, a handler that records its calls, a log to read.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { createLogger, type Logger } from '../../src/core/log.ts';
import { Channel, type ChannelState } from '../../plc/channel.ts';
import { channelSchema, type ChannelConfigInput } from '../../plc/config.ts';
import type { Telegram } from '../../plc/osip/index.ts';
import type { ChannelContext, HandlingResult, TelegramHandler } from '../../plc/osip/port.ts';
import { Deframer, decode as simDecode, type FramingOptions, type Telegram as SimTelegram } from '../../plc/simulator/index.ts';

/**
 * How long a wait for a state may take: on a quiet box such states come in
 * milliseconds; beside a second suite on two cores, seconds.
 */
const BUSY_BOX_MS = 20_000;

/** Runs the registered steps in reverse order (afterEach). */
export class Cleanup {
  private readonly steps: Array<() => Promise<unknown> | unknown> = [];
  add(step: () => Promise<unknown> | unknown): void {
    this.steps.push(step);
  }
  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) await step();
  }
}

/** Log lines as parsed JSON objects. */
export interface CapturedLog {
  log: Logger;
  lines: () => Record<string, any>[];
}

export function captureLog(level = 'debug'): CapturedLog {
  const lines: Record<string, any>[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
  });
  return { log: createLogger({ level, destination: sink }), lines: () => [...lines] };
}

/** A handler that records every call and answers a REQ_ with a RES_ to `target` (or without one). */
export class RecordingHandler implements TelegramHandler {
  readonly calls: { telegram: Telegram; channel: ChannelContext }[] = [];
  target: string | undefined;
  /** Replaces the default behaviour for the next calls. */
  answer: ((telegram: Telegram) => HandlingResult) | undefined;

  constructor(target?: string) {
    this.target = target;
  }

  handle(telegram: Telegram, channel: ChannelContext): HandlingResult {
    this.calls.push({ telegram, channel });
    if (this.answer) return this.answer(telegram);
    if (telegram.type !== 'REQ_') return { replies: [], outcome: 'ok' };
    return {
      replies: [
        {
          type: 'RES_',
          rawBarcode: telegram.rawBarcode,
          rawActualLocation: telegram.rawActualLocation,
          targetLocation: this.target,
          errorCode: telegram.errorCode,
        },
      ],
      outcome: 'ok',
    };
  }

  types(): string[] {
    return this.calls.map((c) => c.telegram.type);
  }
}

/** A RecordingHandler that also takes batches (TelegramHandler.handleBatch), recording their sizes. */
export class BatchRecordingHandler extends RecordingHandler {
  readonly batches: number[] = [];

  handleBatch(telegrams: readonly Telegram[], channel: ChannelContext): HandlingResult[] {
    this.batches.push(telegrams.length);
    return telegrams.map((telegram) => this.handle(telegram, channel));
  }
}

/** A channel built from a partial config (validated like the real one). */
export function makeChannel(input: ChannelConfigInput, log: Logger, extras: { hostName?: string; backoffMs?: number[] } = {}): Channel {
  const config = channelSchema.parse(input);
  return new Channel({ config, hostName: extras.hostName ?? 'MFC__', timeZone: 'UTC', log, ...(extras.backoffMs ? { backoffMs: extras.backoffMs } : {}) });
}

/** Resolves when `check` holds (polled every 10 ms), rejects after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = BUSY_BOX_MS, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves when the channel enters `state` (at once if it is there). */
export function stateReached(channel: Channel, state: ChannelState, timeoutMs = BUSY_BOX_MS): Promise<void> {
  if (channel.state === state) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      channel.off('state', listener);
      reject(new Error(`channel ${channel.name} did not reach ${state} within ${timeoutMs} ms (is ${channel.state})`));
    }, timeoutMs);
    const listener = (to: ChannelState) => {
      if (to !== state) return;
      clearTimeout(timer);
      channel.off('state', listener);
      resolve();
    };
    channel.on('state', listener);
  });
}

/** Records the channel's state changes from now on. */
export function stateTrail(channel: Channel): ChannelState[] {
  const trail: ChannelState[] = [];
  channel.on('state', (to) => trail.push(to));
  return trail;
}

/**
 * A bare TCP client for raw-byte tests: writes what it is given and collects what
 * comes back, cut into frames by the simulator's own deframer and decoded by the
 * simulator's own decoder (independent of the appliance's codec).
 */
export class RawClient {
  readonly socket: net.Socket;
  bytes: Buffer = Buffer.alloc(0);
  readonly frames: string[] = [];
  private readonly deframer: Deframer;
  closed = false;

  private constructor(socket: net.Socket, framing: FramingOptions) {
    this.socket = socket;
    this.deframer = new Deframer(framing);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.bytes = Buffer.concat([this.bytes, chunk]);
      for (const e of this.deframer.push(chunk)) if (e.kind === 'frame') this.frames.push(e.bytes.toString('latin1'));
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
    });
  }

  static connect(port: number, framing: FramingOptions = {}, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawClient(socket, framing));
      });
    });
  }

  write(bytes: string | Uint8Array): Promise<void> {
    return new Promise((resolve, reject) =>
      this.socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes, (err) => (err ? reject(err) : resolve())),
    );
  }

  /** Waits until `count` frames have arrived; returns them decoded by the simulator's decoder. */
  async telegrams(count: number, timeoutMs = BUSY_BOX_MS): Promise<SimTelegram[]> {
    await waitFor(() => this.frames.length >= count, timeoutMs, `${count} telegram(s) (have ${this.frames.length})`);
    return this.frames.slice(0, count).map((f) => simDecode(f));
  }

  whenClosed(timeoutMs = BUSY_BOX_MS): Promise<void> {
    return waitFor(() => this.closed, timeoutMs, 'the connection to close');
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * A socat pseudo-terminal pair: `host` for the appliance, `plc` for the simulator.
 * `restart()` kills socat and starts it again on the same link names (the device
 * disappears and comes back, as a USB adapter pulled and plugged in).
 */
export class PtyPair {
  readonly dir: string;
  readonly host: string;
  readonly plc: string;
  private socat: ChildProcess | undefined;
  private stderr = '';

  private constructor() {
    this.dir = mkdtempSync(path.join(tmpdir(), 'plc-pty-'));
    this.host = path.join(this.dir, 'ttyHOST');
    this.plc = path.join(this.dir, 'ttyPLC');
  }

  static async open(): Promise<PtyPair> {
    const pair = new PtyPair();
    await pair.start();
    return pair;
  }

  async start(): Promise<void> {
    this.stderr = '';
    const socat = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${this.host}`, `pty,raw,echo=0,link=${this.plc}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.socat = socat;
    socat.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    const deadline = Date.now() + 10_000;
    while (!(existsSync(this.host) && existsSync(this.plc))) {
      if (socat.exitCode !== null) throw new Error(`socat exited: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`socat did not create the pty links: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Kills socat (the links disappear). */
  async kill(): Promise<void> {
    const socat = this.socat;
    this.socat = undefined;
    if (!socat || socat.exitCode !== null) return;
    const exited = new Promise((r) => socat.once('exit', r));
    socat.kill('SIGTERM');
    await exited;
  }

  async close(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
