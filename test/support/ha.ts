import { copyFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, expect } from 'vitest';
import { BUNDLE } from '../../scripts/build.ts';
import { tableDigests } from '../../src/ha/digest.ts';
import { startApplianceProcess, type ApplianceProcess } from './executable.ts';
import path from 'node:path';
import { openDatabase, type Db } from '../../src/core/db.ts';
import { natsConnectionSchema } from '../../src/nats/config.ts';
import { connectOptions, loadNats, type NatsConnection } from '../../src/nats/connect.ts';
import { PassThrough } from 'node:stream';
import type { ConfigInput } from '../../src/config.ts';
import { startPair, type Pair, type PairOptions } from '../../src/ha/pair.ts';
import type { PairStatus } from '../../src/ha/status.ts';
import { ADMIN_PASSWORD, replyOf, tempDir, testConfig, type Reply, type TestAppliance } from './appliance.ts';
import type { NatsServer } from './nats.ts';
import { until } from './warehouse.ts';

// The pair's tests (src/ha/): a box's connection to its node of the cluster, and a
// standby's starting copy of an appliance's database.

/**
 * A connection to `server` only, made as the appliance makes its own (connectOptions),
 * that never reaches the cluster's other nodes through the addresses they gossip: a box
 * cut off from the others stays cut off.
 */
export async function connectBeside(server: NatsServer, name: string, options: { reconnectTimeWait?: number } = {}): Promise<NatsConnection> {
  const lib = await loadNats();
  return lib.nats.connect({
    ...connectOptions(lib.nats, natsConnectionSchema.parse({ servers: [server.url] }), name),
    ignoreClusterUpdates: true,
    ...options,
  });
}

/** A standby's starting copy: the appliance's online backup (taken now, through its service), opened as a database of its own. */
export async function standbyCopy(wms: TestAppliance): Promise<Db> {
  const backups = wms.app.module('backups');
  const backup = await backups.take();
  const file = path.join(tempDir('wms-ha-standby-'), 'wms.sqlite');
  copyFileSync(backups.byName(backup.name).file, file);
  return openDatabase({ file, busyTimeoutMs: 5000 });
}

/** One box of a pair in the test's process: the pair, where it serves now, and a client of it. */
export interface TestBox {
  pair: Pair;
  node: string;
  dataDir: string;
  logs: () => string[];
  /** Where its appliance serves in its present role (the port changes with each role: port 0). */
  url: () => string;
  status: () => PairStatus;
  /** A request with the admin's token (taken from whichever box answers logins: the active). */
  request: (method: string, path: string, body?: unknown) => Promise<Reply>;
  /** The box's appliance in its present role, as the warehouse helpers (site, unitWithOrder) take one. */
  view: () => TestAppliance;
  close: () => Promise<void>;
}

/** The tokens of the admin, per pair: signed with the key in the replicated database, good on either box. */
const tokens = new Map<string, string>();

