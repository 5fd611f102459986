// Signal channel benchmark: how long a PLC signal takes to become committed warehouse
// state, and the arrival handshake's trigger → target, over OPC UA and Modbus TCP, against
// the bare protocol measured in the same run.
//
//   npm run bench:signals [-- --seconds 6 --warmup 1 --rounds 1 --change-rate 200 --arrival-rate 50
//                             --scanners 25 --units 200 --sampling-ms 100 --poll-ms 100
//                             --protocols opcua,modbus-tcp --bundle OTHER/dist/wms.cjs]
//
// Per protocol (scripts/bench-signals/):
// - The PLC runs in this process (plc.ts): an OPC UA server (node-opcua) or a Modbus TCP
//   slave (modbus-serial) with two copies of the conveyor's signals (layout.ts): set A for
//   the appliance, set B for the baseline, so that neither sees the other's load.
// - The appliance (dist/wms.cjs, fresh data directory) has one signal channel over set A:
//   50 plcState points (one per conveyor location), an arrival point per scanner, a
//   heartbeat. Over REST: the conveyor locations (PLC codes 1–50), the scanners, a route
//   from the scanners' group to a stock location with a hop from each scanner to a
//   conveyor location, and transport units each with a STARTED order to the stock location:
//   each scan books its unit onto the scanner, finds the order, searches the route and
//   answers the hop's PLC code, one committed transaction.
// - The baseline (bare-client.ts, its own process) watches set B with the channel's own
//   timing (OPC UA: the same subscription; Modbus: the same two reads every pollMs) and
//   does the handshake with no warehouse behind it: the floor of the protocol.
//
// Loads (load.ts), open loop, baseline and appliance alternating, `--rounds` times after a
// warm-up of each:
// - Changes at `--change-rate`/s, round robin over the 50 words, each an error code or its
//   clearing. Appliance: change made on the server → its `location.stateChanged` event read
//   from `GET /v1/events` (committed, and visible to any client); every 20th also read back
//   with `GET /v1/locations/{pKey}`. Baseline: change made → the bare client saw it.
//   The event's own `at` (when the appliance made the change, whole ms) splits that time
//   into "until the appliance acted" and "commit and stream".
// - Arrivals at `--arrival-rate`/s over the scanners: trigger raised → the target write
//   taken by the server, split where the host read the barcode (it had seen the trigger):
//   raised → barcode read (poll or subscription) and barcode read → target (the decision
//   and one write), for both hosts alike. The appliance's own part, trigger seen → target
//   written, is also the `latencyMs` of its signal log. A handshake keeps its scanner until
//   the host has seen the trigger fall and cleared done: two poll or publish rounds, so
//   `--scanners` must cover rate × that (25 at 50/s and 100 ms).
//
// OPC UA: a change waits for the server's next sample and then for its next publish. With
// sampling and publishing at the same interval, the offset between the two timers stays
// about the same for the life of a subscription and can add up to one more interval; so two subscriptions
// with the same settings (the baseline's and the appliance's) differ by up to that much.
// `--sampling-ms 0` (the server reports each change at once, published every 20 ms) and a
// short `--poll-ms` show the appliance's own cost without the sampling.
//
// Exits 1 when a change was missed, a target was wrong or missing, or a read-back failed.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE, bundle } from './build.ts';
import { channelIn, cpuTimeUs, rssMb, startAppliance, type Appliance } from './bench-plc/appliance.ts';
import type { BareConfig, BareMessage } from './bench-signals/bare-client.ts';
import { EventStream } from './bench-signals/events.ts';
import { channelConfig, conveyor, createSite, signalsOf, WORDS, type Protocol } from './bench-signals/layout.ts';
import { quantile, Scanners, Words, type ArrivalResult, type ChangeResult } from './bench-signals/load.ts';
import { startPlc, type BenchPlc } from './bench-signals/plc.ts';
import { numberArg, textArg } from './args.ts';

const SECONDS = numberArg('--seconds', 6);
const WARMUP = numberArg('--warmup', 1);
const ROUNDS = numberArg('--rounds', 1);
const CHANGE_RATE = numberArg('--change-rate', 200);
const ARRIVAL_RATE = numberArg('--arrival-rate', 50);
const SCANNERS = numberArg('--scanners', 25);
const UNITS = numberArg('--units', 200);
const SAMPLING_MS = numberArg('--sampling-ms', 100);
const POLL_MS = numberArg('--poll-ms', 100);
const PROTOCOLS = (textArg('--protocols') ?? 'opcua,modbus-tcp').split(',') as Protocol[];
const GIVEN_BUNDLE = textArg('--bundle');
const BARE_CLIENT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bench-signals', 'bare-client.ts');
/** Every n-th plcState event of the appliance is read back over REST. */
const READ_BACK_EVERY = 20;

