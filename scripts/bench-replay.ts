// Event replay beside the PLC: what 50 clients replaying the whole event log at once
// cost the conveyor and everything else the appliance answers, against the same
// appliance without them, in the same rounds.
//
//   npm run bench:replay [-- --events 90000 --replays 50 --seconds 20 --rounds 3]
//   npm run bench:replay -- --bundle OTHER/dist/wms.cjs      (another build, not the working tree)
//
// - Log: the appliance starts on an empty directory and gets the PLC benchmark's site
//   over REST (bench-plc/appliance.ts: two conveyor locations, 512 units with STARTED
//   orders), then a tree of 100 location groups whose root changes state until the log
//   holds `--events` events (each change of the root is 100 events). It stops; its
//   files are the fixture, copied into a fresh directory for every round.
// - Each round, on the appliance started afresh on its copy, the PLC client sends REQ_
//   at `--plc-rate` per second over TCP (open loop, bench-plc/client.ts) through two
//   phases: the PLC alone for `--seconds`, then with `--replays` event streams opened at
//   once with `Last-Event-ID: 0` (bench-replay/clients.ts, a process of its own) until
//   every replay has caught up (at most `--max-replay-seconds`). Throughout, a /healthz
//   probe every 50 ms and, per phase, the appliance's event-loop lag from GET /metrics
//   (bench-mixed/probe.ts) and its RSS at the end.
// - Reported per round and as min / median / max over the rounds: PLC REQ_/s, p50, p99,
//   max and REQ_ skipped (every unit waiting for its RES_); /healthz p50, p99, max;
//   loop lag; the replays: time until the last one caught up, each client's replay
//   time, events per second per client (its replay over its time) and in total (every
//   replay over the time until the last one caught up).
//
// Exits 1 when a RES_ was wrong, a client saw an id out of order, twice or missing, or
// a stream ended early (function, not speed); a replay not caught up within
// `--max-replay-seconds` is reported, not failed.

import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { numberArg, pathArg } from './args.ts';
import { BUNDLE, bundle } from './build.ts';
import { C1, C2, channelIn, cpuTimeUs, createSite, startAppliance, type Appliance } from './bench-plc/appliance.ts';
import { dialTcp, PlcClient, quantile, type RunResult } from './bench-plc/client.ts';
import { PLC_UNITS, stopAppliance } from './bench-mixed/fixture.ts';
import { ReadyProbe, rssMbOf, scrape, type Lag, type Spread } from './bench-mixed/probe.ts';
import type { ClientResult, ClientsConfig, ClientsMessage } from './bench-replay/clients.ts';
import { newestEventId } from './bench-replay/newest.ts';

const HERE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bench-replay');
const EVENTS = numberArg('--events', 90_000);
const REPLAYS = numberArg('--replays', 50);
const SECONDS = numberArg('--seconds', 20);
const MAX_REPLAY_SECONDS = numberArg('--max-replay-seconds', 180);
const ROUNDS = numberArg('--rounds', 3);
const PLC_RATE = numberArg('--plc-rate', 1000);
const WARMUP = numberArg('--warmup', 2);
const GIVEN_BUNDLE = pathArg('--bundle');
const APP_BUNDLE = GIVEN_BUNDLE ?? BUNDLE;
const FILES = ['wms.sqlite', 'wms-logs.sqlite'];

const log = (line: string) => console.error(line);
const fmt = (x: number | undefined, digits = 1) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));

/** The fixture: an appliance's data directory with the site and a log of `EVENTS` events, stopped. */
async function buildLog(dir: string): Promise<number> {
  const app = await startAppliance(dir, undefined, 0, APP_BUNDLE);
  try {
    await createSite(app, PLC_UNITS);
    const root = (await app.api('POST', '/v1/location-groups', { name: 'RPLY', parentName: 'WAREHOUSE' })) as { pKey: string };
    for (let i = 0; i < 99; i++) await app.api('POST', '/v1/location-groups', { name: `RPLY-${i}`, parentName: 'RPLY' });
    let newest = (await newestEventId(app.url, app.token)).newest;
    for (let round = 0; newest < EVENTS; round++) {
      await app.api('PATCH', `/v1/location-group/${root.pKey}?op=change-state&statein=${round % 2 ? 'AVAILABLE' : 'NOT_AVAILABLE'}`);
      if (round % 100 === 99 || newest + 100 >= EVENTS) newest = (await newestEventId(app.url, app.token)).newest;
    }
    return newest;
  } finally {
    await stopAppliance(app.child);
  }
}

