import { describe, expect, it } from 'vitest';
import { captureLog } from '../../test/support/plc.ts';
import { BACKOFF_MS, Backoff, ProblemLog, hostPort } from './link.ts';

// The retry schedule and the quiet problem log shared by the links.

describe('Backoff', () => {
  it('waits 1 s, 2 s, 5 s, then 10 s for ever', () => {
    const backoff = new Backoff();
    expect(Array.from({ length: 7 }, () => backoff.next(0))).toEqual([1000, 2000, 5000, 10_000, 10_000, 10_000, 10_000]);
    expect(BACKOFF_MS).toEqual([1000, 2000, 5000, 10_000]);
  });

  it('starts over after a connection that stayed up at least 10 s, not after one that dropped at once', () => {
    const backoff = new Backoff();
    backoff.next(0);
    backoff.next(0);
    backoff.opened(1000);
    expect(backoff.next(1500)).toBe(5000); // up for half a second: a flapping peer
    backoff.opened(10_000);
    expect(backoff.next(20_000)).toBe(1000); // up for 10 s: a real connection that ended
    expect(backoff.next(20_000)).toBe(2000);
  });
});

describe('ProblemLog', () => {
  it('logs the first of a run of equal problems, a changed one, and the recovery once', () => {
    const { log, lines } = captureLog();
    const problems = new ProblemLog(log);
    for (let i = 0; i < 5; i++) problems.problem('connect ECONNREFUSED');
    problems.problem('connect EHOSTUNREACH');
    problems.problem('connect EHOSTUNREACH');
    problems.recovered('connected');
    problems.recovered('connected');
    expect(lines().map((l) => [l.level, l.msg, l.problem, l.repeats])).toEqual([
      ['warn', 'link problem; retrying (repeats are not logged)', 'connect ECONNREFUSED', undefined],
      ['warn', 'link problem repeated', 'connect ECONNREFUSED', 4],
      ['warn', 'link problem; retrying (repeats are not logged)', 'connect EHOSTUNREACH', undefined],
      ['info', 'connected after link problem', 'connect EHOSTUNREACH', 1],
    ]);
  });
});

describe('hostPort', () => {
  it('brackets IPv6 addresses', () => {
    expect(hostPort('127.0.0.1', 5020)).toBe('127.0.0.1:5020');
    expect(hostPort('::1', 5020)).toBe('[::1]:5020');
  });
});
