// What splitting the appliance over two threads costs, measured before it is built
// (docs/realtime.md):
//
//   node scripts/bench-threads.ts [-- --rounds 3 --telegrams 5000 --dir /var/tmp]
//
// 1. Two writers on one SQLite file. A "PLC" thread commits one small transaction per
//    telegram at 1,000/s on a connection of its own (WAL, synchronous=FULL, the
//    appliance's busy_timeout) and times each commit. Beside it, a second thread with
//    a second connection commits a group every 10 ms that holds the write lock for
//    1 or 3 ms (the requests an HTTP thread handles in one turn of its loop). Baseline
//    in the same round: the PLC thread alone. This is what a PLC thread with a write
//    connection of its own would meet.
// 2. A write handed to another thread and its reply handed back: the structured clone
//    of a location create's request and reply, both ways, as a round trip. This is what
//    each write costs when one thread owns the write connection.
//
// The database goes to `--dir` (default: the system's temporary folder); use a folder
// on the box's disk, where the appliance keeps its data, for fsyncs that cost what they
// cost there. Prints min / median / max over the rounds.

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { numberArg, textArg } from './args.ts';
import { quantile } from './bench-plc/client.ts';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as typeof import('better-sqlite3');

/** The appliance's pragmas (src/core/db.ts). */
function open(file: string): import('better-sqlite3').Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS telegram (id INTEGER PRIMARY KEY AUTOINCREMENT, writer TEXT, body TEXT)');
  return db;
}

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

const median = (values: readonly number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const spread = (values: readonly number[], digits = 2) =>
  `${Math.min(...values).toFixed(digits)} / ${median(values).toFixed(digits)} / ${Math.max(...values).toFixed(digits)}`;

interface PlcResult {
  p50: number;
  p99: number;
  max: number;
}

type Job = { role: 'plc'; file: string; telegrams: number } | { role: 'group'; file: string; holdMs: number } | { role: 'echo' };

/** One telegram's commit every millisecond, on schedule; each commit timed. */
async function plcThread(file: string, telegrams: number): Promise<PlcResult> {
  const db = open(file);
  const insert = db.prepare("INSERT INTO telegram (writer, body) VALUES ('plc', ?)");
  const commit = db.transaction((body: string) => insert.run(body));
  const body = 'R'.repeat(160);
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i < telegrams; i++) {
    while (performance.now() < start + i) await new Promise((resolve) => setImmediate(resolve));
    const t = performance.now();
    commit(body);
    times.push(performance.now() - t);
  }
  db.close();
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), max: times.at(-1)! };
}