type Host = 'baseline' | 'appliance';

interface Measured<R> {
  result: R;
  /** Host CPU per change or arrival, µs. */
  cpuUs: number;
}

interface ProtocolResult {
  protocol: Protocol;
  timing: string;
  changes: Record<Host, Measured<ChangeResult>[]>;
  arrivals: Record<Host, Measured<ArrivalResult>[]>;
  /** The appliance's own trigger seen → target written (its signal log), sorted ms. */
  applianceOwn: number[];
  readBack: { confirmed: number; superseded: number; wrong: string[] };
  bareErrors: string[];
  counters: Record<string, unknown>;
  driver: Record<string, number>;
  rss: number;
}

function startBare(config: BareConfig, onValue: (m: Extract<BareMessage, { kind: 'value' }>) => void, errors: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BARE_CLIENT, JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.on('message', (m: BareMessage) => {
      if (m.kind === 'value') onValue(m);
      else if (m.kind === 'error') errors.push(m.message);
      else resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`bare client exited with ${code} before it was ready`)));
  });
}

/** The signal log's `latencyMs` of every target written from `from` on (paged). */
async function ownLatencies(app: Appliance, from: string): Promise<number[]> {
  const out: number[] = [];
  let next: string | undefined = `/v1/plc-channels/SIG1/telegrams?type=SIG_&direction=out&from=${encodeURIComponent(from)}&limit=1000`;
  while (next) {
    const reply: Response = await fetch(new URL(next, app.url), { headers: { Authorization: `Bearer ${app.token}` } });
    if (!reply.ok) throw new Error(`signal log: ${reply.status} ${await reply.text()}`);
    const entries = (await reply.json()) as { fields: { point: string }; latencyMs?: number }[];
    for (const e of entries) if (e.fields.point.endsWith('.target') && typeof e.latencyMs === 'number') out.push(e.latencyMs);
    next = /<([^>]+)>;\s*rel="next"/.exec(reply.headers.get('link') ?? '')?.[1];
  }
  return out.sort((a, b) => a - b);
}

async function measure<R>(host: ChildProcess, count: (r: R) => number, run: () => Promise<R>): Promise<Measured<R>> {
  const before = cpuTimeUs(host.pid!);
  const result = await run();
  return { result, cpuUs: (cpuTimeUs(host.pid!) - before) / Math.max(1, count(result)) };
}

