// PLC benchmark: REQ_ → RES_ latency of the appliance against a baseline measured in
// the same run.
//
//   npm run bench:plc [-- --seconds 10 --rounds 2 --window 32 --serial-rate 50] [-- --compare OTHER/dist/wms.cjs]
//
// - Appliance: the real bundle (dist/wms.cjs) on a fresh data directory with channel
//   CNV01 (tcp-server on 127.0.0.1) and CNV02 (serial at 115200 baud on one end of a
//   socat pty pair). Every REQ_ does the whole job: the unit is booked onto the
//   location, its STARTED order looked up, the route searched, one committed
//   transaction (synchronous=FULL), a RES_ with the next location (bench-plc/appliance.ts).
// - Baseline: a bare process (bench-plc/baseline.ts) that frames lines the same way and
//   answers each REQ_ at once with a pre-encoded RES_ of the same length: the floor
//   of loopback (or the pty pair) plus the client.
// - Client (bench-plc/client.ts): a simulated PLC with a pool of units; latency = the
//   RES_ complete − the REQ_ handed to the OS, matched by barcode + location; every
//   RES_ must name the other conveyor location.
// - Loads over TCP: paced open loop at 100/s and 1000/s (REQ_ on schedule, answered
//   or not), closed loop with 1 REQ_ in flight (sequential) and with `--window` in
//   flight (the most it sustains). Over the pty pair: paced at `--serial-rate` (50/s
//   fits a real 115200-baud line) and sequential. Baseline and appliance alternate,
//   `--rounds` times, after a warm-up, so noise hits both.
// - Host CPU per telegram: user + system time of the host process over the run
//   divided by the telegrams it answered; the appliance's RSS at the end.
//
// - `--compare BUNDLE`: a second appliance from another build's bundle (an earlier
//   commit's `dist/wms.cjs`) on a data directory and pty pair of its own, measured in
//   the same rounds as a third host: before and after a change in one run, each load
//   alternating baseline → appliance → compared, so the noise of a shared machine
//   hits all three alike. `--loads 'TCP paced 1000/s,TCP max'` runs only those loads.
//
// Needs socat for the pty pairs (apt-get install socat). Exits 1 when a RES_ was
// missing, unmatched or without the expected target. A paced REQ_ that finds every
// unit waiting for its RES_ (the host is that far behind) is not sent but counted as
// skipped; the achieved REQ_/s shows it too.

import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PtyPair } from '../test/support/plc.ts';
import { bundle } from './build.ts';
import { C1, C2, channelIn, cpuTimeUs, createSite, rssMb, startAppliance, startBaseline } from './bench-plc/appliance.ts';
import { dialTcp, openSerial, PlcClient, quantile, type RunResult } from './bench-plc/client.ts';
import { numberArg, pathArg, textArg } from './args.ts';

const SECONDS = numberArg('--seconds', 10);
const ROUNDS = numberArg('--rounds', 2);
const WINDOW = numberArg('--window', 32);
const SERIAL_RATE = numberArg('--serial-rate', 50);
const SERIAL_SECONDS = numberArg('--serial-seconds', SECONDS);
const WARMUP = numberArg('--warmup', 2);
/** `--loads 'TCP paced 1000/s,TCP max'`: only the loads whose "transport name" starts with one of these. */
const ONLY = textArg('--loads')
  ?.split(',')
  .map((s) => s.trim());
const COMPARE = pathArg('--compare');
const BAUD = 115_200;
/** 160 characters + CR LF, 10 bits a byte at 8N1. */
const WIRE_BYTES = 162;

function requireSocat(): void {
  try {
    execFileSync('socat', ['-V'], { stdio: 'ignore' });
  } catch {
    console.error('socat is needed for the serial line (a pty pair): apt-get install socat');
    process.exit(1);
  }
}

interface Load {
  transport: 'TCP' | 'serial';
  name: string;
  run: (client: PlcClient) => Promise<RunResult>;
  openLoop: boolean;
}

/** The load the target is set for: p99 ≤ 5 ms over TCP at 1000/s. */
const TARGET_LOAD: Load = { transport: 'TCP', name: 'paced 1000/s', run: (c) => c.paced(1000, SECONDS), openLoop: true };

const ALL_LOADS: Load[] = [
  { transport: 'TCP', name: 'paced 100/s', run: (c) => c.paced(100, SECONDS), openLoop: true },
  TARGET_LOAD,
  { transport: 'TCP', name: 'sequential (1 in flight)', run: (c) => c.windowed(1, SECONDS), openLoop: false },
  { transport: 'TCP', name: `max (${WINDOW} in flight)`, run: (c) => c.windowed(WINDOW, SECONDS), openLoop: false },
  { transport: 'serial', name: `paced ${SERIAL_RATE}/s`, run: (c) => c.paced(SERIAL_RATE, SERIAL_SECONDS), openLoop: true },
  { transport: 'serial', name: 'sequential (1 in flight)', run: (c) => c.windowed(1, SERIAL_SECONDS), openLoop: false },
];
const LOADS = ONLY ? ALL_LOADS.filter((l) => ONLY.some((o) => `${l.transport} ${l.name}`.startsWith(o))) : ALL_LOADS;

