// Mixed load at site scale: the PLC REQ_ → RES_ latency alone and under API load in
// the same run, on a site of 1,000 routes and 1,000,000 locations, against the targets
// of "the conveyor never waits".
//
//   npm run bench:mixed [-- --locations 1000000 --seconds 30 --list-seconds 60 --http-seconds 10 --phase-rounds 3]
//   npm run bench:mixed -- --locations 20000 --seconds 3        (short form, a smoke run)
//   npm run bench:mixed -- --bundle OTHER/dist/wms.cjs           (another build, not the working tree)
//   npm run bench:mixed -- --phases alone,all                    (these PLC phases only)
//   WMS_STORAGE_FLUSH=apart npm run bench:mixed                  (a setting: the appliance reads the environment)
//   BENCH_APPLIANCE_LOG=/tmp/wms.log npm run bench:mixed         (the appliance's own log kept, say for a failed request)
//
// - Site (bench-mixed/fixture.ts): built once per schema version and size, cached in
//   /tmp, copied into a fresh data directory per run. The appliance runs with PLC
//   channel CNV01 (tcp-server); the PLC client and the site it shuttles on are the PLC
//   benchmark's (bench-plc/client.ts, bench-plc/appliance.ts).
// - Cold start: spawn → first 200 on /readyz, `--cold-starts` times on the copied site
//   (the first one on the fresh copy), against a bare node:http process; idle RSS some
//   seconds after the last start, against the bare process's.
// - Closed loop (wrk, bench-mixed/wrk.ts): GET by a random coordinate of the site and by
//   one coordinate over and over, against a bare node:http server answering the same
//   bytes (bench-mixed/bare-http.ts); durable creates at 8 connections against the raw
//   commit rate of better-sqlite3 in the same directory (bench-mixed/raw-commit.ts).
//   Alternating, `--rounds` times.
// - Phases, on the appliance started afresh after the closed-loop runs, each with the
//   PLC client (on a thread of its own at nice -20: bench-plc/client-thread.ts)
//   sending REQ_ at 1000/s over TCP (open loop) while the API load
//   (bench-mixed/load.ts, a process of its own) runs beside it: the bare
//   PLC responder (the floor), the appliance alone, then with each API load on its own
//   (event streams twice: as the HMI's map and alarm badge subscribe, and taking every
//   event), then all together, then alone again; `--phase-rounds` times, the floor in
//   every round, each phase reported as min / median / max over the rounds.
//   Throughout, a /readyz probe every 50 ms; per phase the appliance's event-loop lag
//   and commits from GET /metrics, its RSS, and its CPU per REQ_ answered (user +
//   system from /proc: the whole process and its main thread, the conveyor thread), and
//   the size of the write-ahead log file at its end (the longest the log got since the
//   appliance started: SQLite starts it over in place, the file never shrinks).
// - The full GET /v1/locations is time-boxed: a list that does not finish, or an
//   appliance that dies, is reported as failed and the run goes on (the appliance is
//   started again on its data directory).
//
// Needs wrk (apt-get install wrk). Exits 1 when a RES_ was wrong or an API request was
// refused (function, not speed); missed targets are reported, not failed.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { BUNDLE, bundle } from './build.ts';
import { C1, C2, channelIn, cpuTimeUs, startAppliance, startBaseline, threadCpuTimeUs, waitForLine, type Appliance } from './bench-plc/appliance.ts';
import { quantile, type RunResult } from './bench-plc/client.ts';
import { PlcClientThread } from './bench-plc/client-thread.ts';
import { copyFixture, DATABASE_FILE, ensureFixture, MOVE_UNITS, PLC_UNITS, stopAppliance, type Fixture } from './bench-mixed/fixture.ts';
import { locationId, rack } from './bench-mixed/layout.ts';
import type { FullListResult, LoadConfig, LoadResult } from './bench-mixed/load.ts';
import { pagedLists, startLoad, type RunningLoad } from './bench-mixed/api-load.ts';
import {
  commitsBetween,
  firstReady,
  freePort,
  ReadyProbe,
  rssMbOf,
  RssSampler,
  scrape,
  type Commits,
  type Lag,
  type Scrape,
  type Spread,
} from './bench-mixed/probe.ts';
import { createScript, randomCoordinateScript, requireWrk, wrk, type WrkResult } from './bench-mixed/wrk.ts';
import { numberArg, pathArg, textArg } from './args.ts';
import { ALARM_EVENTS, PLAN_EVENTS } from '../src/hmi/app/live-types.ts';