async function benchProtocol(protocol: Protocol): Promise<ProtocolResult> {
  const timing = protocol === 'opcua' ? `samplingMs ${SAMPLING_MS}, publishing ${Math.max(SAMPLING_MS, 20)} ms` : `pollMs ${POLL_MS}`;
  console.error(`\n${protocol} (${timing}): starting the PLC, the appliance and the baseline client`);
  const plc: BenchPlc = await startPlc(protocol);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wms-bench-signals-'));
  const children: ChildProcess[] = [];
  let stream: EventStream | undefined;
  try {
    const app = await startAppliance(dataDir, undefined, 0, GIVEN_BUNDLE ?? BUNDLE, 0, [
      channelConfig(protocol, plc.where, SCANNERS, { samplingMs: SAMPLING_MS, pollMs: POLL_MS }),
    ]);
    children.push(app.child);
    const site = await createSite(app, SCANNERS, UNITS);
    await channelIn(app, 'SIG1', ['ONLINE'], 60_000);

    const words = { A: new Words(plc, 'A', WORDS), B: new Words(plc, 'B', WORDS) };
    const scanners = {
      A: new Scanners(plc, 'A', SCANNERS, site.barcodes),
      B: new Scanners(
        plc,
        'B',
        SCANNERS,
        Array.from({ length: UNITS }, (_, i) => `BARE${String(i + 1).padStart(5, '0')}`),
      ),
    };
    plc.onWrite = (w) => scanners[w.set].written(w);
    plc.onBarcodeRead = (r) => scanners[r.set].barcodeRead(r);

    const bareErrors: string[] = [];
    const b = signalsOf(protocol, 'B', SCANNERS);
    const bare = await startBare(
      { protocol, ...plc.where, samplingMs: SAMPLING_MS, pollMs: POLL_MS, words: b.words, scanners: b.scanners },
      (m) => words.B.seen(m.word, m.value, m.from, m.at),
      bareErrors,
    );
    children.push(bare);

    // The appliance's plcState changes as any client sees them, some read back over REST.
    const wordOf = new Map(Array.from({ length: WORDS }, (_, i) => [conveyor(i + 1), i]));
    const readBack: ProtocolResult['readBack'] = { confirmed: 0, superseded: 0, wrong: [] };
    const readBacks: Promise<void>[] = [];
    let plcStateEvents = 0;
    stream = new EventStream((event, at) => {
      const d = event.data as { locationId: string; pKey: string; field: string; value: number; from: number };
      if (event.type !== 'location.stateChanged' || d.field !== 'plcState') return;
      const word = wordOf.get(d.locationId);
      if (word === undefined) return;
      words.A.seen(word, d.value, d.from, at, Date.parse(event.at));
      if (++plcStateEvents % READ_BACK_EVERY !== 0) return;
      readBacks.push(
        app.api('GET', `/v1/locations/${d.pKey}`).then((location: { plcState: number }) => {
          if (location.plcState === d.value) readBack.confirmed++;
          else if (words.A.current(word) !== d.value)
            readBack.superseded++; // changed again meanwhile
          else readBack.wrong.push(`${d.locationId}: plcState ${location.plcState} after event ${d.value}`);
        }),
      );
    });
    await stream.open(app, 'location.stateChanged');

    const hosts: { host: Host; set: 'A' | 'B'; process: ChildProcess }[] = [
      { host: 'baseline', set: 'B', process: bare },
      { host: 'appliance', set: 'A', process: app.child },
    ];
    const result: ProtocolResult = {
      protocol,
      timing,
      changes: { baseline: [], appliance: [] },
      arrivals: { baseline: [], appliance: [] },
      applianceOwn: [],
      readBack,
      bareErrors,
      counters: {},
      driver: {},
      rss: 0,
    };
    const say = (what: string, host: Host, lat: number[], extra: string) =>
      console.error(`  ${what} ${host}: p50 ${quantile(lat, 0.5).toFixed(1)} ms, p99 ${quantile(lat, 0.99).toFixed(1)} ms, ${extra}`);

    // Warm-up of both, then alternating rounds: changes.
    for (const h of hosts) await words[h.set].run(CHANGE_RATE, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      for (const h of hosts) {
        const m = await measure(
          h.process,
          (r: ChangeResult) => r.sent,
          () => words[h.set].run(CHANGE_RATE, SECONDS),
        );
        result.changes[h.host].push(m);
        say(
          `round ${round + 1} changes`,
          h.host,
          m.result.latencies,
          `${Math.round(m.result.rate)}/s, ${m.result.missed} missed, ${m.result.unexpected} unexpected`,
        );
      }
    }
    await Promise.all(readBacks);

    // Arrivals.
    for (const h of hosts) await scanners[h.set].run(ARRIVAL_RATE, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      for (const h of hosts) {
        const from = new Date().toISOString();
        const m = await measure(
          h.process,
          (r: ArrivalResult) => r.raised,
          () => scanners[h.set].run(ARRIVAL_RATE, SECONDS),
        );
        result.arrivals[h.host].push(m);
        if (h.host === 'appliance') result.applianceOwn.push(...(await ownLatencies(app, from)));
        say(
          `round ${round + 1} arrivals`,
          h.host,
          m.result.latencies,
          `${Math.round(m.result.rate)}/s, ${m.result.fallbacks} fallbacks, ${m.result.errors.length} errors, ${m.result.waited} waited`,
        );
      }
    }
    result.applianceOwn.sort((a, b) => a - b);
    const channel = (await app.api('GET', '/v1/plc-channels/SIG1')) as { counters: Record<string, unknown>; driver: Record<string, number> };
    result.counters = channel.counters;
    result.driver = channel.driver;
    result.rss = rssMb(app.child.pid!);
    return result;
  } finally {
    stream?.close();
    // The appliance writes its files as it stops: its data directory goes once it is gone.
    await Promise.all(children.map(stop));
    await plc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const ms = (xs: number[], q: number) => quantile(xs, q).toFixed(1);
const per = <R>(ms: Measured<R>[], f: (r: R) => string) => ms.map((m) => f(m.result)).join(' / ');
/** p50 / p99 of each round, rounds apart by `;`. */
const pair = <R>(ms: Measured<R>[], f: (r: R) => number[]) =>
  ms.map((m) => `${quantile(f(m.result), 0.5).toFixed(1)} / ${quantile(f(m.result), 0.99).toFixed(1)}`).join('; ');

function report(results: ProtocolResult[]): string[] {
  const out: string[] = [];
  out.push(
    `${SECONDS} s per run after ${WARMUP} s of warm-up, ${ROUNDS} round(s), values per round, node ${process.version}; ${WORDS} plcState words, ${SCANNERS} scanners, ${UNITS} units; load average at the start ${LOAD_AT_START}, at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  out.push('', `Signal change → committed and visible (${CHANGE_RATE} changes/s):`, '');
  out.push('| protocol | timing | host | changes/s | p50 ms | p90 ms | p99 ms | max ms | missed | unexpected | host CPU µs/change |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const host of ['baseline', 'appliance'] as const) {
      const m = r.changes[host];
      out.push(
        `| ${r.protocol} | ${r.timing} | ${host === 'baseline' ? 'bare client saw it' : 'appliance: event on GET /v1/events'} | ${per(m, (x) => x.rate.toFixed(0))} | ${per(m, (x) => ms(x.latencies, 0.5))} | ${per(m, (x) => ms(x.latencies, 0.9))} | ${per(m, (x) => ms(x.latencies, 0.99))} | ${per(m, (x) => ms(x.latencies, 1))} | ${per(m, (x) => String(x.missed))} | ${per(m, (x) => String(x.unexpected))} | ${(m.reduce((a, x) => a + x.cpuUs, 0) / m.length).toFixed(0)} |`,
      );
    }
  }
  out.push('', `Arrival handshake, trigger raised → target written (${ARRIVAL_RATE} arrivals/s):`, '');
  out.push(
    '| protocol | timing | host | arrivals/s | p50 ms | p90 ms | p99 ms | max ms | trigger → barcode read p50 / p99 ms | barcode read → target p50 / p99 ms | routed | fallbacks | errors | waited for a scanner (max ms) | host CPU µs/arrival |',
  );
  out.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const host of ['baseline', 'appliance'] as const) {
      const m = r.arrivals[host];
      out.push(
        `| ${r.protocol} | ${r.timing} | ${host === 'baseline' ? 'bare handshake' : 'appliance'} | ${per(m, (x) => x.rate.toFixed(0))} | ${per(m, (x) => ms(x.latencies, 0.5))} | ${per(m, (x) => ms(x.latencies, 0.9))} | ${per(m, (x) => ms(x.latencies, 0.99))} | ${per(m, (x) => ms(x.latencies, 1))} | ${pair(m, (x) => x.toRead)} | ${pair(m, (x) => x.readToTarget)} | ${per(m, (x) => String(x.ok))} | ${per(m, (x) => String(x.fallbacks))} | ${per(m, (x) => String(x.errors.length))} | ${per(m, (x) => `${x.waited} (${x.maxWaitMs.toFixed(0)})`)} | ${(m.reduce((a, x) => a + x.cpuUs, 0) / m.length).toFixed(0)} |`,
      );
    }
  }
  out.push('');
  for (const r of results) {
    const changes = r.changes.appliance;
    out.push(
      `${r.protocol}: appliance changes split at their event's \`at\` (whole ms): change → \`at\` p50 / p99 ${pair(changes, (x) => x.toEvent)} ms; \`at\` → on the stream ${pair(changes, (x) => x.eventToSeen)} ms`,
    );
    const own = r.applianceOwn;
    out.push(
      `${r.protocol}: the appliance's own part, trigger seen → target written (signal log latencyMs, ${own.length} handshakes): p50 ${ms(own, 0.5)}, p90 ${ms(own, 0.9)}, p99 ${ms(own, 0.99)}, max ${ms(own, 1)} ms`,
    );
    out.push(
      `${r.protocol}: the load's own timer lag p99 (late sends, not in the latencies): changes ${per(r.changes.appliance, (x) => x.lagP99.toFixed(1))} ms, arrivals ${per(r.arrivals.appliance, (x) => x.lagP99.toFixed(1))} ms`,
    );
    out.push(
      `${r.protocol}: read back over REST: ${r.readBack.confirmed} confirmed, ${r.readBack.superseded} changed again meanwhile, ${r.readBack.wrong.length} wrong; appliance RSS ${r.rss} MB`,
    );
    out.push(`${r.protocol}: channel counters ${JSON.stringify(r.counters)}; driver ${JSON.stringify(r.driver)}`);
  }
  return out;
}

const LOAD_AT_START = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');

async function main(): Promise<void> {
  const started = performance.now();
  if (!GIVEN_BUNDLE) await bundle();
  const results: ProtocolResult[] = [];
  for (const protocol of PROTOCOLS) results.push(await benchProtocol(protocol));
  console.log(`\n${report(results).join('\n')}`);
  console.log(`\nwhole run ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const errors = results.flatMap((r) => [
    ...(['baseline', 'appliance'] as const).flatMap((h) =>
      r.changes[h].filter((m) => m.result.missed > 0).map((m) => `${r.protocol} ${h}: ${m.result.missed} changes missed`),
    ),
    ...(['baseline', 'appliance'] as const).flatMap((h) => r.arrivals[h].flatMap((m) => m.result.errors.map((e) => `${r.protocol} ${h}: ${e}`))),
    ...r.readBack.wrong.map((w) => `${r.protocol} read back: ${w}`),
    ...r.bareErrors.map((e) => `${r.protocol} bare client: ${e}`),
  ]);
  if (errors.length > 0) {
    console.error(`\n${errors.length} errors, the first ones:`);
    for (const e of errors.slice(0, 10)) console.error(`  ${e}`);
    process.exitCode = 1;
  }
}

await main();