interface Phase {
  plc: RunResult;
  /** The appliance's CPU time (user + system) over the phase, as a share of one core. */
  cpu: number;
  healthz: Spread & { failed: number; waiting: number };
  lag: Lag;
  rss: number | undefined;
  /** The replay phase: every client, and ms from `go` until the last replay caught up. */
  clients?: ClientResult[];
  allDoneMs?: number;
  /** The clients' own CPU time over the phase, as a share of one core: they share the box. */
  clientsCpu?: number;
}

interface Round {
  alone: Phase;
  replays: Phase;
}

/** Starts the clients' process; resolves once it is ready, with `go` and what it will report. */
function startClients(config: ClientsConfig): Promise<{ go(): void; allDone: Promise<number>; result: Promise<{ clients: ClientResult[]; cpuMs: number }> }> {
  const child = spawn(process.execPath, [path.join(HERE, 'clients.ts'), JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolveReady, rejectReady) => {
    let wentAt = 0;
    let resolveAll!: (ms: number) => void;
    let resolveResult!: (r: { clients: ClientResult[]; cpuMs: number }) => void;
    let rejectResult!: (e: Error) => void;
    const allDone = new Promise<number>((r) => (resolveAll = r));
    const result = new Promise<{ clients: ClientResult[]; cpuMs: number }>((res, rej) => ((resolveResult = res), (rejectResult = rej)));
    result.catch(() => {});
    child.on('message', (m: ClientsMessage) => {
      if (m.kind === 'ready') {
        resolveReady({
          go: () => {
            wentAt = performance.now();
            child.send('go');
          },
          allDone,
          result,
        });
      } else if (m.kind === 'all-done') resolveAll(performance.now() - wentAt);
      else if (m.kind === 'result') resolveResult(m);
      else if (m.kind === 'error') {
        rejectReady(new Error(m.message));
        rejectResult(new Error(m.message));
        resolveAll(NaN);
      }
    });
    child.on('exit', (code) => {
      const err = new Error(`replay clients exited with ${code}`);
      rejectReady(err);
      rejectResult(err);
      resolveAll(NaN);
    });
  });
}

