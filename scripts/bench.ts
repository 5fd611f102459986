// HTTP benchmark of the appliance against a baseline measured in the same run.
//
//   npm run bench [-- --seconds 10 --connections 32]
//
// - Baseline: a bare node:http server answering exactly the bytes (status, headers,
//   body) that the appliance answers for `GET /v1/locations?locationId=…`.
// - Appliance: the real bundle (dist/wms.cjs) on a fresh data directory, the same GET
//   with a valid bearer token (signature check, grant check, router, SQLite, JSON).
// - Writes: `POST /v1/locations` with a new coordinate per request (each one a
//   committed, fsynced transaction: synchronous=FULL).
//
// Load comes from wrk (C, a separate process): `apt-get install wrk`. Both servers
// run one after the other on the same machine, alternating, so noise hits both.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BUNDLE, bundle } from './build.ts';
import { createScript, requireWrk, wrk, type WrkResult } from './bench-mixed/wrk.ts';
import { waitForLine } from './bench-plc/appliance.ts';
import { numberArg } from './args.ts';
import { CONVEYOR_NODE_OPTIONS } from '../src/core/young-generation.ts';

const SECONDS = numberArg('--seconds', 10);
const CONNECTIONS = numberArg('--connections', 32);
const ROUNDS = numberArg('--rounds', 2);
const THREADS = numberArg('--threads', 1);
const PASSWORD = 'bench-password-1';
const COORDINATE = 'BNCH/0001/0001/0001/0001';

async function main(): Promise<void> {
  requireWrk();
  await bundle();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wms-bench-'));
  const children: ChildProcess[] = [];
  try {
    const appliance = spawn(process.execPath, [...CONVEYOR_NODE_OPTIONS, BUNDLE, '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      env: { ...process.env, WMS_ADMIN_PASSWORD: PASSWORD, WMS_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(appliance);
    const started = await waitForLine(appliance, /"url":"(http:\/\/[^"]+)"[^\n]*appliance started/);
    const appUrl = started[1]!;

    const tokenReply = await fetch(`${appUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=password&username=admin&password=${PASSWORD}`,
    });
    const token = ((await tokenReply.json()) as { access_token: string }).access_token;
    const auth = { Authorization: `Bearer ${token}` };
    const createReply = await fetch(`${appUrl}/v1/locations`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ locationId: COORDINATE, locationGroupName: 'WAREHOUSE', plcCode: 'BNCH-1', erpCode: 'BNCH-1', type: 'RACK' }),
    });
    if (createReply.status !== 201) throw new Error(`setup failed: ${createReply.status} ${await createReply.text()}`);

    const readPath = `/v1/locations?locationId=${encodeURIComponent(COORDINATE)}`;
    const sample = await fetch(appUrl + readPath, { headers: auth });
    const body = await sample.text();
    const headers: Record<string, string> = {};
    sample.headers.forEach((value, key) => {
      if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(key)) headers[key] = value;
    });

    // The baseline answers the same status, headers and body bytes, nothing else.
    const baselineSource = `
      const http = require('node:http');
      const headers = ${JSON.stringify(headers)};
      const body = Buffer.from(${JSON.stringify(body)});
      http.createServer((req, res) => { res.writeHead(200, headers); res.end(body); })
        .listen(0, '127.0.0.1', function () { console.log('baseline ' + this.address().port); });`;
    const baseline = spawn(process.execPath, ['-e', baselineSource], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(baseline);
    const baselineUrl = `http://127.0.0.1:${(await waitForLine(baseline, /baseline (\d+)/))[1]}`;

    const run = (server: ChildProcess, url: string, seconds: number) =>
      wrk(url + readPath, { server, headers: auth, seconds, connections: CONNECTIONS, threads: THREADS });
    run(baseline, baselineUrl, 2); // warm-up: JIT, connection set-up
    run(appliance, appUrl, 2);
    const bare: WrkResult[] = [];
    const app: WrkResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(run(baseline, baselineUrl, SECONDS));
      app.push(run(appliance, appUrl, SECONDS));
    }

    const luaFile = path.join(dataDir, 'create.lua');
    writeFileSync(luaFile, createScript('WRIT', token));
    const writes = wrk(`${appUrl}/v1/locations`, { server: appliance, script: luaFile, seconds: SECONDS, connections: 8, threads: 1 });
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${appliance.pid}/status`, 'utf8'))?.[1]);

    const mean = (xs: WrkResult[], k: keyof WrkResult) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
    const ratio = mean(app, 'rps') / mean(bare, 'rps');
    const line = (name: string, rs: WrkResult[]) =>
      `| ${name} | ${rs.map((r) => Math.round(r.rps)).join(' / ')} | ${Math.round(mean(rs, 'rps'))} | ${mean(rs, 'cpuUs').toFixed(1)} | ${mean(rs, 'p50ms').toFixed(2)} | ${mean(rs, 'p99ms').toFixed(2)} | ${rs.reduce((a, r) => a + r.errors, 0)} |`;
    console.log(`\nwrk ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} alternating rounds, node ${process.version}\n`);
    console.log('| target | req/s per round | mean req/s | server CPU µs/req | p50 ms | p99 ms | errors |');
    console.log('|---|---|---|---|---|---|---|');
    console.log(line('bare node:http, same bytes', bare));
    console.log(line('GET /v1/locations?locationId= (token)', app));
    console.log(`\nappliance / bare: ${(ratio * 100).toFixed(1)} %`);
    console.log(
      `\nPOST /v1/locations (8 connections): ${Math.round(writes.rps)} creates/s, ${writes.cpuUs.toFixed(0)} CPU µs each, p50 ${writes.p50ms.toFixed(2)} ms, p99 ${writes.p99ms.toFixed(2)} ms, errors ${writes.errors}`,
    );
    console.log(`appliance RSS after the runs: ${Math.round(rssKb / 1024)} MB`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
