// Memory soak: does the appliance give memory back when the work stops, or does it keep
// growing? A site-scale appliance (the mixed-load benchmark's site) goes through the same
// cycle again and again for `--minutes`: API load beside the PLC at 1,000 REQ_/s, then
// event-stream replays beside the PLC, then an idle pause. Its memory is sampled
// throughout; at the end of each pause it is read as it is, then again after a full
// garbage collection (what is still alive), and the resident memory is split into files,
// the main malloc heap and other anonymous memory.
//
//   npm run bench:soak                                              # 30 minutes at 1 M locations
//   npm run bench:soak -- --minutes 4 --locations 20000 --load-seconds 20 --idle-seconds 20   (short form)
//   npm run bench:soak -- --env MALLOC_ARENA_MAX=2                  (the appliance with more environment)
//   npm run bench:soak -- --snapshots                               (heap snapshots after the first and last cycle, diffed)
//   npm run bench:soak -- --samples /tmp/soak.json                  (every sample, for a chart)
//
// - The appliance runs the bundle (dist/wms.cjs, or --bundle) with the V8 inspector on
//   a loopback port (bench-soak/inspector.ts): process.memoryUsage(), a full garbage
//   collection, heap snapshots.
// - API load: bench-mixed/load.ts in a process of its own (creates, TU moves,
//   leading-wildcard searches, paged lists, live event streams, one full GET
//   /v1/locations); PLC: bench-plc/client.ts, paced, on channel CNV01.
// - Replays: bench-soak/replay.ts, `--replays` streams at once with a Last-Event-ID
//   `--replay-events` behind the newest event.
// - Targets: idle RSS before any load ≤ 80 MB; idle RSS after the last cycle ≤ 1.3 × that.
//   A leak shows as the live heap (after the collection) or the resident memory growing
//   from pause to pause; memory kept at a high water mark shows as a pause figure above
//   the first idle one that stays flat from cycle to cycle.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { numberArg, pathArg, textArg } from './args.ts';
import { pagedLists, startLoad } from './bench-mixed/api-load.ts';
import { copyFixture, ensureFixture, MOVE_UNITS, PLC_UNITS, stopAppliance } from './bench-mixed/fixture.ts';
import { freePort } from './bench-mixed/probe.ts';
import { C1, C2, channelIn, startAppliance, waitForLine, type Appliance } from './bench-plc/appliance.ts';
import { dialTcp, PlcClient, quantile } from './bench-plc/client.ts';
import { growth, summarise, type HeapGroup } from './bench-soak/heap-summary.ts';
import { Inspector, type MemoryFigures } from './bench-soak/inspector.ts';
import { residentParts, type ResidentParts } from './bench-soak/proc-memory.ts';
import type { ReplayConfig, ReplayResult } from './bench-soak/replay.ts';
import { BUNDLE, bundle } from './build.ts';

const HERE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bench-soak');
const LOCATIONS = numberArg('--locations', 1_000_000);
const ROUTES = numberArg('--routes', 1000);
const MINUTES = numberArg('--minutes', 30);
const START_IDLE_SECONDS = numberArg('--start-idle-seconds', 30);
const LOAD_SECONDS = numberArg('--load-seconds', 60);
const REPLAY_SECONDS = numberArg('--replay-seconds', 30);
const IDLE_SECONDS = numberArg('--idle-seconds', 90);
const SAMPLE_SECONDS = numberArg('--sample-seconds', 5);
const PLC_RATE = numberArg('--plc-rate', 1000);
const CREATES = numberArg('--creates', 50);
const MOVES = numberArg('--moves', 50);
const SEARCHES = numberArg('--searches', 2);
const PAGES = numberArg('--pages', 10);
const STREAMS = numberArg('--streams', 20);
const REPLAYS = numberArg('--replays', 5);
const REPLAY_EVENTS = numberArg('--replay-events', 100_000);
const SNAPSHOTS = process.argv.includes('--snapshots');
/** `NAME=value` for the appliance's environment, repeatable. */
const EXTRA_ENV = Object.fromEntries(process.argv.flatMap((a, i) => (a === '--env' ? [process.argv[i + 1]!.split(/=(.*)/s).slice(0, 2)] : [])));
const GIVEN_BUNDLE = pathArg('--bundle');
const APP_BUNDLE = GIVEN_BUNDLE ?? BUNDLE;
const SAMPLES_FILE = textArg('--samples');

