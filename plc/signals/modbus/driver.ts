// The Modbus driver of signal channels (docs/plc.md, "Signal channels"): Modbus TCP, and
// Modbus RTU over the serial line library the appliance already ships, both through
// `modbus-serial`, loaded only when a Modbus channel starts. The watched points are
// read every `pollMs`, adjacent addresses of one area in one request (./batches.ts);
// every request waits for its answer before the next goes out (an RTU line carries one
// at a time, and a PLC's TCP stack often no more); a write resolves on the device's
// answer. A lost connection (closed, or three requests in a row unanswered) is opened
// again after 1 s, 2 s, 5 s, then every 10 s. A read the device refuses is logged when
// it starts and stops failing (./failing-reads.ts); a request over several points that
// the device refuses as an illegal address (it has no register somewhere in the range,
// perhaps in a gap between them) is not asked again: its points are read one by one, so
// only a point whose own address is refused goes without a value.
//
// The driver's counters (docs/plc.md): `polls` the rounds of reading every watched
// point; `reads` and `writes` the requests the device answered with data or confirmed
// (a poll round's requests and the reads on demand, an arrival's barcode);
// `readErrors` and `writeErrors` those that failed, for whatever reason, of which
// `exceptions` the device refused and `timeouts` it left unanswered; `connects` the
// connections opened, `reconnects` those opened again after one was lost, and
// `connectFailures` the attempts that failed.

import type { ModbusRTU as ModbusClient } from 'modbus-serial/ModbusRTU.js';
import { Backoff, ProblemLog } from '../../link/link.ts';
import type { SignalChannelConfig } from '../config.ts';
import type { DriverHandlers, SignalDriver, SignalKind, SignalValue, WatchedPoint } from '../driver.ts';
import type { DriverContext } from '../drivers.ts';
import { modbusAddress, span, type ModbusAddress } from './address.ts';
import { batchAddress, batchesOf, oneByOne, type Batch } from './batches.ts';
import { exceptionOf, FailingReads } from './failing-reads.ts';
import { decodeValue, encodeValue } from './values.ts';

type ClientConstructor = new () => ModbusClient;

/** Requests in a row without an answer before the connection counts as lost. */
const UNANSWERED_LIMIT = 3;
/** Opening a TCP connection takes at most this long (a host that drops SYNs would keep it for minutes). */
const CONNECT_TIMEOUT_MS = 5000;

let loaded: Promise<ClientConstructor> | undefined;

