import { readlinkSync, stat } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

// The conveyor thread first (docs/realtime.md, "Who gets the core"). The box has two
// cores and more runnable threads than that under load: the conveyor thread, the HTTP
// thread, the log writer, libuv's pool, and other processes (a local client, a backup
// copy, a shell). A PLC telegram that arrives while both cores run other threads waits
// for the kernel to give its thread a core, however little the conveyor thread itself
// has to do: under the full load of bench:mixed, a quarter of each second
// (/proc/<pid>/task/<tid>/schedstat). Linux schedules threads, each with its own nice
// value, so:
// - the conveyor thread raises its own (`server.conveyorNice`, -10 by default: nine
//   times the weight of a thread at 0). Raising needs a privilege, which the service's
//   unit grants (LimitNICE=-10, src/install/unit.ts); without it the thread keeps the
//   process's priority and the start says so.
// - the threads that serve people and write diagnostics run `YIELDING_STEPS` below it:
//   a tenth of its weight, and still the weight of other processes, so that a busy box
//   does not starve them. A nice value weighs, it does not starve: they get every
//   cycle the conveyor thread leaves.

/** How much lower in priority the threads that yield to the conveyor thread run: a tenth of its weight on a busy core. */
export const YIELDING_STEPS = 10;

/**
 * The conveyor thread's nice value, from any thread of the process: the conveyor thread
 * is the process's main thread, whose kernel id is the process id.
 */
function conveyorThreadNice(): number {
  return getPriority(process.pid);
}

/** The kernel's id of the calling thread; undefined where threads cannot be told apart (no /proc/thread-self: not Linux). */
export function threadId(): number | undefined {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
}

/**
 * Gives the calling thread a nice value `YIELDING_STEPS` above the conveyor thread's
 * as it is now (`conveyorThreadNice`): 0 beside a conveyor thread at -10, 10 beside one
 * that kept 0. A thread started before an appliance's conveyor thread raised itself
 * calls it again once it has; one already lower comes up only as far as it may (the
 * same privilege).
 */
export function yieldToConveyor(): void {
  const tid = threadId();
  if (tid === undefined) return;
  const nice = Math.min(19, conveyorThreadNice() + YIELDING_STEPS);
  try {
    if (getPriority(tid) !== nice) setPriority(tid, nice);
  } catch {
    // Not allowed to come up: it stays lower, which is the safe side.
  }
}

/**
 * Starts libuv's thread pool if it is not running yet: a thread starts with the
 * priority of the thread that starts it, and the pool's threads (file access, password
 * hashing, compression, for both threads' requests) are to keep the process's own, not
 * take the conveyor thread's. Call it before `takeConveyorPriority`.
 */
export function startThreadPool(): Promise<void> {
  return new Promise((resolve) => stat(process.execPath, () => resolve()));
}

/** What became of the conveyor thread's priority: its nice value now, and why it is not the one asked for. */
export interface ConveyorPriority {
  nice: number;
  /** Set when the thread could not be raised to the value asked for (no privilege). */
  refused?: string;
}

/**
 * Raises the calling thread, the conveyor thread, to the nice value `nice` (a higher
 * priority than that is kept; 0 asks for nothing). Never throws: without the privilege
 * the thread keeps its priority and `refused` says why.
 */
export function takeConveyorPriority(nice: number): ConveyorPriority | undefined {
  const tid = threadId();
  if (tid === undefined) return undefined;
  const now = getPriority(tid);
  if (now <= nice) return { nice: now };
  try {
    setPriority(tid, nice);
    return { nice };
  } catch (err) {
    return { nice: now, refused: (err as NodeJS.ErrnoException).code ?? String(err) };
  }
}
