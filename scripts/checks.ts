import { spawn } from 'node:child_process';

// `npm test`'s static checks before the suite: the formatting (prettier) and the types
// of the server and of the HMI (tsc, strict). They read the same files and share nothing,
// so they run side by side: prettier takes one core for 15 s, the two type checks the
// other for 9 s (a quiet 2-vCPU box: 25 s one after the other, 16 s side by side). Each
// one's output is printed whole once it is done, in this order, not interleaved; the
// run fails, after all three, if any did.

const CHECKS: { name: string; command: string; args: string[] }[] = [
  // --cache: a file unchanged since the last check on this machine (same content, same
  // settings) is not formatted again (node_modules/.cache/prettier).
  { name: 'formatting', command: 'prettier', args: ['--check', '--cache', '--cache-strategy', 'content', '--log-level', 'warn', '.'] },
  { name: 'types (server)', command: 'tsc', args: ['--noEmit'] },
  { name: 'types (HMI)', command: 'tsc', args: ['--noEmit', '-p', 'src/hmi/app'] },
];

interface Outcome {
  name: string;
  code: number | null;
  output: string;
}

/** Runs one check (npm puts node_modules/.bin on the PATH) and keeps what it printed. */
function run(check: (typeof CHECKS)[number]): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(check.command, check.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (err) => resolve({ name: check.name, code: null, output: `${output}${check.command}: ${err.message}\n` }));
    child.once('close', (code) => resolve({ name: check.name, code, output }));
  });
}

const outcomes = await Promise.all(CHECKS.map(run));
for (const outcome of outcomes) process.stdout.write(outcome.output);
const failed = outcomes.filter((outcome) => outcome.code !== 0).map((outcome) => outcome.name);
if (failed.length > 0) {
  console.error(`npm test: the ${failed.join(', ')} check${failed.length > 1 ? 's' : ''} failed (see above); the suite did not run`);
  process.exit(1);
}
