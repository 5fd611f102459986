// The hot-standby pair's benchmark (docs/ha.md, BENCHMARKS.md "The pair"): what the pair
// costs the PLC against one box, how far behind the standby follows, and how long a
// takeover takes.
//
//   npm run bench:ha [-- --rounds 3 --seconds 10 --warmup 2 --rate 1000 --takeovers 5 --ttl 2000]
//
// - A three-node JetStream cluster on loopback (test/support/nats.ts, as the pair's tests
//   start it): one node for each box, one for the witness.
// - One box: the bundle (dist/wms.cjs) alone, with the PLC benchmark's site
//   (bench-plc/appliance.ts: every REQ_ books the unit, finds its order, searches the
//   route, commits, answers). The pair: two boxes of the bundle with `ha` set, each
//   beside its node, the same site made on the active over the API.
// - The PLC (bench-plc/client.ts) paced open loop at `--rate` REQ_/s over TCP, one box
//   and the pair taking turns for `--rounds` rounds of `--seconds` after a warm-up of each
//   (one box first in odd rounds, the pair in even ones). Per phase: REQ_ → RES_ p50, p99,
//   max, REQ_ skipped. The criterion: the pair's p99 at most 1.5 × one box's.
// - While the pair's phase runs, the standby's `GET /v1/ha` every 50 ms: `lagMs` (how long
//   the last entry it applied had been stored) and `lagEntries`; p50, p99, max of the
//   samples. The criterion: p99 ≤ 20 ms.
// - Durable HTTP creates (POST /v1/locations) at 8 keep-alive connections with wrk,
//   closed loop, one box and the pair's active taking turns for `--rounds` rounds of
//   `--seconds` (bench.ts's write phase). The criterion: the pair at least 0.5 × one box.
// - Takeovers, `--takeovers` times: the active killed (SIGKILL) while the PLC and a
//   writer keep asking; from the kill to the first write acknowledged by the other box
//   (POST /v1/locations, every 20 ms) and to the first RES_ from it (the PLC dials its
//   port again every 20 ms and sends one REQ_). The killed box is started again and
//   joins as standby before the next takeover. The criterion: p99 ≤ 5 s for both.
//
// Exits 1 when a RES_ was missing or wrong, or a takeover did not complete.

import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { numberArg } from './args.ts';
import { bundle } from './build.ts';
import { C1, C2, cpuTimeUs, createSite, startAppliance, type Appliance } from './bench-plc/appliance.ts';
import { dialTcp, PlcClient, quantile, type RunResult } from './bench-plc/client.ts';
import { createScript, requireWrk, wrk, type WrkResult } from './bench-mixed/wrk.ts';
import { closeAllNats, freePort, startCluster, type NatsServer } from '../test/support/nats.ts';

const ROUNDS = numberArg('--rounds', 3);
const SECONDS = numberArg('--seconds', 10);
const WARMUP = numberArg('--warmup', 2);
const RATE = numberArg('--rate', 1000);
const TAKEOVERS = numberArg('--takeovers', 5);
const TTL = numberArg('--ttl', 2000);
const PAIR = 'bench';

const children: ChildProcess[] = [];
const dirs: string[] = [];
const log = (line: string) => process.stdout.write(`${line}\n`);
const ms = (v: number | undefined, digits = 2) => (v === undefined ? '–' : v.toFixed(digits));
const sleep = (delay: number) => new Promise((resolve) => setTimeout(resolve, delay));