const HERE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bench-mixed');
const LOCATIONS = numberArg('--locations', 1_000_000);
const ROUTES = numberArg('--routes', 1000);
const SECONDS = numberArg('--seconds', 30);
const LIST_SECONDS = numberArg('--list-seconds', Math.max(2 * SECONDS, 10));
const HTTP_SECONDS = numberArg('--http-seconds', Math.min(10, SECONDS));
const ROUNDS = numberArg('--rounds', 2);
const CONNECTIONS = numberArg('--connections', 32);
const COLD_STARTS = numberArg('--cold-starts', 3);
const PLC_RATE = numberArg('--plc-rate', 1000);
const CREATES = numberArg('--creates', 200);
const MOVES = numberArg('--moves', 50);
const SEARCHES = numberArg('--searches', 5);
const PAGES = numberArg('--pages', 10);
const PHASE_ROUNDS = numberArg('--phase-rounds', 3);
/** `--phases alone,all`: these phases only (keys: alone, creates, moves, reads, searches, paged, streams-hmi, streams-all, list, all, after), to compare one change quickly. */
const ONLY_PHASES = textArg('--phases')?.split(',');
const READS = numberArg('--reads', 500);
const STREAMS = numberArg('--streams', 50);
/** What an HMI page with the map and the alarm badge asks of its stream: every booking of the PLC moves a unit, and the map shows it. */
const HMI_TYPES = [...PLAN_EVENTS, ...ALARM_EVENTS];
const WARMUP = numberArg('--warmup', 2);
const GIVEN_BUNDLE = pathArg('--bundle');
const APP_BUNDLE = GIVEN_BUNDLE ?? BUNDLE;

const log = (line: string) => console.error(line);
const ms = (x: number | undefined, digits = 1) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

// ---- the phases -----------------------------------------------------------------

interface Phase {
  /** What `--phases` names it by. */
  key: string;
  name: string;
  /** The API load beside the PLC; none: the PLC alone. */
  load?: Omit<LoadConfig, 'url' | 'token' | 'seconds' | 'racks'>;
  /** Runs `--list-seconds` (the full list has time to finish). */
  long?: boolean;
}

interface PhaseResult {
  phase: Phase;
  /** 1, 2, …: the round of the phases. */
  round: number;
  plc?: RunResult;
  lag?: Lag;
  /** The conveyor thread's commits during the phase. */
  commits?: Commits;
  /** CPU (user + system) per REQ_ answered, µs: the whole process and its main thread (the conveyor thread). */
  cpu?: { process: number; conveyor: number };
  ready: Spread & { failed: number; waiting: number };
  rssEnd?: number;
  /** The write-ahead log file's size at the phase's end, MB: the longest the log got (it starts over in place, never shrinks). */
  walEnd?: number;
  load?: LoadResult;
  loadError?: string;
  list?: { result: FullListResult; rssBefore?: number; rssPeak?: number; ready: Spread & { failed: number; waiting: number } };
  /** How the appliance ended during the phase, when it did. */
  exited?: string;
}

/** Unique per phase, so creates never collide. */
let createAreas = 0;
const creates = () => ({ perSecond: CREATES, area: `NEW${++createAreas}` });
const fullList = () => ({ afterMs: 1000, timeoutMs: (LIST_SECONDS - 3) * 1000 });

function phases(pagedLists: string[]): Phase[] {
  const all: Phase[] = [
    { key: 'alone', name: 'PLC alone' },
    { key: 'creates', name: `+ ${CREATES} creates/s`, load: { creates: creates() } },
    { key: 'moves', name: `+ ${MOVES} TU moves/s`, load: { moves: { perSecond: MOVES, units: MOVE_UNITS } } },
    { key: 'reads', name: `+ ${READS} random reads/s`, load: { reads: { perSecond: READS } } },
    { key: 'searches', name: `+ ${SEARCHES} leading-wildcard searches/s`, load: { searches: { perSecond: SEARCHES } } },
    { key: 'paged', name: `+ ${PAGES} pages/s of paged lists`, load: { paged: { perSecond: PAGES, lists: pagedLists } } },
    { key: 'streams-hmi', name: `+ ${STREAMS} event streams as the HMI subscribes`, load: { streams: { count: STREAMS, types: HMI_TYPES } } },
    { key: 'streams-all', name: `+ ${STREAMS} event streams taking every event`, load: { streams: { count: STREAMS } } },
    { key: 'list', name: '+ full GET /v1/locations', load: { fullList: fullList() }, long: true },
    {
      key: 'all',
      name: 'all together',
      long: true,
      load: {
        creates: creates(),
        moves: { perSecond: MOVES, units: MOVE_UNITS },
        reads: { perSecond: READS },
        searches: { perSecond: SEARCHES },
        paged: { perSecond: PAGES, lists: pagedLists },
        streams: { count: STREAMS, types: HMI_TYPES },
        fullList: fullList(),
      },
    },
    { key: 'after', name: 'PLC alone, after' },
  ];
  return ONLY_PHASES === undefined ? all : all.filter((phase) => ONLY_PHASES.includes(phase.key));
}

// ---- main -----------------------------------------------------------------------

