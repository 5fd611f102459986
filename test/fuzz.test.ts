import { beforeAll, describe, expect, it } from 'vitest';
import type { Category } from '../scripts/reliability/fuzz-checks.ts';
import { fuzzSummary, runFuzz, type FuzzReport } from '../scripts/reliability/fuzz.ts';

// The fuzz suite's short form: a few hostile requests for every operation of the route
// table, and the fixed cases once, against the real bundle (built by the global setup).
// Each check is its own test, so that one defect does not hide another. The long form
// and the figures of a long run: `npm run test:fuzz`, RELIABILITY.md.

/**
 * A fixed seed: CI sends the same requests every run, so a red test is a change of the
 * appliance, not a new draw. Long runs (`npm run test:fuzz`) draw a new seed each time.
 */
const SEED = 20261124;

describe('fuzz suite, short form', () => {
  let report: FuzzReport;

  beforeAll(async () => {
    report = await runFuzz({ requests: 1500, seed: SEED });
  });

  /** The findings of some categories, one line each, for a readable failure. */
  const findings = (...categories: Category[]) =>
    report.findings.filter((f) => categories.includes(f.category)).map((f) => `${f.category} | ${f.op} | ${f.label} | ${f.request} → ${f.reply}`);
  const context = () => `seed ${report.seed}\n${fuzzSummary(report, 2)}`;

  it('reaches every operation of the route table', () => {
    expect(report.operationsCovered, context()).toBe(report.operations);
    expect(report.requests).toBeGreaterThanOrEqual(1500);
  });

  it('the catalogue of valid bodies is still accepted (the cases reach their operations)', () => {
    expect(findings('catalogue'), context()).toEqual([]);
  });

  it('answers no request with a 5xx the appliance does not intend', () => {
    expect(findings('server-error'), context()).toEqual([]);
  });

  it('stays up, answers, stops cleanly and leaves a healthy database', () => {
    expect(findings('crash', 'unanswered'), context()).toEqual([]);
  });

  it('answers every refusal in the spec error format, with a request id and nothing of its inside', () => {
    expect(findings('error-format', 'request-id', 'leak', 'header-injection', 'status'), context()).toEqual([]);
  });

  it("answers what Node's HTTP layer refuses in the spec error format too", () => {
    expect(findings('node-reply'), context()).toEqual([]);
  });

  it('changes nothing for a refused request', () => {
    expect(findings('changed-on-refusal'), context()).toEqual([]);
  });

  it('refuses every request without valid credentials with 401', () => {
    expect(findings('auth'), context()).toEqual([]);
  });

  it('refuses names with NUL, bidi controls or lone surrogates', () => {
    expect(findings('hostile-name-accepted'), context()).toEqual([]);
  });

  it('refuses bodies that are not UTF-8', () => {
    expect(findings('bad-encoding-accepted'), context()).toEqual([]);
  });

  it('logs nothing at error level', () => {
    expect(findings('error-log'), context()).toEqual([]);
  });
});