async function round(fixture: string, n: number, errors: string[]): Promise<Round> {
  const dir = mkdtempSync(path.join(tmpdir(), 'wms-bench-replay-'));
  const probe = new ReadyProbe();
  let app: Appliance | undefined;
  const client = new PlcClient({ name: 'CNV01', locations: [C1, C2], barcodes: PLC_UNITS });
  try {
    for (const file of FILES) copyFileSync(path.join(fixture, file), path.join(dir, file));
    app = await startAppliance(dir, undefined, 0, APP_BUNDLE);
    const a = app;
    await client.connect((onData) => dialTcp(a.plcPort, onData));
    await channelIn(a, 'CNV01', ['LINKED', 'ONLINE']);
    errors.push(...(await client.paced(PLC_RATE, WARMUP)).errors);
    probe.start(() => a.url, 50, '/healthz');

    const phase = async (run: (stop: AbortController) => Promise<Partial<Phase>>): Promise<Phase> => {
      await scrape(a.url, a.token); // starts the lag window afresh
      const from = performance.now();
      const cpuFrom = cpuTimeUs(a.child.pid!);
      const stop = new AbortController();
      const [plc, extra] = await Promise.all([client.paced(PLC_RATE, MAX_REPLAY_SECONDS, 5000, stop.signal), run(stop)]);
      const to = performance.now();
      const cpu = (cpuTimeUs(a.child.pid!) - cpuFrom) / 1000 / (to - from);
      const healthz = probe.between(from, to);
      errors.push(...plc.errors.map((e) => `round ${n}: ${e}`));
      return { plc, cpu, healthz, lag: (await scrape(a.url, a.token)).lag, rss: rssMbOf(a.child.pid), ...extra };
    };
    const alone = await phase(async (stop) => {
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      stop.abort();
      return {};
    });
    log(`round ${n} PLC alone: p99 ${fmt(quantile(alone.plc.latencies, 0.99), 2)} ms, /healthz p99 ${fmt(alone.healthz.p99, 2)} ms`);
    const replays = await phase(async (stop) => {
      const clients = await startClients({ url: a.url, token: a.token, replays: REPLAYS, maxSeconds: MAX_REPLAY_SECONDS - 5 });
      clients.go();
      const allDoneMs = await clients.allDone;
      stop.abort();
      const { clients: results, cpuMs } = await clients.result;
      return { clients: results, allDoneMs, clientsCpu: cpuMs / allDoneMs };
    });
    for (const [i, c] of (replays.clients ?? []).entries()) {
      errors.push(...c.errors.map((e) => `round ${n}, client ${i + 1}: ${e}`));
      if (c.endedEarly) errors.push(`round ${n}, client ${i + 1}: the stream ended early`);
    }
    log(
      `round ${n} + ${REPLAYS} replays: p99 ${fmt(quantile(replays.plc.latencies, 0.99), 2)} ms, /healthz p99 ${fmt(replays.healthz.p99, 2)} ms, all caught up after ${fmt((replays.allDoneMs ?? NaN) / 1000)} s`,
    );
    return { alone, replays };
  } finally {
    probe.stop();
    await client.close();
    if (app) await stopAppliance(app.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** min / median / max of one figure over the rounds. */
function spreadOf(values: number[], digits: number): string {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return '–';
  return [sorted[0]!, sorted[Math.floor((sorted.length - 1) / 2)]!, sorted.at(-1)!].map((v) => v.toFixed(digits)).join(' / ');
}

function report(rounds: Round[], events: number): void {
  const out = (line = '') => console.log(line);
  const p = (run: RunResult, q: number) => quantile(run.latencies, q);
  out(
    `\nlog of ${events} events; PLC ${PLC_RATE} REQ_/s over TCP; ${REPLAYS} replays from id 0; ${SECONDS} s alone; ${rounds.length} rounds; node ${process.version}; ${new Date().toISOString().slice(0, 10)}`,
  );
  out(`bundle: ${APP_BUNDLE}`);
  out('\nPer round:\n');
  out(
    '| round | phase | s | REQ_/s | PLC p50 ms | PLC p99 ms | PLC max ms | skipped | /healthz p50 / p99 / max ms | loop lag p99 / max ms | appliance CPU (cores) | RSS MB at end |',
  );
  out('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [i, r] of rounds.entries()) {
    for (const [name, x] of [
      ['PLC alone', r.alone],
      [`+ ${REPLAYS} replays`, r.replays],
    ] as const) {
      const seconds = x.plc.sent / Math.max(x.plc.rate, 1);
      out(
        `| ${i + 1} | ${name} | ${seconds.toFixed(0)} | ${x.plc.rate.toFixed(0)} | ${fmt(p(x.plc, 0.5), 2)} | ${fmt(p(x.plc, 0.99), 2)} | ${fmt(p(x.plc, 1))} | ${x.plc.skipped} | ${fmt(x.healthz.p50, 1)} / ${fmt(x.healthz.p99, 1)} / ${fmt(x.healthz.max, 1)}${x.healthz.waiting ? ` (${x.healthz.waiting} unanswered)` : ''} | ${fmt(x.lag.p99)} / ${fmt(x.lag.max)} | ${fmt(x.cpu, 2)} | ${x.rss ?? '–'} |`,
      );
    }
  }
  out('\nOver the rounds, min / median / max:\n');
  out('| figure | PLC alone | + replays |');
  out('|---|---|---|');
  const row = (name: string, f: (x: Phase) => number, digits: number) =>
    out(
      `| ${name} | ${spreadOf(
        rounds.map((r) => f(r.alone)),
        digits,
      )} | ${spreadOf(
        rounds.map((r) => f(r.replays)),
        digits,
      )} |`,
    );
  row('REQ_/s', (x) => x.plc.rate, 0);
  row('PLC p50 ms', (x) => p(x.plc, 0.5), 2);
  row('PLC p99 ms', (x) => p(x.plc, 0.99), 2);
  row('PLC max ms', (x) => p(x.plc, 1), 1);
  row('REQ_ skipped', (x) => x.plc.skipped, 0);
  row('/healthz p50 ms', (x) => x.healthz.p50, 1);
  row('/healthz p99 ms', (x) => x.healthz.p99, 1);
  row('/healthz max ms', (x) => x.healthz.max, 1);
  row('loop lag p99 ms', (x) => x.lag.p99, 1);
  row('loop lag max ms', (x) => x.lag.max, 1);
  row('appliance CPU, cores', (x) => x.cpu, 2);
  row('RSS MB at end', (x) => x.rss ?? NaN, 0);

  out('\nThe replays (min / median / max over the rounds; per client: the median client of each round):\n');
  out('| figure | value |');
  out('|---|---|');
  const replay = (r: Round) => r.replays.clients ?? [];
  const median = (xs: number[]) => {
    const sorted = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : NaN;
  };
  const perClient = (c: ClientResult) => (c.doneMs === undefined ? NaN : c.replayed / (c.doneMs / 1000));
  out(
    `| events replayed per client | ${spreadOf(
      rounds.map((r) => median(replay(r).map((c) => c.replayed))),
      0,
    )} |`,
  );
  out(
    `| until the last replay caught up, s | ${spreadOf(
      rounds.map((r) => (r.replays.allDoneMs ?? NaN) / 1000),
      1,
    )} |`,
  );
  const late = rounds.map((r) => replay(r).filter((c) => c.doneMs === undefined).length);
  if (late.some((n) => n > 0)) out(`| replays not caught up within ${MAX_REPLAY_SECONDS - 5} s (per round) | ${late.join(' / ')} |`);
  out(
    `| a client's first event, ms (median client) | ${spreadOf(
      rounds.map((r) => median(replay(r).map((c) => c.firstEventMs ?? NaN))),
      0,
    )} |`,
  );
  out(
    `| a client's replay, s (median client) | ${spreadOf(
      rounds.map((r) => median(replay(r).map((c) => (c.doneMs ?? NaN) / 1000))),
      1,
    )} |`,
  );
  out(
    `| a client's replay, s (fastest / slowest client, over all rounds) | ${spreadOf(
      rounds.flatMap((r) => replay(r).map((c) => (c.doneMs ?? NaN) / 1000)),
      1,
    )
      .split(' / ')
      .filter((_, i) => i !== 1)
      .join(' / ')} |`,
  );
  out(
    `| events/s per client (median client) | ${spreadOf(
      rounds.map((r) => median(replay(r).map(perClient))),
      0,
    )} |`,
  );
  out(
    `| events/s in total (every replay / time until the last caught up) | ${spreadOf(
      rounds.map((r) => replay(r).reduce((a, c) => a + c.replayed, 0) / ((r.replays.allDoneMs ?? NaN) / 1000)),
      0,
    )} |`,
  );
  out(
    `| MB sent to the clients | ${spreadOf(
      rounds.map((r) => replay(r).reduce((a, c) => a + c.bytes, 0) / 1e6),
      0,
    )} |`,
  );
  out(
    `| the clients' process CPU, cores | ${spreadOf(
      rounds.map((r) => r.replays.clientsCpu ?? NaN),
      2,
    )} |`,
  );
}

async function main(): Promise<void> {
  const started = performance.now();
  if (!GIVEN_BUNDLE) await bundle();
  const fixture = mkdtempSync(path.join(tmpdir(), 'wms-bench-replay-log-'));
  const errors: string[] = [];
  try {
    log(`building a log of ${EVENTS} events`);
    const events = await buildLog(fixture);
    log(`log built: ${events} events, after ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const rounds: Round[] = [];
    for (let n = 1; n <= ROUNDS; n++) rounds.push(await round(fixture, n, errors));
    report(rounds, events);
    console.log(`\nthe whole run took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    rmSync(fixture, { recursive: true, force: true });
  }
  if (errors.length > 0) {
    console.error(`\n${errors.length} errors, the first ones:`);
    for (const e of errors.slice(0, 10)) console.error(`  ${e}`);
    process.exitCode = 1;
  }
}

await main();
