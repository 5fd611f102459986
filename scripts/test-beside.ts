import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { numberArg } from './args.ts';

// The suite on a busy box: `npm test` runs here `--rounds` times in a row (default 2)
// while a second whole suite runs over and over beside it, from a copy of this working
// tree in .tmp/beside (the two must not share dist/ or test-artifacts/). The box's two
// cores are then as busy as a loaded CI machine, and a test that counts on timing fails.
//
//   npm run test:beside                 # two rounds here, the second suite beside them
//   npm run test:beside -- --rounds 3
//
// Each round's output goes to .tmp/beside-logs/; the summary says which passed.

const root = path.resolve(import.meta.dirname, '..');
const copy = path.join(root, '.tmp', 'beside');
const logs = path.join(root, '.tmp', 'beside-logs');
const rounds = numberArg('--rounds', 2);

/** A copy of the working tree as it is (uncommitted changes too), node_modules hard-linked. */
function makeCopy(): void {
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy, { recursive: true });
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  if (files.status !== 0) throw new Error(`git ls-files failed: ${files.stderr}`);
  for (const file of files.stdout.split('\0').filter(Boolean)) {
    const from = path.join(root, file);
    if (!existsSync(from)) continue; // deleted, not yet committed
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    copyFileSync(from, path.join(copy, file));
  }
  const linked = spawnSync('cp', ['-al', path.join(root, 'node_modules'), path.join(copy, 'node_modules')]);
  if (linked.status !== 0) throw new Error(`copying node_modules failed: ${linked.stderr}`);
}

/** `npm test` in `cwd`, its output to `log`; resolves with its exit code and seconds. */
function suite(cwd: string, log: string): { child: ChildProcess; done: Promise<{ code: number | null; seconds: number }> } {
  const started = Date.now();
  const out = createWriteStream(log);
  // A process group of its own: stopping the second suite stops its browsers and servers too.
  const child = spawn('npm', ['test'], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  const done = new Promise<{ code: number | null; seconds: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, seconds: Math.round((Date.now() - started) / 1000) })),
  );
  return { child, done };
}

async function main(): Promise<void> {
  // The Debian packages, once, before two suites could both reach for apt-get.
  if (spawnSync(process.execPath, [path.join(root, 'scripts', 'test-needs.ts')], { stdio: 'inherit' }).status !== 0) process.exit(1);
  makeCopy();
  mkdirSync(logs, { recursive: true });
  let stopping = false;
  let current: ChildProcess | undefined;
  const beside: string[] = [];
  const second = (async () => {
    for (let n = 1; !stopping; n++) {
      const run = suite(copy, path.join(logs, `beside-${n}.log`));
      current = run.child;
      const { code, seconds } = await run.done;
      if (!stopping) beside.push(`beside ${n}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s`);
    }
  })();

  const here: { passed: boolean; line: string }[] = [];
  for (let n = 1; n <= rounds; n++) {
    const { code, seconds } = await suite(root, path.join(logs, `round-${n}.log`)).done;
    here.push({ passed: code === 0, line: `round ${n}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s` });
    console.log(here.at(-1)!.line);
  }
  stopping = true;
  if (current?.pid) {
    try {
      process.kill(-current.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await second;
  for (const line of beside) console.log(line);
  console.log(`logs: ${path.relative(process.cwd(), logs)}/`);
  const failed = here.some((r) => !r.passed) || beside.some((line) => line.includes('FAILED'));
  process.exit(failed ? 1 : 0);
}

await main();