/** A group commit every 10 ms that holds the write lock `holdMs`, until told to stop. */
async function groupThread(file: string, holdMs: number): Promise<void> {
  const db = open(file);
  const insert = db.prepare("INSERT INTO telegram (writer, body) VALUES ('http', ?)");
  const group = db.transaction(() => {
    insert.run('H'.repeat(160));
    spin(holdMs);
  });
  let stop = false;
  parentPort!.on('message', () => (stop = true));
  parentPort!.postMessage('ready');
  while (!stop) {
    group();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  db.close();
  // Its listener would keep the thread alive.
  parentPort!.close();
}

function start(job: Job): Worker {
  return new Worker(new URL(import.meta.url), { workerData: job });
}

const once = <T>(worker: Worker, event: 'message' | 'exit') => new Promise<T>((resolve) => worker.once(event, resolve as (value: unknown) => void));

async function twoWriters(dir: string, telegrams: number, holdMs: number | undefined): Promise<PlcResult> {
  const file = path.join(mkdtempSync(path.join(dir, 'bench-threads-')), 'writers.sqlite');
  open(file).close();
  const group = holdMs === undefined ? undefined : start({ role: 'group', file, holdMs });
  if (group) await once(group, 'message');
  const plc = start({ role: 'plc', file, telegrams });
  const result = await once<PlcResult>(plc, 'message');
  if (group) {
    group.postMessage('stop');
    await once(group, 'exit');
  }
  rmSync(path.dirname(file), { recursive: true, force: true });
  return result;
}

/** A location create as the HTTP side would hand it over, and its reply. */
const REQUEST = {
  method: 'POST',
  route: 'POST /v1/locations',
  params: {},
  query: '',
  requestId: 'r-0000000001',
  clientAddress: '192.168.1.20',
  principal: { id: 'u1', username: 'admin', kind: 'user', grants: new Set(['locations:write', 'locations:read']), roleNames: ['ADMIN'] },
  body: new TextEncoder().encode(JSON.stringify({ locationId: 'AREA/0001/0002/0003/0004', locationGroupName: 'WAREHOUSE', plcCode: 'PLC-0001' })),
};
const REPLY = {
  status: 201,
  body: {
    pKey: '1000001',
    ol: 0,
    locationId: 'AREA/0001/0002/0003/0004',
    plcCode: 'PLC-0001',
    locationGroupName: 'WAREHOUSE',
    incomingActive: true,
    outgoingActive: true,
    plcState: 0,
    createDt: '2026-11-28T06:00:00.000Z',
    lastModifiedDt: '2026-11-28T06:00:00.000Z',
  },
  headers: { Location: '/v1/locations/1000001' },
};

/** Round trips of a create's request and reply to a thread and back, in µs. */
async function handOver(count: number): Promise<{ p50: number; p99: number }> {
  const echo = start({ role: 'echo' });
  const times: number[] = [];
  let sent = 0;
  await new Promise<void>((resolve) => {
    echo.on('message', () => {
      times.push((performance.now() - sent) * 1000);
      if (times.length === count) return resolve();
      sent = performance.now();
      echo.postMessage(REQUEST);
    });
    sent = performance.now();
    echo.postMessage(REQUEST);
  });
  await echo.terminate();
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

async function main(): Promise<void> {
  const rounds = numberArg('--rounds', 3);
  const telegrams = numberArg('--telegrams', 5000);
  const dir = textArg('--dir') ?? tmpdir();
  const cases: { name: string; holdMs: number | undefined }[] = [
    { name: 'PLC alone (baseline)', holdMs: undefined },
    { name: 'beside a group holding the lock 1 ms every 10 ms', holdMs: 1 },
    { name: 'beside a group holding the lock 3 ms every 10 ms', holdMs: 3 },
  ];
  const results = new Map<string, PlcResult[]>(cases.map((c) => [c.name, []]));
  const trips: { p50: number; p99: number }[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const c of cases) {
      const r = await twoWriters(dir, telegrams, c.holdMs);
      results.get(c.name)!.push(r);
      console.log(`round ${round} ${c.name}: commit p50 ${r.p50.toFixed(2)} p99 ${r.p99.toFixed(2)} max ${r.max.toFixed(2)} ms`);
    }
    const trip = await handOver(20_000);
    trips.push(trip);
    console.log(`round ${round} a create handed to a thread and back: p50 ${trip.p50.toFixed(1)} p99 ${trip.p99.toFixed(1)} µs`);
  }
  console.log(`\nTwo writers, ${telegrams} PLC commits at 1,000/s per round, ${rounds} rounds (min / median / max of the rounds):\n`);
  console.log('| PLC commit | p50 ms | p99 ms | max ms |\n|---|---|---|---|');
  for (const [name, rs] of results)
    console.log(`| ${name} | ${spread(rs.map((r) => r.p50))} | ${spread(rs.map((r) => r.p99))} | ${spread(rs.map((r) => r.max))} |`);
  console.log(
    `\nA create handed to another thread and back (20,000 round trips per round): p50 ${spread(
      trips.map((t) => t.p50),
      1,
    )} µs, p99 ${spread(
      trips.map((t) => t.p99),
      1,
    )} µs`,
  );
}

if (isMainThread) {
  await main();
} else {
  const job = workerData as Job;
  if (job.role === 'plc') parentPort!.postMessage(await plcThread(job.file, job.telegrams));
  else if (job.role === 'group') await groupThread(job.file, job.holdMs);
  else parentPort!.on('message', () => parentPort!.postMessage(REPLY));
}
