// The host side of the PLC benchmark: the real appliance (dist/wms.cjs) on a fresh
// data directory with two PLC channels, a site over REST on which every REQ_ does
// real work, and the baseline processes; plus the process helpers bench.ts also has.

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeLocation } from '../../plc/simulator/index.ts';
import { BUNDLE } from '../build.ts';
import { CONVEYOR_NODE_OPTIONS } from '../../src/core/young-generation.ts';

/** admin's password on the benchmarks' appliances (a browser logs in with it). */
export const PASSWORD = 'bench-password-1';
const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The site: two conveyor locations the units shuttle between, and where their orders lead. */
export const AREA = 'BNCH';
export const C1 = `${AREA}/0001/0001/0000/0000`;
export const C2 = `${AREA}/0001/0002/0000/0000`;
export const STOCK = `${AREA}/0002/0001/0000/0000`;

export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = pattern.exec(buffer);
      if (match) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(match);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`process exited with ${code} before it was ready:\n${buffer}`)));
  });
}

/** user + system CPU time in a `stat` file of /proc, in microseconds (Linux clock ticks of 10 ms). */
function statCpuUs(file: string): number {
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** user + system CPU time of a process so far, in microseconds. */
export const cpuTimeUs = (pid: number): number => statCpuUs(`/proc/${pid}/stat`);

/** The same for one thread of it (`tid` = `pid`: its main thread). */
export const threadCpuTimeUs = (pid: number, tid: number): number => statCpuUs(`/proc/${pid}/task/${tid}/stat`);

export function rssMb(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);
}

/**
 * The bare responder (baseline.ts): `['tcp']` or `['serial', device, baud]`. Resolves
 * when it is ready, with its TCP port (0 for serial).
 */
