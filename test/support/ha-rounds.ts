import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUNDLE } from '../../scripts/build.ts';
import { Random } from '../../scripts/reliability/random.ts';
import { boxToken, digestOfBox, roleOf, SERVICE_RESTART_MS, startBoxProcess } from './ha.ts';
import { until as pollUntil } from './warehouse.ts';
import { startFloatingAddress, type FloatingAddress } from './keepalived.ts';
import { untilOneMetaLeader, type NatsServer } from './nats.ts';
import { HALL_PORTS, makeHall, startHallCluster, type BoxName, type Hall } from './netns.ts';
import { missingOn, startWriters, type Ack, type Refusal, type Writers } from './ha-rounds-clients.ts';
import {
  FAULTS,
  judge,
  loggedAfter,
  MOVES,
  roundLine,
  time,
  whyEnded,
  type Box,
  type Fault,
  type Life,
  type RoundResult,
  type RoundsReport,
} from './ha-rounds-verdict.ts';

// The pair's long form (`npm run test:ha`, and three rounds of it in test/ha-rounds.test.ts):
// the hall of test/support/netns.ts with both boxes as processes and the floating address,
// and round after round one fault of a site, picked from a seeded source so that a failing
// run can be repeated, while clients write through the floating address as PLCs and the
// ERP do. After each fault the hall is brought back whole (a box that ended is started
// again on its data directory, as the service's Restart=always does) and the round is
// judged: every write any box acknowledged is on the active, the two databases are the
// same, and no two boxes acted at once. The writers and the read of what they wrote are
// in ha-rounds-clients.ts, how a round is judged and told in ha-rounds-verdict.ts.

export { FAULTS, passed, summary, type Fault, type RoundsReport } from './ha-rounds-verdict.ts';

const PAIR = 'hallr';
const AREA = 'HRND';
/** How long a paused active stands still, and the witness stays away: well past the lease (LEASE_TTL_MS). */
const HOLD_MS = 8_000;
/** Acknowledgements before each fault and after the pair answers again: the pair writes on both sides of it. */
const WRITES_AROUND = 20;

export interface RoundsOptions {
  rounds: number;
  seed: number;
  /** Clients writing through the floating address. */
  writers?: number;
  /** The faults in this order instead of seeded picks (the suite's short form). */
  faults?: readonly Fault[];
  /** Progress, a line at a time. */
  log?: (line: string) => void;
  /** Where close() writes what every box process and node said, for a look at a run (`box-a-1.log`, `node-w.log`). */
  logDir?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const other = (name: 'a' | 'b'): 'a' | 'b' => (name === 'a' ? 'b' : 'a');
const current = (box: Box): Life => box.lives.at(-1)!;
const running = (life: Life) => life.exitedAt === undefined;

/** Waits until `check` holds (support/warehouse.ts polls it); a timeout says what it saw last. */
async function until(what: string, timeoutMs: number, check: () => Promise<boolean> | boolean, seen: () => string = () => ''): Promise<void> {
  await pollUntil(check, what, timeoutMs).catch((error: Error) => {
    throw new Error(`${error.message}${seen() ? ` (${seen()})` : ''}`);
  });
}

/** Ends every appliance process in the namespace (this run's: the namespace is). */
function endAppliances(ns: string): void {
  for (const pid of spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean)) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(BUNDLE)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
}

/**
 * makeHall() with a few more tries: it picks its subnet by its bridge's name, and a run
 * killed earlier may have left a box's link of that number behind (its namespace held by
 * a process that outlived the run).
 */
function freshHall(): Hall {
  for (let attempt = 1; ; attempt++) {
    try {
      return makeHall();
    } catch (error) {
      if (attempt === 5 || !String(error).includes('File exists')) throw error;
    }
  }
}

