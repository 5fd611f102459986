import { describe, expect, it } from 'vitest';
import { pruneUpto } from './retention.ts';

// How far a pruning pass may go: old events go, the newest `maxRows` stay, and events
// not yet exported to the hub (after `keepAfter`) outlive their age but not `maxRows`.

describe('pruneUpto', () => {
  it('prunes what is older than the age limit, a batch at a time', () => {
    expect(pruneUpto(1, 100, 1000, 50, 1000)).toBe(49);
    expect(pruneUpto(1, 100, 1000, 50, 10)).toBe(10);
  });

  it('spares events after keepAfter however old they are', () => {
    expect(pruneUpto(1, 100, 1000, 50, 1000, 20)).toBe(20);
    expect(pruneUpto(1, 100, 1000, 50, 1000, 80)).toBe(49);
  });

  it('keeps at most maxRows, exported or not', () => {
    expect(pruneUpto(1, 100, 10, 50, 1000, 20)).toBe(90);
  });
});
