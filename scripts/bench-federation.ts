// Hub link benchmark: what exporting the event log to NATS JetStream costs the PLC, how
// fast and how late the events reach the stream, how fast a backlog drains, and what
// the NATS client in the bundle costs a site that does not use it.
//
//   npm run bench:federation [-- --seconds 10 --rounds 2 --warmup 2 --rate 1000 --backlog 10000
//                                --cold-starts 5 --idle-ms 2000 --compare OTHER/dist/wms.cjs --bundle OTHER/dist/wms.cjs
//                                --batch 500 --max-in-flight 256]
//
// - A nats-server with JetStream on loopback (test/support/nats.ts, as the hub link's
//   tests start it); `NATS_SERVER` names another binary.
// - Two appliances from the bundle (dist/wms.cjs), each on a fresh data directory with
//   the PLC benchmark's site (bench-plc/appliance.ts: every REQ_ books the unit, finds
//   its order, searches the route, one committed transaction, a RES_): "off" without a
//   hub link, "on" with `federation.site` BENCH exporting to the server (every other
//   setting at its default: batch 500, maxInFlight 256, commands taken; `--batch` and
//   `--max-in-flight` set those two).
// - The PLC (bench-plc/client.ts) paced open loop at `--rate` REQ_/s over TCP, off and
//   on taking turns for `--rounds` rounds of `--seconds` after a warm-up of each, so the
//   noise of a shared machine falls on both alike (off first in odd rounds, on first in
//   even ones). The warm-up moves every unit once, so that each REQ_ afterwards books
//   its unit onto the other location: one event (the first REQ_ of a unit finds it
//   there already). Per phase: REQ_ → RES_ p50/p99/max, REQ_ skipped (every unit
//   waiting) and RES_ missing; events committed per second
//   (GET /v1/federation `newestEventId`); with the link on, events stored per second
//   (the stream's last sequence) and the export lag: each event's `at` (stamped in the
//   appliance's unit of work just before its commit) → its arrival at a core NATS
//   subscription on wms.BENCH.events.> in a watcher process of its own
//   (bench-federation/watcher.ts); the appliance's, nats-server's and the watcher's CPU
//   per telegram (user + system) and the appliance's RSS at the end of the phase.
// - The 10 % criterion: the PLC p99 with the link on may be at most 1.10 × the p99
//   with it off, per round and over the REQ_ of all rounds together.
// - Backlog: nats-server stopped, the PLC at `--rate` until `--backlog` events wait
//   for the export, the server started again on the same store with the PLC still at
//   `--rate`: server started → export going again → every waiting event stored, the
//   export's events per second over that, the PLC p99 while the server was down, while
//   it was back but the export not moving yet, during the catch-up and after it (1 s
//   slices), and how late the events committed during the catch-up arrived.
// - Cold start (spawn → first 200 on /readyz) and RSS after `--idle-ms` idle, neither
//   with a hub link configured, `--cold-starts` times; with `--compare BUNDLE` the
//   bundle of another build (the commit before the hub link) takes turns with this one;
//   `--cold-starts 0` leaves them out.
// - `--bundle BUNDLE`: the off and on appliances (and the cold starts' own side) run
//   another build's bundle instead of dist/wms.cjs built now (a change tried out).
//
// Exits 1 when a RES_ was missing or wrong, or the export did not catch up.

import { type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BUNDLE, bundle } from './build.ts';
import { C1, C2, channelIn, cpuTimeUs, createSite, rssMb, startAppliance, type Appliance } from './bench-plc/appliance.ts';
import { dialTcp, PlcClient, quantile, type RunResult } from './bench-plc/client.ts';
import { coldStarts, type ColdStarts } from './bench-federation/cold-start.ts';
import { requireNatsServer, startHub, Watcher, type Arrival, type Hub } from './bench-federation/hub.ts';
import { closeAllNats } from '../test/support/nats.ts';
import { numberArg, pathArg } from './args.ts';

