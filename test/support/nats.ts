// Real nats-server processes for the hub link's tests: a hall's leaf node with its own
// JetStream domain, the office hub it connects to, and a link between them that a test
// can cut and restore while both servers stay up with their streams. Each server runs
// from a nats-server configuration file written here, the same kind of file
// docs/federation.md ships, with its JetStream store in a temporary folder.
//
// Every server and connection started here ends with the test file (afterAll), when the
// test process exits, and — through a watchdog that holds a pipe to the test process —
// even when the test process is killed.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  jetstream as jsClient,
  jetstreamManager as jsManager,
  type JetStreamClient,
  type JetStreamManager,
  type JetStreamManagerOptions,
  type StoredMsg,
} from '@nats-io/jetstream';
import { connect as natsConnect, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { afterAll } from 'vitest';
import { freePort } from './ports.ts';
import { until } from './warehouse.ts';

export const NATS_SERVER = process.env.NATS_SERVER ?? 'nats-server';

export interface NatsOptions {
  /** server_name; also names the server in errors. */
  name?: string;
  /** JetStream domain (a hall's leaf node: `hall1`; the hub: `hub`). */
  domain?: string;
  /** Accept leaf node connections on a free loopback port (`leafUrl`). */
  leafListen?: boolean;
  /**
   * The address it tells its leaf nodes to dial (`host:port`). A leaf dials the
   * addresses its hub advertises as well as its configured one (nats-server 2.9 always
   * advertises the listen address, `no_advertise` does not stop it), so a hub behind a
   * relay must advertise the relay.
   */
  leafAdvertise?: string;
  /** Connect as a leaf node to this hub (`nats-leaf://user:password@host:port`). */
  leafRemote?: string;
  /** Clients must send this token … */
  token?: string;
  /** … or this user and password. */
  user?: string;
  password?: string;
  /** JetStream's file store limit (64GB: every stream's max_bytes must fit in it, it is not taken from the disk). */
  maxFileStore?: string;
  /** Lines added to the configuration as they are (a test's extra setting). */
  extraConfig?: string;
  /** A node of a cluster: the cluster's name and the route ports of the other nodes (its own is `ports.cluster`). */
  cluster?: { name: string; routes: number[] };
}

export interface Ports {
  client: number;
  http: number;
  leaf?: number;
  /** Routes of a cluster node. */
  cluster?: number;
}

export interface NatsServer {
  name: string;
  /** `nats://127.0.0.1:<port>` (without credentials). */
  url: string;
  port: number;
  /** Monitoring: `http://127.0.0.1:<port>` (`/healthz`, `/jsz`, `/leafz`, …). */
  httpUrl: string;
  /** `nats-leaf://127.0.0.1:<port>` when it accepts leaf nodes. */
  leafUrl?: string;
  ports: Ports;
  domain?: string;
  /** The configuration file it runs from, and the folder of its store. */
  configFile: string;
  storeDir: string;
  /** The credentials clients need (token or user/password), for connect(). */
  auth: Pick<NodeConnectionOptions, 'token' | 'user' | 'pass'>;
  running(): boolean;
  /** The process id while it runs (`ip netns exec` becomes nats-server: the same id). */
  pid(): number | undefined;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL (a crash, a power cut) and wait for the exit. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and store (a server coming back after an outage). */
  start(): Promise<void>;
  /** SIGSTOP: the process stays, answers nothing, holds its connections (a box that hangs). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Stops it and deletes its store. */
  close(): Promise<void>;
  /** What it wrote so far, over all its starts. */
  log(): string;
  /** GET of a monitoring endpoint (`/jsz`, `/leafz`) as JSON. */
  monitor(endpoint: string): Promise<any>;
  /** A client connection with the server's credentials (closed with the test file). */
  connect(opts?: NodeConnectionOptions): Promise<NatsConnection>;
}

const servers = new Set<NatsServer>();
const connections = new Set<NatsConnection>();
const relays = new Set<LinkRelay>();
const processes = new Map<ChildProcess, ChildProcess | undefined>();

// A server left behind would hold its ports and store after the test run.
process.on('exit', () => {
  for (const [child, watchdog] of processes) {
    endWatchdog(watchdog);
    child.kill('SIGKILL');
  }
});
// Outside a test file (a script using these helpers) there is no test run to hook into.
try {
  afterAll(() => closeAllNats());
} catch {
  /* not collected by vitest */
}

/** Ends every connection, relay and server started here (their stores deleted). */
export async function closeAllNats(): Promise<void> {
  await Promise.allSettled([...connections].map((nc) => nc.close()));
  connections.clear();
  await Promise.allSettled([...relays].map((r) => r.close()));
  await Promise.allSettled([...servers].map((s) => s.close()));
}

export { freePort };

/** The nats-server configuration of a test server (what startNats() writes). */
export function natsConfig(options: NatsOptions, ports: Ports, storeDir: string): string {
  const q = JSON.stringify;
  const lines = [
    `server_name: ${q(options.name ?? 'nats')}`,
    `listen: "127.0.0.1:${ports.client}"`,
    `http: "127.0.0.1:${ports.http}"`,
    'jetstream {',
    `  store_dir: ${q(storeDir)}`,
    ...(options.domain ? [`  domain: ${q(options.domain)}`] : []),
    '  max_memory_store: 64MB',
    `  max_file_store: ${options.maxFileStore ?? '64GB'}`,
    '}',
  ];
  if (options.token) lines.push(`authorization { token: ${q(options.token)} }`);
  else if (options.user) lines.push(`authorization { user: ${q(options.user)}, password: ${q(options.password ?? '')} }`);
  if (ports.leaf || options.leafRemote) {
    lines.push('leafnodes {');
    if (ports.leaf) lines.push(`  listen: "127.0.0.1:${ports.leaf}"`);
    if (options.leafAdvertise) lines.push(`  advertise: ${q(options.leafAdvertise)}`);
    // A leaf whose link dropped dials again every second, so a restored link is up soon.
    if (options.leafRemote) lines.push('  reconnect: 1', `  remotes: [ { url: ${q(options.leafRemote)} } ]`);
    lines.push('}');
  }
  if (options.cluster && ports.cluster) {
    lines.push(
      'cluster {',
      `  name: ${q(options.cluster.name)}`,
      `  listen: "127.0.0.1:${ports.cluster}"`,
      `  routes: [ ${options.cluster.routes.map((p) => q(`nats-route://127.0.0.1:${p}`)).join(', ')} ]`,
      '}',
    );
  }
  if (options.extraConfig) lines.push(options.extraConfig);
  return `${lines.join('\n')}\n`;
}

/** A nats-server with JetStream on free loopback ports, started and healthy. */
export async function startNats(options: NatsOptions = {}): Promise<NatsServer> {
  const ports: Ports = { client: await freePort(), http: await freePort() };
  if (options.leafListen) ports.leaf = await freePort();
  const name = options.name ?? `nats-${ports.client}`;
  return runNats({
    name,
    ports,
    domain: options.domain,
    auth: options.token ? { token: options.token } : options.user ? { user: options.user, pass: options.password } : {},
    config: (storeDir) => natsConfig({ ...options, name }, ports, storeDir),
  });
}

export interface RunNatsOptions {
  name: string;
  /** The ports the configuration uses: `client` and `http` (monitoring) are required. */
  ports: Ports;
  domain?: string;
  auth?: NatsServer['auth'];
  /** The configuration text, given the folder for its `store_dir`. */
  config: (storeDir: string) => string;
  /**
   * When it counts as started; by default `/healthz?js-enabled-only=true` answers ok
   * (JetStream is on). A cluster node passes a check of its own (a meta leader).
   */
  ready?: (server: NatsServer) => Promise<boolean>;
  /** Wait for ready() on start (default true; a cluster node comes up only with its peers). */
  waitReady?: boolean;
  /** Runs in this network namespace (`ip netns exec`), reached at `host` (test/support/netns.ts). */
  netns?: { name: string; host: string };
}

/** Runs nats-server from a configuration text (startNats() and the docs' files). */
export async function runNats(run: RunNatsOptions): Promise<NatsServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `wms-nats-${run.name}-`));
  const storeDir = path.join(dir, 'store');
  const configFile = path.join(dir, 'nats-server.conf');
  try {
    writeFileSync(configFile, run.config(storeDir));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const { ports } = run;
  const host = run.netns?.host ?? '127.0.0.1';
  const httpUrl = `http://${host}:${ports.http}`;
  let output = '';
  let child: ChildProcess | undefined;
  let exited: Promise<number | string | null> = Promise.resolve(null);
  let closed = false;

  async function monitor(endpoint: string): Promise<any> {
    const reply = await fetch(`${httpUrl}${endpoint}`, { signal: AbortSignal.timeout(2_000) });
    return reply.json();
  }

  const defaultReady = async () => {
    const reply = await fetch(`${httpUrl}/healthz?js-enabled-only=true`, { signal: AbortSignal.timeout(2_000) });
    return reply.ok;
  };

  async function waitReady(timeoutMs = 20_000): Promise<void> {
    const ready = run.ready ?? defaultReady;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!child) throw new Error(`nats-server ${run.name} exited while starting (${await exited}):\n${output}`);
      if (await ready(server).catch(() => false)) return;
      if (Date.now() > deadline) {
        await kill();
        throw new Error(`nats-server ${run.name} was not ready within ${timeoutMs} ms:\n${output}`);
      }
      await sleep(50);
    }
  }

  async function start(): Promise<void> {
    if (closed) throw new Error(`nats-server ${run.name} is closed`);
    if (child) return;
    output += `--- start ${new Date().toISOString()}\n`;
    // `ip netns exec` enters the namespace and runs nats-server in its own process.
    const argv: string[] = run.netns ? ['ip', 'netns', 'exec', run.netns.name, NATS_SERVER, '-c', configFile] : [NATS_SERVER, '-c', configFile];
    const c = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    const watchdog = watch(c);
    processes.set(c, watchdog);
    c.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    c.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    exited = new Promise((resolve) => {
      c.once('error', (error) => {
        output += `${error.message}\n`;
        resolve(error.message);
      });
      c.once('exit', (code, signal) => resolve(signal ?? code));
    }).then((how) => {
      processes.delete(c);
      endWatchdog(watchdog);
      if (child === c) child = undefined;
      return how as number | string | null;
    });
    if (run.waitReady !== false) await waitReady();
  }

  async function end(signal: NodeJS.Signals): Promise<void> {
    const c = child;
    if (!c) return;
    c.kill(signal);
    const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  const stop = () => end('SIGTERM');
  const kill = () => end('SIGKILL');

  const server: NatsServer = {
    name: run.name,
    url: `nats://${host}:${ports.client}`,
    port: ports.client,
    httpUrl,
    leafUrl: ports.leaf ? `nats-leaf://127.0.0.1:${ports.leaf}` : undefined,
    ports,
    domain: run.domain,
    configFile,
    storeDir,
    auth: run.auth ?? {},
    running: () => child !== undefined,
    pid: () => child?.pid,
    stop,
    kill,
    start,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async close() {
      closed = true;
      servers.delete(server);
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => output,
    monitor,
    connect: (opts) => connect(server.url, { ...server.auth, ...opts }),
  };
  servers.add(server);
  try {
    await start();
  } catch (error) {
    await server.close();
    throw error;
  }
  return server;
}

/** Ready as a cluster node: healthy, and knowing the meta leader. */
export async function knowsMetaLeader(server: NatsServer): Promise<boolean> {
  const health = await fetch(`${server.httpUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
  const jsz = await server.monitor('/jsz');
  return health.ok && Boolean(jsz.meta_cluster?.leader);
}

/**
 * A JetStream cluster of `size` nodes on loopback (`<name>-1` …), each with its own
 * store, started together and returned once every node names the same meta leader and
 * that leader counts them all.
 */
export async function startCluster(name = 'pair', size = 3, options: NatsOptions = {}): Promise<NatsServer[]> {
  const ports: Ports[] = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), http: await freePort(), cluster: await freePort() });
  const nodes = await Promise.all(
    ports.map((own, i) => {
      const nodeName = `${name}-${i + 1}`;
      const cluster = { name, routes: ports.filter((p) => p !== own).map((p) => p.cluster!) };
      return runNats({
        name: nodeName,
        ports: own,
        auth: options.token ? { token: options.token } : options.user ? { user: options.user, pass: options.password } : {},
        config: (storeDir) => natsConfig({ ...options, name: nodeName, cluster }, own, storeDir),
        ready: knowsMetaLeader,
        // A node is ready only with its peers: all are started first.
        waitReady: false,
      });
    }),
  );
  await untilOneMetaLeader(nodes, name);
  return nodes;
}

/**
 * Waits until every node of a cluster started without waiting is ready, all of them
 * name the same meta leader (until the election settles they may name different ones),
 * and that leader counts them all. The leader, for a test to stop or pause.
 */
export async function untilOneMetaLeader(nodes: readonly NatsServer[], name: string): Promise<NatsServer> {
  for (const node of nodes) await untilReady(node, knowsMetaLeader, 60_000);
  let leaders = new Set<string>();
  await until(
    async () => {
      leaders = new Set(await Promise.all(nodes.map(async (n) => String((await n.monitor('/jsz')).meta_cluster?.leader))));
      return leaders.size === 1;
    },
    `the nodes of ${name} name the same meta leader`,
    60_000,
  );
  const leader = nodes.find((n) => n.name === [...leaders][0]!.split('/')[0])!;
  await until(
    async () => (await leader.monitor('/jsz')).meta_cluster?.cluster_size === nodes.length,
    `the meta leader of ${name} counts ${nodes.length} peers`,
    60_000,
  );
  return leader;
}

/** Waits until a server that was started without waiting (a cluster node) is ready. */
export async function untilReady(server: NatsServer, ready: (s: NatsServer) => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  try {
    await until(() => ready(server).catch(() => false), `nats-server ${server.name} is ready`, timeoutMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}; its log:\n${server.log()}`);
  }
}