function barcodes(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(6, '0')}`);
}

interface PairBox {
  node: string;
  dir: string;
  httpPort: number;
  channelPort: number;
  server: NatsServer;
  app: Appliance | undefined;
}

/** Admin's token, from the pair's first active: good on either box (its key is in the replicated database). */
let pairToken: string | undefined;

async function startBox(box: PairBox): Promise<Appliance> {
  const env = {
    WMS_HA_PAIR: PAIR,
    WMS_HA_NODE: box.node,
    WMS_HA_NATS: JSON.stringify({ servers: [box.server.url] }),
    WMS_HA_LEASE_TTL_MS: String(TTL),
  };
  const app = await startAppliance(box.dir, undefined, 0, undefined, box.httpPort, [], undefined, env, box.channelPort, pairToken);
  pairToken ??= app.token;
  children.push(app.child);
  box.app = app;
  return app;
}

async function roleOf(url: string, token: string): Promise<{ role?: string; replication?: { lagMs?: number; lagEntries?: number } }> {
  try {
    const reply = await fetch(`${url}/v1/ha`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2000) });
    return reply.ok ? ((await reply.json()) as { role?: string }) : {};
  } catch {
    return {};
  }
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

interface Phase {
  mode: 'one box' | 'pair';
  round: number;
  run: RunResult;
  lagMs?: number[];
  /** CPU (user + system) per REQ_ answered, µs: the appliance (the active), and on a pair the standby and the three nodes. */
  cpu: { appliance: number; standby?: number; nodes?: number };
}

/** CPU (user + system, µs) of processes over `run`, per REQ_ answered. */
async function cpuOver(pids: Record<string, number[]>, run: () => Promise<RunResult>): Promise<{ run: RunResult; perReq: Record<string, number> }> {
  const total = (list: number[]) => list.reduce((sum, pid) => sum + cpuTimeUs(pid), 0);
  const before = Object.fromEntries(Object.entries(pids).map(([k, list]) => [k, total(list)]));
  const result = await run();
  const perReq = Object.fromEntries(Object.entries(pids).map(([k, list]) => [k, (total(list) - before[k]!) / Math.max(1, result.answered)]));
  return { run: result, perReq };
}

function phaseLine(p: Phase): string {
  const l = p.run.latencies;
  const cpu = `; CPU per REQ_ ${Math.round(p.cpu.appliance)} µs${p.cpu.standby !== undefined ? ` (standby ${Math.round(p.cpu.standby)}, the three nodes ${Math.round(p.cpu.nodes!)})` : ''}`;
  const lag = p.lagMs ? `; standby lag p50 ${ms(quantile(p.lagMs, 0.5), 1)} p99 ${ms(quantile(p.lagMs, 0.99), 1)} max ${ms(p.lagMs.at(-1), 1)} ms` : '';
  return `round ${p.round} ${p.mode}: ${p.run.answered} answered, ${Math.round(p.run.rate)}/s, p50 ${ms(quantile(l, 0.5), 3)} p99 ${ms(quantile(l, 0.99), 3)} max ${ms(l.at(-1), 1)} ms, ${p.run.skipped} skipped, ${p.run.errors.length} errors${cpu}${lag}`;
}

interface CreatePhase {
  mode: 'one box' | 'pair';
  round: number;
  result: WrkResult;
}

/** wrk's script file: POST /v1/locations, each a location of its own under `area` (four letters). */
function createScriptFile(dir: string, area: string, token: string): string {
  const file = path.join(dir, `create-${area}.lua`);
  writeFileSync(file, createScript(area, token));
  return file;
}

/** Durable creates at 8 connections, one box and the pair's active taking turns. */
function creates(one: Appliance, active: Appliance, dir: string): CreatePhase[] {
  const phases: CreatePhase[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const mode of round % 2 === 1 ? (['one box', 'pair'] as const) : (['pair', 'one box'] as const)) {
      const box = mode === 'one box' ? one : active;
      const area = `${mode === 'one box' ? 'WO' : 'WP'}${String.fromCharCode(64 + round)}${String.fromCharCode(64 + round)}`;
      const result = wrk(`${box.url}/v1/locations`, {
        server: box.child,
        script: createScriptFile(dir, area, box.token),
        seconds: SECONDS,
        connections: 8,
        threads: 1,
      });
      phases.push({ mode, round, result });
      log(
        `round ${round} ${mode}: POST /v1/locations ${Math.round(result.rps)}/s, p50 ${ms(result.p50ms)} p99 ${ms(result.p99ms)} ms, CPU ${Math.round(result.cpuUs)} µs each, ${result.errors} errors`,
      );
    }
  }
  return phases;
}

/** The standby's lag, sampled every 50 ms until `stop`. */
async function sampleLag(url: string, token: string, stop: AbortSignal): Promise<number[]> {
  const samples: number[] = [];
  while (!stop.aborted) {
    const status = await roleOf(url, token);
    if (status.replication?.lagMs !== undefined) samples.push(status.replication.lagMs);
    await sleep(50);
  }
  return samples.sort((a, b) => a - b);
}

/** Kills the active, measures until the other box acknowledges a write and answers a REQ_; starts the killed box again as standby. */
async function takeover(active: PairBox, standby: PairBox, units: string[], n: number): Promise<{ writeMs: number; plcMs: number }> {
  const token = active.app!.token;
  active.app!.child.kill('SIGKILL');
  const killed = performance.now();
  await new Promise((resolve) => active.app!.child.once('exit', resolve));
  let writeMs: number | undefined;
  let plcMs: number | undefined;
  const writer = (async () => {
    for (let i = 0; writeMs === undefined; i++) {
      try {
        const reply = await fetch(`http://127.0.0.1:${standby.httpPort}/v1/locations`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ locationId: `BNHA/${String(n).padStart(4, '0')}/${String(i).padStart(4, '0')}/0000/0000`, locationGroupName: 'WAREHOUSE' }),
          signal: AbortSignal.timeout(10_000),
        });
        await reply.text();
        if (reply.status === 201) writeMs = performance.now() - killed;
      } catch {
        /* not listening yet */
      }
      if (writeMs === undefined) await sleep(20);
      if (performance.now() - killed > 60_000) throw new Error('no write acknowledged within 60 s of the kill');
    }
  })();
  const plc = (async () => {
    while (plcMs === undefined) {
      const client = new PlcClient({ name: 'CNV01', locations: [C1, C2], barcodes: units.slice(n, n + 1) });
      try {
        await client.connect((onData) => dialTcp(standby.channelPort, onData, 1000));
        const run = await client.single(3000);
        if (run.answered === 1) plcMs = performance.now() - killed;
      } catch {
        /* not listening yet */
      } finally {
        await client.close();
      }
      if (plcMs === undefined) await sleep(20);
      if (performance.now() - killed > 60_000) throw new Error('no REQ_ answered within 60 s of the kill');
    }
  })();
  await Promise.all([writer, plc]);
  // The killed box comes back as the standby (it joins from the log or from a copy).
  const app = await startBox(active);
  await until('the killed box follows again', async () => (await roleOf(app.url, app.token)).role === 'standby', 120_000);
  return { writeMs: writeMs!, plcMs: plcMs! };
}

