import type { Db } from '../../core/db.ts';

// All SQL of the alarms module (db/migrations/0120-event-log.sql, table alarms).

export const SEVERITIES = ['critical', 'major', 'minor', 'warning'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const ALARM_STATES = ['active', 'acknowledged', 'cleared'] as const;
export type AlarmState = (typeof ALARM_STATES)[number];

/** The values an alarm's message is made of, by name: a client words the alarm from its kind and these. */
type AlarmParams = Readonly<Record<string, string | number>>;

export interface Alarm {
  id: number;
  condition: string;
  kind: string;
  severity: Severity;
  state: AlarmState;
  message: string;
  /** Empty for alarms raised before the values were kept. */
  params: AlarmParams;
  source: { kind: string; key: string };
  firstSeen: string;
  lastSeen: string;
  count: number;
  clearsOnAck: boolean;
  acknowledgedBy: string | null;
  acknowledgedAt: string | null;
  ackComment: string | null;
  shelvedUntil: string | null;
  shelvedBy: string | null;
  shelveComment: string | null;
  clearedAt: string | null;
}

interface Row {
  id: number;
  condition: string;
  kind: string;
  severity: Severity;
  state: AlarmState;
  message: string;
  params: string | null;
  source_kind: string;
  source_key: string;
  first_seen: string;
  last_seen: string;
  count: number;
  clears_on_ack: number;
  acknowledged_by: string | null;
  acknowledged_at: string | null;
  ack_comment: string | null;
  shelved_until: string | null;
  shelved_by: string | null;
  shelve_comment: string | null;
  cleared_at: string | null;
}

const toAlarm = (r: Row): Alarm => ({
  id: r.id,
  condition: r.condition,
  kind: r.kind,
  severity: r.severity,
  state: r.state,
  message: r.message,
  params: r.params === null ? {} : (JSON.parse(r.params) as AlarmParams),
  source: { kind: r.source_kind, key: r.source_key },
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
  count: r.count,
  clearsOnAck: r.clears_on_ack === 1,
  acknowledgedBy: r.acknowledged_by,
  acknowledgedAt: r.acknowledged_at,
  ackComment: r.ack_comment,
  shelvedUntil: r.shelved_until,
  shelvedBy: r.shelved_by,
  shelveComment: r.shelve_comment,
  clearedAt: r.cleared_at,
});

export interface NewAlarm {
  condition: string;
  kind: string;
  severity: Severity;
  /** In English, the values filled in; `params` holds the same values by name. */
  message: string;
  params: AlarmParams;
  source: { kind: string; key: string };
  clearsOnAck: boolean;
}

/** Severity order for the open list: critical first. */
const RANK = `CASE severity WHEN 'critical' THEN 0 WHEN 'major' THEN 1 WHEN 'minor' THEN 2 ELSE 3 END`;

export function createAlarmStore(db: Db) {
  const s = {
    byId: db.prepare<[number], Row>('SELECT * FROM alarms WHERE id = ?'),
    open: db.prepare<[string], Row>("SELECT * FROM alarms WHERE condition = ? AND state <> 'cleared'"),
    openOfKind: db.prepare<[string], Row>("SELECT * FROM alarms WHERE kind = ? AND state <> 'cleared'"),
    openAll: db.prepare<[], Row>(`SELECT * FROM alarms WHERE state <> 'cleared' ORDER BY ${RANK}, first_seen, id`),
    inState: db.prepare<[string], Row>(`SELECT * FROM alarms WHERE state = ? ORDER BY ${RANK}, first_seen, id`),
    clearedBefore: db.prepare<[number, number], Row>("SELECT * FROM alarms WHERE state = 'cleared' AND id < ? ORDER BY id DESC LIMIT ?"),
    insert: db.prepare(
      `INSERT INTO alarms (condition, kind, severity, state, message, params, source_kind, source_key, first_seen, last_seen, count, clears_on_ack)
       VALUES (@condition, @kind, @severity, 'active', @message, @params, @sourceKind, @sourceKey, @now, @now, 1, @clearsOnAck)`,
    ),
    repeat: db.prepare('UPDATE alarms SET count = count + 1, last_seen = ?, message = ?, params = ? WHERE id = ?'),
    acknowledge: db.prepare("UPDATE alarms SET state = 'acknowledged', acknowledged_by = ?, acknowledged_at = ?, ack_comment = ? WHERE id = ?"),
    shelve: db.prepare('UPDATE alarms SET shelved_until = ?, shelved_by = ?, shelve_comment = ? WHERE id = ?'),
    clear: db.prepare("UPDATE alarms SET state = 'cleared', cleared_at = ? WHERE id = ?"),
    prune: db.prepare("DELETE FROM alarms WHERE id IN (SELECT id FROM alarms WHERE state = 'cleared' AND cleared_at < ? ORDER BY id LIMIT ?)"),
    unshelvedBySeverity: db.prepare<[string], { severity: Severity; n: number }>(
      `SELECT severity, count(*) AS n FROM alarms
       WHERE state IN ('active', 'acknowledged') AND (shelved_until IS NULL OR shelved_until <= ?) GROUP BY severity`,
    ),
  };
  return {
    byId: (id: number) => {
      const row = s.byId.get(id);
      return row && toAlarm(row);
    },
    openFor: (condition: string) => {
      const row = s.open.get(condition);
      return row && toAlarm(row);
    },
    openOfKind: (kind: string) => s.openOfKind.all(kind).map(toAlarm),
    open: () => s.openAll.all().map(toAlarm),
    inState: (state: AlarmState) => s.inState.all(state).map(toAlarm),
    /** The journal of cleared alarms, newest first, before an id. */
    cleared: (beforeId: number, limit: number) => s.clearedBefore.all(beforeId, limit).map(toAlarm),
    insert(alarm: NewAlarm, now: string): number {
      return Number(
        s.insert.run({
          condition: alarm.condition,
          kind: alarm.kind,
          severity: alarm.severity,
          message: alarm.message,
          params: JSON.stringify(alarm.params),
          sourceKind: alarm.source.kind,
          sourceKey: alarm.source.key,
          now,
          clearsOnAck: alarm.clearsOnAck ? 1 : 0,
        }).lastInsertRowid,
      );
    },
    /** A repeat: counted, its message and values those of the latest. */
    repeat: (id: number, alarm: NewAlarm, now: string) => s.repeat.run(now, alarm.message, JSON.stringify(alarm.params), id),
    acknowledge: (id: number, by: string, comment: string | null, now: string) => s.acknowledge.run(by, now, comment, id),
    shelve: (id: number, until: string, by: string, comment: string | null) => s.shelve.run(until, by, comment, id),
    clear: (id: number, now: string) => s.clear.run(now, id),
    /** Deletes cleared alarms older than `before`, at most `batch`; returns how many. */
    prune: (before: string, batch: number) => s.prune.run(before, batch).changes,
    /** How many open alarms are not shelved at `now`, by severity (every severity named, 0 when none). */
    unshelvedBySeverity(now: string): Record<Severity, number> {
      const counts = Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as Record<Severity, number>;
      for (const row of s.unshelvedBySeverity.all(now)) counts[row.severity] = row.n;
      return counts;
    },
  };
}

export type AlarmStore = ReturnType<typeof createAlarmStore>;
