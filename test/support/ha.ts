import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase, type Db } from '../../src/core/db.ts';
import { natsConnectionSchema } from '../../src/nats/config.ts';
import { connectOptions, loadNats, type NatsConnection } from '../../src/nats/connect.ts';
import { PassThrough } from 'node:stream';
import type { ConfigInput } from '../../src/config.ts';
import { startPair, type Pair } from '../../src/ha/pair.ts';
import type { PairStatus } from '../../src/ha/status.ts';
import { ADMIN_PASSWORD, tempDir, testConfig, type Reply, type TestAppliance } from './appliance.ts';
import type { NatsServer } from './nats.ts';

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
): Promise<TestBox> {
  const config = testConfig({ ...overrides, ha: { pair, node, nats: { servers: [server.url] }, leaseTtlMs: 2000, ...overrides.ha } }, dataDir);
  const lines: string[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  // An active that may no longer act ends its process: not this one, the test's. Told to the log instead.
  const started = await startPair(config, { logDestination: sink, fenced: (reason) => lines.push(JSON.stringify({ msg: 'fenced', reason })) });
  const appliance = () => {
    const current = started.appliance;
    if (!current) throw new Error(`${node} serves nothing now (${started.status().role})`);
    return current;
  };
  const request = async (method: string, p: string, body?: unknown): Promise<Reply> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${tokens.get(pair) ?? ''}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(appliance().url + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed } as Reply;
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
