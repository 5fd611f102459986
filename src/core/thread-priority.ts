import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

// The conveyor thread first (docs/realtime.md, "Who gets the core"). The box has two
// cores and more runnable threads than that under load: the conveyor thread, the HTTP
// thread, the log writer, libuv's pool (file system, password hashing, compression). A
// PLC telegram that arrives while both cores run other threads waits for the kernel to
// give its thread a core, however little the conveyor thread itself has to do. Linux
// schedules threads, not processes, and each has its own nice value: the threads that
// serve people and write diagnostics lower theirs, so that the conveyor thread, at the
// process's own, takes a core from them as soon as it wakes, while they still get
// every cycle it leaves (a nice value weighs, it does not starve). Lowering needs no
// privilege.
//
// Other processes on the box (a local client, a backup copy, a shell) run at nice 0 and
// weigh as much as the conveyor thread: under a load the kernel then keeps it waiting
// for a core a quarter of the time (/proc/<pid>/task/<tid>/schedstat). So the conveyor
// thread also raises its own priority (`server.conveyorNice`, -10 by default: nine
// times the weight of a thread at 0). Raising needs a privilege: the service's unit
// grants it (LimitNICE=-10, src/install/unit.ts); without it the thread keeps the
// process's priority and the start says so.

/** The nice value of the threads that yield to the conveyor thread: a tenth of its weight on a busy core. */
export const YIELDING_NICE = 10;

/** The kernel's id of the calling thread; undefined where threads cannot be told apart (no /proc/thread-self: not Linux). */
function threadId(): number | undefined {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
}

/** Gives the calling thread the nice value `YIELDING_NICE`, or keeps a lower priority the process was started with. */
export function yieldToConveyor(): void {
  const tid = threadId();
  if (tid !== undefined && getPriority(tid) < YIELDING_NICE) setPriority(tid, YIELDING_NICE);
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