const log = (line: string) => console.error(line);
const mb = (bytes: number) => Math.round(bytes / 1048576);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sample extends MemoryFigures {
  at: number;
  cycle: number;
  phase: string;
}

/** What a pause ends with: memory as it is, then after a full collection. */
interface PauseFigures {
  asIs: MemoryFigures;
  parts: ResidentParts;
  afterGc: MemoryFigures;
}

interface Cycle {
  n: number;
  peakRss: number;
  /** V8's heap total at the first sample of the pause and how many seconds into it V8 first gave back a third of it. */
  pauseStart: { heapTotal: number; releasedAfter?: number };
  plc: { sent: number; answered: number; p99: number; errors: number };
  api: { sent: number; failed: number; streamEvents: number };
  replay?: ReplayResult;
  replayError?: string;
  pause: PauseFigures;
}

async function pauseFigures(inspector: Inspector, pid: number): Promise<PauseFigures> {
  const asIs = await inspector.memory();
  const parts = residentParts(pid);
  await inspector.collectGarbage();
  return { asIs, parts, afterGc: await inspector.memory() };
}

function replay(config: ReplayConfig): Promise<ReplayResult> {
  const child = spawn(process.execPath, [path.join(HERE, 'replay.ts'), JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return waitForLine(child, /^\{.*\}$/m).then((m) => JSON.parse(m[0]) as ReplayResult);
}

/** The newest and oldest event id: a Last-Event-ID past the log's end is answered by `event: reset` naming both. */
async function logBounds(app: Appliance): Promise<{ oldest: number; newest: number }> {
  const controller = new AbortController();
  const reply = await fetch(`${app.url}/v1/events`, {
    headers: { Authorization: `Bearer ${app.token}`, 'Last-Event-ID': '999999999999999' },
    signal: controller.signal,
  });
  const reader = reply.body!.getReader();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the event stream ended before its reset: ${text}`);
      text += Buffer.from(value).toString('utf8');
      const reset = /event: reset\ndata: (\{.*\})\n/.exec(text);
      if (reset) return JSON.parse(reset[1]!) as { oldest: number; newest: number };
    }
  } finally {
    controller.abort();
  }
}

async function main(): Promise<void> {
  const runStarted = performance.now();
  if (!GIVEN_BUNDLE) await bundle();
  const fixture = await ensureFixture({ locations: LOCATIONS, routes: ROUTES, bundle: APP_BUNDLE, log });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wms-bench-soak-'));
  const samples: Sample[] = [];
  let app: Appliance | undefined;
  let inspector: Inspector | undefined;
  let client: PlcClient | undefined;
  let sampler: NodeJS.Timeout | undefined;
  const state = { cycle: 0, phase: 'start' };
  try {
    copyFixture(fixture, dataDir);
    const inspectPort = await freePort();
    app = await startAppliance(dataDir, undefined, 0, APP_BUNDLE, 0, [], undefined, { NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}`, ...EXTRA_ENV });
    inspector = await Inspector.connect(inspectPort);
    const pid = app.child.pid!;
    const take = async () =>
      samples.push({ at: (performance.now() - runStarted) / 1000, cycle: state.cycle, phase: state.phase, ...(await inspector!.memory()) });
    sampler = setInterval(() => void take().catch(() => {}), SAMPLE_SECONDS * 1000);

    client = new PlcClient({ name: 'CNV01', locations: [C1, C2], barcodes: PLC_UNITS });
    await client.connect((onData) => dialTcp(app!.plcPort, onData));
    await channelIn(app, 'CNV01', ['LINKED', 'ONLINE']);
    const lists = await pagedLists(app);

    state.phase = 'idle';
    await sleep(START_IDLE_SECONDS * 1000);
    const first = await pauseFigures(inspector, pid);
    log(`idle before any load: RSS ${mb(first.asIs.rss)} MB, heap used ${mb(first.asIs.heapUsed)} MB (${mb(first.afterGc.heapUsed)} MB alive)`);

    const cycles: Cycle[] = [];
    let firstSnapshot: HeapGroup[] | undefined;
    let lastSnapshot: HeapGroup[] | undefined;
    const soakEnds = performance.now() + MINUTES * 60_000;
    while (performance.now() < soakEnds || cycles.length === 0) {
      state.cycle = cycles.length + 1;
      const from = samples.length;

      state.phase = 'load';
      const load = await startLoad(
        {
          url: app.url,
          token: app.token,
          seconds: LOAD_SECONDS,
          racks: fixture.racks,
          creates: { perSecond: CREATES, area: `S${String(state.cycle).padStart(3, '0')}` },
          moves: { perSecond: MOVES, units: MOVE_UNITS },
          searches: { perSecond: SEARCHES },
          paged: { perSecond: PAGES, lists },
          streams: { count: STREAMS },
          fullList: { afterMs: 1000, timeoutMs: (LOAD_SECONDS - 3) * 1000 },
        },
        {},
      );
      load.go();
      const plcLoad = await client.paced(PLC_RATE, LOAD_SECONDS);
      const apiResult = await load.done;

      state.phase = 'replay';
      const bounds = await logBounds(app);
      const replayed = replay({
        url: app.url,
        token: app.token,
        streams: REPLAYS,
        from: Math.max(bounds.oldest - 1, bounds.newest - REPLAY_EVENTS),
        until: bounds.newest,
        timeoutMs: REPLAY_SECONDS * 1000,
      });
      const plcReplay = await client.paced(PLC_RATE, REPLAY_SECONDS);
      let replayResult: ReplayResult | undefined;
      let replayError: string | undefined;
      await replayed.then(
        (r) => (replayResult = r),
        (err: Error) => (replayError = err.message),
      );

      state.phase = 'idle';
      const idleFrom = samples.length;
      await sleep(IDLE_SECONDS * 1000);
      const pause = await pauseFigures(inspector, pid);
      const idle = samples.slice(idleFrom);
      const released = idle.find((s) => s.heapTotal < (2 / 3) * (idle[0]?.heapTotal ?? 0));
      if (SNAPSHOTS && (cycles.length === 0 || performance.now() >= soakEnds)) {
        const summary = summarise(await inspector.heapSnapshot());
        if (cycles.length === 0) firstSnapshot = summary;
        else lastSnapshot = summary;
      }

      const latencies = [...plcLoad.latencies, ...plcReplay.latencies].sort((a, b) => a - b);
      const requests = Object.values(apiResult.requests);
      const cycle: Cycle = {
        n: state.cycle,
        peakRss: Math.max(...samples.slice(from).map((s) => s.rss)),
        pauseStart: { heapTotal: idle[0]?.heapTotal ?? NaN, ...(released ? { releasedAfter: released.at - idle[0]!.at } : {}) },
        plc: {
          sent: plcLoad.sent + plcReplay.sent,
          answered: plcLoad.answered + plcReplay.answered,
          p99: quantile(latencies, 0.99),
          errors: plcLoad.errors.length + plcReplay.errors.length,
        },
        api: {
          sent: requests.reduce((a, r) => a + r.sent, 0),
          failed: requests.reduce((a, r) => a + r.failed, 0),
          streamEvents: apiResult.streams?.events ?? 0,
        },
        ...(replayResult ? { replay: replayResult } : {}),
        ...(replayError ? { replayError } : {}),
        pause,
      };
      cycles.push(cycle);
      log(
        `cycle ${cycle.n}: peak RSS ${mb(cycle.peakRss)} MB; idle RSS ${mb(pause.asIs.rss)} MB, heap used ${mb(pause.asIs.heapUsed)} MB, alive ${mb(pause.afterGc.heapUsed)} MB, RSS after GC ${mb(pause.afterGc.rss)} MB`,
      );
    }
    clearInterval(sampler);
    if (SAMPLES_FILE) writeFileSync(SAMPLES_FILE, JSON.stringify({ samples, first, cycles }, null, 1));
    report(first, cycles, firstSnapshot, lastSnapshot, (performance.now() - runStarted) / 1000);
  } finally {
    clearInterval(sampler);
    inspector?.close();
    await client?.close();
    if (app) await stopAppliance(app.child as ChildProcess);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(first: PauseFigures, cycles: Cycle[], firstSnapshot: HeapGroup[] | undefined, lastSnapshot: HeapGroup[] | undefined, seconds: number): void {
  const out = (line = '') => console.log(line);
  const env = Object.entries(EXTRA_ENV)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  out(
    `\n${LOCATIONS} locations, ${ROUTES} routes; ${cycles.length} cycles of ${LOAD_SECONDS} s API load + ${REPLAY_SECONDS} s replays (PLC ${PLC_RATE} REQ_/s in both) + ${IDLE_SECONDS} s idle; node ${process.version}; ${new Date().toISOString().slice(0, 10)}${env ? `; appliance environment ${env}` : ''}`,
  );
  out(
    `API load per cycle: ${CREATES} creates/s, ${MOVES} TU moves/s, ${SEARCHES} wildcard searches/s, ${PAGES} pages/s, ${STREAMS} live event streams, one full GET /v1/locations; replays: ${REPLAYS} streams from ${REPLAY_EVENTS} events back`,
  );
  out('\nMemory at the end of each idle pause, MB (as it is; then after a full garbage collection):\n');
  out(
    '| after | peak RSS | heap total at pause start (V8 gave back ⅓ after) | RSS | heap total / used | external / array buffers | files / main heap / other anon | RSS after GC | heap alive |',
  );
  out('|---|---|---|---|---|---|---|---|---|');
  const row = (name: string, peak: string, start: string, p: PauseFigures) =>
    out(
      `| ${name} | ${peak} | ${start} | ${mb(p.asIs.rss)} | ${mb(p.asIs.heapTotal)} / ${mb(p.asIs.heapUsed)} | ${mb(p.asIs.external)} / ${mb(p.asIs.arrayBuffers)} | ${p.parts.files} / ${p.parts.mainHeap} / ${p.parts.otherAnonymous} | ${mb(p.afterGc.rss)} | ${mb(p.afterGc.heapUsed)} |`,
    );
  row('start (no load yet)', '–', '–', first);
  for (const c of cycles) {
    const start = `${mb(c.pauseStart.heapTotal)} (${c.pauseStart.releasedAfter === undefined ? 'not within the pause' : `${Math.round(c.pauseStart.releasedAfter)} s`})`;
    row(`cycle ${c.n}`, String(mb(c.peakRss)), start, c.pause);
  }

  out('\nWork per cycle:\n');
  out(
    '| cycle | REQ_ sent / answered | PLC p99 ms | API requests (failed) | live-stream events | replayed events (streams caught up / ended / reset) | slowest replay s |',
  );
  out('|---|---|---|---|---|---|---|');
  for (const c of cycles) {
    const r = c.replay;
    out(
      `| ${c.n} | ${c.plc.sent} / ${c.plc.answered} | ${c.plc.p99.toFixed(2)} | ${c.api.sent} (${c.api.failed}) | ${c.api.streamEvents} | ${r ? `${r.events} (${r.caughtUp} / ${r.ended} / ${r.reset})` : `failed: ${c.replayError}`} | ${r ? (r.slowestMs / 1000).toFixed(1) : '–'} |`,
    );
  }

  if (firstSnapshot && lastSnapshot) {
    out(`\nLive heap, what grew from the pause after cycle 1 to the pause after cycle ${cycles.length} (heap snapshots):\n`);
    out('| group | objects | KB |');
    out('|---|---|---|');
    for (const g of growth(firstSnapshot, lastSnapshot)) out(`| ${g.name} | ${g.count} | ${Math.round(g.bytes / 1024)} |`);
  }

  const last = cycles[cycles.length - 1]!;
  const second = cycles[Math.min(1, cycles.length - 1)]!;
  const idle = mb(first.asIs.rss);
  out('\n| target | measured | |');
  out('|---|---|---|');
  out(`| idle RSS before any load ≤ 80 MB | ${idle} MB | ${idle <= 80 ? 'met' : '**not met**'} |`);
  const after = mb(last.pause.asIs.rss);
  out(
    `| idle RSS after the last cycle ≤ 1.3 × idle before any load | ${after} MB = ${(after / idle).toFixed(2)} × | ${after <= 1.3 * idle ? 'met' : '**not met**'} |`,
  );
  out(
    `| trend from the pause after cycle ${second.n} to the one after cycle ${last.n} | RSS ${mb(second.pause.asIs.rss)} → ${after} MB; heap alive ${mb(second.pause.afterGc.heapUsed)} → ${mb(last.pause.afterGc.heapUsed)} MB; RSS after GC ${mb(second.pause.afterGc.rss)} → ${mb(last.pause.afterGc.rss)} MB | |`,
  );
  out(`\nthe whole run took ${(seconds / 60).toFixed(1)} min`);
}

await main();