const SECONDS = numberArg('--seconds', 10);
const ROUNDS = numberArg('--rounds', 2);
const WARMUP = numberArg('--warmup', 2);
const RATE = numberArg('--rate', 1000);
const BACKLOG = numberArg('--backlog', 10_000);
const COLD_STARTS = numberArg('--cold-starts', 5);
const IDLE_MS = numberArg('--idle-ms', 2000);
const COMPARE = pathArg('--compare');
const GIVEN_BUNDLE = pathArg('--bundle');
const APP_BUNDLE = GIVEN_BUNDLE ?? BUNDLE;
/** federation.batch and federation.maxInFlight when given; else the appliance's defaults. */
const EXPORT_SETTINGS = {
  ...(process.argv.includes('--batch') ? { batch: numberArg('--batch', 500) } : {}),
  ...(process.argv.includes('--max-in-flight') ? { maxInFlight: numberArg('--max-in-flight', 256) } : {}),
};
const SITE = 'BENCH';
const STREAM = `WMS_${SITE}`;
/** Longest wait for the export to catch up (after a phase, after the backlog). */
const CATCH_UP_TIMEOUT_MS = 120_000;

const log = (line: string) => console.error(line);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const barcodes = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(4, '0')}`);

interface LinkStatus {
  state: string;
  cursor: number;
  newestEventId: number;
  eventsWaiting: number;
  export: Record<string, number>;
  lastError: { message: string } | null;
}

type Mode = 'off' | 'on';

interface Host {
  mode: Mode;
  app: Appliance;
  client: PlcClient;
  status(): Promise<LinkStatus>;
}

interface Phase {
  mode: Mode;
  round: number;
  run: RunResult;
  seconds: number;
  committed: number;
  /** Messages the stream stored during the run (link on). */
  stored?: number;
  /** Run end → cursor at the newest event (link on), ms. */
  drainMs?: number;
  /** `at` → arrival at the watcher, ms, sorted (link on). */
  lag?: number[];
  /** Events of the phase the watcher did not see. */
  unseen?: number;
  cpuUs: number;
  natsCpuUs: number;
  /** The watcher's CPU (the benchmark's own hub side, on the same cores), µs per telegram. */
  watcherCpuUs: number;
  rss: number;
  /** The machine's 1-minute load average at the end of the phase (2 cores: above 2, something waited). */
  load: number;
}

/** CPU time of nats-server so far (µs); 0 when it is not running. */
function natsCpu(hub: Hub): number {
  const pid = hub.pid();
  return pid === undefined ? 0 : cpuTimeUs(pid);
}

/** Polls the link's status until the check holds; the time it took, or undefined after the timeout. */
async function until(host: Host, check: (s: LinkStatus) => boolean, timeoutMs: number, everyMs = 50): Promise<{ ms: number; status: LinkStatus } | undefined> {
  const since = performance.now();
  for (;;) {
    const status = await host.status();
    if (check(status)) return { ms: performance.now() - since, status };
    if (performance.now() - since > timeoutMs) return undefined;
    await sleep(everyMs);
  }
}

/** `at` → arrival of the events with from < id ≤ to; how many of them were not seen. */
function lagOf(arrivals: Arrival[], from: number, to: number): { lag: number[]; unseen: number } {
  const within = arrivals.filter((a) => a.id > from && a.id <= to);
  const ids = new Set(within.map((a) => a.id));
  return { lag: sorted(within.map((a) => a.arrived - a.at)), unseen: to - from - ids.size };
}

async function measure(host: Host, hub: Hub, watcher: Watcher, round: number): Promise<Phase> {
  const s0 = await host.status();
  const st0 = host.mode === 'on' ? await hub.stream(STREAM) : undefined;
  await watcher.take();
  const cpu0 = cpuTimeUs(host.app.child.pid!);
  const nats0 = natsCpu(hub);
  const watcher0 = cpuTimeUs(watcher.child.pid!);
  const t0 = performance.now();
  const run = await host.client.paced(RATE, SECONDS);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuTimeUs(host.app.child.pid!) - cpu0;
  const natsCpuUs = natsCpu(hub) - nats0;
  const watcherCpuUs = cpuTimeUs(watcher.child.pid!) - watcher0;
  const rss = rssMb(host.app.child.pid!);
  const st1 = host.mode === 'on' ? await hub.stream(STREAM) : undefined;
  const s1 = await host.status();
  const phase: Phase = {
    mode: host.mode,
    round,
    run,
    seconds,
    committed: s1.newestEventId - s0.newestEventId,
    cpuUs: cpu / Math.max(1, run.answered),
    natsCpuUs: natsCpuUs / Math.max(1, run.answered),
    watcherCpuUs: watcherCpuUs / Math.max(1, run.answered),
    rss,
    load: loadavg()[0]!,
  };
  if (host.mode === 'on') {
    phase.stored = st1!.lastSeq - st0!.lastSeq;
    const drained = await until(host, (s) => s.cursor >= s1.newestEventId, CATCH_UP_TIMEOUT_MS);
    if (!drained) run.errors.push(`the export did not reach event ${s1.newestEventId} within ${CATCH_UP_TIMEOUT_MS} ms after the run`);
    phase.drainMs = drained?.ms;
    await sleep(200); // the last messages on their way to the watcher
    Object.assign(phase, lagOf(await watcher.take(), s0.newestEventId, s1.newestEventId));
  }
  return phase;
}

interface Slice {
  start: number;
  end: number;
  run: RunResult;
}

interface Backlog {
  waiting: number;
  down: RunResult;
  /** Server started → healthy, → the export moved, → every event waiting at the start stored; ms. */
  serverReadyMs: number;
  resumedMs?: number;
  caughtUpMs?: number;
  /** Events the cursor moved over from the restart until it passed the backlog. */
  exported: number;
  /** PLC slices of 1 s: while the export moved; before it moved again (server back, link reconnecting); after it caught up. */
  during: RunResult[];
  beforeResume: RunResult[];
  after: RunResult[];
  /** `at` → arrival of the events committed during the catch-up, ms, sorted. */
  liveLag: number[];
  liveUnseen: number;
}

/**
 * The export after an outage of the server: the backlog waiting, the server back, the
 * PLC going on at RATE in 1 s slices (each drained before the next: a gap of a few ms)
 * while the status is read every 100 ms.
 */
async function backlogPhase(host: Host, hub: Hub, watcher: Watcher, eventsPerTelegram: number): Promise<Backlog> {
  log('backlog: stopping nats-server');
  await hub.server.stop();
  await until(host, (s) => s.state !== 'CONNECTED', 10_000);
  const telegrams = Math.ceil(BACKLOG / eventsPerTelegram);
  log(`backlog: ${telegrams} REQ_ at ${RATE}/s with the server down`);
  const down = await host.client.paced(RATE, telegrams / RATE);
  const before = await host.status();
  const target = before.newestEventId;
  await watcher.take();

  const slices: Slice[] = [];
  let caughtUpAt: number | undefined;
  let stopAt = Infinity;
  const t0 = performance.now();
  const plc = (async () => {
    while (performance.now() < stopAt && performance.now() - t0 < CATCH_UP_TIMEOUT_MS) {
      const start = performance.now();
      const run = await host.client.paced(RATE, 1);
      slices.push({ start, end: performance.now(), run });
    }
  })();
  log(`backlog: ${before.eventsWaiting} events waiting; starting nats-server`);
  await hub.server.start();
  const serverReadyMs = performance.now() - t0;
  let resumedMs: number | undefined;
  let cursorAtCatchUp = before.cursor;
  for (;;) {
    const status = await host.status();
    const now = performance.now();
    if (resumedMs === undefined && status.cursor > before.cursor) resumedMs = now - t0;
    if (status.cursor >= target) {
      caughtUpAt = now;
      cursorAtCatchUp = status.cursor;
      break;
    }
    if (now - t0 > CATCH_UP_TIMEOUT_MS) break;
    await sleep(100);
  }
  // Three more slices after the catch-up, the same load without a backlog.
  stopAt = (caughtUpAt ?? performance.now()) + 3000;
  await plc;
  const after = await until(host, (s) => s.cursor >= s.newestEventId, CATCH_UP_TIMEOUT_MS);
  await sleep(200);
  const live = lagOf(await watcher.take(), target, after?.status.newestEventId ?? target);
  return {
    waiting: before.eventsWaiting,
    down,
    serverReadyMs,
    resumedMs,
    caughtUpMs: caughtUpAt === undefined ? undefined : caughtUpAt - t0,
    exported: cursorAtCatchUp - before.cursor,
    // The slices the export ran in: from the one it started moving in to the one it caught up in.
    during: slices.filter((s) => (resumedMs === undefined || s.end > t0 + resumedMs) && (caughtUpAt === undefined || s.start < caughtUpAt)).map((s) => s.run),
    beforeResume: slices.filter((s) => resumedMs !== undefined && s.end <= t0 + resumedMs).map((s) => s.run),
    after: slices.filter((s) => caughtUpAt !== undefined && s.start >= caughtUpAt).map((s) => s.run),
    liveLag: live.lag,
    liveUnseen: live.unseen,
  };
}

/** Several runs as one: their latencies together, sorted. */
function pooled(runs: RunResult[]): RunResult {
  return {
    sent: runs.reduce((a, r) => a + r.sent, 0),
    answered: runs.reduce((a, r) => a + r.answered, 0),
    rate: runs.length ? runs.reduce((a, r) => a + r.rate, 0) / runs.length : 0,
    latencies: sorted(runs.flatMap((r) => r.latencies)),
    lag: sorted(runs.flatMap((r) => r.lag)),
    skipped: runs.reduce((a, r) => a + r.skipped, 0),
    errors: runs.flatMap((r) => r.errors),
  };
}

const missing = (run: RunResult) => run.errors.filter((e) => e.startsWith('no RES_')).length;
const ms = (x: number | undefined, digits = 2) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));

function report(
  phases: Phase[],
  backlog: Backlog | undefined,
  cold: ColdStarts[],
  versions: { nats: string },
  final: LinkStatus,
  streamMessages: number,
): void {
  const out = (line = '') => console.log(line);
  out(
    `\n${SECONDS} s per phase at ${RATE} REQ_/s (TCP, paced), ${ROUNDS} rounds, off and on taking turns; node ${process.version}; ${versions.nats}; bundle ${path.relative(process.cwd(), APP_BUNDLE)}; export settings ${JSON.stringify(EXPORT_SETTINGS)} (empty: the defaults)`,
  );
  out('');
  out(
    '| round | hub link | REQ_/s | p50 ms | p99 ms | max ms | skipped / no RES_ | events committed/s | events/REQ_ | events stored/s | export lag p50 / p99 / max ms | appliance CPU µs/REQ_ | nats-server / watcher CPU µs/REQ_ | RSS MB | load avg |',
  );
  out('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const p of phases) {
    const q = (x: number) => ms(quantile(p.run.latencies, x));
    const lag = p.lag
      ? `${ms(quantile(p.lag, 0.5), 1)} / ${ms(quantile(p.lag, 0.99), 1)} / ${ms(quantile(p.lag, 1), 1)}${p.unseen ? ` (${p.unseen} unseen)` : ''}`
      : '–';
    out(
      `| ${p.round} | ${p.mode} | ${p.run.rate.toFixed(0)} | ${q(0.5)} | ${q(0.99)} | ${ms(quantile(p.run.latencies, 1), 1)} | ${p.run.skipped} / ${missing(p.run)} | ${(p.committed / p.seconds).toFixed(0)} | ${(p.committed / Math.max(1, p.run.answered)).toFixed(2)} | ${p.stored === undefined ? '–' : (p.stored / p.seconds).toFixed(0)} | ${lag} | ${p.cpuUs.toFixed(0)} | ${p.mode === 'on' ? `${p.natsCpuUs.toFixed(0)} / ${p.watcherCpuUs.toFixed(0)}` : '–'} | ${p.rss} | ${p.load.toFixed(2)} |`,
    );
  }
  const off = pooled(phases.filter((p) => p.mode === 'off').map((p) => p.run));
  const on = pooled(phases.filter((p) => p.mode === 'on').map((p) => p.run));
  const onLag = sorted(phases.flatMap((p) => p.lag ?? []));
  out('');
  out('The 10 % criterion (PLC REQ_ → RES_ p99 with the link on ≤ 1.10 × off):');
  for (let r = 1; r <= ROUNDS; r++) {
    const a = phases.find((p) => p.round === r && p.mode === 'off')!;
    const b = phases.find((p) => p.round === r && p.mode === 'on')!;
    const ratio = quantile(b.run.latencies, 0.99) / quantile(a.run.latencies, 0.99);
    out(
      `  round ${r}: off ${ms(quantile(a.run.latencies, 0.99))} ms, on ${ms(quantile(b.run.latencies, 0.99))} ms: ×${ratio.toFixed(3)} (${ratio <= 1.1 ? 'met' : 'not met'})`,
    );
  }
  const ratios = sorted(
    Array.from({ length: ROUNDS }, (_, i) => {
      const p99 = (mode: Mode) => quantile(phases.find((p) => p.round === i + 1 && p.mode === mode)!.run.latencies, 0.99);
      return p99('on') / p99('off');
    }),
  );
  out(`  met in ${ratios.filter((r) => r <= 1.1).length} of ${ROUNDS} rounds; median of the rounds' ratios ×${quantile(ratios, 0.5).toFixed(3)}`);
  const ratio = quantile(on.latencies, 0.99) / quantile(off.latencies, 0.99);
  out(
    `  all rounds together: off p99 ${ms(quantile(off.latencies, 0.99))} ms (${off.latencies.length} REQ_), on p99 ${ms(quantile(on.latencies, 0.99))} ms (${on.latencies.length} REQ_): ×${ratio.toFixed(3)} (${ratio <= 1.1 ? 'met' : 'not met'})`,
  );
  out(
    `  p50 off ${ms(quantile(off.latencies, 0.5))} ms, on ${ms(quantile(on.latencies, 0.5))} ms; p99.9 off ${ms(quantile(off.latencies, 0.999))} ms, on ${ms(quantile(on.latencies, 0.999))} ms`,
  );
  out(
    `  export lag over all rounds: p50 ${ms(quantile(onLag, 0.5), 1)} ms, p99 ${ms(quantile(onLag, 0.99), 1)} ms, max ${ms(quantile(onLag, 1), 1)} ms (${onLag.length} events)`,
  );
  const drains = phases.filter((p) => p.drainMs !== undefined).map((p) => p.drainMs!.toFixed(0));
  out(`  run end → the stream has the phase's last event: ${drains.join(' / ')} ms (status polled every 50 ms)`);

  if (backlog) {
    const b = backlog;
    const during = pooled(b.during);
    const after = pooled(b.after);
    const drainS = b.caughtUpMs !== undefined && b.resumedMs !== undefined ? (b.caughtUpMs - b.resumedMs) / 1000 : undefined;
    out('');
    out(`Backlog: ${b.waiting} events waiting with nats-server stopped, then the server started with the PLC at ${RATE} REQ_/s (status read every 100 ms):`);
    out('');
    out(
      '| server start → healthy | → export moving | → backlog stored | events exported in that time | events/s (moving → stored) | PLC p99 server down | PLC p99 server back, export not moving yet | PLC p50 / p99 / max while the export catches up | PLC p99 after | skipped / no RES_ catch-up | lag of events committed during the catch-up p50 / p99 / max |',
    );
    out('|---|---|---|---|---|---|---|---|---|---|---|');
    out(
      `| ${b.serverReadyMs.toFixed(0)} ms | ${ms(b.resumedMs, 0)} ms | ${ms(b.caughtUpMs, 0)} ms | ${b.exported} | ${drainS ? (b.exported / drainS).toFixed(0) : '–'} | ${ms(quantile(b.down.latencies, 0.99))} ms | ${ms(quantile(pooled(b.beforeResume).latencies, 0.99))} ms | ${ms(quantile(during.latencies, 0.5))} / ${ms(quantile(during.latencies, 0.99))} / ${ms(quantile(during.latencies, 1), 1)} ms | ${ms(quantile(after.latencies, 0.99))} ms | ${during.skipped} / ${missing(during)} | ${ms(quantile(b.liveLag, 0.5), 0)} / ${ms(quantile(b.liveLag, 0.99), 0)} / ${ms(quantile(b.liveLag, 1), 0)} ms${b.liveUnseen ? ` (${b.liveUnseen} unseen)` : ''} |`,
    );
    out(
      `  slices of 1 s: ${b.beforeResume.length} before the export moved, ${b.during.length} while it caught up (p99 each: ${b.during.map((r) => ms(quantile(r.latencies, 0.99))).join(' / ')} ms); after: ${b.after.length} (p99 each: ${b.after.map((r) => ms(quantile(r.latencies, 0.99))).join(' / ')} ms)`,
    );
  }
  out('');
  out(
    `At the end: the stream ${STREAM} holds ${streamMessages} messages; the appliance's newest event ${final.newestEventId}, cursor ${final.cursor}, export counters ${JSON.stringify(final.export)}`,
  );

  if (cold.length) {
    out('');
    out(`Cold start (spawn → first 200 on /readyz) and RSS after ${IDLE_MS} ms idle, no hub link configured, ${COLD_STARTS} each, taking turns:`);
    out('');
    out('| bundle | size | first start (new data dir) | cold start ms | median | idle RSS MB | median |');
    out('|---|---|---|---|---|---|---|');
    const median = (xs: number[]) => quantile(sorted(xs), 0.5);
    for (const c of cold) {
      out(
        `| ${path.relative(process.cwd(), c.bundle)} | ${(c.bytes / 1024).toFixed(0)} KB | ${c.first.toFixed(0)} ms | ${c.starts.map((x) => x.toFixed(0)).join(' / ')} | ${median(c.starts).toFixed(0)} | ${c.idleRss.map((x) => x.toFixed(1)).join(' / ')} | ${median(c.idleRss).toFixed(1)} |`,
      );
    }
  }
}