/** Starts `node` of pair `pair` beside the cluster node `server`, in `dataDir` (a new one when absent). */
export async function startTestBox(
  pair: string,
  node: string,
  server: NatsServer,
  overrides: ConfigInput = {},
  dataDir = tempDir('wms-ha-box-'),
  /** A later build's migrations, to see an upgrade (AppOptions). */
  options: Pick<PairOptions, 'migrations'> = {},
): Promise<TestBox> {
  const config = testConfig({ ...overrides, ha: { pair, node, nats: { servers: [server.url] }, leaseTtlMs: 2000, ...overrides.ha } }, dataDir);
  const lines: string[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  // An active that may no longer act ends its process: not this one, the test's. Told to the log instead.
  const started = await startPair(config, {
    ...options,
    logDestination: sink,
    fenced: (reason) => lines.push(JSON.stringify({ msg: 'fenced', reason })),
  });
  const appliance = () => {
    const current = started.appliance;
    if (!current) throw new Error(`${node} serves nothing now (${started.status().role})`);
    return current;
  };
  const request = async (method: string, p: string, body?: unknown): Promise<Reply> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${tokens.get(pair) ?? ''}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return replyOf(await fetch(appliance().url + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  };
  const view = (): TestAppliance => ({
    app: appliance(),
    url: appliance().url,
    dataDir,
    logs: () => [...lines],
    token: () => Promise.resolve(tokens.get(pair) ?? ''),
    request: (method, p, o) => request(method, p, o?.body),
    get: (p) => request('GET', p),
    post: (p, body) => request('POST', p, body),
    put: (p, body) => request('PUT', p, body),
    patch: (p, body) => request('PATCH', p, body),
    del: (p) => request('DELETE', p),
    close: () => started.close(),
  });
  return {
    pair: started,
    node,
    dataDir,
    logs: () => [...lines],
    url: () => appliance().url,
    status: () => started.status(),
    request,
    view,
    close: () => started.close(),
  };
}

/** Logs the admin in on the active `box` (once per pair). */
export async function logInOn(box: TestBox, pair: string): Promise<void> {
  const res = await fetch(`${box.url()}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }).toString(),
  });
  if (res.status !== 200) throw new Error(`login on ${box.node} failed: ${res.status} ${await res.text()}`);
  tokens.set(pair, ((await res.json()) as { access_token: string }).access_token);
}

// ---- boxes as processes (`wms` as installed), on this machine or in a hall's namespaces ----

/** One box of a pair as a process of its own. */
export interface BoxProcess {
  node: string;
  dataDir: string;
  /** Where the test reaches it. */
  url: string;
  process: ApplianceProcess;
}

const boxProcesses: ApplianceProcess[] = [];
/** The file's tests are over: a box kept running as a service is not started again. */
let ending = false;
afterAll(async () => {
  ending = true;
  for (const p of boxProcesses) p.child.kill('SIGKILL');
  await Promise.all(boxProcesses.map((p) => p.exited));
  boxProcesses.length = 0;
});
// A run ended early (a timeout, Ctrl-C) runs no afterAll: the boxes end with the test's process all the same.
process.once('exit', () => {
  for (const p of boxProcesses) p.child.kill('SIGKILL');
});

export interface BoxProcessOptions {
  pair: string;
  node: string;
  /** Its node of the pair's cluster. */
  natsUrl: string;
  /** Where it listens (`server.host`, `server.port`). */
  host: string;
  port: number;
  /** Where the test reaches it; `http://<host>:<port>` when absent. */
  url?: string;
  /** Runs in this network namespace (test/support/netns.ts). */
  netns?: string;
  dataDir?: string;
}

/** Starts a box as `wms --data-dir <dir>` with the pair in its wms.config.json, as the service would. */
export async function startBoxProcess(options: BoxProcessOptions): Promise<BoxProcess> {
  const dataDir = options.dataDir ?? tempDir(`wms-ha-${options.node}-`);
  const config = {
    server: { host: options.host, port: options.port },
    auth: { passwordHashCost: 1024 },
    // The default lease: on a box busy with the rest of the suite a shorter one lapses while
    // the cluster elects its leaders again, and the pair changes hands more than the test does.
    ha: { pair: options.pair, node: options.node, nats: { servers: [options.natsUrl] }, leaseTtlMs: 5000 },
  };
  writeFileSync(path.join(dataDir, 'wms.config.json'), JSON.stringify(config));
  const env: NodeJS.ProcessEnv = { WMS_ADMIN_PASSWORD: ADMIN_PASSWORD };
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WMS_') && k !== 'NODE_OPTIONS') env[k] = v;
  const wms = [process.execPath, BUNDLE, '--data-dir', dataDir];
  // `ip netns exec` enters the namespace and then is the appliance's process (a kill reaches it).
  const argv = options.netns ? ['ip', 'netns', 'exec', options.netns, ...wms] : wms;
  const started = await startApplianceProcess(argv[0]!, argv.slice(1), { cwd: dataDir, env, timeoutMs: 120_000 });
  boxProcesses.push(started);
  return { node: options.node, dataDir, url: options.url ?? `http://${options.host}:${options.port}`, process: started };
}

/** How long the service waits before it starts an ended box again (RestartSec, docs/install.md). */
export const SERVICE_RESTART_MS = 2_000;

/** A box kept running as its service keeps it (Restart=always): `current()` is its present process. */
export interface ServiceBox {
  current(): BoxProcess;
  /** Why its last start failed (what the process said), if one did. */
  trouble(): string | undefined;
  /** Ends the keeping; the present process runs on. */
  stop(): void;
}

/**
 * Keeps the box running as the service does: whenever its process ends (a box that stepped
 * down exits 75), it is started again on its data directory after RestartSec, in the
 * background: a box that joins serves nothing until it has a copy, and two of them wait
 * for each other's side of the pair.
 */
export function asService(first: BoxProcess, start: (dataDir: string) => Promise<BoxProcess>): ServiceBox {
  let box = first;
  let stopped = false;
  let trouble: string | undefined;
  const keep = (running: BoxProcess) =>
    void running.process.exited.then(async () => {
      while (!stopped && !ending) {
        await new Promise((resolve) => setTimeout(resolve, SERVICE_RESTART_MS));
        if (stopped || ending) return;
        try {
          box = await start(running.dataDir);
          return keep(box);
        } catch (error) {
          // It did not come up in time (its start ended it): started once more.
          trouble = (error as Error).message;
        }
      }
    });
  keep(first);
  return { current: () => box, trouble: () => trouble, stop: () => (stopped = true) };
}

/** The admin's token from the box at `url`. */
export async function boxToken(url: string): Promise<string> {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }).toString(),
  });
  if (res.status !== 200) throw new Error(`login at ${url} failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The box's role as its `GET /v1/ha` says; undefined while it does not answer. */
export async function roleOf(url: string, token: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/v1/ha`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) });
    return res.status === 200 ? ((await res.json()) as { role: string }).role : undefined;
  } catch {
    return undefined;
  }
}