/** A hall, its pair and its floating address, and the rounds run on them; close() ends every part of it. */
export function hallRounds(options: RoundsOptions) {
  const log = options.log ?? (() => undefined);
  const random = new Random(options.seed);
  const acks: Ack[] = [];
  const refusals: Refusal[] = [];
  const results: RoundResult[] = [];
  const boxes = {} as Record<'a' | 'b', Box>;
  let hall: Hall | undefined;
  let nodes: Record<BoxName, NatsServer> | undefined;
  let floating: FloatingAddress | undefined;
  let token = '';
  let writers: Writers | undefined;
  let closing = false;
  /** Overlaps of the lease that began before this were judged in an earlier round. */
  let judgedUntil = 0;

  /**
   * Starts the appliance on box `name` (on its data directory of before, if any) and keeps
   * it running as the service does (Restart=always, RestartSec=2): whenever the process
   * ends, it is started again two seconds later, each box on its own.
   */
  async function startBox(name: 'a' | 'b'): Promise<void> {
    const box = boxes[name];
    const started = await startBoxProcess({
      pair: PAIR,
      node: box.node,
      natsUrl: `nats://127.0.0.1:${HALL_PORTS.client}`,
      host: '0.0.0.0',
      port: HALL_PORTS.wms,
      url: box.url,
      netns: hall!.boxes[name].ns,
      ...(box.dataDir ? { dataDir: box.dataDir } : {}),
    });
    box.dataDir = started.dataDir;
    const life: Life = { process: started, paused: [] };
    box.lives.push(life);
    if (closing) started.process.child.kill('SIGKILL');
    void started.process.exited.then(async (how) => {
      life.exitedAt = Date.now();
      life.exit = how;
      for (;;) {
        await sleep(SERVICE_RESTART_MS);
        if (closing) return;
        try {
          return await startBox(name);
        } catch (error) {
          // A start that never said it serves (startBoxProcess gave up on it) leaves its process behind: ended here.
          const [what, ...output] = (error as Error).message.split('\n');
          box.troubles.push({ at: Date.now(), what: `${box.node} did not start: ${what}`, output: output.join('\n') });
          endAppliances(hall!.boxes[name].ns);
        }
      }
    });
  }

  /** Which box is active and which standby, by their `GET /v1/ha`; undefined while it is not one of each. */
  async function roles(): Promise<{ active: 'a' | 'b'; standby: 'a' | 'b' } | undefined> {
    const [a, b] = await Promise.all([roleOf(boxes.a.url, token), roleOf(boxes.b.url, token)]);
    if (a === 'active' && b === 'standby') return { active: 'a', standby: 'b' };
    if (b === 'active' && a === 'standby') return { active: 'b', standby: 'a' };
    return undefined;
  }

  /** The floating address is on `name` alone, and the appliance answering there is that box's, acting. */
  async function floatingOn(name: 'a' | 'b'): Promise<boolean> {
    const holders = floating!.holders();
    if (holders.length !== 1 || holders[0] !== name) return false;
    const reply = await fetch(`http://${floating!.ip}:${HALL_PORTS.wms}/v1/ha/active`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
    return reply?.ok === true && ((await reply.json()) as { node: string }).node === boxes[name].node;
  }

  /** Every node of the hall routes to both others (a healed cable is in use again before a box asks over it). */
  async function untilRoutesWhole(): Promise<void> {
    let counts: number[] = [];
    await until(
      'the hall routes whole again',
      60_000,
      async () => {
        counts = await Promise.all(
          Object.values(nodes!).map(async (n) => ((await n.monitor('/routez').catch(() => ({}))) as { num_routes?: number }).num_routes ?? 0),
        );
        return counts.every((c) => c >= 2);
      },
      () => `routes per node: ${counts.join(', ')}`,
    );
  }

  /** The database of the box's present process, as digests; undefined while it cannot be read (a copy being put in place). */
  function digest(box: Box): string | undefined {
    try {
      return digestOfBox(current(box).process);
    } catch {
      return undefined;
    }
  }

  /** One box active, the other standby, the floating address on the active; once the writers stopped, the same databases. */
  async function recover(writing: Writers | undefined): Promise<'a' | 'b'> {
    let pair: Awaited<ReturnType<typeof roles>>;
    await until('one box is active and the other standby', 180_000, async () => (pair = await roles()) !== undefined);
    await writing?.stop();
    const active = pair!.active;
    let seen = '';
    await until(
      `box-${pair!.standby} holds what box-${active} holds, and the floating address is on box-${active}`,
      120_000,
      async () => {
        const a = digest(boxes.a);
        const same = a !== undefined && a === digest(boxes.b);
        const on = await floatingOn(active);
        seen = `digests ${same ? 'equal' : 'differ'}, floating address held by [${floating!.holders().join(', ')}]`;
        return same && on;
      },
      () => seen,
    );
    return active;
  }

  /** Makes the fault and lasts as long as it does; `tookOver`: the other box acknowledged a write since. */
  async function inject(fault: Fault, active: Box, standby: Box, tookOver: () => boolean): Promise<void> {
    const life = current(active);
    const child = life.process.process.child;
    switch (fault) {
      case 'kill-active':
        child.kill('SIGKILL');
        return void (await life.process.process.exited);
      case 'kill-standby':
        current(standby).process.process.child.kill('SIGKILL');
        return void (await current(standby).process.process.exited);
      case 'pause-active': {
        const from = Date.now();
        child.kill('SIGSTOP');
        await sleep(HOLD_MS);
        child.kill('SIGCONT');
        life.paused.push({ from, to: Date.now() });
        log(`  let go at ${time(Date.now())}`);
        // Woken, it finds its lease run out by its own clock and ends.
        return until(`${active.node} ends once woken`, 30_000, () => !running(life));
      }
      case 'cut-active':
        hall!.cut(active.name);
        try {
          await until(`${active.node} ends once cut off`, 60_000, () => !running(life));
          // The cable stays out until the other box acts: one back at the moment of the
          // takeover (a flapping link) is another fault, which delays it by seconds.
          await until(`${standby.node} acknowledges writes while ${active.node} is cut off`, 120_000, tookOver);
        } finally {
          hall!.heal(active.name);
          log(`  healed at ${time(Date.now())}`);
        }
        return untilRoutesWhole();
      case 'witness-down':
        await nodes!.w.stop();
        await sleep(HOLD_MS);
        await nodes!.w.start();
        log(`  the witness's node started again at ${time(Date.now())}`);
        await untilOneMetaLeader(Object.values(nodes!), 'hall');
        return;
      case 'switchover': {
        const reply = await fetch(`${active.url}/v1/ha/switchover`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(10_000),
        });
        if (reply.status !== 202) throw new Error(`switchover on ${active.node}: ${reply.status} ${await reply.text()}`);
      }
    }
  }

  async function round(n: number, fault: Fault, active: 'a' | 'b'): Promise<'a' | 'b'> {
    const startedAt = Date.now();
    const lives = { a: boxes.a.lives.length, b: boxes.b.lives.length };
    // A token of its own each round, as a long run outlasts one; a login is a write, the active's to answer.
    token = await boxToken(boxes[active].url);
    const writing = startWriters(floating!.ip, AREA, n, options.writers ?? 3, () => token, acks, refusals);
    writers = writing;
    const mine = () => acks.filter((a) => a.round === n);
    await until(`writes are acknowledged before the fault`, 60_000, () => mine().length >= WRITES_AROUND);
    const faultAt = Date.now();
    log(`round ${n}: ${fault} at ${time(faultAt)} (box-${active} active)`);
    // The pair answers again: the other box, where the fault moves the active.
    const by = MOVES.has(fault) ? boxes[other(active)].node : undefined;
    const after = () => mine().filter((a) => a.ackAt > faultAt && (by === undefined || a.box === by));
    await inject(fault, boxes[active], boxes[other(active)], () => after().length > 0);
    await until(by ? `${by} acknowledges writes after the fault` : 'writes are acknowledged after the fault', 120_000, () => after().length >= WRITES_AROUND);
    const settled = await recover(writing);
    const result: RoundResult = {
      round: n,
      fault,
      acknowledged: mine().length,
      refused: refusals.filter((r) => r.round === n && r.status !== undefined).map((r) => `${time(r.at)} ${r.why}`),
      cutOff: refusals.filter((r) => r.round === n && r.status === undefined).map((r) => `${time(r.at)} ${r.why}`),
      byBox: mine().reduce<Record<string, number>>((counts, a) => ({ ...counts, [a.box ?? 'unattributed']: (counts[a.box ?? 'unattributed'] ?? 0) + 1 }), {}),
      ...(by
        ? {
            takeoverMs: after()[0]!.ackAt - faultAt,
            tookMs: loggedAfter(boxes[other(active)], 'took the lease', faultAt),
            activeMs: loggedAfter(boxes[other(active)], 'this box is now active', faultAt),
          }
        : {}),
      exits: (['a', 'b'] as const).flatMap((name) => [
        ...boxes[name].lives
          .slice(Math.max(0, lives[name] - 1))
          .filter((l) => l.exitedAt !== undefined && l.exitedAt >= startedAt)
          .map((l) => `${boxes[name].node} ${l.exit}${whyEnded(l)}`),
        ...boxes[name].troubles.filter((t) => t.at >= startedAt).map((t) => t.what),
      ]),
      lost: await missingOn(boxes[settled].url, AREA, token, acks, new Set(results.flatMap((r) => r.lost))),
      ...judge(boxes, acks, n, judgedUntil),
      seconds: Math.round((Date.now() - startedAt) / 1000),
    };
    judgedUntil = Date.now();
    results.push(result);
    log(roundLine(result, options.writers ?? 3));
    return settled;
  }

  /** What both boxes say of themselves, and how their logs end: for a round that did not recover. */
  async function lastStatus(): Promise<string> {
    const lines: string[] = [];
    for (const box of Object.values(boxes)) {
      const life = box.lives.at(-1);
      const reply = await fetch(`${box.url}/v1/ha`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5_000) }).catch(
        (error: Error) => error,
      );
      const status = reply instanceof Error ? `no answer (${reply.message})` : `${reply.status} ${await reply.text()}`;
      lines.push(`${box.node} (${life && !running(life) ? `exited ${life.exit}` : 'running'}): GET /v1/ha ${status}`);
      // A start given up on says where it waited (joining, with no active to copy from?).
      for (const t of box.troubles.slice(-2))
        lines.push(
          `  ${t.what}; it said last:`,
          ...t.output
            .trimEnd()
            .split('\n')
            .slice(-6)
            .map((l) => `    ${l}`),
        );
      lines.push(...(life?.process.process.output().trimEnd().split('\n').slice(-25) ?? []).map((l) => `  ${l}`));
    }
    return lines.join('\n');
  }

  return {
    async run(): Promise<RoundsReport> {
      log(`seed ${options.seed}`);
      hall = freshHall();
      for (const name of ['a', 'b'] as const)
        boxes[name] = { name, node: `box-${name}`, url: `http://${hall.boxes[name].accessIp}:${HALL_PORTS.wms}`, lives: [], troubles: [] };
      nodes = await startHallCluster(hall);
      await startBox('a');
      token = await boxToken(boxes.a.url);
      await until('box-a, the first, is active', 60_000, async () => (await roleOf(boxes.a.url, token)) === 'active');
      await startBox('b');
      floating = startFloatingAddress(hall);
      let active = await recover(undefined);
      log(`the hall is up: box-${active} active, the floating address ${floating.ip}`);
      for (let n = 1; n <= options.rounds; n++) {
        const fault = options.faults?.[n - 1] ?? random.pick(FAULTS);
        try {
          active = await round(n, fault, active);
        } catch (error) {
          await writers?.stop();
          const failure = `round ${n} (${fault}, seed ${options.seed}) did not recover: ${(error as Error).message}\n${await lastStatus()}`;
          return { seed: options.seed, writers: options.writers ?? 3, rounds: results, acks, failure };
        }
      }
      return { seed: options.seed, writers: options.writers ?? 3, rounds: results, acks };
    },

    /** Ends every process of the hall and removes its namespaces; safe to call at any moment, and again. */
    async close(): Promise<void> {
      closing = true;
      await writers?.stop();
      if (options.logDir) {
        mkdirSync(options.logDir, { recursive: true });
        for (const box of Object.values(boxes)) {
          box.lives.forEach((life, i) => writeFileSync(path.join(options.logDir!, `${box.node}-${i + 1}.log`), life.process.process.output()));
          box.troubles.forEach((t, i) => writeFileSync(path.join(options.logDir!, `${box.node}-not-started-${i + 1}.log`), t.output));
        }
        for (const [name, node] of Object.entries(nodes ?? {})) writeFileSync(path.join(options.logDir, `node-${name}.log`), node.log());
      }
      for (const box of Object.values(boxes))
        for (const life of box.lives.filter(running)) {
          life.process.process.child.kill('SIGKILL');
          await life.process.process.exited;
        }
      // One still starting has no handle yet.
      for (const box of Object.values(hall?.boxes ?? {})) endAppliances(box.ns);
      await floating?.close();
      await Promise.all(Object.values(nodes ?? {}).map((node) => node.close()));
      hall?.close();
    },
  };
}
