import type { BoxProcess } from './ha.ts';
import type { Ack } from './ha-rounds-clients.ts';

// How a run of the pair's long form (test/support/ha-rounds.ts) is judged and told: the
// boxes' lease intervals from their logs, two actives, acknowledgements outside a lease,
// and the lines a run prints.

export const FAULTS = ['kill-active', 'pause-active', 'cut-active', 'witness-down', 'kill-standby', 'switchover'] as const;
export type Fault = (typeof FAULTS)[number];
/** The faults after which the other box acts: their takeover time is measured. */
export const MOVES: ReadonlySet<Fault> = new Set(['kill-active', 'pause-active', 'cut-active', 'switchover']);

/** The lease of the boxes as startBoxProcess starts them (ha.leaseTtlMs). */
export const LEASE_TTL_MS = 5_000;

/** One process of a box, from its start to its end. */
export interface Life {
  process: BoxProcess;
  exitedAt?: number;
  exit?: number | string | null;
  /** SIGSTOP to SIGCONT. */
  paused: { from: number; to: number }[];
}

/** A box of the hall and every process it ran. */
export interface Box {
  name: 'a' | 'b';
  node: string;
  url: string;
  dataDir?: string;
  lives: Life[];
  /** Starts that failed, for the round's report; `output`: what the process said until it was given up. */
  troubles: { at: number; what: string; output: string }[];
}

/** Two boxes holding the lease at once, by their logs. */
export interface Overlap {
  from: number;
  ms: number;
}

export interface RoundResult {
  round: number;
  fault: Fault;
  acknowledged: number;
  /** The writes answered otherwise than 201 (when, and the answer): a switchover refuses none. */
  refused: string[];
  /**
   * The writes not answered at all (when, and the error): the box stood still or died, or
   * the connection was under way in the instant the floating address moved (a switchover:
   * at most one for each client, docs/ha.md).
   */
  cutOff: string[];
  /** Of them, by each box (`box-a`, `box-b`). */
  byBox: Record<string, number>;
  /** From the fault to the first write the other box acknowledged (faults that move the active). */
  takeoverMs?: number;
  /** Of the takeover, by the other box's log: when it took the lease and when it acted, from the fault (ms). */
  tookMs?: number;
  activeMs?: number;
  /** How the boxes' processes ended in the round (`box-a 75`, `box-b SIGKILL`). */
  exits: string[];
  /** Acknowledged writes of this round or before that the active lacked at its end. */
  lost: string[];
  overlaps: Overlap[];
  /** Writes acknowledged by a box while it did not hold the lease. */
  outside: Ack[];
  seconds: number;
}

export interface RoundsReport {
  seed: number;
  /** How many clients wrote. */
  writers: number;
  rounds: RoundResult[];
  acks: Ack[];
  /** Why the run ended early: a round that did not recover, with both boxes' last status. */
  failure?: string;
}

/** A JSON log line; undefined for other output, or a line still being written. */
function logEntry(line: string): { msg?: string; time: number | string } | undefined {
  try {
    return line.startsWith('{') ? (JSON.parse(line) as { msg?: string; time: number | string }) : undefined;
  } catch {
    return undefined;
  }
}

/** Why a process that stepped down ended, as its last fatal line says. */
export function whyEnded(life: Life): string {
  const fatal = life.process.process
    .output()
    .split('\n')
    .map(logEntry)
    .filter((e) => (e as { level?: string } | undefined)?.level === 'fatal')
    .at(-1) as { reason?: string } | undefined;
  return fatal?.reason ? ` (${fatal.reason})` : '';
}

/** How long after `since` the box's log first said `msg`. */
export function loggedAfter(box: Box, msg: string, since: number): number | undefined {
  for (const life of box.lives)
    for (const line of life.process.process.output().split('\n')) {
      const entry = logEntry(line);
      const at = entry && new Date(entry.time).getTime();
      if (entry?.msg === msg && at! >= since) return at! - since;
    }
  return undefined;
}

interface Interval {
  from: number;
  to: number;
}

/**
 * When a box held the lease, by its own log: from `took the lease` to `lost the lease`, or
 * to its process's end. A process stopped (SIGSTOP) does nothing: what it held ends with
 * the stop. The stop outlasts the lease, so by the box's own clock the lease had run out
 * when it woke; anything it acknowledged after waking is outside every interval.
 */
function leaseIntervals(box: Box, now: number): Interval[] {
  const intervals: Interval[] = [];
  for (const life of box.lives) {
    let from: number | undefined;
    const close = (to: number) => {
      const stop = life.paused.find((p) => p.from >= from! && p.from < to);
      intervals.push({ from: from!, to: stop ? stop.from : to });
      from = undefined;
    };
    for (const line of life.process.process.output().split('\n')) {
      const entry = logEntry(line);
      if (!entry) continue;
      const at = new Date(entry.time).getTime();
      if (entry.msg === 'took the lease' && from === undefined) from = at;
      else if (entry.msg === 'lost the lease' && from !== undefined) close(at);
    }
    if (from !== undefined) close(life.exitedAt ?? now);
  }
  return intervals;
}

/**
 * Two actives in round `n`: the two boxes' lease intervals overlapping (begun since the
 * last round was judged), and writes of the round acknowledged by a box that held no
 * lease at any moment it could have answered: between the request's start and its
 * answer, and after the box's last stop if the answer came after it woke (a reply
 * written before a SIGSTOP reaches the client at once: the client does not stand still).
 */
