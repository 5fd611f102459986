// The OPC UA signal driver: one client session per channel, the watched points in ONE
// subscription of monitored items (the server samples and reports changes; nothing is
// polled), reads and writes by node id. Loaded only when an OPC UA channel is configured
// (the channel imports this module on demand), so sites without one never load node-opcua.
//
// The watched points, their monitored items and their changes: points.ts.
//
// Connection: node-opcua's own reconnection (connection strategy, session re-activation
// or re-creation, subscriptions and monitored items re-created on the server) carries a
// lost connection through; our loop only makes the first connection and starts over if
// the library gives a connection up.

import os from 'node:os';
import path from 'node:path';
import { format } from 'node:util';
import { OPCUACertificateManager } from 'node-opcua-certificate-manager';
import {
  AttributeIds,
  MessageSecurityMode,
  OPCUAClient,
  SecurityPolicy,
  UserTokenType,
  setErrorLogger,
  setWarningLogger,
  type ClientSession,
  type ClientSubscription,
  type DataType,
  type NodeId,
  type UserIdentityInfo,
} from 'node-opcua-client';
import type { Logger } from '../../../src/core/log.ts';
import type { DriverHandlers, DriverState, SignalDriver, SignalKind, SignalValue, WatchedPoint } from '../driver.ts';
import { parseNodeId, statusError, WatchedPoints } from './points.ts';
import { signalValue, variantValue } from './values.ts';
import { subscriptionRequest } from './subscription.ts';

type OpcuaSecurityMode = 'None' | 'Sign' | 'SignAndEncrypt';

export interface OpcuaDriverConfig {
  /** The channel's name: in logs, errors and the client's application name. */
  name: string;
  /** `opc.tcp://host:port[/path]` */
  endpoint: string;
  securityMode: OpcuaSecurityMode;
  /** With Sign/SignAndEncrypt: `Basic256Sha256` (default), `Aes128_Sha256_RsaOaep`, `Aes256_Sha256_RsaPss`. */
  securityPolicy?: string;
  /** A user name token; anonymous without. */
  user?: string;
  password?: string;
  /** How often the server samples the watched points, and publishes their changes (ms). */
  samplingMs: number;
  /** Accept a server certificate the PKI folder does not trust yet (kept in `trusted/`); default true. */
  acceptUnknownServerCertificate?: boolean;
}

interface OpcuaDriverContext {
  dataDir: string;
  log: Logger;
  /** Waits between connection attempts; default 1 s, 2 s, 5 s, then every 10 s (as the OSIP tcp-client channels). */
  backoffMs?: readonly number[] | undefined;
}

const RETRY_MS = [1000, 2000, 5000, 10_000];
/** A clean stop never waits longer than this for a server that does not answer. */
const STOP_STEP_MS = 3000;

export function createOpcuaDriver(config: OpcuaDriverConfig, ctx: OpcuaDriverContext): SignalDriver {
  return new OpcuaDriver(config, ctx);
}

/** A signal channel's configuration, as far as the OPC UA driver reads it. */
interface OpcuaChannelConfig extends Partial<Omit<OpcuaDriverConfig, 'name'>> {
  name: string;
}

/**
 * The protocol module's entry for the signal channels (plc/signals/drivers.ts): a
 * validated channel configuration, defaults as the configuration documents them.
 */
export function createDriver(
  config: OpcuaChannelConfig,
  ctx: { log: Logger; dataDir: string | undefined; backoffMs?: readonly number[] | undefined },
): SignalDriver {
  if (!config.endpoint) throw new Error(`OPC UA channel ${config.name} has no endpoint`);
  return createOpcuaDriver(
    {
      name: config.name,
      endpoint: config.endpoint,
      securityMode: config.securityMode ?? 'None',
      securityPolicy: config.securityPolicy,
      user: config.user,
      password: config.password,
      samplingMs: config.samplingMs ?? 100,
      acceptUnknownServerCertificate: config.acceptUnknownServerCertificate,
    },
    // Without a data directory (a test of the channel alone) the certificates go to a folder of this process.
    { log: ctx.log, dataDir: ctx.dataDir ?? path.join(os.tmpdir(), `wms-opcua-${process.pid}`), backoffMs: ctx.backoffMs },
  );
}

/** The folder of the client's certificate, its private key and the server certificates it trusts. */
function opcuaPkiDir(dataDir: string): string {
  return path.join(dataDir, 'opcua-pki');
}

class OpcuaDriver implements SignalDriver {
  readonly #config: OpcuaDriverConfig;
  readonly #log: Logger;
  readonly #dataDir: string;
  readonly #policy: SecurityPolicy;
  readonly #backoffMs: readonly number[];
  readonly #watched: WatchedPoints;
  #handlers?: DriverHandlers;
  #client?: OPCUAClient;
  #session?: ClientSession;
  #subscription?: ClientSubscription;
  #state?: DriverState;
  #detail?: string;
  #stopped = false;
  #everOnline = false;
  #retry?: { timer: NodeJS.Timeout; wake: () => void };
  /** Data types of written variables: a variable's type does not change while the server runs. */
  readonly #dataTypes = new Map<string, DataType>();
  readonly #counts = { reads: 0, writes: 0, errors: 0, reconnects: 0, notifications: 0, connectFailures: 0 };

