import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE } from '../scripts/build.ts';
import { tempDir } from './support/appliance.ts';

// The README's quick start, copied as it stands: the appliance started in a fresh
// folder (data in ./data, as `npm start` does), then the README's shell block run by
// bash with curl, only the address changed to the test's port. With a password from
// WMS_ADMIN_PASSWORD that a form must encode (& + = and a space), and with the
// generated one from data/initial-admin-password.

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const quickStart = README.slice(README.indexOf('## Quick start'));
/** The second sh block of the quick start: the first requests. */
const FIRST_REQUESTS = [...quickStart.matchAll(/```sh\n([\s\S]*?)```/g)][1]![1]!;

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function startIn(cwd: string, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [BUNDLE, '--port', '0', '--host', '127.0.0.1'], { cwd, env: { PATH: process.env.PATH, ...env } });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"http:\/\/([^"]+)"[^\n]*appliance started/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

function runQuickStart(cwd: string, hostPort: string, env: Record<string, string>): string {
  const script = FIRST_REQUESTS.replaceAll('localhost:8080', hostPort);
  return execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
}

describe('README quick start', () => {
  it('names its requests as a shell block', () => {
    expect(FIRST_REQUESTS).toContain('/oauth/token');
    expect(FIRST_REQUESTS).toContain('/v1/locations/index');
  });

  it('works with WMS_ADMIN_PASSWORD, even one that a form must encode', async () => {
    const cwd = tempDir('wms-readme-');
    dirs.push(cwd);
    const env = { WMS_ADMIN_PASSWORD: 'p&ss+word = 100%' };
    const hostPort = await startIn(cwd, env);
    const out = runQuickStart(cwd, hostPort, env);
    expect(out).toContain('"location-findbycoordinate"');
  });

  it('works with the generated password in data/initial-admin-password', async () => {
    const cwd = tempDir('wms-readme-');
    dirs.push(cwd);
    const hostPort = await startIn(cwd, {});
    const out = runQuickStart(cwd, hostPort, {});
    expect(out).toContain('"location-findbycoordinate"');
  });
});