type Host = 'baseline' | 'appliance' | 'compared';

interface Measured extends RunResult {
  /** Host CPU per answered telegram, µs. */
  cpuUs: number;
}

async function measure(client: PlcClient, host: ChildProcess, load: Load): Promise<Measured> {
  const before = cpuTimeUs(host.pid!);
  const result = await load.run(client);
  return { ...result, cpuUs: (cpuTimeUs(host.pid!) - before) / Math.max(1, result.answered) };
}

const barcodes = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(4, '0')}`);

async function main(): Promise<void> {
  requireSocat();
  await bundle();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wms-bench-plc-'));
  const compareDir = COMPARE ? mkdtempSync(path.join(tmpdir(), 'wms-bench-plc-compared-')) : undefined;
  const children: ChildProcess[] = [];
  const ptys: PtyPair[] = [];
  const clients: PlcClient[] = [];
  try {
    const appPty = await PtyPair.open();
    ptys.push(appPty);
    const basePty = await PtyPair.open();
    ptys.push(basePty);
    const app = await startAppliance(dataDir, appPty.host, BAUD);
    children.push(app.child);
    // Enough units that a backlog of half a second at 1000/s still finds an idle one.
    const tcpUnits = barcodes('BT', Math.max(512, WINDOW));
    const serialUnits = barcodes('BS', 16);
    await createSite(app, [...tcpUnits, ...serialUnits]);
    let compared: Awaited<ReturnType<typeof startAppliance>> | undefined;
    let comparedPty: PtyPair | undefined;
    if (COMPARE) {
      comparedPty = await PtyPair.open();
      ptys.push(comparedPty);
      compared = await startAppliance(compareDir!, comparedPty.host, BAUD, COMPARE);
      children.push(compared.child);
      await createSite(compared, [...tcpUnits, ...serialUnits]);
    }
    const baseTcp = await startBaseline(['tcp']);
    const baseSerial = await startBaseline(['serial', basePty.host, String(BAUD)]);
    children.push(baseTcp.child, baseSerial.child);

    const client = (name: string, units: string[]) => {
      const c = new PlcClient({ name, locations: [C1, C2], barcodes: units });
      clients.push(c);
      return c;
    };
    type Target = { client: PlcClient; host: ChildProcess };
    const targets: Record<Load['transport'], Partial<Record<Host, Target>>> = {
      TCP: {
        baseline: { client: client('CNV01', tcpUnits), host: baseTcp.child },
        appliance: { client: client('CNV01', tcpUnits), host: app.child },
        ...(compared ? { compared: { client: client('CNV01', tcpUnits), host: compared.child } } : {}),
      },
      serial: {
        baseline: { client: client('CNV02', serialUnits), host: baseSerial.child },
        appliance: { client: client('CNV02', serialUnits), host: app.child },
        ...(compared ? { compared: { client: client('CNV02', serialUnits), host: compared.child } } : {}),
      },
    };
    const hosts: Host[] = compared ? ['baseline', 'appliance', 'compared'] : ['baseline', 'appliance'];
    await targets.TCP.baseline!.client.connect((onData) => dialTcp(baseTcp.port, onData));
    await targets.TCP.appliance!.client.connect((onData) => dialTcp(app.plcPort, onData));
    await targets.serial.baseline!.client.connect((onData) => openSerial(basePty.plc, BAUD, onData));
    await targets.serial.appliance!.client.connect((onData) => openSerial(appPty.plc, BAUD, onData));
    if (compared) {
      await targets.TCP.compared!.client.connect((onData) => dialTcp(compared.plcPort, onData));
      await targets.serial.compared!.client.connect((onData) => openSerial(comparedPty!.plc, BAUD, onData));
    }
    for (const a of [app, ...(compared ? [compared] : [])]) {
      await channelIn(a, 'CNV01', ['LINKED', 'ONLINE']);
      await channelIn(a, 'CNV02', ['LINKED', 'ONLINE']);
    }

    // Warm-up (JIT, statement cache, page cache); its errors count too.
    const warmupErrors: string[] = [];
    for (const which of hosts) warmupErrors.push(...(await targets.TCP[which]!.client.paced(1000, WARMUP)).errors);
    for (const which of hosts) warmupErrors.push(...(await targets.serial[which]!.client.paced(SERIAL_RATE, WARMUP)).errors);

    const results = new Map<Load, Record<Host, Measured[]>>(LOADS.map((l) => [l, { baseline: [], appliance: [], compared: [] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const load of LOADS) {
        for (const which of hosts) {
          const target = targets[load.transport][which]!;
          const m = await measure(target.client, target.host, load);
          results.get(load)![which].push(m);
          console.error(
            `round ${round + 1} ${load.transport} ${load.name} ${which}: ${m.answered} answered, ${Math.round(m.rate)}/s, p50 ${quantile(m.latencies, 0.5).toFixed(3)} ms, p99 ${quantile(m.latencies, 0.99).toFixed(3)} ms, ${m.skipped} skipped, ${m.errors.length} errors`,
          );
        }
      }
    }
    const rss = rssMb(app.child.pid!);
    const comparedRss = compared ? rssMb(compared.child.pid!) : undefined;
    const channels = (await app.api('GET', '/v1/plc-channels')) as {
      name: string;
      counters: { rxOk: number; outcomes: Record<string, number>; duplicates: number };
    }[];

    const fmt = (xs: number[], digits: number) => xs.map((x) => x.toFixed(digits)).join(' / ');
    const row = (load: Load, which: string, ms: Measured[]) =>
      `| ${load.transport} | ${load.name} | ${which} | ${fmt(
        ms.map((m) => m.rate),
        0,
      )} | ${fmt(
        ms.map((m) => quantile(m.latencies, 0.5)),
        2,
      )} | ${fmt(
        ms.map((m) => quantile(m.latencies, 0.99)),
        2,
      )} | ${fmt(
        ms.map((m) => quantile(m.latencies, 1)),
        1,
      )} | ${(ms.reduce((a, m) => a + m.cpuUs, 0) / ms.length).toFixed(0)} | ${
        load.openLoop
          ? fmt(
              ms.map((m) => quantile(m.lag, 0.99)),
              2,
            )
          : '–'
      } | ${load.openLoop ? ms.map((m) => m.skipped).join(' / ') : '–'} | ${ms.reduce((a, m) => a + m.errors.length, 0)} |`;
    console.log(`\n${SECONDS} s per run (serial ${SERIAL_SECONDS} s), ${ROUNDS} alternating rounds, values per round, node ${process.version}`);
    if (COMPARE) console.log(`compared: ${COMPARE}`);
    console.log('');
    console.log('| line | load | host | REQ_/s | p50 ms | p99 ms | max ms | host CPU µs/telegram | client send lag p99 ms | skipped | errors |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const [load, r] of results) for (const which of hosts) console.log(row(load, which, r[which]));
    const target = (results.get(TARGET_LOAD)?.appliance ?? []).map((m) => quantile(m.latencies, 0.99));
    if (target.length)
      console.log(
        `\nTCP, 1000/s, appliance p99: ${fmt(target, 2)} ms (target ≤ 5 ms: met in ${target.filter((p) => p <= 5).length} of ${target.length} rounds)`,
      );
    console.log(`appliance RSS after the runs: ${rss} MB${comparedRss === undefined ? '' : `; compared: ${comparedRss} MB`}`);
    if (compared) {
      // The same load on both builds, summed over the rounds: appliance / compared.
      const ratio = (load: Load, f: (m: Measured) => number) => {
        const sum = (ms: Measured[]) => ms.reduce((a, m) => a + f(m), 0);
        return sum(results.get(load)!.appliance) / sum(results.get(load)!.compared);
      };
      console.log('\nappliance / compared (summed over the rounds):');
      for (const load of LOADS) {
        console.log(
          `  ${load.transport} ${load.name}: rate ${ratio(load, (m) => m.rate).toFixed(3)}, p99 ${ratio(load, (m) => quantile(m.latencies, 0.99)).toFixed(3)}, CPU/telegram ${ratio(load, (m) => m.cpuUs).toFixed(3)}`,
        );
      }
    }
    for (const c of channels)
      console.log(`channel ${c.name}: ${c.counters.rxOk} telegrams, outcomes ${JSON.stringify(c.counters.outcomes)}, duplicates ${c.counters.duplicates}`);
    console.log(`\nwire time of one telegram (${WIRE_BYTES} bytes, 8N1) that a pty does not add:`);
    for (const baud of [9_600, 38_400, 115_200]) {
      const oneWay = (WIRE_BYTES * 10 * 1000) / baud;
      console.log(
        `  ${baud} baud: ${oneWay.toFixed(1)} ms each way, REQ_ + RES_ ${(2 * oneWay).toFixed(1)} ms, at most ${Math.floor(1000 / oneWay)} telegrams/s each way`,
      );
    }

    const errors = [...warmupErrors, ...[...results.values()].flatMap((r) => hosts.flatMap((h) => r[h]).flatMap((m) => m.errors))];
    if (errors.length > 0) {
      console.error(`\n${errors.length} errors, the first ones:`);
      for (const e of errors.slice(0, 10)) console.error(`  ${e}`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    for (const child of children) child.kill('SIGTERM');
    for (const pty of ptys) await pty.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (compareDir) rmSync(compareDir, { recursive: true, force: true });
  }
}

await main();
