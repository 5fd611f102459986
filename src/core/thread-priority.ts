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
// privilege; raising would, which is why the conveyor thread does not raise its own.

/** The nice value of the threads that yield to the conveyor thread: a tenth of its weight on a busy core. */
export const YIELDING_NICE = 10;

/**
 * Gives the calling thread the nice value `YIELDING_NICE`, or keeps a lower priority the
 * process was started with. Where threads cannot be told apart (no /proc/thread-self:
 * not Linux) it changes nothing.
 */
export function yieldToConveyor(): void {
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return;
  }
  if (getPriority(tid) < YIELDING_NICE) setPriority(tid, YIELDING_NICE);
}