/**
 * A process that SIGKILLs the server when the test process goes away without cleaning
 * up (killed by a timeout): it reads a pipe from the test process until that closes.
 */
function watch(c: ChildProcess): ChildProcess | undefined {
  if (!c.pid) return undefined;
  // A process group of its own (detached), so that ending it ends its `cat` too.
  const watchdog = spawn('sh', ['-c', `cat >/dev/null; kill -9 ${c.pid} 2>/dev/null`], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  (watchdog.stdin as unknown as net.Socket).unref();
  return watchdog;
}

/** Ends a watchdog whose server has gone (its pid must not be killed later, it may be another's by then). */
function endWatchdog(watchdog: ChildProcess | undefined): void {
  if (!watchdog?.pid) return;
  try {
    process.kill(-watchdog.pid, 'SIGKILL');
  } catch {
    /* gone already */
  }
}

// --- the link between a hall and the hub -------------------------------------------------

/**
 * A TCP relay between a leaf node and its hub, in the test process. cut() drops the
 * connections through it and refuses new ones (a cable pulled, a VPN down) while both
 * servers stay up; restore() lets the leaf's next dial through.
 */
export interface LinkRelay {
  port: number;
  url: string;
  /** Where it forwards to (set later when the target is started after the relay). */
  setTarget(port: number, host?: string): void;
  isCut(): boolean;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRelay(target: { host?: string; port: number } = { port: 0 }, scheme = 'nats-leaf'): Promise<LinkRelay> {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const listener = net.createServer((inbound) => {
    if (cut) {
      inbound.destroy();
      return;
    }
    if (!target.port) {
      inbound.destroy();
      return;
    }
    const outbound = net.connect(target.port, target.host ?? '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  const port = await new Promise<number>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve((listener.address() as net.AddressInfo).port));
  });
  const relay: LinkRelay = {
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    setTarget(port, host) {
      target = { port, host };
    },
    isCut: () => cut,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      cut = false;
    },
    async close() {
      relays.delete(relay);
      relay.cut();
      await new Promise((resolve) => listener.close(resolve));
    },
  };
  relays.add(relay);
  return relay;
}

export interface HubAndLeaf {
  /** The office hub (JetStream domain `hubDomain`, accepting leaf nodes). */
  hub: NatsServer;
  /** The hall's leaf node beside the appliance (JetStream domain `hallDomain`). */
  leaf: NatsServer;
  hallDomain: string;
  hubDomain: string;
  relay: LinkRelay;
  /** Drops the link and waits until both servers see it gone; both keep running. */
  cutLink(): Promise<void>;
  /** Lets the leaf connect again and waits until both servers see the link. */
  restoreLink(): Promise<void>;
  /** Waits until the link is up on both sides (after a server restart, say). */
  linkUp(timeoutMs?: number): Promise<void>;
  /**
   * Waits until the hall's interest in a subject has reached the hub (a subscription
   * as the client made it, `wms.HALL1.commands.>`), so that what the hub publishes on it
   * now goes to the hall.
   */
  hubSeesInterest(subscription: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface HubAndLeafOptions {
  hallDomain?: string;
  hubDomain?: string;
  /** Client credentials of the leaf node (what the appliance sends). */
  leaf?: Pick<NatsOptions, 'token' | 'user' | 'password'>;
  hub?: Pick<NatsOptions, 'token' | 'user' | 'password'>;
}

/** A hub and a hall's leaf node on loopback, linked through a relay, the link up. */
export async function startHubAndLeaf(options: HubAndLeafOptions = {}): Promise<HubAndLeaf> {
  const hallDomain = options.hallDomain ?? 'hall1';
  const hubDomain = options.hubDomain ?? 'hub';
  const relay = await startRelay();
  const hub = await startNats({ name: hubDomain, domain: hubDomain, leafListen: true, leafAdvertise: `127.0.0.1:${relay.port}`, ...options.hub });
  relay.setTarget(hub.ports.leaf!);
  const leaf = await startNats({ name: hallDomain, domain: hallDomain, leafRemote: relay.url, ...options.leaf });
  const leafs = async (s: NatsServer) => ((await s.monitor('/leafz').catch(() => ({}))) as { leafnodes?: number }).leafnodes ?? 0;
  const linkUp = (timeoutMs = 20_000) =>
    until(async () => (await leafs(hub)) > 0 && (await leafs(leaf)) > 0, `the leaf link ${hallDomain} → ${hubDomain} is up`, timeoutMs);
  await linkUp();
  return {
    hub,
    leaf,
    hallDomain,
    hubDomain,
    relay,
    async cutLink() {
      relay.cut();
      await until(async () => (await leafs(hub)) === 0 && (await leafs(leaf)) === 0, `the leaf link ${hallDomain} → ${hubDomain} is down`);
    },
    async restoreLink() {
      relay.restore();
      await linkUp();
    },
    linkUp,
    hubSeesInterest: (subscription, timeoutMs = 30_000) =>
      until(
        async () => {
          const leafz = (await hub.monitor('/leafz?subs=1').catch(() => ({}))) as { leafs?: { subscriptions_list?: string[] }[] };
          return (leafz.leafs ?? []).some((l) => (l.subscriptions_list ?? []).includes(subscription));
        },
        `the hub sees the hall's interest in ${subscription}`,
        timeoutMs,
      ),
    async close() {
      await leaf.close();
      await relay.close();
      await hub.close();
    },
  };
}

// --- clients ----------------------------------------------------------------------------

/** A nats.js connection (closed with the test file). */
export async function connect(url: string, opts: NodeConnectionOptions = {}): Promise<NatsConnection> {
  const nc = await natsConnect({ servers: url, name: 'wms-test', ...opts });
  connections.add(nc);
  void nc.closed().then(() => connections.delete(nc));
  return nc;
}

/** The JetStream client of a domain (`hall1`, `hub`; none: the server's own). */
export function jetstream(nc: NatsConnection, opts: { domain?: string; timeout?: number } = {}): JetStreamClient {
  return jsClient(nc, opts);
}

/** The stream and consumer API of a domain; `checkAPI: false` for a domain out of reach now (a cut link). */
export function jetstreamManager(nc: NatsConnection, opts: JetStreamManagerOptions = {}): Promise<JetStreamManager> {
  return jsManager(nc, opts);
}

export interface StreamMessage {
  seq: number;
  subject: string;
  /** The message id (`Nats-Msg-Id`) it was published with, if any. */
  msgId?: string;
  headers: Record<string, string[]>;
  /** The body as stored. */
  data: Uint8Array;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
  text: string;
}

/** Every message a stream holds now, in order (through the stream API's message get). */
export async function streamMessages(jsm: JetStreamManager, stream: string): Promise<StreamMessage[]> {
  const { state } = await jsm.streams.info(stream);
  const messages: StreamMessage[] = [];
  if (state.messages === 0) return messages;
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m) messages.push(toStreamMessage(m));
  }
  return messages;
}

export function toStreamMessage(m: StoredMsg): StreamMessage {
  const headers: Record<string, string[]> = {};
  for (const [key, values] of m.header ?? []) headers[key] = values;
  const text = m.string();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { seq: m.seq, subject: m.subject, msgId: m.header?.get('Nats-Msg-Id') || undefined, headers, data: m.data, json, text };
}

// --- helpers ----------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