  constructor(config: OpcuaDriverConfig, ctx: OpcuaDriverContext) {
    this.#config = config;
    this.#dataDir = ctx.dataDir;
    this.#log = ctx.log.child({ channel: config.name, protocol: 'opcua' });
    this.#policy = securityPolicy(config);
    this.#backoffMs = ctx.backoffMs?.length ? ctx.backoffMs : RETRY_MS;
    this.#watched = new WatchedPoints(config, this.#log, this.#counts);
    routeLibraryLog(ctx.log);
  }

  watch(points: readonly WatchedPoint[]): void {
    this.#watched.watch(points);
  }

  async start(handlers: DriverHandlers): Promise<void> {
    this.#handlers = handlers;
    this.#watched.use(handlers);
    this.#stopped = false;
    this.#setState('connecting');
    void this.#connectLoop();
  }

  async read(address: string, kind: SignalKind): Promise<SignalValue> {
    try {
      const session = this.#online();
      const nodeId = parseNodeId(address);
      const dataValue = await session.read({ nodeId, attributeId: AttributeIds.Value });
      if (!dataValue.statusCode.isGood()) throw statusError(`OPC UA read ${address}`, dataValue.statusCode);
      const value = signalValue(dataValue.value.value, kind, address);
      this.#counts.reads++;
      return value;
    } catch (err) {
      this.#counts.errors++;
      throw err;
    }
  }

