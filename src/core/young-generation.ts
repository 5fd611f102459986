import type { ResourceLimits } from 'node:worker_threads';

// Each thread's young generation: where V8 makes new objects, and collects them with the
// scavenger, which stops the thread while it runs. Left to itself V8 sizes it from the
// machine's memory, up to two halves of 64 MB each per thread on a box with 16 GB or more:
// then a thread's young generation alone may hold 128 MB, and the appliance's size and
// its collections differ from one box to the next. The appliance names it instead, the
// same on every box (docs/realtime.md, "Each thread's young generation";
// BENCHMARKS.md, "Each thread's young generation, named"):
// - the conveyor thread (the process's main thread) gets its size on the command line,
//   since V8 sizes the main thread's heap before any code runs: the single executable
//   carries the option (scripts/build-binary.ts), `npm start` passes it, and a start
//   without it says so in its log;
// - the other threads get theirs as they are started (`resourceLimits`).

/** Half of the conveyor thread's young generation, in MB (V8's semi-space). */
const CONVEYOR_SEMI_SPACE_MB = 16;

/** The option that gives the conveyor thread its young generation; the single executable and `npm start` start with it. */
export const CONVEYOR_NODE_OPTIONS: readonly string[] = [`--max-semi-space-size=${CONVEYOR_SEMI_SPACE_MB}`];

/** Half of each other thread's young generation, in MB. */
const SEMI_SPACE_MB = {
  /** Parses, reads, lists and the event streams: the people's side makes the most short-lived objects. */
  http: 16,
  /** The telegram log and the event index: batches of rows, handed over and written. */
  logs: 4,
  /** Flushes the write-ahead log: next to nothing. */
  flush: 1,
} as const;

/**
 * A worker thread's limits: its young generation, as Node counts it (both halves and
 * V8's space for new large objects, as large as one half).
 */
export function youngGenerationOf(thread: keyof typeof SEMI_SPACE_MB): ResourceLimits {
  return { maxYoungGenerationSizeMb: 3 * SEMI_SPACE_MB[thread] };
}

/**
 * Undefined when the conveyor thread was started with its young generation named (on
 * the command line, in NODE_OPTIONS, or by the single executable); else the warning
 * a start logs.
 */
export function conveyorYoungGenerationNote(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  const named = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((arg) => /^--max-semi-space-size(=|$)/.test(arg));
  if (named) return undefined;
  return `the conveyor thread's young generation is V8's default for this machine's memory (up to 2 × 64 MB): start the bundle with \`node ${CONVEYOR_NODE_OPTIONS.join(' ')} dist/wms.cjs\` (npm start and the single executable do)`;
}