/** modbus-serial's client class, loaded on first use (a failed load is tried again next time). */
function clientClass(): Promise<ClientConstructor> {
  loaded ??= import('modbus-serial').then((m) => ((m as { default?: unknown }).default ?? m) as ClientConstructor);
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

/** A Modbus exception (the device answered, refusing the request): the connection is fine. */
const isException = (err: unknown) => exceptionOf(err) !== undefined;
/** The exception of a device that has no such address. */
const ILLEGAL_DATA_ADDRESS = 2;
const isTimeout = (err: unknown) => (err as { errno?: unknown })?.errno === 'ETIMEDOUT';

export function createDriver(config: SignalChannelConfig, context: DriverContext): SignalDriver {
  return new ModbusDriver(config, context);
}

class ModbusDriver implements SignalDriver {
  private readonly config: SignalChannelConfig;
  private readonly context: DriverContext;
  private readonly problems: ProblemLog;
  private readonly failingReads: FailingReads;
  private readonly backoff: Backoff;
  private batches: Batch[] = [];
  private handlers: DriverHandlers | undefined;
  private client: ModbusClient | undefined;
  /** The request under way: the next one waits for it. */
  private queue: Promise<unknown> = Promise.resolve();
  private unanswered = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly c = {
    polls: 0,
    reads: 0,
    readErrors: 0,
    writes: 0,
    writeErrors: 0,
    exceptions: 0,
    timeouts: 0,
    connects: 0,
    reconnects: 0,
    connectFailures: 0,
  };

  constructor(config: SignalChannelConfig, context: DriverContext) {
    this.config = config;
    this.context = context;
    this.problems = new ProblemLog(context.log);
    this.failingReads = new FailingReads(context.log);
    this.backoff = new Backoff(context.backoffMs);
  }

  watch(points: readonly WatchedPoint[]): void {
    this.batches = batchesOf(points.map((p) => ({ id: p.id, address: modbusAddress(p.address), kind: p.kind })));
  }

  async start(handlers: DriverHandlers): Promise<void> {
    this.handlers = handlers;
    // The class is loaded now, so that a broken installation fails the start.
    await clientClass();
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.retryTimer);
    await this.queue.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client) await closeQuietly(client);
  }

  counters(): Record<string, number> {
    return { ...this.c };
  }

  // ---- connection ------------------------------------------------------------------------

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.handlers!.onState('connecting');
    const Client = await clientClass();
    const client = new Client();
    // The client reports port errors as events; unheard, they would end the process.
    client.on('error', (err: unknown) => this.context.log.debug({ err }, 'Modbus: port error'));
    const c = this.config;
    try {
      if (c.protocol === 'modbus-tcp') {
        await withTimeout(client.connectTCP(c.host!, { port: c.port! }), CONNECT_TIMEOUT_MS, () => void closeQuietly(client));
      } else {
        await client.connectRTUBuffered(c.device!, { baudRate: c.baudRate!, parity: c.parity!, dataBits: 8, stopBits: 1 });
      }
    } catch (err) {
      await closeQuietly(client);
      this.c.connectFailures++;
      this.problems.problem(`cannot connect: ${(err as Error).message}`, { endpoint: this.endpoint() });
      this.handlers!.onError(undefined, err as Error);
      this.handlers!.onState('offline', (err as Error).message);
      this.retry();
      return;
    }
    if (this.stopped) {
      await closeQuietly(client);
      return;
    }
    client.setID(c.unitId!);
    client.setTimeout(c.timeoutMs);
    client.on('close', () => this.lost(client, 'connection closed'));
    this.client = client;
    this.unanswered = 0;
    if (this.c.connects > 0) this.c.reconnects++;
    this.c.connects++;
    this.backoff.opened();
    this.problems.recovered('Modbus connected');
    this.handlers!.onState('online');
    void this.poll();
  }

  private lost(client: ModbusClient, reason: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    clearTimeout(this.pollTimer);
    void closeQuietly(client);
    if (this.stopped) return;
    this.problems.problem(`connection lost: ${reason}`, { endpoint: this.endpoint() });
    this.handlers!.onState('offline', reason);
    this.retry();
  }

  private retry(): void {
    if (this.stopped) return;
    this.retryTimer = setTimeout(() => void this.connect(), this.backoff.next());
    this.retryTimer.unref();
  }

  private endpoint(): string {
    const c = this.config;
    return c.protocol === 'modbus-tcp' ? `${c.host}:${c.port}` : c.device!;
  }

  // ---- polling --------------------------------------------------------------------------------

  private async poll(): Promise<void> {
    const client = this.client;
    if (!client || this.stopped) return;
    this.c.polls++;
    for (const batch of this.batches) {
      if (this.client !== client) return;
      let words: number[] | boolean[];
      try {
        words = await this.request(client, () => readArea(client, batch.area, batch.start, batch.count));
        this.c.reads++;
      } catch (err) {
        this.c.readErrors++;
        if (exceptionOf(err) === ILLEGAL_DATA_ADDRESS && batch.members.length > 1) {
          this.readOneByOne(batch, err as Error);
          continue;
        }
        // A lost connection is the connection's problem, logged and retried there.
        if (this.client === client) this.failingReads.failed(batch, err as Error);
        for (const m of batch.members) this.handlers!.onError(m.id, err as Error);
        continue;
      }
      this.failingReads.answered(batch);
      for (const m of batch.members) {
        let value: SignalValue;
        try {
          value = decodeValue(words, m.address.offset - batch.start, m.address, m.kind);
        } catch (err) {
          this.handlers!.onError(m.id, err as Error);
          continue;
        }
        this.handlers!.onValue(m.id, value);
      }
    }
    if (this.client !== client || this.stopped) return;
    this.pollTimer = setTimeout(() => void this.poll(), this.config.pollMs!);
    this.pollTimer.unref();
  }

  /**
   * The device refused a request over several points as an illegal address: from the
   * next poll on, each of its points is read on its own (this round's loop goes on over
   * the batches it started with).
   */
  private readOneByOne(batch: Batch, err: Error): void {
    const singles = oneByOne(batch);
    this.batches = this.batches.flatMap((b) => (b === batch ? singles : [b]));
    this.failingReads.forget(batch);
    this.context.log.warn(
      { address: batchAddress(batch), points: batch.members.map((m) => m.id), exception: exceptionOf(err), reason: err.message },
      `Modbus: the device refuses reading ${batchAddress(batch)} in one request (${err.message}); its ${singles.length} points are read one by one from now on`,
    );
  }

  /**
   * One request, after the one under way; a connection whose requests stay unanswered
   * is dropped (and opened again).
   */
  private request<T>(client: ModbusClient, fn: () => Promise<T>): Promise<T> {
    const run = async () => {
      if (this.client !== client) throw new Error('Modbus connection lost');
      try {
        const result = await fn();
        this.unanswered = 0;
        return result;
      } catch (err) {
        if (isException(err)) {
          this.c.exceptions++;
          this.unanswered = 0;
        } else if (isTimeout(err)) {
          this.c.timeouts++;
          if (++this.unanswered >= UNANSWERED_LIMIT) this.lost(client, `${UNANSWERED_LIMIT} requests in a row unanswered`);
        } else if (!client.isOpen) {
          this.lost(client, (err as Error).message);
        }
        throw err;
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private connected(): ModbusClient {
    if (!this.client) throw new Error(`Modbus device ${this.endpoint()} is not connected`);
    return this.client;
  }

  // ---- on demand -------------------------------------------------------------------------------

  async read(address: string, kind: SignalKind): Promise<SignalValue> {
    const a = modbusAddress(address);
    const client = this.connected();
    try {
      const data = await this.request(client, () => readArea(client, a.area, a.offset, span(a, kind)));
      const value = decodeValue(data, 0, a, kind);
      this.c.reads++;
      return value;
    } catch (err) {
      this.c.readErrors++;
      throw new Error(`reading ${address}: ${(err as Error).message}`);
    }
  }

  async write(address: string, kind: SignalKind, value: SignalValue): Promise<void> {
    const a = modbusAddress(address);
    const client = this.connected();
    try {
      await this.request(client, () => writeArea(client, a, kind, value));
      this.c.writes++;
    } catch (err) {
      this.c.writeErrors++;
      throw new Error(`writing ${address}: ${(err as Error).message}`);
    }
  }
}

async function readArea(client: ModbusClient, area: ModbusAddress['area'], start: number, count: number): Promise<number[] | boolean[]> {
  switch (area) {
    case 'coil':
      return (await client.readCoils(start, count)).data;
    case 'di':
      return (await client.readDiscreteInputs(start, count)).data;
    case 'hr':
      return (await client.readHoldingRegisters(start, count)).data;
    case 'ir':
      return (await client.readInputRegisters(start, count)).data;
  }
}

async function writeArea(client: ModbusClient, a: ModbusAddress, kind: SignalKind, value: SignalValue): Promise<void> {
  if (a.area === 'coil') {
    await client.writeCoil(a.offset, encodeValue(a, 'bit', value)[0] === 1);
    return;
  }
  if (a.area !== 'hr') throw new Error(`${a.area} cannot be written (only coils and holding registers)`);
  if (a.bit !== undefined) {
    // One bit of a register: the register as it is now, with that bit changed. Not
    // atomic: the PLC must not write other bits of the same register meanwhile.
    const [current] = (await client.readHoldingRegisters(a.offset, 1)).data;
    const mask = 1 << a.bit;
    const on = encodeValue(a, 'bit', value)[0] === 1;
    await client.writeRegister(a.offset, on ? current! | mask : current! & ~mask & 0xffff);
    return;
  }
  const words = encodeValue(a, kind, value);
  if (words.length === 1) await client.writeRegister(a.offset, words[0]!);
  else await client.writeRegisters(a.offset, words);
}

async function closeQuietly(client: ModbusClient): Promise<void> {
  await new Promise<void>((resolve) => {
    try {
      client.close(() => resolve());
    } catch {
      resolve();
    }
    // A port that never answers its close does not hold up a stop.
    setTimeout(resolve, 500).unref();
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => {
        onTimeout();
        reject(new Error(`no connection within ${ms} ms`));
      }, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
