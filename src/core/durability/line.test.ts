import { describe, expect, it } from 'vitest';
import { Cell, isAfter, newLineCells } from './cells.ts';
import { FlushLine } from './line.ts';

// The flush line as every thread reads it: what waits for a flush, and in what order.
// The flush thread is played here by storing and notifying the cells as it does.

/** As the flush thread tells of a flush up to `seq`. */
function flushed(cells: Int32Array, seq: number): void {
  Atomics.store(cells, Cell.Flushed, seq);
  Atomics.notify(cells, Cell.Flushed);
}

/** A turn of the event loop and the promises due in it. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('FlushLine', () => {
  it('a read waits for every commit begun before it, not for one begun after', async () => {
    const cells = newLineCells();
    const line = new FlushLine(cells, (err) => expect.fail(String(err)));
    expect(line.covering()).toBeUndefined();
    // Commit 1 begun (a read may see it), not flushed.
    Atomics.store(cells, Cell.Begun, 1);
    let answered = false;
    const read = line.covering()!;
    void read.then(() => (answered = true));
    await turn();
    expect(answered).toBe(false);
    // Commit 2 begins meanwhile; the flush of 1 answers the read that saw up to 1.
    Atomics.store(cells, Cell.Begun, 2);
    flushed(cells, 1);
    await read;
    expect(answered).toBe(true);
    expect(line.clear).toBe(false);
    flushed(cells, 2);
    expect(line.clear).toBe(true);
  });

  it('runs what waits in the order asked, each once its commit is flushed; at once when nothing waits', async () => {
    const cells = newLineCells();
    const line = new FlushLine(cells, (err) => expect.fail(String(err)));
    const ran: string[] = [];
    line.after(0, () => ran.push('flushed already'));
    expect(ran).toEqual(['flushed already']);
    line.after(1, () => ran.push('a'));
    line.after(2, () => ran.push('b'));
    // Asked after b, though its commit is flushed: it does not overtake b.
    line.after(1, () => ran.push('c'));
    flushed(cells, 1);
    await until(() => ran.length === 2);
    expect(ran).toEqual(['flushed already', 'a']);
    flushed(cells, 2);
    await until(() => ran.length === 4);
    expect(ran).toEqual(['flushed already', 'a', 'b', 'c']);
  });

  it('a callback that throws is reported; the others still run', async () => {
    const cells = newLineCells();
    const failures: unknown[] = [];
    const line = new FlushLine(cells, (err) => failures.push(err));
    const ran: number[] = [];
    line.after(1, () => {
      throw new Error('a bug of the caller');
    });
    line.after(1, () => ran.push(1));
    flushed(cells, 1);
    await until(() => ran.length === 1);
    expect(failures).toHaveLength(1);
  });

  it('compares sequence numbers across the wrap-around of 32 bits', () => {
    expect(isAfter(2, 1)).toBe(true);
    expect(isAfter(1, 2)).toBe(false);
    expect(isAfter(1, 1)).toBe(false);
    expect(isAfter(-2147483648, 2147483647)).toBe(true);
    expect(isAfter(2147483647, -2147483648)).toBe(false);
  });
});

/** Polls, a turn at a time, until the check holds (the wake-up comes through the event loop). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await turn();
  }
}