export function judge(boxes: Record<'a' | 'b', Box>, acks: readonly Ack[], n: number, since: number): Pick<RoundResult, 'overlaps' | 'outside'> {
  const now = Date.now();
  const held = { 'box-a': leaseIntervals(boxes.a, now), 'box-b': leaseIntervals(boxes.b, now) } as Record<string, Interval[]>;
  const overlaps = held['box-a']!.flatMap((a) =>
    held['box-b']!.map((b) => ({ from: Math.max(a.from, b.from), ms: Math.min(a.to, b.to) - Math.max(a.from, b.from) })).filter(
      (o) => o.ms > 0 && o.from >= since,
    ),
  );
  const woke = (node: string, ack: Ack) =>
    Object.values(boxes)
      .filter((box) => box.node === node)
      .flatMap((box) => box.lives.flatMap((l) => l.paused.map((p) => p.to)))
      .filter((to) => to <= ack.ackAt)
      .reduce((last, to) => Math.max(last, to), ack.sentAt);
  const outside = acks.filter((a) => a.round === n && a.box !== undefined && !held[a.box]!.some((i) => i.from <= a.ackAt && i.to >= woke(a.box!, a)));
  return { overlaps, outside };
}

export const time = (at: number) => new Date(at).toISOString().slice(11, 23);

/** `writers`: how many clients wrote (a switchover cuts off at most one write of each). */
export function roundLine(r: RoundResult, writers: number): string {
  const takeover = r.takeoverMs === undefined ? '' : `, takeover ${r.takeoverMs} ms (lease taken after ${r.tookMs} ms, active after ${r.activeMs} ms)`;
  const exits = r.exits.length ? `; exits: ${r.exits.join(', ')}` : '';
  const trouble = [
    ...(r.lost.length ? [`LOST ${r.lost.length}: ${r.lost.slice(0, 5).join(' ')}`] : []),
    ...(r.fault === 'switchover' && r.refused.length ? [`${r.refused.length} REFUSED IN A SWITCHOVER: ${r.refused.slice(0, 3).join('; ')}`] : []),
    ...(r.fault === 'switchover' && r.cutOff.length > writers ? [`${r.cutOff.length} CUT OFF IN A SWITCHOVER: ${r.cutOff.slice(0, 4).join('; ')}`] : []),
    ...r.overlaps.map((o) => `TWO ACTIVES for ${o.ms} ms from ${time(o.from)}`),
    ...(r.outside.length
      ? [`${r.outside.length} ACKNOWLEDGED OUTSIDE THE LEASE: ${r.outside.slice(0, 3).map((a) => `${a.locationId} by ${a.box} at ${time(a.ackAt)}`)}`]
      : []),
  ];
  const by = Object.entries(r.byBox)
    .sort()
    .map(([box, count]) => `${box} ${count}`)
    .join(', ');
  const cut = r.cutOff.length ? ` (${r.fault === 'switchover' ? r.cutOff.join('; ') : r.cutOff.length})` : '';
  return `round ${r.round} ${r.fault}: ${r.acknowledged} acknowledged (${by}), ${r.refused.length} refused, ${r.cutOff.length} cut off${cut}${takeover}${exits}; ${r.seconds} s${trouble.length ? `; ${trouble.join('; ')}` : ''}`;
}

/** Nearest rank. */
function quantile(sorted: readonly number[], q: number): number | undefined {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : undefined;
}

/** Whether a switchover round refused no write, and cut off at most one write of each client (the one under way as the address moved). */
export function switchedCleanly(r: RoundResult, writers: number): boolean {
  return r.fault !== 'switchover' || (r.refused.length === 0 && r.cutOff.length <= writers);
}

/**
 * Whether the run found nothing wrong: nothing lost, never two actives, no write refused
 * in a switchover, every round recovered.
 */
export function passed(report: RoundsReport): boolean {
  return (
    !report.failure &&
    report.rounds.every((r) => r.lost.length === 0 && r.overlaps.length === 0 && r.outside.length === 0 && switchedCleanly(r, report.writers))
  );
}

/** The run's summary, as `npm run test:ha` prints it. */
export function summary(report: RoundsReport): string[] {
  const takeovers = (rounds: readonly RoundResult[]) =>
    rounds
      .map((r) => r.takeoverMs)
      .filter((t) => t !== undefined)
      .sort((x, y) => x - y);
  const spread = (t: number[]) => (t.length ? `p50 ${quantile(t, 0.5)} ms, p99 ${quantile(t, 0.99)} ms, max ${t.at(-1)} ms (${t.length})` : '–');
  const twoActives = report.rounds.filter((r) => r.overlaps.length > 0 || r.outside.length > 0).length;
  const lines = [
    `seed ${report.seed}: ${report.rounds.length} rounds, ${report.acks.length} acknowledged writes (${report.acks.filter((a) => !a.box).length} not attributed to a box), ` +
      `lost ${report.rounds.reduce((sum, r) => sum + r.lost.length, 0)}, rounds with two actives ${twoActives}, ` +
      `in switchovers refused ${report.rounds.filter((r) => r.fault === 'switchover').reduce((sum, r) => sum + r.refused.length, 0)}, ` +
      `cut off ${report.rounds.filter((r) => r.fault === 'switchover').reduce((sum, r) => sum + r.cutOff.length, 0)}`,
    `takeover (fault to the first write the other box acknowledged, ha.leaseTtlMs ${LEASE_TTL_MS}): ${spread(takeovers(report.rounds))}`,
  ];
  for (const fault of FAULTS) {
    const of = report.rounds.filter((r) => r.fault === fault);
    if (of.length) lines.push(`  ${fault}: ${of.length} round${of.length > 1 ? 's' : ''}${MOVES.has(fault) ? `, takeover ${spread(takeovers(of))}` : ''}`);
  }
  if (report.failure) lines.push(`FAILED: ${report.failure}`);
  return lines;
}
