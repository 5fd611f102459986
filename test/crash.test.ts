import { beforeAll, describe, expect, it } from 'vitest';
import { crashSummary, runCrash, type CrashReport } from '../scripts/reliability/crash.ts';
import { checkEvents, expectations, WRITE_KINDS, type HistoryEvent, type Write } from '../scripts/reliability/crash-workload.ts';

// The crash suite's short form: three rounds of kill -9 under four concurrent writers
// and a conveyor PLC booking units over OSIP (the HTTP thread's writes and the PLC's
// commit side by side) against the real bundle (built by the global setup). The long form and the figures
// of a long run: `npm run test:crash`, RELIABILITY.md.

describe('crash suite, short form', () => {
  let report: CrashReport;

  beforeAll(async () => {
    report = await runCrash({ rounds: 3, writers: 4, minWriteMs: 300, maxWriteMs: 800 });
  });

  it('writes of every kind were acknowledged in every round before the kill', () => {
    expect(report.rounds).toBe(3);
    for (const kind of WRITE_KINDS) expect(report.acknowledged[kind], `${kind}\n${crashSummary(report)}`).toBeGreaterThan(0);
    expect(report.plcBookings, crashSummary(report)).toBeGreaterThan(0);
    expect(report.refused, crashSummary(report)).toEqual([]);
  });

  it('every acknowledged write is there after the restart, in the state and in the event log, whose ids follow one another', () => {
    expect(report.lost, crashSummary(report)).toEqual([]);
    expect(report.finalKeys).toBeGreaterThan(0);
  });

  it('the database and the logs database pass integrity_check after each kill and after the clean stop', () => {
    expect(report.integrityFailures, crashSummary(report)).toEqual([]);
    expect(report.integrityChecks).toBe(2 * 3 + 2);
  });
});

describe('crash suite, its check of the writes', () => {
  const w = (kind: Write['kind'], key: string, value: string | boolean, state: Write['state'] = 'acknowledged'): Write => ({ kind, key, value, state });
  const event = (id: number, type: string, key: string, data: Record<string, unknown>): HistoryEvent => ({
    id,
    type,
    subject: { kind: type.startsWith('location') ? 'location' : 'transportUnit', key },
    data,
  });
  const L = 'C1/R1/1/0/0';
  const M = 'C1/R1/2/0/0';
  const writes = [w('location.create', L, true), w('location.create', M, true), w('unit.create', 'C1R1N3', L), w('unit.move', 'C1R1N3', M, 'in-flight')];
  const own = (key: string) => key.startsWith('C1');
  const complete = [
    event(1, 'location.created', L, {}),
    event(2, 'location.created', M, {}),
    event(3, 'transportUnit.created', 'C1R1N3', { actualLocation: L }),
  ];

  it('accepts the events of the acknowledged writes, with or without the one in flight', () => {
    expect(checkEvents(expectations(writes), complete, own)).toEqual([]);
    expect(checkEvents(expectations(writes), [...complete, event(4, 'transportUnit.moved', 'C1R1N3', { to: M })], own)).toEqual([]);
  });

  it('reports an acknowledged write without its event, and an event no write explains', () => {
    expect(checkEvents(expectations(writes), complete.slice(1), own).map((f) => f.key)).toEqual([L]);
    const phantom = [...complete, event(4, 'transportUnit.moved', 'C1R1N3', { to: L })];
    expect(checkEvents(expectations(writes), phantom, own).map((f) => f.key)).toEqual(['C1R1N3']);
    expect(checkEvents(expectations(writes), [...complete, event(5, 'location.created', 'C1/R1/9/0/0', {})], own)).toHaveLength(1);
  });

  it('allows a unit the old or the new place after a move in flight, and nothing else', () => {
    const unit = expectations(writes).get('unit:C1R1N3')!;
    expect(unit.allowed).toEqual([L, M]);
    expect(unit.mustExist).toBe(true);
  });
});