async function main(): Promise<void> {
  requireWrk();
  await bundle();
  const cluster = await startCluster('bench-ha', 3);
  const units = barcodes('BH', 512);
  // A unit of its own for each takeover's REQ_: at C1 with its order, as it was made.
  const fresh = barcodes('BT', TAKEOVERS + 1);
  const dir = (name: string) => {
    const d = mkdtempSync(path.join(tmpdir(), `wms-bench-ha-${name}-`));
    dirs.push(d);
    return d;
  };

  // One box.
  const one = await startAppliance(dir('one'), undefined, 0);
  children.push(one.child);
  await createSite(one, units);
  const oneClient = new PlcClient({ name: 'CNV01', locations: [C1, C2], barcodes: units });
  await oneClient.connect((onData) => dialTcp(one.plcPort, onData));

  // The pair: the first box becomes active, the second joins.
  const boxes: PairBox[] = [];
  for (const [i, node] of ['box-a', 'box-b'].entries()) {
    boxes.push({ node, dir: dir(node), httpPort: await freePort(), channelPort: await freePort(), server: cluster[i]!, app: undefined });
  }
  const a = await startBox(boxes[0]!);
  await until('box-a is active', async () => (await roleOf(a.url, a.token)).role === 'active', 60_000);
  await createSite(a, [...units, ...fresh]);
  const b = await startBox(boxes[1]!);
  await until('box-b follows', async () => (await roleOf(b.url, b.token)).role === 'standby', 120_000);
  const pairClient = new PlcClient({ name: 'CNV01', locations: [C1, C2], barcodes: units });
  await pairClient.connect((onData) => dialTcp(boxes[0]!.channelPort, onData));

  const errors: string[] = [];
  for (const client of [oneClient, pairClient]) errors.push(...(await client.paced(RATE, WARMUP)).errors);
  const phases: Phase[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const mode of round % 2 === 1 ? (['one box', 'pair'] as const) : (['pair', 'one box'] as const)) {
      if (mode === 'one box') {
        const { run, perReq } = await cpuOver({ appliance: [one.child.pid!] }, () => oneClient.paced(RATE, SECONDS));
        phases.push({ mode, round, run, cpu: { appliance: perReq.appliance! } });
      } else {
        const stop = new AbortController();
        const lag = sampleLag(b.url, b.token, stop.signal);
        const pids = { appliance: [a.child.pid!], standby: [b.child.pid!], nodes: cluster.map((n) => n.pid()!) };
        const { run, perReq } = await cpuOver(pids, () => pairClient.paced(RATE, SECONDS));
        stop.abort();
        phases.push({ mode, round, run, lagMs: await lag, cpu: { appliance: perReq.appliance!, standby: perReq.standby!, nodes: perReq.nodes! } });
      }
      log(phaseLine(phases.at(-1)!));
      errors.push(...phases.at(-1)!.run.errors);
    }
  }
  await pairClient.close();
  await oneClient.close();
  const createPhases = creates(one, a, dirs[0]!);
  for (const phase of createPhases) if (phase.result.errors > 0) errors.push(`${phase.result.errors} creates failed (${phase.mode}, round ${phase.round})`);

  const takeovers: { writeMs: number; plcMs: number }[] = [];
  let [active, standby] = [boxes[0]!, boxes[1]!];
  for (let n = 1; n <= TAKEOVERS; n++) {
    const t = await takeover(active, standby, fresh, n);
    takeovers.push(t);
    log(`takeover ${n}: ${active.node} killed; ${standby.node} acknowledged a write after ${ms(t.writeMs, 0)} ms, answered a REQ_ after ${ms(t.plcMs, 0)} ms`);
    [active, standby] = [standby, active];
  }

  report(phases, createPhases, takeovers);
  await Promise.all(cluster.map((node) => node.close()));
  if (errors.length > 0) {
    log(`errors: ${errors.slice(0, 5).join('; ')}`);
    process.exitCode = 1;
  }
}

