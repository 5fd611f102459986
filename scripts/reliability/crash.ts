// Crash suite: acknowledged writes survive kill -9.
//
//   npm run test:crash [-- --rounds 200 --writers 4 --min-write-ms 20 --max-write-ms 1500 --seed N --keep --bundle OTHER/dist/wms.cjs]
//
// The real bundle (dist/wms.cjs, built first) runs as a child process on a fresh data
// directory. Each round: `--writers` clients write concurrently over HTTP
// (crash-workload.ts: create locations and transport units, move the units, lock and
// release the locations) while a conveyor PLC books units with REQ_ over an OSIP TCP
// channel (crash-plc.ts): the HTTP thread's writes and the PLC's commit side by side
// on the conveyor thread. The process is killed with SIGKILL at a random moment, the
// database and the logs database are checked read-only while nothing runs
// (`PRAGMA integrity_check`, `PRAGMA foreign_key_check`), the appliance is started
// again on the same directory and every acknowledged write of the round is looked for
// in the state and in the event log, and the round's event ids are checked to follow one
// another without a gap. After the last round every key of every round is
// checked once more, the appliance is stopped cleanly and the files checked again.
//
// Exits 1 when a write was lost, an event is missing or unexplained, a check of the
// files failed, a write was refused, or the appliance did not start again.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiOf, checkDatabaseFile, login, startChild, type ChildAppliance } from './appliance.ts';
import {
  checkEvents,
  checkState,
  EVENT_TYPES,
  expectations,
  readState,
  WRITE_KINDS,
  Writer,
  type Expectation,
  type Finding,
  type HistoryEvent,
  type Write,
  type WriteKind,
} from './crash-workload.ts';
import { createConveyor, PLC_CHANNEL_CONFIG, PlcWriter } from './crash-plc.ts';
import { HttpClient } from './http.ts';
import { newSeed, Random } from './random.ts';
import { numberArg } from '../args.ts';
import { bundleArg } from './cli.ts';

interface CrashOptions {
  rounds: number;
  writers?: number;
  /** The kill comes at a random moment in [minWriteMs, maxWriteMs] after the writers start. */
  minWriteMs?: number;
  maxWriteMs?: number;
  seed?: number;
  /** Keep the data directory (for a look at a failure). */
  keep?: boolean;
  /** Another build's bundle to test (default: dist/wms.cjs). */
  bundle?: string;
  /** Progress lines. */
  progress?: (line: string) => void;
}

export interface CrashReport {
  seed: number;
  rounds: number;
  writers: number;
  /** Acknowledged writes by kind, and in all. */
  acknowledged: Record<WriteKind, number> & { total: number };
  /** Of the acknowledged moves, those a PLC's REQ_ booked (answered with RES_). */
  plcBookings: number;
  /** Writes whose reply never came (in flight at the kill), and how many of them had committed. */
  inFlight: number;
  inFlightCommitted: number;
  /** Writes the appliance refused (4xx): none are expected. */
  refused: Write[];
  /** Acknowledged writes not found after a restart, events missing or unexplained. */
  lost: Finding[];
  /** Checks of the database files that failed: `round n: database: …`. */
  integrityFailures: string[];
  integrityChecks: number;
  /** Keys checked after the last round (every round's). */
  finalKeys: number;
  /** Start times after a kill, ms. */
  restartMs: number[];
  durationMs: number;
}

const ms = () => Number(process.hrtime.bigint() / 1_000_000n);
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

