import { closeSync, fsyncSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { Cell, Stat, type FlushThreadData, type FlushThreadMessage } from './cells.ts';

// The flush thread (docs/realtime.md, "Answers after the flush"): it flushes the
// database's write-ahead log to disk whenever the conveyor thread has committed since
// the last flush, and stores up to which commit the flush got. One flush covers every
// commit made before it began, so under load one flush answers for many commits.
//
// It does nothing else and has no event loop to turn: it sleeps in Atomics.wait until
// a commit wakes it, then in fsync. It runs at the conveyor thread's priority (a thread
// starts with the priority of the one that starts it): the answers to the PLCs wait for
// it. A flush that fails ends it: what the disk holds of the commits since the last
// good flush is unknown, so nothing of them may be acknowledged (index.ts).

const { file, cells, stats } = workerData as FlushThreadData;
const port = parentPort!;
const tell = (message: FlushThreadMessage) => port.postMessage(message);

function run(fd: number): void {
  for (;;) {
    const wake = Atomics.load(cells, Cell.Wake);
    if (Atomics.load(cells, Cell.Stop) === 1) return;
    const target = Atomics.load(cells, Cell.Committed);
    if (target === Atomics.load(cells, Cell.Flushed)) {
      // Until the next commit (or the stop) counts Wake up: at once if it already has.
      Atomics.wait(cells, Cell.Wake, wake);
      continue;
    }
    // Held (a diagnostic): the release stores 0 before it notifies, so it is never missed.
    while (Atomics.load(cells, Cell.Held) === 1) Atomics.wait(cells, Cell.Held, 1);
    if (Atomics.load(cells, Cell.Stop) === 1) return;
    // Everything written to the file before this call is on disk when it returns:
    // commits up to `target` returned from their COMMIT before it was read.
    const started = process.hrtime.bigint();
    fsyncSync(fd);
    // Counted before it is told: whoever the flush wakes sees it in the metrics.
    took(process.hrtime.bigint() - started);
    Atomics.store(cells, Cell.Flushed, target);
    Atomics.notify(cells, Cell.Flushed);
  }
}

/** Counts a flush and its time for the metrics. */
function took(nanos: bigint): void {
  Atomics.add(stats, Stat.Flushes, 1n);
  Atomics.add(stats, Stat.Nanos, nanos);
  let max = Atomics.load(stats, Stat.MaxNanos);
  while (nanos > max) {
    const seen = Atomics.compareExchange(stats, Stat.MaxNanos, max, nanos);
    if (seen === max) break;
    max = seen;
  }
}

let fd: number | undefined;
try {
  fd = openSync(file, 'r');
  tell({ kind: 'ready' });
  run(fd);
} catch (err) {
  tell({ kind: 'failed', message: `flushing ${file} failed: ${(err as Error).message}` });
} finally {
  if (fd !== undefined) closeSync(fd);
}
