// Fuzz suite: hostile requests over every operation of the route table.
//
//   npm run test:fuzz [-- --requests 50000 --seed N --keep --examples 5 --bundle OTHER/dist/wms.cjs]
//
// The route table is the one the router is built from (routes.ts). The real bundle
// (dist/wms.cjs, built first) runs as a child process on a fresh data directory with
// a small site set up over the API (fuzz-site.ts). Then, one request at a time:
// - once per run, the catalogue's valid create bodies (accepted) and their names with
//   NUL, bidi controls, lone surrogates and bytes that are not UTF-8 (refused);
// - then, operation after operation in turn until `--requests` have been sent, the
//   next case of the operation's pool (fuzz-cases.ts): forged credentials, hostile
//   path and query values, malformed, mistyped, huge and deeply nested bodies, odd
//   content types, methods and headers, raw bytes that are not HTTP.
// Each reply is judged (fuzz-checks.ts): no 5xx, the error formats of the API conventions (README, "API"),
// an X-Request-Id, no stack trace or file content, what the case expects. After each
// request the event log is read from the last event seen, and the write-ahead log's
// modification stamp compared: a refused request must leave both alone. At the end:
// the process still runs and answers, no error-level line was logged, it stops
// cleanly, and its database passes `PRAGMA integrity_check`.
//
// Exits 1 when anything was found; findings are listed by category with the request
// and the reply.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../build.ts';
import { apiOf, checkDatabaseFile, login, startChild, type ChildAppliance, type LogLine } from './appliance.ts';
import { fieldsFromValidation, fixedCases, pathOf, poolFor, type CaseContext, type CaseMaker } from './fuzz-cases.ts';
import { CATEGORIES, describeOutcome, describeRequest, judge, type Category, type Finding, type FuzzCase } from './fuzz-checks.ts';
import { CATALOGUE, CHANNEL, seedSite } from './fuzz-site.ts';
import { HttpClient, rawExchange, type Outcome } from './http.ts';
import { newSeed, Random } from './random.ts';
import { routeTable, type Operation } from './routes.ts';
import { numberArg } from '../args.ts';
import { bundleArg } from './cli.ts';

interface FuzzOptions {
  /** Hostile requests to send (the fixed cases count too). */
  requests: number;
  seed?: number;
  keep?: boolean;
  /** Another build's bundle to test (default: dist/wms.cjs). */
  bundle?: string;
  progress?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  operations: number;
  /** Requests sent, of them raw (not HTTP a client would send). */
  requests: number;
  raw: number;
  /** Replies by class: `2xx`, `4xx`, `5xx`, … , `501 (intended)` and `none`. */
  replies: Record<string, number>;
  /** Operations that got at least one case. */
  operationsCovered: number;
  findings: Finding[];
  byCategory: Partial<Record<Category, number>>;
  /** Warn-level log lines by message. */
  warnings: Record<string, number>;
  /** Fields learnt from validation errors, for operations outside the catalogue. */
  fieldsLearnt: number;
  /** Whether the write-ahead log's stamp could serve as a second change detector. */
  fileStampUsed: boolean;
  durationMs: number;
}

/** The appliance as the fuzz suite runs it: no timer raises an alarm on its own while it runs. */
const CONFIG = {
  alarms: { minFreeDiskMb: 0, channelDownSeconds: 86_400 },
  auth: { tokenTtlSeconds: 86_400 },
  plc: { channels: [{ name: CHANNEL, transport: 'tcp-server', host: '127.0.0.1', port: 0 }] },
};

const ms = () => Number(process.hrtime.bigint() / 1_000_000n);

/** Changes seen from outside: the events after the newest one seen, and the write-ahead log's stamp. */
class ChangeWatch {
  private lastId = 0;
  private lastAt = '1970-01-01T00:00:00.000Z';
  useStamp = true;
  private readonly client: HttpClient;
  private readonly token: string;
  private readonly wal: string;

  constructor(client: HttpClient, token: string, dataDir: string) {
    this.client = client;
    this.token = token;
    // The write-ahead log only: every commit appends to it. The database file itself is
    // written by checkpoints, which the log writer thread takes on its own time and which
    // copy what earlier requests committed (docs/realtime.md).
    this.wal = path.join(dataDir, 'wms.sqlite-wal');
  }

  stamp(): string {
    if (!this.useStamp) return '';
    try {
      const s = statSync(this.wal, { bigint: true });
      return `${s.mtimeNs}:${s.size}`;
    } catch {
      return '-';
    }
  }