export async function runCrash(options: CrashOptions): Promise<CrashReport> {
  const seed = options.seed ?? newSeed();
  const random = new Random(seed);
  const writers = options.writers ?? 4;
  const minWriteMs = options.minWriteMs ?? 20;
  const maxWriteMs = options.maxWriteMs ?? 1500;
  const progress = options.progress ?? (() => {});
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wms-crash-'));
  const started = ms();
  const report: CrashReport = {
    seed,
    rounds: 0,
    writers,
    acknowledged: { ...(Object.fromEntries(WRITE_KINDS.map((k) => [k, 0])) as Record<WriteKind, number>), total: 0 },
    plcBookings: 0,
    inFlight: 0,
    inFlightCommitted: 0,
    refused: [],
    lost: [],
    integrityFailures: [],
    integrityChecks: 0,
    finalKeys: 0,
    restartMs: [],
    durationMs: 0,
  };
  /** Every key of every round, with the values it may have now (a later round never touches it). */
  const everyKey = new Map<string, Expectation>();
  let app: ChildAppliance | undefined;
  const checkFiles = (when: string) => {
    for (const [what, file] of [
      ['database', 'wms.sqlite'],
      ['logs database', 'wms-logs.sqlite'],
    ] as const) {
      report.integrityChecks++;
      for (const p of checkDatabaseFile(path.join(dataDir, file))) report.integrityFailures.push(`${when}: ${what}: ${p}`);
    }
  };

  try {
    const config = { plc: { channels: [PLC_CHANNEL_CONFIG] } };
    const start = () => startChild(dataDir, options.bundle ? { config, bundle: options.bundle } : { config });
    app = await start();
    let previous: { round: number; writes: Write[]; from: string } | undefined;
    for (let round = 1; round <= options.rounds + 1; round++) {
      const client = new HttpClient(app.url);
      try {
        const token = await login(client);
        if (previous) await verifyRound(client, token, previous, report, everyKey);
        if (round > options.rounds) {
          await verifyAll(client, token, everyKey, report);
          break;
        }
        if (round === 1) await createConveyor(client, token);
        // The round: writers and the PLC until the kill.
        const from = new Date(Date.now() - 1000).toISOString();
        const crew: (Writer | PlcWriter)[] = Array.from(
          { length: writers },
          (_, i) => new Writer(client, token, i + 1, round, new Random(random.int(0, 2 ** 31))),
        );
        crew.push(new PlcWriter(client, token, writers + 1, round, new Random(random.int(0, 2 ** 31))));
        const running = crew.map((w) => w.run());
        await sleep(random.int(minWriteMs, maxWriteMs));
        await app.kill();
        await Promise.all(running);
        const writes = crew.flatMap((w) => w.writes);
        for (const w of crew)
          if (w instanceof PlcWriter) report.plcBookings += w.writes.filter((x) => x.kind === 'unit.move' && x.state === 'acknowledged').length;
        checkFiles(`round ${round}, after the kill`);
        report.rounds = round;
        previous = { round, writes, from };
        const acked = writes.filter((w) => w.state === 'acknowledged');
        progress(`round ${round}: ${acked.length} writes acknowledged, ${writes.filter((w) => w.state === 'in-flight').length} in flight at the kill`);
      } finally {
        client.close();
      }
      const t0 = ms();
      app = await start();
      report.restartMs.push(ms() - t0);
    }
    await app.stop();
    checkFiles('after the clean stop');
  } finally {
    if (app?.running()) await app.kill();
    report.durationMs = ms() - started;
    if (options.keep) progress(`data directory kept: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
  return report;
}

/** The round's writes after the restart: state key by key, and the event log. */
async function verifyRound(
  client: HttpClient,
  token: string,
  round: { round: number; writes: Write[]; from: string },
  report: CrashReport,
  everyKey: Map<string, Expectation>,
): Promise<void> {
  const get = getter(client, token);
  for (const w of round.writes) {
    if (w.state === 'acknowledged') {
      report.acknowledged[w.kind]++;
      report.acknowledged.total++;
    } else if (w.state === 'in-flight') report.inFlight++;
    else if (w.state === 'refused') report.refused.push(w);
  }
  const expected = expectations(round.writes);
  for (const e of expected.values()) {
    const state = await readState(get, e);
    const findings = checkState(e, state);
    report.lost.push(...findings.map((f) => ({ ...f, problem: `round ${round.round}: ${f.problem}` })));
    // The write in flight: did it commit? Either answer is right. (An update always
    // changes the value, so its new value means it committed.)
    if (e.inFlight && state.exists && (e.inFlight.kind.endsWith('create') || state.value === e.inFlight.value)) report.inFlightCommitted++;
    // From now on the key holds the value it has (an in-flight write has settled one way).
    everyKey.set(`${e.kind}:${e.key}`, { ...e, mustExist: state.exists, allowed: state.exists ? [state.value!] : [] });
  }
  const events = await history(get, round.from, EVENT_TYPES);
  const own = (key: string) => new RegExp(`^C\\d+(/R|R)${round.round}(/|N)`).test(key);
  report.lost.push(...checkEvents(expected, events, own).map((f) => ({ ...f, problem: `round ${round.round}: ${f.problem}` })));
  // Every event of the round, whoever wrote it: one id after the other, none missing.
  const ids = (await history(get, round.from)).map((e) => e.id);
  const gap = ids.findIndex((id, i) => i > 0 && id !== ids[i - 1]! + 1);
  if (gap > 0) report.lost.push({ key: `event ${ids[gap - 1]! + 1}`, problem: `round ${round.round}: event ids jump from ${ids[gap - 1]} to ${ids[gap]}` });
}

/** After the last round: every key of every round still as its round left it. */
async function verifyAll(client: HttpClient, token: string, everyKey: Map<string, Expectation>, report: CrashReport): Promise<void> {
  const api = apiOf(client, token);
  const locations = new Map((await api('GET', '/v1/locations')).map((l: any) => [l.locationId, l]));
  const units = new Map((await api('GET', '/v1/transport-units')).map((u: any) => [u.barcode, u]));
  for (const e of everyKey.values()) {
    report.finalKeys++;
    const found: any = e.kind === 'location' ? locations.get(e.key) : units.get(e.key);
    const state = !found ? { exists: false } : { exists: true, value: e.kind === 'location' ? !found.incomingActive : found.actualLocation };
    if (!state.exists && e.allowed.length === 0) continue; // an in-flight create that did not commit
    report.lost.push(...checkState(e, state).map((f) => ({ ...f, problem: `after the last round: ${f.problem}` })));
  }
}

function getter(client: HttpClient, token: string) {
  return async (p: string) => {
    const reply = await client.send({ method: 'GET', path: p, headers: [['Authorization', `Bearer ${token}`]] });
    if (reply.kind !== 'reply') throw new Error(`GET ${p}: no reply (${reply.error})`);
    return { status: reply.status, json: reply.json as any, link: reply.headers.link as string | undefined };
  };
}

/** The events since `from` (of these types, or all), every page. */
async function history(get: ReturnType<typeof getter>, from: string, types?: readonly string[]): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let next: string | undefined = `/v1/events/history?${types ? `types=${types.join(',')}&` : ''}from=${encodeURIComponent(from)}&limit=1000`;
  while (next) {
    const page = await get(next);
    if (page.status !== 200) throw new Error(`GET ${next}: ${page.status} ${JSON.stringify(page.json)}`);
    events.push(...(page.json as HistoryEvent[]));
    const m = page.link ? /<https?:\/\/[^/]+([^>]+)>;\s*rel="next"/.exec(page.link) : null;
    next = m ? m[1] : undefined;
  }
  return events;
}

export function crashSummary(r: CrashReport): string {
  const sorted = [...r.restartMs].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  const lines = [
    `crash suite: ${r.rounds} rounds of kill -9, ${r.writers} concurrent writers, seed ${r.seed}, ${(r.durationMs / 1000).toFixed(1)} s`,
    `acknowledged writes: ${r.acknowledged.total} (${WRITE_KINDS.map((k) => `${k} ${r.acknowledged[k]}`).join(', ')})`,
    `of the moves, booked by the PLC's REQ_ (answered RES_): ${r.plcBookings}`,
    `in flight at a kill: ${r.inFlight} (found committed: ${r.inFlightCommitted})`,
    `lost or unexplained: ${r.lost.length}`,
    `refused writes: ${r.refused.length}`,
    `file checks (integrity_check, foreign_key_check): ${r.integrityChecks - r.integrityFailures.length} of ${r.integrityChecks} ok`,
    `keys checked after the last round: ${r.finalKeys}`,
    `start after a kill: median ${q(0.5)} ms, max ${q(1)} ms`,
  ];
  for (const f of r.lost.slice(0, 20)) lines.push(`  LOST ${f.key}: ${f.problem}`);
  for (const f of r.integrityFailures.slice(0, 20)) lines.push(`  FILE ${f}`);
  for (const w of r.refused.slice(0, 10)) lines.push(`  REFUSED ${w.kind} ${w.key}: ${w.reply}`);
  return lines.join('\n');
}

const crashPassed = (r: CrashReport) => r.lost.length === 0 && r.integrityFailures.length === 0 && r.refused.length === 0;

if (import.meta.url === `file://${process.argv[1]}`) {
  const other = await bundleArg();
  const report = await runCrash({
    ...other,
    rounds: numberArg('--rounds', 200),
    writers: numberArg('--writers', 4),
    minWriteMs: numberArg('--min-write-ms', 20),
    maxWriteMs: numberArg('--max-write-ms', 1500),
    seed: numberArg('--seed', newSeed()),
    keep: process.argv.includes('--keep'),
    progress: (line) => console.error(line),
  });
  console.log(`\n${crashSummary(report)}\nnode ${process.version}`);
  if (!crashPassed(report)) process.exitCode = 1;
}
