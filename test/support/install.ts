import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { ROOT } from '../../scripts/build.ts';
import { tempDir } from './appliance.ts';

// `wms install-service` as an installer runs it, with --root so that every file lands
// in a temporary directory and no user, ownership or systemd of this machine is
// touched; the unit it writes checked with the commands docs/install.md gives. Used by
// the tests of the bundle (install.test.ts) and of the single executable (binary.test.ts).

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of the child: ours without any WMS_* setting. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WMS_') && k !== 'NODE_OPTIONS') env[k] = v;
  return env;
}

export function spawnRun(command: string, args: string[], cwd: string): Promise<Exit> {
  const child = spawn(command, args, { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const roots: string[] = [];

/** An empty directory standing for the box's `/` (removed by removeRoots). */
export function newRoot(): string {
  const root = tempDir('wms-install-root-');
  roots.push(root);
  return root;
}

/** Removes the roots made so far (a file's afterAll). */
export function removeRoots(): void {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export const mode = (file: string) => statSync(file).mode & 0o777;

/** What a step printed: its line (`  unit     /etc/…: written …`). */
export const step = (stdout: string, name: string) =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith(`  ${name} `))
    .join('\n');

/**
 * The checks docs/install.md gives ("Checking the unit"), read out of the document and
 * run as written by bash, with the image path /mnt/image replaced by `root`: systemd's
 * `systemd-analyze verify` (its own parser, which also checks that ExecStart names an
 * executable below the root) and `systemd-analyze security --offline=true`. The root
 * holds what install-service wrote and nothing of systemd's own, and this machine runs
 * no systemd: the commands must work like that.
 */
export const INSTALL_DOC = readFileSync(path.join(ROOT, 'docs/install.md'), 'utf8');
export const UNIT_CHECKS = [...INSTALL_DOC.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1]!.split('\n'))
  .filter((line) => line.startsWith('systemd-analyze '));

export function checkAsTheDocSays(root: string): (Exit & { command: string })[] {
  return UNIT_CHECKS.map((command) => {
    const run = spawnSync('bash', ['-c', command.replaceAll('/mnt/image', root)], { encoding: 'utf8' });
    return { command, code: run.status, stdout: run.stdout, stderr: run.stderr };
  });
}

/** Every check exits 0; verify prints nothing at all. */
export function expectUnitChecksPass(root: string): (Exit & { command: string })[] {
  const results = checkAsTheDocSays(root);
  for (const r of results) {
    expect(r, r.command).toMatchObject({ code: 0, stderr: '' });
    if (r.command.includes(' verify ')) expect(r.stdout, r.command).toBe('');
  }
  return results;
}
