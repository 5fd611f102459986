import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runSimulatorCli } from '../../plc/simulator/cli.ts';

// Test support for signal mode (not used by the simulator): its command line run as the
// appliance runs it (in this process, `wms simulate`) or as a person does (a child
// process, `npm run plc:sim`), with what it prints collected line by line, the
// `plc.signals` entry read back from it, and commands written to its input.

export const CLI = fileURLToPath(new URL('../../plc/simulator/cli.ts', import.meta.url));

export interface SimulatorRun {
  /** Every line printed so far (standard output). */
  lines: string[];
  stderr: () => string;
  /** Writes one command line to its input. */
  send(line: string): void;
  /** Resolves with the first line (from `from` on) that matches. */
  line(pattern: RegExp, timeoutMs?: number, from?: number): Promise<string>;
  /** The printed `plc.signals` entry, parsed. */
  entry(timeoutMs?: number): Promise<any>;
  /** Its exit code. */
  exit: Promise<number>;
  /** Ends it (quit for serve, a kill for a child) and waits for the exit code. */
  stop(): Promise<number>;
}

function runOf(lines: string[], stderr: () => string, input: { write(text: string): unknown }, exit: Promise<number>, stop: () => void): SimulatorRun {
  const run: SimulatorRun = {
    lines,
    stderr,
    send: (line) => void input.write(`${line}\n`),
    async line(pattern, timeoutMs = 20_000, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = lines.slice(from).find((l) => pattern.test(l));
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`no line ${pattern} within ${timeoutMs} ms; printed:\n${lines.join('\n')}\n${stderr()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async entry(timeoutMs = 20_000) {
      await run.line(/^ \]\}$/, timeoutMs);
      const first = lines.findIndex((l) => l.startsWith('{"name"'));
      const last = lines.findIndex((l) => l === ' ]}');
      return JSON.parse(lines.slice(first, last + 1).join('\n'));
    },
    exit,
    async stop() {
      stop();
      return exit;
    },
  };
  return run;
}

/** `wms simulate …` as the appliance calls it: runSimulatorCli in this process. */
export function simulateInProcess(argv: string[]): SimulatorRun {
  const lines: string[] = [];
  const errors: string[] = [];
  const input = new PassThrough();
  const exit = runSimulatorCli(argv, { program: 'wms simulate', out: (l) => lines.push(...l.split('\n')), err: (l) => errors.push(l), input });
  return runOf(
    lines,
    () => errors.join('\n'),
    input,
    exit,
    () => input.write('quit\n'),
  );
}

/** `npm run plc:sim -- …`: the script in a child process of this Node. */
export function simulateChild(argv: string[]): SimulatorRun & { child: ChildProcess } {
  const child = spawn(process.execPath, [CLI, ...argv], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  const run = runOf(
    lines,
    () => stderr,
    child.stdin!,
    exit,
    () => {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
  );
  return Object.assign(run, { child });
}
