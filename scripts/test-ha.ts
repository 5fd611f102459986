// The hot-standby pair's long form under random faults (docs/ha.md): the hall of network
// namespaces (test/support/netns.ts) with both boxes as processes of the bundle, the three
// nats-server nodes and the floating address; then `--rounds` rounds, each with one fault
// picked from `--seed` (printed first: the same seed repeats the same faults): the
// active killed (SIGKILL), the active stopped past its lease (SIGSTOP for 8 s), the
// active's cluster link cut, the witness's node stopped, the standby killed, a planned
// switchover. `--writers` clients write through the floating address all the while.
//
//   npm run test:ha [-- --rounds 10 --seed S --writers 3 --keep]
//
// `--keep`: what each box process and nats-server node said is kept in a folder named at
// the end (otherwise the run's folder is removed with everything in it).
// Needs root (network namespaces), keepalived and nats-server. Per round: the fault,
// the writes acknowledged, the takeover time, how the boxes' processes ended; at the end
// the totals (test/support/ha-rounds.ts says what is judged and how). Exits 1 when an
// acknowledged write was lost, two boxes acted at once, or a round did not recover.
// Everything it starts ends with it, on Ctrl-C too.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { numberArg } from './args.ts';
import { bundle } from './build.ts';
import { newSeed } from './reliability/random.ts';
import { afterAllHooks, outsideVitest } from './test-ha/outside-vitest.ts';

const ROUNDS = numberArg('--rounds', 10);
const SEED = numberArg('--seed', newSeed());
const WRITERS = numberArg('--writers', 3);
const KEEP = process.argv.includes('--keep');

const log = (line: string) => process.stdout.write(`${line}\n`);

outsideVitest();
const { hallRounds, passed, summary } = await import('../test/support/ha-rounds.ts');

const logDir = KEEP ? mkdtempSync(path.join(tmpdir(), 'wms-test-ha-logs-')) : undefined;
// The boxes' data, the nodes' stores and keepalived's files: in a folder of this run, removed with it.
const runDir = mkdtempSync(path.join(tmpdir(), 'wms-test-ha-'));
process.env.TMPDIR = runDir;
const rounds = hallRounds({ rounds: ROUNDS, seed: SEED, writers: WRITERS, log, ...(logDir ? { logDir } : {}) });

let ending: Promise<void> | undefined;
/** Ends the hall, the helpers' leftovers and the run's folder; once, however the run ends. */
const end = () =>
  (ending ??= (async () => {
    await rounds.close().catch((error: Error) => log(`closing the hall: ${error.message}`));
    await afterAllHooks();
    rmSync(runDir, { recursive: true, force: true });
  })());

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    log(`${signal}: ending the hall`);
    void end().then(() => process.exit(130));
  });

const started = Date.now();
let ok = false;
try {
  log(`test:ha: ${ROUNDS} rounds, seed ${SEED} (again: npm run test:ha -- --rounds ${ROUNDS} --seed ${SEED})`);
  await bundle();
  const report = await rounds.run();
  log('');
  for (const line of summary(report)) log(line);
  ok = passed(report);
} catch (error) {
  log(`test:ha failed: ${(error as Error).stack}`);
} finally {
  await end();
}
if (logDir) log(`the boxes' and nodes' output: ${logDir}`);
log(`${ok ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(ok ? 0 : 1);
