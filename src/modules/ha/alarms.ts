import type { PairStatus } from '../../ha/status.ts';
import type { AlarmService } from '../alarms/service.ts';

// The pair's alarms (docs/ha.md, docs/events.md), raised by the active alone: its
// database is the pair's, and the standby's is read-only. Every failover raises one
// (cleared when acknowledged); each finding of `degraded` (src/ha/health.ts) that has
// lasted RAISE_AFTER_MS raises one, cleared once the finding is gone. A finding has to
// last so that a box that restarts (a switchover, an upgrade) is not an alarm each time.

const CHECK_MS = 1000;
export const RAISE_AFTER_MS = 10_000;

/** Which alarm kind each finding raises. */
const KINDS = {
  standbyMissing: { kind: 'pair.standbyMissing', severity: 'major' },
  standbyLagging: { kind: 'pair.standbyLagging', severity: 'minor' },
  activeMissing: { kind: 'pair.standbyMissing', severity: 'major' },
  nodeDown: { kind: 'pair.nodeDown', severity: 'major' },
  leaseUnreachable: { kind: 'pair.nodeDown', severity: 'major' },
} as const;

const conditionOf = (kind: string, node: string) => `${kind}:${node}`;

/** Watches the active's status every second; returns the stop. */
export function watchPairAlarms(alarms: AlarmService, status: () => PairStatus): () => void {
  /** Each present finding's condition, and since when (ms) it has been present. */
  const since = new Map<string, number>();
  let failoverRaised: string | undefined;

  const check = () => {
    const now = status();
    if (now.role !== 'active') return;
    const failover = now.lastFailover;
    if (failover?.from !== undefined && failoverRaised !== failover.at) {
      failoverRaised = failover.at;
      alarms.raise({
        condition: `pair.failover:${failover.term}`,
        kind: 'pair.failover',
        severity: failover.planned ? 'warning' : 'major',
        message: `${failover.node} took over from ${failover.from}${failover.planned ? ', which handed over' : ''}`,
        params: { node: failover.node, from: failover.from, cause: failover.planned ? 'handover' : 'failure', term: failover.term },
        source: { kind: 'pair', key: now.pair },
        clearsOnAck: true,
      });
    }
    const present = new Set<string>();
    const open = new Set(alarms.open().map((a) => a.condition));
    for (const finding of now.degraded) {
      const { kind, severity } = KINDS[finding.kind];
      const about = finding.node ?? 'the other box';
      const condition = conditionOf(kind, about);
      present.add(condition);
      const first = since.get(condition) ?? Date.now();
      since.set(condition, first);
      if (open.has(condition) || Date.now() - first < RAISE_AFTER_MS) continue;
      alarms.raise({
        condition,
        kind,
        severity,
        message: finding.message,
        params: { node: about, finding: finding.kind, detail: finding.message },
        source: { kind: 'pair', key: about },
        clearsOnAck: false,
      });
    }
    for (const condition of since.keys()) if (!present.has(condition)) since.delete(condition);
    for (const condition of open) if (isFinding(condition) && !present.has(condition)) alarms.clear(condition);
  };
  const timer = setInterval(check, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

const isFinding = (condition: string) => Object.values(KINDS).some(({ kind }) => condition.startsWith(`${kind}:`));
