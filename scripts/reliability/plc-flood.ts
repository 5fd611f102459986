// PLC flood suite: the PLC's reconnects get in and are answered while a flood of
// connections from other addresses and ports hits its tcp-server port (docs/plc.md,
// "Who gets a connection").
//
//   npm run test:plc-flood [-- --seconds 10 --reconnects 13 --rounds 3 --idle 512 --churn 8 --rate 100 --compare OTHER/dist/wms.cjs]
//
// - Appliance: the real bundle (dist/wms.cjs, built first) on a fresh data directory
//   with channel CNV01 (tcp-server on 127.0.0.1) and the PLC benchmark's site, on which
//   every REQ_ books the unit, finds its order, searches the route and commits
//   (scripts/bench-plc/appliance.ts). With `--compare BUNDLE` a second appliance from
//   another build's bundle (an earlier commit's dist/wms.cjs) is measured in the same
//   rounds.
// - The PLC (scripts/bench-plc/client.ts, from 127.0.0.1) connects `--reconnects` times
//   in `--seconds`, closing the previous connection each time. On each connection it
//   sends one REQ_ at once and waits for its RES_ (the time from dialling to that RES_
//   is the reconnect's "time to first RES_"), then REQ_ paced at `--rate`/s for the
//   rest of its turn. A reconnect is answered when every REQ_ on it got its RES_
//   (within 2 s after its turn); latency = RES_ complete − REQ_ handed to the OS, as in
//   the PLC benchmark, over the paced REQ_.
// - Each round and host: first quiet (the baseline: the same PLC, no flood), then under
//   the flood: plc-flood-worker.ts, a process of its own, floods the port from
//   127.0.0.2 … 127.0.0.9 with `--idle` idle sockets that never send a byte nor answer
//   the appliance's FIN (one closed is replaced at once; twice as many as the 256 a
//   channel holds, so they keep pushing each other out) and `--churn` loops that
//   connect and close at once. The PLC starts once the flood is going.
// - Reported per round and host: flood connections (and per second), reconnects
//   answered, time to first RES_ (median and max over the reconnects), paced REQ_
//   answered of sent and their p50/p99/max, the channel's `connections` and
//   `gaveWay` counters, the appliance's log lines and its CPU time (user + system)
//   during the phase.
//
// Exits 1 when a reconnect to this build's appliance went unanswered.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberArg, pathArg } from '../args.ts';
import { C1, C2, channelIn, cpuTimeUs, createSite, startAppliance, waitForLine, type Appliance } from '../bench-plc/appliance.ts';
import { dialTcp, PlcClient, quantile } from '../bench-plc/client.ts';
import { bundle } from '../build.ts';

const SECONDS = numberArg('--seconds', 10);
const RECONNECTS = numberArg('--reconnects', 13);
const ROUNDS = numberArg('--rounds', 3);
const IDLE = numberArg('--idle', 512);
const CHURN = numberArg('--churn', 8);
const RATE = numberArg('--rate', 100);
const COMPARE = pathArg('--compare');
/** How long after its turn a REQ_ may still be answered. */
const DRAIN_MS = 2000;
const CONNECT_TIMEOUT_MS = 5000;
const HERE = path.dirname(fileURLToPath(import.meta.url));

type Host = 'appliance' | 'compared';
type Phase = 'quiet' | 'flood';

interface PhaseResult {
  reconnects: number;
  answered: number;
  /** Per answered reconnect: dialling → the RES_ to its first REQ_, ms, sorted. */
  firstRes: number[];
  /** Paced REQ_ sent and answered, and their latencies (ms, sorted). */
  sent: number;
  replies: number;
  latencies: number[];
  /** The flood's connections made during the phase, and its length in seconds. */
  flood: { connected: number; seconds: number } | undefined;
  /** The channel's counters gained during the phase. */
  connections: number;
  gaveWay: number;
  logLines: number;
  /** The appliance's CPU time (user + system) during the phase, ms. */
  cpuMs: number;
  errors: string[];
}

interface Target {
  app: Appliance;
  client: PlcClient;
  /** Lines the appliance has logged so far. */
  logLines: () => number;
}

/** Counts the lines the appliance writes to its log (stdout) from now on. */
function countLines(child: ChildProcess): () => number {
  let lines = 0;
  child.stdout!.on('data', (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 0x0a) lines++;
  });
  return () => lines;
}