async function main(): Promise<void> {
  requireWrk();
  const runStarted = performance.now();
  if (!GIVEN_BUNDLE) await bundle();
  const fixture = await ensureFixture({ locations: LOCATIONS, routes: ROUTES, bundle: APP_BUNDLE, log });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wms-bench-mixed-'));
  const children: ChildProcess[] = [];
  const probe = new ReadyProbe();
  const rss = new RssSampler();
  let app: Appliance | undefined;
  let client: PlcClientThread | undefined;
  let baseClient: PlcClientThread | undefined;
  try {
    copyFixture(fixture, dataDir);

    // ---- cold start and idle RSS, appliance and bare node:http ----
    const coldStarts: number[] = [];
    for (let i = 0; i < COLD_STARTS; i++) {
      const port = await freePort();
      const since = performance.now();
      const ready = firstReady(port, since);
      const started = await startAppliance(dataDir, undefined, 0, APP_BUNDLE, port);
      coldStarts.push(await ready);
      log(`cold start ${i + 1}: ${coldStarts[i]!.toFixed(0)} ms to the first 200 on /readyz`);
      if (i < COLD_STARTS - 1) await stopAppliance(started.child);
      else app = started;
    }
    children.push(app!.child);
    const bareStarts: number[] = [];
    let bareIdleRss = 0;
    for (let i = 0; i < COLD_STARTS; i++) {
      const port = await freePort();
      const since = performance.now();
      const ready = firstReady(port, since);
      const bare = spawn(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('{"status":"UP"}')).listen(${port}, '127.0.0.1')`], {
        stdio: 'ignore',
      });
      bareStarts.push(await ready);
      await new Promise((r) => setTimeout(r, 1000));
      bareIdleRss = rssMbOf(bare.pid) ?? NaN;
      bare.kill('SIGTERM');
    }
    await new Promise((r) => setTimeout(r, 5000));
    const idleRss = rssMbOf(app!.child.pid)!;
    log(`idle RSS ${idleRss} MB (bare node:http ${bareIdleRss} MB)`);

    // ---- closed loop: GET by coordinate vs bare node:http; creates vs raw commits ----
    const auth = { Authorization: `Bearer ${app!.token}` };
    const sampleId = locationId(rack(0));
    const sample = await fetch(`${app!.url}/v1/locations?locationId=${encodeURIComponent(sampleId)}`, { headers: auth });
    const sampleReply = { status: sample.status, headers: {} as Record<string, string>, body: await sample.text() };
    sample.headers.forEach((value, key) => {
      if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(key)) sampleReply.headers[key] = value;
    });
    writeFileSync(path.join(dataDir, 'bare-reply.json'), JSON.stringify(sampleReply));
    const bareHttp = spawn(process.execPath, [path.join(HERE, 'bare-http.ts'), path.join(dataDir, 'bare-reply.json')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(bareHttp);
    const bareUrl = `http://127.0.0.1:${(await waitForLine(bareHttp, /bare (\d+)/))[1]}`;
    const randomLua = path.join(dataDir, 'random.lua');
    writeFileSync(randomLua, randomCoordinateScript(fixture.racks));
    const onePath = `/v1/locations?locationId=${encodeURIComponent(sampleId)}`;
    const reads = {
      bare: (s: number) => wrk(bareUrl + onePath, { server: bareHttp, seconds: s, connections: CONNECTIONS, headers: auth, script: randomLua }),
      random: (s: number) => wrk(app!.url + onePath, { server: app!.child, seconds: s, connections: CONNECTIONS, headers: auth, script: randomLua }),
      one: (s: number) => wrk(app!.url + onePath, { server: app!.child, seconds: s, connections: CONNECTIONS, headers: auth }),
    };
    for (const run of Object.values(reads)) run(2); // warm-up: JIT, connections, page cache
    const readResults: Record<keyof typeof reads, WrkResult[]> = { bare: [], random: [], one: [] };
    const rawResults: { rate: number; p50ms: number; p99ms: number }[] = [];
    const createResults: WrkResult[] = [];
    const rawCommits = async () => {
      const child = spawn(process.execPath, [path.join(HERE, 'raw-commit.ts'), dataDir, String(HTTP_SECONDS)], { stdio: ['ignore', 'pipe', 'inherit'] });
      return JSON.parse((await waitForLine(child, /\{.*\}/))[0]) as { rate: number; p50ms: number; p99ms: number };
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(reads)) {
        const r = run(HTTP_SECONDS);
        readResults[name as keyof typeof reads].push(r);
        log(`round ${round + 1} GET ${name}: ${Math.round(r.rps)}/s, p99 ${r.p99ms} ms, ${r.errors} errors`);
      }
      rawResults.push(await rawCommits());
      // A new area each round: wrk's counter starts afresh, the coordinates must not.
      const createLua = path.join(dataDir, `create-${round}.lua`);
      writeFileSync(createLua, createScript(`WRIT${round + 1}`, app!.token));
      createResults.push(wrk(`${app!.url}/v1/locations`, { server: app!.child, seconds: HTTP_SECONDS, connections: 8, script: createLua }));
      log(`round ${round + 1} raw commits ${Math.round(rawResults[round]!.rate)}/s, creates ${Math.round(createResults[round]!.rps)}/s`);
    }
    bareHttp.kill('SIGTERM');
    // The PLC phases get a process of their own: what the closed-loop runs left behind
    // (a heap grown by 32 connections, a location cache full of random coordinates, a
    // write-ahead log of thousands of creates) is not what "the PLC alone" means.
    await stopAppliance(app!.child);
    app = await startAppliance(dataDir, undefined, 0, APP_BUNDLE);
    children.push(app.child);
    const wrkErrors = [...Object.values(readResults).flat(), ...createResults].reduce((a, x) => a + x.errors, 0);

    // ---- PLC phases ----
    const lists = await pagedLists(app!);
    log(`paged lists (limit/after in /openapi.json): ${lists.join(', ') || 'none'}`);
    const baseTcp = await startBaseline(['tcp']);
    children.push(baseTcp.child);
    // Each PLC client on a thread of its own above everything on the box: a PLC is a
    // device of its own, its waits for a core are not the appliance's (client-thread.ts).
    baseClient = await PlcClientThread.start({ name: 'CNV01', locations: [C1, C2], barcodes: PLC_UNITS });
    await baseClient.connectTcp(baseTcp.port);
    client = await PlcClientThread.start({ name: 'CNV01', locations: [C1, C2], barcodes: PLC_UNITS });
    log(
      client.priority.refused
        ? `PLC client thread at ${client.priority.text} (could not raise it: ${client.priority.refused}); its own waits for a core count in the latencies`
        : `PLC client thread at ${client.priority.text}`,
    );
    const connectPlc = async () => {
      await client!.connectTcp(app!.plcPort);
      await channelIn(app!, 'CNV01', ['LINKED', 'ONLINE']);
    };
    await connectPlc();
    probe.start(() => app!.url);
    rss.start(() => app?.child.pid);
    const errors: string[] = wrkErrors > 0 ? [`${wrkErrors} non-2xx replies or socket errors under wrk`] : [];
    await baseClient.paced(PLC_RATE, WARMUP);
    errors.push(...(await client.paced(PLC_RATE, WARMUP)).errors);
    const floors: RunResult[] = [];

    const restarts: string[] = [];
    /** How each appliance process ended, once it did. */
    const ends = new Map<ChildProcess, string>();
    const watch = (child: ChildProcess) => child.once('exit', (code, signal) => ends.set(child, signal ? `killed by ${signal}` : `exited with ${code}`));
    watch(app!.child);
    const results: PhaseResult[] = [];
    for (let round = 1; round <= PHASE_ROUNDS; round++) {
      // The floor of this round: the bare responder, at the same rate, on the same box.
      const floor = await baseClient.paced(PLC_RATE, SECONDS);
      floors.push(floor);
      log(
        `round ${round}: bare responder ${PLC_RATE}/s: p50 ${quantile(floor.latencies, 0.5).toFixed(3)} ms, p99 ${quantile(floor.latencies, 0.99).toFixed(3)} ms`,
      );
      for (const phase of phases(lists)) {
        if (app!.child.exitCode !== null || app!.child.signalCode !== null) {
          app = await startAppliance(dataDir, undefined, 0, APP_BUNDLE);
          children.push(app.child);
          watch(app.child);
          await connectPlc();
          restarts.push(`${phase.name} (round ${round})`);
          log(`appliance started again before "${phase.name}" (round ${round})`);
        }
        const a = app!;
        const seconds = phase.long ? LIST_SECONDS : SECONDS;
        const marks: { listStart?: number; listEnd?: number } = {};
        let load: RunningLoad | undefined;
        let loadError: string | undefined;
        if (phase.load) {
          try {
            load = await startLoad({ url: a.url, token: a.token, seconds, racks: fixture.racks, ...phase.load }, marks);
          } catch (err) {
            loadError = (err as Error).message;
          }
        }
        const before: Scrape = await scrape(a.url, a.token); // starts the lag window afresh
        const from = performance.now();
        const cpuFrom = cpuOf(a.child.pid!);
        load?.go();
        const plc = await client.paced(PLC_RATE, seconds, phase.long ? LIST_SECONDS * 1000 : 5000);
        const cpuTo = cpuOf(a.child.pid!);
        const loadResult = await load?.done.catch((err: Error) => {
          loadError = err.message;
          return undefined;
        });
        const to = performance.now();
        const dead = a.child.exitCode !== null || a.child.signalCode !== null;
        const result: PhaseResult = {
          phase,
          round,
          plc,
          ready: probe.between(from, to),
          ...(cpuFrom && cpuTo ? { cpu: perReq(cpuFrom, cpuTo, plc.answered) } : {}),
          ...(dead ? { exited: ends.get(a.child) ?? 'gone' } : await scraped(a, before, (to - from) / 1000)),
          ...(loadResult ? { load: loadResult } : {}),
          ...(loadError ? { loadError } : {}),
          walEnd: walMbIn(dataDir),
        };
        if (loadResult?.fullList) {
          const start = marks.listStart ?? from;
          const end = marks.listEnd ?? to;
          result.list = { result: loadResult.fullList, rssBefore: rss.at(start), rssPeak: rss.peak(start, end), ready: probe.between(start, end) };
        }
        results.push(result);
        errors.push(...plc.errors);
        // Refused requests are errors; a connection cut by the appliance's request time-out
        // under overload is counted as failed in the table, not as an error of function.
        for (const [kind, r] of Object.entries(loadResult?.requests ?? {})) {
          errors.push(...r.failures.filter((f) => /^\d{3} /.test(f)).map((f) => `${phase.name}: ${kind}: ${f}`));
        }
        if (loadError) errors.push(`${phase.name}: API load: ${loadError}`);
        log(
          `round ${round}: ${phase.name}: PLC p50 ${quantile(plc.latencies, 0.5).toFixed(3)} ms, p99 ${quantile(plc.latencies, 0.99).toFixed(3)} ms, max ${quantile(plc.latencies, 1).toFixed(1)} ms; lag p99 ${ms(result.lag?.p99)} ms, max ${ms(result.lag?.max)} ms; client sent late p99 ${quantile(plc.lag, 0.99).toFixed(1)} ms, max ${quantile(plc.lag, 1).toFixed(1)} ms; ${commitsText(result.commits)}${result.cpu ? `; CPU per REQ_ ${result.cpu.process.toFixed(0)} µs (conveyor thread ${result.cpu.conveyor.toFixed(0)})` : ''}; write-ahead log ${ms(result.walEnd, 0)} MB${result.exited ? `; appliance ${result.exited}` : ''}`,
        );
      }
    }
    await baseClient.close();
    baseClient = undefined;
    baseTcp.child.kill('SIGTERM');
    probe.stop();
    rss.stop();

    report({ fixture, coldStarts, bareStarts, idleRss, bareIdleRss, readResults, rawResults, createResults, floors, results, restarts, errors, lists });
    console.log(
      `\nthe whole run took ${((performance.now() - runStarted) / 1000).toFixed(0)} s${fixture.builtSeconds ? ` (building the fixture ${fixture.builtSeconds.toFixed(0)} s)` : ''}`,
    );
    // Function, not speed: a wrong RES_ or a refused API request fails the run.
    const functional = errors.filter((e) => !/no RES_ within/.test(e));
    if (functional.length > 0) {
      console.error(`\n${functional.length} errors, the first ones:`);
      for (const e of functional.slice(0, 10)) console.error(`  ${e}`);
      process.exitCode = 1;
    }
  } finally {
    probe.stop();
    rss.stop();
    await client?.close();
    await baseClient?.close();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    if (app) await stopAppliance(app.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---- the report -------------------------------------------------------------------

interface Report {
  fixture: Fixture;
  coldStarts: number[];
  bareStarts: number[];
  idleRss: number;
  bareIdleRss: number;
  readResults: Record<'bare' | 'random' | 'one', WrkResult[]>;
  rawResults: { rate: number; p50ms: number; p99ms: number }[];
  createResults: WrkResult[];
  /** The bare responder, one run per round of the phases. */
  floors: RunResult[];
  results: PhaseResult[];
  restarts: string[];
  errors: string[];
  lists: string[];
}

/** The phases' results by phase, in the order the phases run, each with its rounds. */
function byPhase(results: readonly PhaseResult[]): [string, PhaseResult[]][] {
  const groups = new Map<string, PhaseResult[]>();
  for (const x of results) groups.set(x.phase.name, [...(groups.get(x.phase.name) ?? []), x]);
  return [...groups];
}

const sortedOf = (xs: readonly number[]) => xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
const medianOf = (xs: readonly number[]) => {
  const sorted = sortedOf(xs);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : NaN;
};
/** `min / median / max` of the rounds' figures. */
const spread = (xs: readonly number[], digits = 2) => {
  const sorted = sortedOf(xs);
  return sorted.length ? `${ms(sorted[0], digits)} / ${ms(medianOf(sorted), digits)} / ${ms(sorted[sorted.length - 1], digits)}` : '–';
};

/** The size of the appliance database's write-ahead log file in `dataDir`, MB (0 when there is none). */
function walMbIn(dataDir: string): number {
  try {
    return statSync(path.join(dataDir, `${DATABASE_FILE}-wal`)).size / 1e6;
  } catch {
    return 0;
  }
}

/** The lag and commits of a phase from a scrape after it; the RSS at its end. */
async function scraped(
  a: { url: string; token: string; child: ChildProcess },
  before: Scrape,
  seconds: number,
): Promise<Pick<PhaseResult, 'lag' | 'commits' | 'rssEnd'>> {
  const after = await scrape(a.url, a.token);
  const rssEnd = rssMbOf(a.child.pid);
  return { lag: after.lag, commits: commitsBetween(before, after, seconds), ...(rssEnd !== undefined ? { rssEnd } : {}) };
}

/** The process's and its main thread's CPU so far; undefined once it is gone. */
function cpuOf(pid: number): { process: number; conveyor: number } | undefined {
  try {
    return { process: cpuTimeUs(pid), conveyor: threadCpuTimeUs(pid, pid) };
  } catch {
    return undefined;
  }
}

const perReq = (from: { process: number; conveyor: number }, to: { process: number; conveyor: number }, answered: number) => ({
  process: (to.process - from.process) / Math.max(1, answered),
  conveyor: (to.conveyor - from.conveyor) / Math.max(1, answered),
});

const commitsText = (c: Commits | undefined) =>
  c
    ? `${c.perSecond.toFixed(0)} commits/s, ${c.meanMs.toFixed(2)} ms each${c.flushesPerSecond > 0 ? `; ${c.flushesPerSecond.toFixed(0)} flushes/s, ${c.flushMeanMs.toFixed(2)} ms each` : ''}`
    : 'commits –';

/** Commits a second as the median over the rounds, with their mean time (median). */
function commitsCell(rounds: readonly PhaseResult[]): string {
  const commits = rounds.filter((x) => x.commits).map((x) => x.commits!);
  if (commits.length === 0) return '– | –';
  // Counted only where a flush thread flushes (storage.flush: apart); each commit flushes itself otherwise.
  const flushes = commits.filter((c) => c.flushesPerSecond > 0);
  const flushCell = flushes.length
    ? `${medianOf(flushes.map((c) => c.flushesPerSecond)).toFixed(0)} (${medianOf(flushes.map((c) => c.flushMeanMs)).toFixed(2)})`
    : '–';
  return `${medianOf(commits.map((c) => c.perSecond)).toFixed(0)} (${medianOf(commits.map((c) => c.meanMs)).toFixed(2)}) | ${flushCell}`;
}

/** How late the PLC client sent its REQ_ against its schedule: the median of the rounds' p99, and the longest. */
function lateCell(runs: readonly (RunResult | undefined)[]): string {
  const lags = runs.filter((x) => x !== undefined && x.lag.length > 0).map((x) => x!.lag);
  if (lags.length === 0) return '–';
  return `${ms(medianOf(lags.map((l) => quantile(l, 0.99))))} / ${ms(Math.max(...lags.map((l) => quantile(l, 1))))}`;
}

/** CPU per REQ_ as the median over the rounds; under an API load it includes the load's work. */
function cpuCell(rounds: readonly PhaseResult[]): string {
  const cpus = rounds.filter((x) => x.cpu).map((x) => x.cpu!);
  if (cpus.length === 0) return '–';
  return `${medianOf(cpus.map((c) => c.process)).toFixed(0)} / ${medianOf(cpus.map((c) => c.conveyor)).toFixed(0)}`;
}

function report(r: Report): void {
  const p = (run: RunResult | undefined, q: number) => (run ? quantile(run.latencies, q) : NaN);
  const out = (line = '') => console.log(line);
  out(
    `\n${LOCATIONS} locations (${r.fixture.racks} racks), ${ROUTES} routes; PLC ${PLC_RATE} REQ_/s over TCP, ${SECONDS} s per phase (${LIST_SECONDS} s with the full list), ${PHASE_ROUNDS} rounds; node ${process.version}; ${new Date().toISOString().slice(0, 10)}`,
  );
  out(`bundle: ${APP_BUNDLE}`);
  out('\nPLC figures as min / median / max over the rounds; the others as the median (max) over the rounds.\n');
  out(
    '| phase | REQ_/s | PLC p50 ms | PLC p99 ms | PLC max ms | skipped / no RES_ per round | PLC client sent late p99 / max ms | loop lag p99 / max ms | commits/s (mean ms) | flushes/s (mean ms) | CPU µs per REQ_: process / conveyor thread | /readyz p99 / max ms | RSS MB at end | write-ahead log MB at end |',
  );
  out('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  out(
    `| bare PLC responder (floor) | ${medianOf(r.floors.map((f) => f.rate)).toFixed(0)} | ${spread(r.floors.map((f) => p(f, 0.5)))} | ${spread(r.floors.map((f) => p(f, 0.99)))} | ${spread(
      r.floors.map((f) => p(f, 1)),
      1,
    )} | ${r.floors.map((f) => `${f.skipped} / ${f.errors.length}`).join(', ')} | ${lateCell(r.floors)} | – | – | – | – | – | – | – |`,
  );
  for (const [name, rounds] of byPhase(r.results)) {
    const noRes = (x: PhaseResult) => (x.plc ? x.plc.errors.filter((e) => /no RES_/.test(e)).length : 0);
    const ended = rounds.filter((x) => x.exited).map((x) => `round ${x.round}: ${x.exited}`);
    const lags = rounds.filter((x) => x.lag).map((x) => x.lag!);
    const waiting = rounds.reduce((a, x) => a + x.ready.waiting, 0);
    const failed = rounds.reduce((a, x) => a + x.ready.failed, 0);
    out(
      `| ${name} | ${medianOf(rounds.map((x) => x.plc?.rate ?? NaN)).toFixed(0)} | ${spread(rounds.map((x) => p(x.plc, 0.5)))} | ${spread(rounds.map((x) => p(x.plc, 0.99)))} | ${spread(
        rounds.map((x) => p(x.plc, 1)),
        1,
      )} | ${rounds.map((x) => `${x.plc?.skipped ?? '–'} / ${noRes(x)}`).join(', ')} | ${lateCell(rounds.map((x) => x.plc))} | ${lags.length ? `${ms(medianOf(lags.map((l) => l.p99)))} / ${ms(Math.max(...lags.map((l) => l.max)))}` : '–'}${ended.length ? ` (${ended.join('; ')})` : ''} | ${commitsCell(rounds)} | ${cpuCell(rounds)} | ${ms(medianOf(rounds.map((x) => x.ready.p99)))} / ${ms(Math.max(...rounds.map((x) => x.ready.max)))}${waiting ? ` (${waiting} unanswered)` : ''}${failed ? ` (${failed} failed)` : ''} | ${ms(medianOf(rounds.map((x) => x.rssEnd ?? NaN)), 0)} | ${ms(medianOf(rounds.map((x) => x.walEnd ?? NaN)), 0)} (${ms(Math.max(...rounds.map((x) => x.walEnd ?? NaN)), 0)}) |`,
    );
  }
  if (r.restarts.length) out(`\nthe appliance was started again before: ${r.restarts.join('; ')}`);

  out('\nAPI requests beside the PLC (open loop; latency of the answered ones; counts summed over the rounds, latencies the median (max) of the rounds):\n');
  out('| phase | request | sent | ok | failed | skipped | p50 ms | p99 ms | max ms |');
  out('|---|---|---|---|---|---|---|---|---|');
  for (const [name, rounds] of byPhase(r.results)) {
    const kinds = [...new Set(rounds.flatMap((x) => Object.keys(x.load?.requests ?? {})))];
    for (const kind of kinds) {
      const ls = rounds.map((x) => x.load?.requests[kind]).filter((l) => l !== undefined);
      const sum = (f: (l: (typeof ls)[number]) => number) => ls.reduce((a, l) => a + f(l), 0);
      out(
        `| ${name} | ${kind} | ${sum((l) => l.sent)} | ${sum((l) => l.ok)} | ${sum((l) => l.failed)} | ${sum((l) => l.skipped)} | ${ms(medianOf(ls.map((l) => l.p50)))} | ${ms(medianOf(ls.map((l) => l.p99)))} | ${ms(Math.max(...ls.map((l) => l.max)))} |`,
      );
    }
    const ss = rounds.map((x) => x.load?.streams).filter((x) => x !== undefined);
    if (ss.length > 0) {
      out(
        `| ${name} | ${ss[0]!.opened} event streams: ${ss.map((x) => x.events).join(' / ')} events, ${ss.map((x) => (x.bytes / 1e6).toFixed(1)).join(' / ')} MB, ${ss.reduce((a, x) => a + x.endedEarly, 0)} ended early | – | – | – | – | ${ms(medianOf(ss.map((x) => x.delayP50)))} | ${ms(medianOf(ss.map((x) => x.delayP99)))} | ${ms(Math.max(...ss.map((x) => x.delayMax)))} |`,
      );
    }
    for (const x of rounds) if (x.loadError) out(`| ${name} (round ${x.round}) | API load failed: ${x.loadError.split('\n')[0]} | | | | | | | |`);
  }
  if (r.lists.length === 0) out('\n(no list operation takes limit/after in /openapi.json: the paged-list load sent nothing)');
  else out(`\npaged lists walked: ${r.lists.join(', ')}`);

  out('\nThe full GET /v1/locations:\n');
  out('| phase | outcome | status | headers ms | first byte ms | total s | MB | RSS before → peak MB | /readyz meanwhile: n, p99 / max ms |');
  out('|---|---|---|---|---|---|---|---|---|');
  for (const x of r.results) {
    if (!x.list) continue;
    const l = x.list.result;
    out(
      `| ${x.phase.name} (round ${x.round}) | ${l.outcome}${l.detail ? ` (${l.detail})` : ''} | ${l.status ?? '–'} | ${ms(l.headersMs, 0)} | ${ms(l.firstByteMs, 0)} | ${ms(l.totalMs === undefined ? undefined : l.totalMs / 1000, 1)} | ${(l.bytes / 1e6).toFixed(0)} | ${x.list.rssBefore ?? '–'} → ${x.list.rssPeak ?? '–'} | ${x.list.ready.n}, ${ms(x.list.ready.p99)} / ${ms(x.list.ready.max)}${x.list.ready.waiting ? `, ${x.list.ready.waiting} unanswered` : ''} |`,
    );
  }

  const readRow = (name: string, rs: WrkResult[]) =>
    `| ${name} | ${rs.map((x) => Math.round(x.rps)).join(' / ')} | ${Math.round(mean(rs.map((x) => x.rps)))} | ${mean(rs.map((x) => x.cpuUs)).toFixed(1)} | ${mean(rs.map((x) => x.p50ms)).toFixed(2)} | ${mean(rs.map((x) => x.p99ms)).toFixed(2)} | ${rs.reduce((a, x) => a + x.errors, 0)} |`;
  out(`\nClosed loop, wrk, ${CONNECTIONS} connections (creates: 8), ${HTTP_SECONDS} s per run, ${ROUNDS} alternating rounds:\n`);
  out('| target | per round /s | mean /s | server CPU µs/req | p50 ms | p99 ms | errors |');
  out('|---|---|---|---|---|---|---|');
  out(readRow('bare node:http, same bytes', r.readResults.bare));
  out(readRow('GET by random coordinate', r.readResults.random));
  out(readRow('GET by one coordinate, over and over', r.readResults.one));
  out(
    `| raw better-sqlite3 INSERT+COMMIT (WAL, synchronous=FULL), 1 connection | ${r.rawResults.map((x) => Math.round(x.rate)).join(' / ')} | ${Math.round(mean(r.rawResults.map((x) => x.rate)))} | – | ${mean(r.rawResults.map((x) => x.p50ms)).toFixed(2)} | ${mean(r.rawResults.map((x) => x.p99ms)).toFixed(2)} | 0 |`,
  );
  out(readRow('POST /v1/locations, 8 connections', r.createResults));

  out(
    `\ncold start to the first 200 on /readyz: ${r.coldStarts.map((x) => x.toFixed(0)).join(' / ')} ms (the first on the fresh copy); bare node:http ${r.bareStarts.map((x) => x.toFixed(0)).join(' / ')} ms`,
  );
  out(`idle RSS: ${r.idleRss} MB; bare node:http ${r.bareIdleRss} MB`);

  // ---- the targets (PLC figures: the median round) ----
  const phase = (name: string) => r.results.filter((x) => x.phase.name === name);
  const alone = phase('PLC alone');
  const together = phase('all together');
  const listPhase = r.results.find((x) => x.phase.name === '+ full GET /v1/locations');
  const aloneP99 = medianOf(alone.map((x) => p(x.plc, 0.99)));
  const loadedP99 = medianOf(together.map((x) => p(x.plc, 0.99)));
  const skipped = together.reduce((a, x) => a + (x.plc?.skipped ?? 0), 0);
  const lags = together.filter((x) => x.lag).map((x) => x.lag!);
  const noLag = together.find((x) => x.exited)?.exited ?? 'not measured';
  const rows: [string, string, boolean][] = [];
  rows.push(['PLC p99 alone ≤ 5 ms', `${spread(alone.map((x) => p(x.plc, 0.99)))} ms (min / median / max)`, aloneP99 <= 5]);
  const aloneCpu = alone.filter((x) => x.cpu).map((x) => x.cpu!.process);
  rows.push([
    'CPU per REQ_ ≤ 200 µs (PLC alone, the whole process)',
    aloneCpu.length ? `${spread(aloneCpu, 0)} µs (min / median / max)` : 'not measured',
    aloneCpu.length > 0 && medianOf(aloneCpu) <= 200,
  ]);
  rows.push([
    'PLC p99 under API load ≤ 1.5 × p99 alone',
    `${ms(loadedP99, 2)} / ${ms(aloneP99, 2)} ms = ${(loadedP99 / aloneP99).toFixed(2)} × (medians)`,
    loadedP99 <= 1.5 * aloneP99,
  ]);
  rows.push([
    'PLC p99 under API load ≤ 5 ms',
    `${spread(together.map((x) => p(x.plc, 0.99)))} ms (max ${ms(Math.max(...together.map((x) => p(x.plc, 1))))} ms)`,
    loadedP99 <= 5,
  ]);
  rows.push(['no REQ_ skipped under API load', `${skipped} skipped over ${together.length} rounds`, skipped === 0]);
  for (const [what, pick, limit] of [
    ['p99', (l: Lag) => l.p99, 5],
    ['max', (l: Lag) => l.max, 20],
  ] as const) {
    rows.push([
      `event-loop lag ${what} ≤ ${limit} ms (under API load)`,
      lags.length ? `${spread(lags.map(pick), 1)} ms` : `no figure: ${noLag}`,
      lags.length > 0 && medianOf(lags.map(pick)) <= limit,
    ]);
  }
  const hmiStreams = phase(`+ ${STREAMS} event streams as the HMI subscribes`);
  const allStreams = phase(`+ ${STREAMS} event streams taking every event`);
  const hmiP99 = medianOf(hmiStreams.map((x) => p(x.plc, 0.99)));
  rows.push([
    `${STREAMS} event streams do not move the PLC p99 (≤ 1.5 × alone)`,
    `as the HMI subscribes ${ms(hmiP99, 2)} ms, taking every event ${ms(medianOf(allStreams.map((x) => p(x.plc, 0.99))), 2)} ms (medians)`,
    hmiP99 <= 1.5 * aloneP99,
  ]);
  const list = listPhase?.list;
  const l = list?.result;
  rows.push([
    `full list of ${LOCATIONS} locations: first byte ≤ 100 ms`,
    l ? `${ms(l.firstByteMs, 0)} ms (${l.outcome}${l.detail ? `: ${l.detail}` : ''})` : 'not measured',
    l?.outcome === 'done' && (l.firstByteMs ?? Infinity) <= 100,
  ]);
  const growth = list?.rssPeak !== undefined && list.rssBefore !== undefined ? list.rssPeak - list.rssBefore : undefined;
  rows.push([
    'full list: RSS growth ≤ 100 MB',
    growth === undefined ? 'not measured' : `${growth} MB (${list!.rssBefore} → ${list!.rssPeak})`,
    growth !== undefined && growth <= 100,
  ]);
  rows.push([
    'full list: other requests answered meanwhile (/readyz every 50 ms, each within 100 ms)',
    list ? `${list.ready.n} probes, max ${ms(list.ready.max)} ms${list.ready.waiting ? `, ${list.ready.waiting} unanswered` : ''}` : 'not measured',
    !!list && list.ready.n > 0 && list.ready.max <= 100 && list.ready.waiting === 0 && list.ready.failed === 0,
  ]);
  const readRatio = mean(r.readResults.random.map((x) => x.rps)) / mean(r.readResults.bare.map((x) => x.rps));
  const oneRatio = mean(r.readResults.one.map((x) => x.rps)) / mean(r.readResults.bare.map((x) => x.rps));
  rows.push([
    'GET by random coordinate ≥ 60 % of bare node:http',
    `${(readRatio * 100).toFixed(1)} % (one coordinate: ${(oneRatio * 100).toFixed(1)} %)`,
    readRatio >= 0.6,
  ]);
  const writeRatio = mean(r.createResults.map((x) => x.rps)) / mean(r.rawResults.map((x) => x.rate));
  rows.push(['durable creates at 8 connections ≥ 80 % of the raw commit rate', `${(writeRatio * 100).toFixed(1)} %`, writeRatio >= 0.8]);
  rows.push(['idle RSS ≤ 80 MB', `${r.idleRss} MB`, r.idleRss <= 80]);
  const cold = [...r.coldStarts].sort((a, b) => a - b)[Math.floor(r.coldStarts.length / 2)]!;
  rows.push(['cold start to the first 200 on /readyz ≤ 250 ms', `${cold.toFixed(0)} ms (median of ${r.coldStarts.length})`, cold <= 250]);
  out('\n| target | measured | |');
  out('|---|---|---|');
  for (const [target, measured, met] of rows) out(`| ${target} | ${measured} | ${met ? 'met' : '**not met**'} |`);
}

await main();