export async function startBaseline(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const fields = [encodeLocation(C1), encodeLocation(C2)];
  const child = spawn(process.execPath, [path.join(HERE, 'baseline.ts'), ...args, ...fields], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = await waitForLine(child, /baseline (\d+|serial)/);
  return { child, port: ready[1] === 'serial' ? 0 : Number(ready[1]) };
}

/**
 * The Node options the bundle is started with: those `npm start` and the single
 * executable give it (src/core/young-generation.ts), or, to compare, the
 * space-separated ones of BENCH_APPLIANCE_NODE_OPTIONS (empty: none).
 */
function applianceNodeOptions(): string[] {
  const given = process.env.BENCH_APPLIANCE_NODE_OPTIONS;
  if (given === undefined) return [...CONVEYOR_NODE_OPTIONS];
  return given.split(' ').filter((arg) => arg !== '');
}

export interface Appliance {
  child: ChildProcess;
  url: string;
  /** The TCP port of channel CNV01. */
  plcPort: number;
  /** admin's bearer token, for load generators of their own. */
  token: string;
  api(method: string, path: string, body?: unknown): Promise<any>;
}

/**
 * Starts the bundle (ours, or another build's with --compare) with CNV01 (tcp-server,
 * port 0) and, when `device` is given, CNV02 (serial on `device`). `httpPort` 0 takes
 * any free port; a fixed one lets the caller probe `/readyz` from the spawn on.
 * `signals`: signal channels, as `plc.signals` of wms.config.json takes them;
 * `federation`: the `federation` section (the hub link), none when undefined;
 * `env`: more environment for the process (Node options, allocator settings);
 * `channelPort`: CNV01's port (0: any free one); `token`: admin's token from elsewhere
 * (a standby of a pair takes no login: its token comes from the active).
 */
export async function startAppliance(
  dataDir: string,
  device: string | undefined,
  baudRate: number,
  bundle = BUNDLE,
  httpPort = 0,
  signals: unknown[] = [],
  federation?: unknown,
  env: Record<string, string> = {},
  channelPort = 0,
  token?: string,
): Promise<Appliance> {
  // The benchmark's PLCs send no SYNQ heartbeat, and each line rests while the other is
  // measured: timeouts long enough that no channel goes STALE or drops its connection.
  const quiet = { idleTimeoutMs: 3_600_000, staleTimeoutMs: 7_200_000 };
  const channels = [
    { name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: channelPort, ...quiet },
    ...(device === undefined ? [] : [{ name: 'CNV02', transport: 'serial', device, baudRate, ...quiet }]),
  ];
  writeFileSync(
    path.join(dataDir, 'wms.config.json'),
    JSON.stringify({ plc: { channels, ...(signals.length > 0 ? { signals } : {}) }, ...(federation === undefined ? {} : { federation }) }),
  );
  const child = spawn(process.execPath, [...applianceNodeOptions(), bundle, '--port', String(httpPort), '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: { ...process.env, WMS_ADMIN_PASSWORD: PASSWORD, WMS_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The appliance's own log, kept when asked: what a failed request of a run was is only there.
  if (process.env.BENCH_APPLIANCE_LOG) child.stdout!.pipe(createWriteStream(process.env.BENCH_APPLIANCE_LOG, { flags: 'a' }));
  try {
    return await connect(child, channelPort, token);
  } catch (err) {
    child.kill('SIGTERM'); // not left running when the set-up fails
    throw err;
  }
}

async function connect(child: ChildProcess, channelPort: number, given: string | undefined): Promise<Appliance> {
  const url = (await waitForLine(child, /"url":"(http:\/\/[^"]+)"[^\n]*appliance started/))[1]!;
  const token = given ?? (await login(url));
  const api = async (method: string, p: string, body?: unknown) => {
    const reply = await fetch(url + p, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await reply.text();
    if (!reply.ok) throw new Error(`${method} ${p}: ${reply.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  if (channelPort !== 0) return { child, url, plcPort: channelPort, token, api };
  const cnv01 = (await api('GET', '/v1/plc-channels/CNV01')) as { endpoint: string };
  const plcPort = Number(/:(\d+)$/.exec(cnv01.endpoint)?.[1]);
  if (!plcPort) throw new Error(`no port in CNV01's endpoint ${cnv01.endpoint}`);
  return { child, url, plcPort, token, api };
}

async function login(url: string): Promise<string> {
  const tokenReply = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=password&username=admin&password=${PASSWORD}`,
  });
  return ((await tokenReply.json()) as { access_token: string }).access_token;
}

/**
 * The site on which every REQ_ does the whole job: group BNCH with C1, C2 and STOCK;
 * a route C1 → STOCK whose one hop is C1 → C2, and a default hop C2 → C1; each unit
 * stands on C1 with a STARTED order to STOCK, which it never reaches. A REQ_ at C1
 * books the unit onto C1 and answers C2 by the route's hop (order found, route
 * searched); at C2 it books onto C2 and answers C1 by the default hop (the route has
 * no hop there). Each one a committed transaction (synchronous=FULL).
 */
export async function createSite(app: Appliance, barcodes: string[]): Promise<void> {
  await app.api('POST', '/v1/location-groups', { name: AREA, parentName: 'WAREHOUSE' });
  for (const locationId of [C1, C2, STOCK]) await app.api('POST', '/v1/locations', { locationId, locationGroupName: AREA });
  const route = await app.api('POST', '/v1/api/routes', { name: 'BNCH-STOCK', sourceLocationName: C1, targetLocationName: STOCK, enabled: true });
  await app.api('PUT', `/v1/api/routes/${route.key}/hops`, [{ source: C1, next: C2 }]);
  await app.api('PUT', '/v1/api/default-hops', [{ source: C2, next: C1 }]);
  for (const barcode of barcodes) {
    await app.api('POST', '/v1/transport-units', { barcode, actualLocation: C1, transportUnitType: 'EURO' });
    const order = await app.api('POST', '/v1/transport-orders', { barcode, targetLocation: STOCK });
    if (order.state !== 'STARTED') throw new Error(`order of ${barcode} is ${order.state}, not STARTED`);
  }
}

/** Waits until a channel is in one of the states (polling GET /v1/plc-channels/{name}). */
export async function channelIn(app: Appliance, name: string, states: string[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { state } = (await app.api('GET', `/v1/plc-channels/${name}`)) as { state: string };
    if (states.includes(state)) return;
    if (Date.now() > deadline) throw new Error(`channel ${name} is ${state}, not ${states.join('/')}, after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