  /** Events newer than the newest seen; they become the newest seen. */
  async newEvents(): Promise<{ id: number; type: string; at: string }[]> {
    const fresh: { id: number; type: string; at: string }[] = [];
    let next: string | undefined = `/v1/events/history?from=${encodeURIComponent(this.lastAt)}&limit=1000`;
    while (next) {
      const reply = await this.client.send({ method: 'GET', path: next, headers: [['Authorization', `Bearer ${this.token}`]] });
      if (reply.kind !== 'reply' || reply.status !== 200) throw new Error(`reading the event history: ${describeOutcome(reply)}`);
      for (const e of reply.json as { id: number; type: string; at: string }[]) if (e.id > this.lastId) fresh.push(e);
      const link = reply.headers.link as string | undefined;
      const m = link ? /<https?:\/\/[^/]+([^>]+)>;\s*rel="next"/.exec(link) : null;
      next = m ? m[1] : undefined;
    }
    for (const e of fresh) {
      this.lastId = Math.max(this.lastId, e.id);
      if (e.at > this.lastAt) this.lastAt = e.at;
    }
    return fresh;
  }
}

function shuffle<T>(items: T[], random: Random): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** The request id a case sends (`fz-<n>`), to find its log lines. */
function requestIdOf(c: FuzzCase): string | undefined {
  if (c.request) return c.request.headers?.find(([n]) => n.toLowerCase() === 'x-request-id')?.[1];
  return /X-Request-Id: (fz-\d+)/.exec(Buffer.concat(c.raw!.bytes.map((b) => b.subarray(0, 4096))).toString('latin1'))?.[1];
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? newSeed();
  const random = new Random(seed);
  const progress = options.progress ?? (() => {});
  const started = ms();
  const operations = await routeTable();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wms-fuzz-'));
  const report: FuzzReport = {
    seed,
    operations: operations.length,
    requests: 0,
    raw: 0,
    replies: {},
    operationsCovered: 0,
    findings: [],
    byCategory: {},
    warnings: {},
    fieldsLearnt: 0,
    fileStampUsed: true,
    durationMs: 0,
  };
  let app: ChildAppliance | undefined;
  let client: HttpClient | undefined;
  try {
    app = await startChild(dataDir, { config: CONFIG, ...(options.bundle ? { bundle: options.bundle } : {}) });
    const appliance = app;
    client = new HttpClient(app.url);
    const http = client;
    const token = await login(client);
    const site = await seedSite(apiOf(client, token));
    let counter = 0;
    const ctx: CaseContext = { token, site, random, host: new URL(app.url).host, fields: new Map(), next: () => ++counter };
    await learnFields(http, ctx, operations);
    report.fieldsLearnt = [...ctx.fields.values()].reduce((n, f) => n + f.length, 0);
    const watch = new ChangeWatch(http, token, dataDir);
    await watch.newEvents();
    report.fileStampUsed = watch.useStamp = await stampIsQuiet(watch, http, token);
    /** Request id → the request, for the log lines that name it. */
    const sentById = new Map<string, { op: string; label: string; request: string }>();
    const covered = new Set<string>();
    const bodyless = new Set(operations.filter((o) => o.body.length === 1 && o.body[0] === 'none').map((o) => o.name));
    let previous = '-';

    const runCase = async (c: FuzzCase): Promise<boolean> => {
      const before = watch.stamp();
      const outcome: Outcome = c.raw
        ? await rawExchange(appliance.url, c.raw.bytes, c.raw.endAfterWrite ? { endAfterWrite: true } : {})
        : await http.send(c.request!);
      report.requests++;
      if (c.raw) report.raw++;
      covered.add(c.op);
      const cls =
        outcome.kind === 'none' ? 'none' : c.intended?.includes(outcome.status) ? `${outcome.status} (intended)` : `${Math.floor(outcome.status / 100)}xx`;
      report.replies[cls] = (report.replies[cls] ?? 0) + 1;
      const id = requestIdOf(c);
      if (id) sentById.set(id, { op: c.op, label: c.label, request: describeRequest(c).slice(0, 600) });
      report.findings.push(...judge(c, outcome, ROOT));
      // Still there: the process every time, an answer to /healthz every 50 requests and after raw bytes.
      if (!appliance.running() || ((c.raw || report.requests % 50 === 0) && !(await answers(http)))) {
        const exit = appliance.running() ? 'it stopped answering /healthz' : `it exited (${(await appliance.exited).signal ?? (await appliance.exited).code})`;
        report.findings.push({
          category: 'crash',
          op: c.op,
          label: `${c.label}: ${exit}`,
          request: describeRequest(c),
          reply: `${describeOutcome(outcome)}; stderr: ${appliance.stderr().slice(-1500)}`,
        });
        return false;
      }
      // A route that reads no body runs as soon as the headers are in: a request to it
      // may be carried out although it got no reply, or a refusal of what came after
      // the headers. Its effects, also those that come later (a backup), are waited for
      // and taken as its own, not as those of the next request. (A 2xx comes after the work.)
      const mayRunLate = c.unsafe && bodyless.has(c.op) && (outcome.kind === 'none' ? !c.raw?.incomplete : outcome.status >= 400 && sendsBody(c));
      const events = mayRunLate ? await settled(watch) : await watch.newEvents();
      // Without a reply a request counts as refused only when it cannot have been carried out.
      const refused = outcome.kind === 'reply' ? outcome.status >= 400 : !!c.raw?.incomplete;
      if (refused) {
        const changes = [
          ...(events.length ? [`events ${events.map((e) => `${e.id} ${e.type}`).join(', ')}`] : []),
          ...(watch.stamp() !== before ? ['the database was written (its write-ahead log)'] : []),
        ];
        if (changes.length) {
          report.findings.push({
            category: 'changed-on-refusal',
            op: c.op,
            label: `${c.label}: ${changes.join('; ')} (the request before it: ${previous})`,
            request: describeRequest(c),
            reply: describeOutcome(outcome),
          });
        }
      }
      previous = `${c.op} | ${c.label} → ${outcome.kind === 'none' ? 'no reply' : outcome.status}`;
      if (report.requests % 5000 === 0) progress(`${report.requests} requests, ${report.findings.length} findings`);
      return true;
    };

    let alive = true;
    for (const c of fixedCases(ctx)) {
      if (!(alive = await runCase(c))) break;
    }
    const pools = new Map<Operation, CaseMaker[]>(operations.map((op) => [op, shuffle(poolFor(op), random)]));
    for (let turn = 0; alive && report.requests < options.requests; turn++) {
      for (const op of operations) {
        const pool = pools.get(op)!;
        if (turn > 0 && turn % pool.length === 0) shuffle(pool, random);
        if (!(alive = await runCase(pool[turn % pool.length]!.make(ctx)))) break;
        if (report.requests >= options.requests) break;
      }
    }
    report.operationsCovered = covered.size;

    // The end: error lines of the whole run, a clean stop, a healthy database file.
    await new Promise((r) => setTimeout(r, 200)); // lines of the last requests
    for (const line of appliance.notable) {
      if (line.level === 'warn') {
        const key = String(line.msg);
        report.warnings[key] = (report.warnings[key] ?? 0) + 1;
        continue;
      }
      const id = typeof line.requestId === 'string' ? line.requestId : undefined;
      const source = id ? sentById.get(id) : undefined;
      report.findings.push({
        category: 'error-log',
        op: source?.op ?? '-',
        label: `${source?.label ?? 'no request named'}: logged ${String(line.level ?? 'unparsed')} "${String(line.msg)}"`,
        request: source?.request ?? '-',
        reply: logText(line),
      });
    }
    if (alive) {
      const exit = await appliance.stop();
      if (exit.code !== 0)
        report.findings.push({
          category: 'crash',
          op: '-',
          label: `the clean stop ended with ${exit.code ?? exit.signal}`,
          request: 'SIGTERM',
          reply: appliance.stderr().slice(-1500),
        });
      for (const problem of checkDatabaseFile(path.join(dataDir, 'wms.sqlite'))) {
        report.findings.push({ category: 'crash', op: '-', label: `database after the run: ${problem}`, request: 'PRAGMA integrity_check', reply: '-' });
      }
    }
  } finally {
    client?.close();
    if (app?.running()) await app.kill();
    report.durationMs = ms() - started;
    if (options.keep) progress(`data directory kept: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
  for (const f of report.findings) report.byCategory[f.category] = (report.byCategory[f.category] ?? 0) + 1;
  return report;
}

/** Whether a case sends a body (bytes after the header section). */
function sendsBody(c: FuzzCase): boolean {
  if (c.request) return c.request.body !== undefined && Buffer.byteLength(c.request.body) > 0;
  const bytes = Buffer.concat(c.raw!.bytes);
  const end = bytes.indexOf('\r\n\r\n');
  return end >= 0 && bytes.length > end + 4;
}

/** Events until none came for 100 ms (at most 3 s). */
async function settled(watch: ChangeWatch): Promise<{ id: number; type: string; at: string }[]> {
  const events = await watch.newEvents();
  for (let quiet = 0, waited = 0; quiet < 100 && waited < 3000; waited += 25) {
    await new Promise((r) => setTimeout(r, 25));
    const more = await watch.newEvents();
    events.push(...more);
    quiet = more.length ? 0 : quiet + 25;
  }
  return events;
}

async function answers(client: HttpClient): Promise<boolean> {
  const reply = await client.send({ method: 'GET', path: '/healthz', timeoutMs: 10_000 });
  return reply.kind === 'reply' && reply.status === 200;
}

/** The write-ahead log must not change while only reads run; if it does, its stamp cannot tell a refused request's write. */
async function stampIsQuiet(watch: ChangeWatch, client: HttpClient, token: string): Promise<boolean> {
  const before = watch.stamp();
  for (const p of ['/v1/locations', '/users', '/v1/events/history?limit=1']) {
    await client.send({ method: 'GET', path: p, headers: [['Authorization', `Bearer ${token}`]] });
  }
  await watch.newEvents();
  return watch.stamp() === before;
}

/** Top-level fields of JSON operations outside the catalogue, from their validation errors (into `ctx.fields`). */
async function learnFields(client: HttpClient, ctx: CaseContext, operations: readonly Operation[]): Promise<void> {
  for (const op of operations) {
    if (!op.body.includes('json') || CATALOGUE.some((e) => e.op === op.name) || op.method === 'GET') continue;
    for (const body of ['{}', '[{}]']) {
      const reply = await client.send({
        method: op.method,
        path: pathOf(op, ctx),
        headers: [
          ['Authorization', `Bearer ${ctx.token}`],
          ['Content-Type', 'application/json'],
        ],
        body,
      });
      const message = reply.kind === 'reply' ? (reply.json as { message?: unknown } | undefined)?.message : undefined;
      const learnt = typeof message === 'string' ? fieldsFromValidation(message) : [];
      if (learnt.length) {
        ctx.fields.set(op.name, learnt);
        break;
      }
    }
  }
}

function logText(line: LogLine): string {
  const err = line.err as { message?: string; stack?: string } | undefined;
  const text = JSON.stringify({ ...line, err: err ? { message: err.message, stack: err.stack?.split('\n').slice(0, 4).join(' | ') } : undefined });
  return text.length > 1200 ? `${text.slice(0, 1200)}…` : text;
}

export function fuzzSummary(r: FuzzReport, examples = 5): string {
  const lines = [
    `fuzz suite: ${r.requests} hostile requests (${r.raw} raw) over ${r.operationsCovered} of ${r.operations} operations, seed ${r.seed}, ${(r.durationMs / 1000).toFixed(1)} s`,
    `replies: ${Object.entries(r.replies)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `fields learnt from validation errors: ${r.fieldsLearnt}; write-ahead log stamp ${r.fileStampUsed ? 'used' : 'not usable'} as a second change detector`,
    `warnings logged: ${
      Object.entries(r.warnings)
        .map(([k, v]) => `"${k}" ${v}`)
        .join(', ') || 'none'
    }`,
    `findings: ${r.findings.length}`,
  ];
  for (const category of Object.keys(CATEGORIES) as Category[]) {
    const found = r.findings.filter((f) => f.category === category);
    if (!found.length) continue;
    lines.push(`\n${category} (${CATEGORIES[category]}): ${found.length}`);
    // One example per operation and label kind first, so that one defect does not hide another.
    const seen = new Set<string>();
    const distinct = found.filter((f) => {
      const key = f.label.replace(/\d+/g, '#').slice(0, 60);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    for (const f of distinct.slice(0, examples)) lines.push(`  - ${f.op} | ${f.label}\n      request: ${f.request}\n      reply:   ${f.reply}`);
    if (distinct.length > examples) lines.push(`  … ${distinct.length - examples} more distinct`);
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const other = await bundleArg();
  const report = await runFuzz({
    requests: numberArg('--requests', 50_000),
    seed: numberArg('--seed', newSeed()),
    keep: process.argv.includes('--keep'),
    ...other,
    progress: (line) => console.error(line),
  });
  console.log(`${fuzzSummary(report, numberArg('--examples', 5))}\nnode ${process.version}`);
  if (report.findings.length > 0) process.exitCode = 1;
}