  async write(address: string, kind: SignalKind, value: SignalValue): Promise<void> {
    void kind; // the variable's own data type decides the encoding
    try {
      const session = this.#online();
      const nodeId = parseNodeId(address);
      const dataType = await this.#dataType(session, nodeId, address);
      const status = await session.write({
        nodeId,
        attributeId: AttributeIds.Value,
        value: { value: { dataType, value: variantValue(value, dataType, address) } },
      });
      if (!status.isGood()) throw statusError(`OPC UA write ${address}`, status);
      this.#counts.writes++;
    } catch (err) {
      this.#counts.errors++;
      throw err;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry) {
      clearTimeout(this.#retry.timer);
      this.#retry.wake();
    }
    await this.#teardown();
  }

  counters(): Record<string, number> {
    return { ...this.#counts };
  }

  /** The first connection, retried until it stands; afterwards node-opcua keeps it. */
  async #connectLoop(): Promise<void> {
    for (let attempt = 0; !this.#stopped; attempt++) {
      try {
        await this.#connect();
        return;
      } catch (err) {
        await this.#teardown();
        if (this.#stopped) return;
        this.#counts.connectFailures++;
        this.#counts.errors++;
        const error = err instanceof Error ? err : new Error(String(err));
        // A failing endpoint is reported (and logged) when its reason changes, not at every retry.
        if (this.#state !== 'offline' || this.#detail !== error.message) this.#handlers?.onError(undefined, error);
        this.#setState('offline', error.message);
        await this.#sleep(this.#backoffMs[Math.min(attempt, this.#backoffMs.length - 1)]!);
      }
    }
  }

  async #connect(): Promise<void> {
    const { endpoint, samplingMs } = this.#config;
    const client = createClient(this.#config, this.#policy, this.#backoffMs, this.#dataDir);
    this.#client = client;
    client.on('backoff', (count: number) => {
      if (client !== this.#client || this.#stopped) return;
      this.#setState('offline', `no connection to ${endpoint} (attempt ${count + 1})`);
    });
    client.on('connection_lost', () => {
      if (client !== this.#client || this.#stopped) return;
      this.#setState('offline', `connection to ${endpoint} lost`);
    });
    client.on('connection_reestablished', () => {
      if (client !== this.#client || this.#stopped) return;
      // The session and its subscription were restored (or re-created) before this event.
      this.#counts.reconnects++;
      this.#setState('online');
    });
    client.on('close', (err?: Error | null) => {
      // The library gave the connection up (not our own disconnect): start over.
      if (client !== this.#client || this.#stopped || !err) return;
      this.#setState('offline', `connection to ${endpoint} closed: ${err.message}`);
      void this.#teardown().then(() => this.#connectLoop());
    });

    await client.connect(endpoint);
    const session = await client.createSession(this.#identity());
    this.#session = session;
    const monitored = await this.#watched.resolve(session);
    if (monitored.length > 0) {
      const subscription = await session.createSubscription2(subscriptionRequest(samplingMs));
      this.#subscription = subscription;
      await this.#watched.monitor(subscription, monitored);
    }
    // Online again after the library gave a connection up and we started over.
    if (this.#everOnline) this.#counts.reconnects++;
    this.#everOnline = true;
    this.#setState('online');
  }

  /** The variable's data type (built-in), asked once per address. */
  async #dataType(session: ClientSession, nodeId: NodeId, address: string): Promise<DataType> {
    const known = this.#dataTypes.get(address);
    if (known !== undefined) return known;
    const answer = await session.read({ nodeId, attributeId: AttributeIds.DataType });
    if (!answer.statusCode.isGood()) throw statusError(`OPC UA write ${address}`, answer.statusCode);
    const dataType = await session.getBuiltInDataType(nodeId);
    this.#dataTypes.set(address, dataType);
    return dataType;
  }

  #online(): ClientSession {
    if (this.#state !== 'online' || !this.#session)
      throw new Error(`OPC UA channel ${this.#config.name} is not connected (${this.#detail ?? this.#state ?? 'not started'})`);
    return this.#session;
  }

  #identity(): UserIdentityInfo {
    const { user, password } = this.#config;
    return user ? { type: UserTokenType.UserName, userName: user, password: password ?? '' } : { type: UserTokenType.Anonymous };
  }

  #setState(state: DriverState, detail?: string): void {
    if (state === this.#state && detail === this.#detail) return;
    const changed = state !== this.#state;
    this.#state = state;
    this.#detail = detail;
    if (!changed) return;
    this.#log[state === 'offline' ? 'warn' : 'info']({ state, detail }, `OPC UA channel ${state}`);
    this.#handlers?.onState(state, detail);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#retry = undefined;
        resolve();
      }, ms);
      this.#retry = { timer, wake: resolve };
    });
  }

  /** Closes what is open, each step bounded: a server that is gone does not hold a stop up. */
  async #teardown(): Promise<void> {
    const { client, session, subscription } = { client: this.#client, session: this.#session, subscription: this.#subscription };
    this.#client = undefined;
    this.#session = undefined;
    this.#subscription = undefined;
    this.#dataTypes.clear();
    const connected = this.#state === 'online';
    if (connected) {
      if (subscription) await bounded(subscription.terminate());
      if (session) await bounded(session.close(true));
    }
    if (client) await bounded(client.disconnect());
  }
}

/** The client of a channel, which node-opcua reconnects by itself (its connection strategy). */
function createClient(config: OpcuaDriverConfig, policy: SecurityPolicy, backoffMs: readonly number[], dataDir: string): OPCUAClient {
  return OPCUAClient.create({
    // One name for every channel: they share the certificate in the PKI folder, and a
    // server checks that the application's URI (made from this name) is the certificate's.
    applicationName: 'wms',
    clientName: config.name,
    securityMode: MessageSecurityMode[config.securityMode],
    securityPolicy: policy,
    endpointMustExist: false,
    keepSessionAlive: true,
    requestedSessionTimeout: 60_000,
    // Infinite retries: a conveyor PLC that reboots comes back; the backoff caps at the last wait.
    connectionStrategy: { initialDelay: backoffMs[0]!, maxDelay: backoffMs.at(-1)!, maxRetry: -1 },
    clientCertificateManager: new OPCUACertificateManager({
      rootFolder: opcuaPkiDir(dataDir),
      automaticallyAcceptUnknownCertificate: config.acceptUnknownServerCertificate ?? true,
    }),
  });
}

/** The security policy of a channel; a wrong name is a configuration error, thrown at creation. */
export function securityPolicy(config: Pick<OpcuaDriverConfig, 'name' | 'securityMode' | 'securityPolicy'>): SecurityPolicy {
  if (config.securityMode === 'None') return SecurityPolicy.None;
  const name = config.securityPolicy ?? 'Basic256Sha256';
  const policy = (SecurityPolicy as unknown as Record<string, SecurityPolicy>)[name];
  if (!policy || policy === SecurityPolicy.None) throw new Error(`OPC UA channel ${config.name}: unknown security policy ${name}`);
  return policy;
}

async function bounded(step: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([step.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, STOP_STEP_MS)))]);
  clearTimeout(timer);
}

let libraryLogRouted = false;
/** node-opcua writes its warnings and errors to the console; they go to the appliance's log instead. */
function routeLibraryLog(log: Logger): void {
  if (libraryLogRouted) return;
  libraryLogRouted = true;
  const opcua = log.child({ module: 'node-opcua' });
  // Its first argument may be where in its code the line comes from ({ filename, callerline }): of no use in our log.
  const text = (args: unknown[]) => format(...(isCaller(args[0]) ? args.slice(1) : args));
  setWarningLogger((...args: unknown[]) => opcua.warn(text(args)));
  setErrorLogger((...args: unknown[]) => opcua.error(text(args)));
}

function isCaller(arg: unknown): boolean {
  return typeof arg === 'object' && arg !== null && 'callerline' in arg;
}