/** Waits until the box's `GET /v1/ha` says `role`; a timeout tells what it said last and how its log ends. */
export async function untilRole(box: BoxProcess, token: string, role: string, timeoutMs: number): Promise<void> {
  let last = 'no answer';
  try {
    await until(
      async () => {
        const res = await fetch(`${box.url}/v1/ha`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) }).catch(
          () => undefined,
        );
        last = res ? `${res.status} ${await res.text().catch(() => '')}` : 'no answer';
        return res?.status === 200 && (JSON.parse(last.slice(4)) as { role: string }).role === role;
      },
      `${box.node} is ${role}`,
      timeoutMs,
    );
  } catch (error) {
    const tail = box.process.output().trimEnd().split('\n').slice(-25).join('\n');
    throw new Error(`${(error as Error).message}; GET /v1/ha said: ${last}\n${box.node}'s log ends with:\n${tail}`);
  }
}

/** When the box's process last logged `msg` (ms; the processes share this machine's clock). */
export function loggedAt(box: BoxProcess, msg: string): number {
  const lines = box.process
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; time: string | number })
    .filter((l) => l.msg === msg);
  if (lines.length === 0) throw new Error(`${box.node} never logged "${msg}"`);
  return new Date(lines.at(-1)!.time).getTime();
}

/** The digests of a box's database, read beside the running appliance. */
export function digestOfBox(box: BoxProcess): string {
  const db = new Database(path.join(box.dataDir, 'wms.sqlite'), { readonly: true });
  try {
    return JSON.stringify(tableDigests(db as unknown as Db));
  } finally {
    db.close();
  }
}

/** Creates a location on the box; whether it was acknowledged (201). */
export async function createdOn(url: string, token: string, locationId: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/v1/locations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ locationId, locationGroupName: 'WAREHOUSE' }),
      signal: AbortSignal.timeout(30_000),
    });
    await res.text();
    return res.status === 201;
  } catch {
    return false; // not reachable, cut off, or killed: not acknowledged
  }
}

/** Clients that create locations `<area>/0001/0000/0000/0000`, … over and over. */
export interface Writers {
  /** The locations a box acknowledged (201), in the order they were. */
  acknowledged: string[];
  /** Stops writing; resolves once every client's last request has ended. */
  stop(): Promise<void>;
}

/**
 * `clients` clients writing as they would behind a floating address: each location to
 * the first of `urls()` that acknowledges it; one no box took is not acknowledged, and the
 * client pauses 50 ms before its next.
 */
export function startWriters(area: string, urls: () => readonly string[], token: string, clients: number): Writers {
  const acknowledged: string[] = [];
  let next = 0;
  let writing = true;
  const write = async (locationId: string) => {
    for (const url of urls()) if (await createdOn(url, token, locationId)) return true;
    return false;
  };
  const running = Array.from({ length: clients }, async () => {
    while (writing) {
      const locationId = `${area}/${String(++next).padStart(4, '0')}/0000/0000/0000`;
      if (await write(locationId)) acknowledged.push(locationId);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  return {
    acknowledged,
    async stop() {
      writing = false;
      await Promise.all(running);
    },
  };
}

/** Every one of the locations is on the box at `url`. */
export async function expectLocationsOn(url: string, token: string, locationIds: readonly string[]): Promise<void> {
  for (const locationId of locationIds) {
    const res = await fetch(`${url}/v1/locations?locationId=${encodeURIComponent(locationId)}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status, locationId).toBe(200);
  }
}