async function channelCounters(app: Appliance): Promise<{ connections: number; gaveWay: number }> {
  const { counters } = (await app.api('GET', '/v1/plc-channels/CNV01')) as { counters: { connections: number; gaveWay: number } };
  return counters;
}

/** Starts the flood on `port`; resolves once it is going, with the function that stops it and returns its counts. */
async function startFlood(port: number): Promise<() => Promise<{ connected: number; seconds: number }>> {
  const child = spawn(process.execPath, [path.join(HERE, 'plc-flood-worker.ts'), String(port), String(IDLE), String(CHURN)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await waitForLine(child, /flooding/);
  return async () => {
    const counts = waitForLine(child, /\{.*\}/);
    child.stdin!.end();
    return JSON.parse((await counts)[0]) as { connected: number; seconds: number };
  };
}

/** The PLC connects RECONNECTS times in SECONDS, sending REQ_ at RATE on each connection. */
async function reconnecting(target: Target, port: number): Promise<Omit<PhaseResult, 'flood' | 'connections' | 'gaveWay' | 'logLines' | 'cpuMs'>> {
  const result = { reconnects: 0, answered: 0, firstRes: [] as number[], sent: 0, replies: 0, latencies: [] as number[], errors: [] as string[] };
  const turn = SECONDS / RECONNECTS;
  for (let i = 0; i < RECONNECTS; i++) {
    result.reconnects++;
    const dialled = performance.now();
    try {
      await target.client.connect((onData) => dialTcp(port, onData, CONNECT_TIMEOUT_MS));
    } catch (err) {
      result.errors.push(`reconnect ${i + 1}: ${(err as Error).message}`);
      continue;
    }
    const first = await target.client.single(DRAIN_MS);
    const firstAt = performance.now();
    const run = await target.client.paced(RATE, Math.max(0, turn - (firstAt - dialled) / 1000), DRAIN_MS);
    result.sent += run.sent;
    result.replies += run.answered;
    result.latencies.push(...run.latencies);
    const errors = [...first.errors, ...run.errors];
    if (first.answered === 1 && run.answered === run.sent && errors.length === 0) {
      result.answered++;
      result.firstRes.push(firstAt - dialled);
    } else {
      result.errors.push(
        `reconnect ${i + 1}: first REQ_ ${first.answered === 1 ? 'answered' : 'not answered'}, ${run.answered} of ${run.sent} more${errors[0] ? `; ${errors[0]}` : ''}`,
      );
    }
    // A reset connection may never confirm its end: give up on it after a second.
    await Promise.race([target.client.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
  }
  result.latencies.sort((a, b) => a - b);
  result.firstRes.sort((a, b) => a - b);
  return result;
}

async function phase(target: Target, phaseName: Phase): Promise<PhaseResult> {
  const port = target.app.plcPort;
  const before = await channelCounters(target.app);
  const linesBefore = target.logLines();
  const cpuBefore = cpuTimeUs(target.app.child.pid!);
  const stopFlood = phaseName === 'flood' ? await startFlood(port) : undefined;
  const plc = await reconnecting(target, port);
  const flood = stopFlood ? await stopFlood() : undefined;
  const after = await channelCounters(target.app);
  return {
    ...plc,
    flood,
    connections: after.connections - before.connections,
    gaveWay: after.gaveWay - before.gaveWay,
    logLines: target.logLines() - linesBefore,
    cpuMs: (cpuTimeUs(target.app.child.pid!) - cpuBefore) / 1000,
  };
}

const barcodes = (n: number) => Array.from({ length: n }, (_, i) => `FL${String(i + 1).padStart(4, '0')}`);

async function main(): Promise<void> {
  await bundle();
  const dirs: string[] = [];
  const targets: Partial<Record<Host, Target>> = {};
  try {
    const builds: [Host, string | undefined][] = [['appliance', undefined], ...(COMPARE ? [['compared', COMPARE] as [Host, string]] : [])];
    for (const [host, bundlePath] of builds) {
      const dir = mkdtempSync(path.join(tmpdir(), `wms-plc-flood-${host}-`));
      dirs.push(dir);
      const app = await startAppliance(dir, undefined, 0, bundlePath);
      const logLines = countLines(app.child);
      const units = barcodes(64);
      await createSite(app, units);
      targets[host] = { app, client: new PlcClient({ name: 'CNV01', locations: [C1, C2], barcodes: units }), logLines };
    }
    const hosts = Object.keys(targets) as Host[];
    // Warm-up: one connection each, answered (JIT, statement cache), then closed.
    for (const host of hosts) {
      const target = targets[host]!;
      await target.client.connect((onData) => dialTcp(target.app.plcPort, onData, CONNECT_TIMEOUT_MS));
      await channelIn(target.app, 'CNV01', ['LINKED', 'ONLINE']);
      const warm = await target.client.paced(RATE, 2, DRAIN_MS);
      if (warm.answered !== warm.sent) throw new Error(`${host}: warm-up answered ${warm.answered} of ${warm.sent}`);
      await target.client.close();
    }

    const results: Record<Host, Record<Phase, PhaseResult[]>> = {
      appliance: { quiet: [], flood: [] },
      compared: { quiet: [], flood: [] },
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const host of hosts) {
        for (const phaseName of ['quiet', 'flood'] as const) {
          const r = await phase(targets[host]!, phaseName);
          results[host][phaseName].push(r);
          const flood = r.flood ? `flood ${r.flood.connected} connections (${Math.round(r.flood.connected / r.flood.seconds)}/s), ` : '';
          console.error(
            `round ${round + 1} ${host} ${phaseName}: ${flood}reconnects answered ${r.answered} of ${r.reconnects}, first RES_ median ${quantile(r.firstRes, 0.5).toFixed(1)} ms max ${quantile(r.firstRes, 1).toFixed(1)} ms, REQ_ ${r.replies} of ${r.sent}, p99 ${quantile(r.latencies, 0.99).toFixed(2)} ms, connections +${r.connections}, gaveWay +${r.gaveWay}, log lines +${r.logLines}, CPU ${Math.round(r.cpuMs)} ms`,
          );
        }
      }
    }

    const fmt = (xs: number[], digits = 0) => xs.map((x) => (Number.isNaN(x) ? '–' : x.toFixed(digits))).join(' / ');
    console.log(
      `\n${SECONDS} s per phase, ${RECONNECTS} reconnects at ${RATE} REQ_/s, flood: ${IDLE} idle sockets + ${CHURN} connect-close loops, ${ROUNDS} rounds, values per round, node ${process.version}`,
    );
    if (COMPARE) console.log(`compared: ${COMPARE}`);
    console.log('');
    console.log(
      '| host | phase | flood connections | flood /s | reconnects answered | first RES_ median / max ms | paced REQ_ answered / sent | p50 ms | p99 ms | max ms | channel connections | gaveWay | log lines | appliance CPU ms |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const host of hosts) {
      for (const phaseName of ['quiet', 'flood'] as const) {
        const rs = results[host][phaseName];
        const flood = (f: (r: PhaseResult) => number) => (phaseName === 'flood' ? fmt(rs.map(f)) : '–');
        console.log(
          `| ${host} | ${phaseName} | ${flood((r) => r.flood!.connected)} | ${flood((r) => r.flood!.connected / r.flood!.seconds)} | ${rs.map((r) => `${r.answered} of ${r.reconnects}`).join(' / ')} | ${rs.map((r) => `${fmt([quantile(r.firstRes, 0.5)], 1)} / ${fmt([quantile(r.firstRes, 1)], 1)}`).join(' · ')} | ${rs.map((r) => `${r.replies} / ${r.sent}`).join(' · ')} | ${fmt(
            rs.map((r) => quantile(r.latencies, 0.5)),
            2,
          )} | ${fmt(
            rs.map((r) => quantile(r.latencies, 0.99)),
            2,
          )} | ${fmt(
            rs.map((r) => quantile(r.latencies, 1)),
            1,
          )} | ${fmt(rs.map((r) => r.connections))} | ${fmt(rs.map((r) => r.gaveWay))} | ${fmt(rs.map((r) => r.logLines))} | ${fmt(rs.map((r) => r.cpuMs))} |`,
        );
      }
    }
    const failures = [...results.appliance.quiet, ...results.appliance.flood].flatMap((r) => r.errors);
    if (failures.length > 0) {
      console.error(`\n${failures.length} reconnects of this build not answered, the first ones:`);
      for (const e of failures.slice(0, 10)) console.error(`  ${e}`);
      process.exitCode = 1;
    }
  } finally {
    for (const target of Object.values(targets)) {
      await Promise.race([target.client.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
      target.app.child.kill('SIGTERM');
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