async function main(): Promise<void> {
  const natsVersion = requireNatsServer();
  for (const [option, file] of [
    ['--compare', COMPARE],
    ['--bundle', GIVEN_BUNDLE],
  ] as const) {
    if (file && !existsSync(file)) {
      console.error(`${option} ${file}: no such bundle`);
      process.exit(1);
    }
  }
  if (!GIVEN_BUNDLE) await bundle();
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const clients: PlcClient[] = [];
  let watcher: Watcher | undefined;
  try {
    // First, while nothing else of the benchmark runs.
    const cold = COLD_STARTS > 0 ? await coldStarts(COMPARE ? [APP_BUNDLE, COMPARE] : [APP_BUNDLE], COLD_STARTS, IDLE_MS, log) : [];

    const hub = await startHub();
    log(`nats-server ${hub.server.url} (pid ${hub.pid()})`);
    const units = barcodes('BT', 512);
    const host = async (mode: Mode): Promise<Host> => {
      const dir = mkdtempSync(path.join(tmpdir(), `wms-bench-federation-${mode}-`));
      dirs.push(dir);
      const federation = mode === 'on' ? { site: SITE, nats: { servers: [hub.server.url] }, ...EXPORT_SETTINGS } : undefined;
      const app = await startAppliance(dir, undefined, 0, APP_BUNDLE, 0, [], federation);
      children.push(app.child);
      await createSite(app, units);
      const client = new PlcClient({ name: 'CNV01', locations: [C1, C2], barcodes: units });
      clients.push(client);
      await client.connect((onData) => dialTcp(app.plcPort, onData));
      await channelIn(app, 'CNV01', ['LINKED', 'ONLINE']);
      return { mode, app, client, status: () => app.api('GET', '/v1/federation') as Promise<LinkStatus> };
    };
    const off = await host('off');
    const on = await host('on');
    watcher = await Watcher.start(hub.server.url, SITE);
    const linked = await until(on, (s) => s.state === 'CONNECTED' && s.eventsWaiting === 0, 30_000);
    if (!linked) throw new Error(`the hub link did not connect and export the site: ${JSON.stringify(await on.status())}`);

    // Warm-up (JIT, statement cache, the link's first publishes); its errors count too.
    const warmupErrors: string[] = [];
    for (const h of [off, on]) warmupErrors.push(...(await h.client.paced(RATE, WARMUP)).errors);
    await until(on, (s) => s.cursor >= s.newestEventId, CATCH_UP_TIMEOUT_MS);

    const phases: Phase[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // off → on in odd rounds, on → off in even ones: neither always follows the other.
      for (const h of round % 2 === 1 ? [off, on] : [on, off]) {
        const p = await measure(h, hub, watcher, round);
        phases.push(p);
        log(
          `round ${round} ${h.mode}: ${p.run.answered} answered, ${Math.round(p.run.rate)}/s, p50 ${ms(quantile(p.run.latencies, 0.5), 3)} ms, p99 ${ms(quantile(p.run.latencies, 0.99), 3)} ms, ` +
            `${p.run.skipped} skipped, ${p.run.errors.length} errors, ${(p.committed / p.seconds).toFixed(0)} events/s` +
            (p.lag ? `, stored ${(p.stored! / p.seconds).toFixed(0)}/s, lag p99 ${ms(quantile(p.lag, 0.99), 1)} ms` : ''),
        );
      }
    }
    const onPhases = phases.filter((p) => p.mode === 'on');
    const eventsPerTelegram =
      onPhases.reduce((a, p) => a + p.committed, 0) /
      Math.max(
        1,
        onPhases.reduce((a, p) => a + p.run.answered, 0),
      );
    const backlog = BACKLOG > 0 ? await backlogPhase(on, hub, watcher, eventsPerTelegram) : undefined;
    const final = await on.status();
    const stream = await hub.stream(STREAM);

    report(phases, backlog, cold, { nats: natsVersion }, final, stream.messages);
    const errors = [
      ...warmupErrors,
      ...phases.flatMap((p) => p.run.errors),
      ...(backlog ? [backlog.down, ...backlog.beforeResume, ...backlog.during, ...backlog.after].flatMap((r) => r.errors) : []),
      ...(backlog && backlog.caughtUpMs === undefined ? [`the backlog was not exported within ${CATCH_UP_TIMEOUT_MS} ms`] : []),
    ];
    if (errors.length > 0) {
      console.error(`\n${errors.length} errors, the first ones:`);
      for (const e of errors.slice(0, 10)) console.error(`  ${e}`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await watcher?.stop();
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    await closeAllNats();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