function report(phases: Phase[], createPhases: CreatePhase[], takeovers: { writeMs: number; plcMs: number }[]): void {
  const all = (mode: Phase['mode']) =>
    phases
      .filter((p) => p.mode === mode)
      .flatMap((p) => p.run.latencies)
      .sort((x, y) => x - y);
  const p99s = (mode: Phase['mode']) => phases.filter((p) => p.mode === mode).map((p) => quantile(p.run.latencies, 0.99));
  const spread = (v: number[]) => {
    const s = [...v].sort((x, y) => x - y);
    return `${ms(s[0], 3)} / ${ms(quantile(s, 0.5), 3)} / ${ms(s.at(-1), 3)}`;
  };
  const one = all('one box');
  const pair = all('pair');
  const lag = phases.flatMap((p) => p.lagMs ?? []).sort((x, y) => x - y);
  log('');
  log(`PLC REQ_ → RES_ at ${RATE}/s, p99 per round (min / median / max): one box ${spread(p99s('one box'))} ms, pair ${spread(p99s('pair'))} ms`);
  log(
    `all rounds together: one box p50 ${ms(quantile(one, 0.5), 3)} p99 ${ms(quantile(one, 0.99), 3)} ms; pair p50 ${ms(quantile(pair, 0.5), 3)} p99 ${ms(quantile(pair, 0.99), 3)} ms; ratio ${(quantile(pair, 0.99) / quantile(one, 0.99)).toFixed(2)} (target ≤ 1.5)`,
  );
  const rates = (mode: CreatePhase['mode']) => createPhases.filter((p) => p.mode === mode).map((p) => p.result.rps);
  const mean = (v: number[]) => v.reduce((a, x) => a + x, 0) / Math.max(1, v.length);
  const rateSpread = (v: number[]) => {
    const sorted = [...v].sort((x, y) => x - y);
    return `${Math.round(sorted[0] ?? 0)} / ${Math.round(quantile(sorted, 0.5))} / ${Math.round(sorted.at(-1) ?? 0)}`;
  };
  log(
    `POST /v1/locations at 8 connections, creates/s per round (min / median / max): one box ${rateSpread(rates('one box'))}, pair ${rateSpread(rates('pair'))}; ratio of the means ${(mean(rates('pair')) / mean(rates('one box'))).toFixed(2)} (target ≥ 0.5)`,
  );
  log(`standby lag (sampled every 50 ms): p50 ${ms(quantile(lag, 0.5), 1)} p99 ${ms(quantile(lag, 0.99), 1)} max ${ms(lag.at(-1), 1)} ms (target p99 ≤ 20)`);
  if (takeovers.length > 0) {
    const writes = takeovers.map((t) => t.writeMs).sort((x, y) => x - y);
    const plcs = takeovers.map((t) => t.plcMs).sort((x, y) => x - y);
    log(
      `takeover (${takeovers.length}, ha.leaseTtlMs ${TTL}): to the first acknowledged write p50 ${ms(quantile(writes, 0.5), 0)} p99 ${ms(quantile(writes, 0.99), 0)} max ${ms(writes.at(-1), 0)} ms; ` +
        `to the first answered REQ_ p50 ${ms(quantile(plcs, 0.5), 0)} p99 ${ms(quantile(plcs, 0.99), 0)} max ${ms(plcs.at(-1), 0)} ms (target p99 ≤ 5000)`,
    );
  }
}

try {
  await main();
} catch (err) {
  log(`bench:ha failed: ${(err as Error).stack}`);
  process.exitCode = 1;
} finally {
  for (const child of children) child.kill('SIGKILL');
  await closeAllNats();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
