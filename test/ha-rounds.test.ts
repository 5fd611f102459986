// The short form of `npm run test:ha` (test/support/ha-rounds.ts): the pair in the hall of
// network namespaces, three rounds with the faults that move the active most often on a
// site, in a fixed order: the active killed, its cluster link cut, a planned switchover;
// clients writing through the floating address throughout. Nothing any box acknowledged
// is lost, no two boxes act at once, the switchover refuses no write, and each round ends with one active, one standby
// holding the same database and the floating address on the active.

import { afterAll, expect, it } from 'vitest';
import { hallRounds, summary } from './support/ha-rounds.ts';

const rounds = hallRounds({ rounds: 3, seed: 1, faults: ['kill-active', 'cut-active', 'switchover'], log: (line) => console.log(line) });
afterAll(() => rounds.close());

it('three faults under writes through the floating address: nothing acknowledged lost, never two actives, no write refused in the switchover', async () => {
  const report = await rounds.run();
  const said = summary(report).join('\n');
  expect(report.failure, said).toBeUndefined();
  expect(report.rounds.map((r) => r.fault)).toEqual(['kill-active', 'cut-active', 'switchover']);
  expect(
    report.rounds.flatMap((r) => r.lost),
    said,
  ).toEqual([]);
  expect(
    report.rounds.flatMap((r) => r.overlaps),
    said,
  ).toEqual([]);
  expect(
    report.rounds.flatMap((r) => r.outside),
    said,
  ).toEqual([]);
  // The switchover refused nothing: what reached the former active meanwhile was held and
  // answered by the new one. A write under way in the instant the floating address moved
  // may be cut off (at most one of each client): its connection's packets reach the other box.
  const switchover = report.rounds.find((r) => r.fault === 'switchover')!;
  expect(switchover.refused, said).toEqual([]);
  expect(switchover.cutOff.length, said).toBeLessThanOrEqual(report.writers);
  // Each fault moved the active, and the other box acknowledged writes after it.
  for (const r of report.rounds) expect(r.takeoverMs, said).toBeGreaterThan(0);
}, 600_000);
