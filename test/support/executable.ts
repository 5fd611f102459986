import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { ROOT } from '../../scripts/build.ts';

// What every build of the single executable must do once started (x64 natively, arm64
// under qemu): serve the entry index, issue a token, keep what is written.

export async function expectEntryIndex(url: string): Promise<void> {
  const reply = await fetch(`${url}/index`);
  expect(reply.status).toBe(200);
  const body = (await reply.json()) as { _links: Record<string, { href: string }> };
  expect(body._links['location-index']?.href).toMatch(/\/v1\/locations\/index$/);
}

/** Logs in as admin, creates a location in `area` with `plcCode`, and reads it back by that code. */
export async function expectTokenAndWrite(url: string, password: string, area: string, plcCode: string): Promise<void> {
  const tokenReply = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=password&username=admin&password=${password}`,
  });
  expect(tokenReply.status).toBe(200);
  const { access_token: token } = (await tokenReply.json()) as { access_token: string };
  const auth = { Authorization: `Bearer ${token}` };
  const locationId = `${area}/0001/0001/0001/0001`;
  const created = await fetch(`${url}/v1/locations`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ locationId, locationGroupName: 'WAREHOUSE', plcCode }),
  });
  expect(created.status).toBe(201);
  const read = await fetch(`${url}/v1/locations?plcCode=${plcCode}`, { headers: auth });
  expect(read.status).toBe(200);
  expect(await read.json()).toMatchObject({ locationId, locationGroupName: 'WAREHOUSE' });
}

export interface ApplianceProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` from its start line. */
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once it exited. */
  exited: Promise<number | string | null>;
}

/**
 * Starts the appliance as its own process (`node dist/wms.cjs …`, or the single binary)
 * and waits for its start line; a process that exits first fails with what it wrote.
 */
export async function startApplianceProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ApplianceProcess> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  let timer: NodeJS.Timeout | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"(https?:\/\/[^"]+)"[^\n]*appliance started/.exec(out);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then((code) => reject(new Error(`${command} exited with ${code} before it started:\n${out}`)));
    // Named: a start that hangs fails with what the process said so far (the process is the caller's to end).
    if (options.timeoutMs !== undefined)
      timer = setTimeout(() => reject(new Error(`${command} did not start within ${options.timeoutMs} ms:\n${out}`)), options.timeoutMs);
  }).finally(() => clearTimeout(timer));
  return { child, url, output: () => out, exited };
}

/** A token of the user admin, from the appliance at `url`. */
export async function adminToken(url: string, password: string): Promise<string> {
  const reply = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=password&username=admin&password=${encodeURIComponent(password)}`,
  });
  expect(reply.status).toBe(200);
  return ((await reply.json()) as { access_token: string }).access_token;
}

export interface Build {
  /** The executable it wrote. */
  binary: string;
  stdout: string;
  stderr: string;
}

/**
 * `npm run build:bin [-- --arch arm64]` as the README gives it: the build script as a
 * process of its own in the repository, its output kept for the test to read.
 */
export async function buildAsTheReadmeSays(args: string[] = []): Promise<Build> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/build-binary.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const built = /^built (\S+) \(\d+ MB\)$/m.exec(stdout);
  if (!built) throw new Error(`the build named no executable:\n${stdout}${stderr}`);
  return { binary: path.join(ROOT, built[1]!), stdout, stderr };
}

/** A build that goes well prints one line, the executable and its size, and nothing on stderr. */
export function expectQuietBuild(build: Build, name: string): void {
  expect(build.stderr).toBe('');
  expect(build.stdout).toMatch(new RegExp(`^built ${name.replace('/', '\\/')} \\(\\d+ MB\\)\\n$`));
}

/** The README gives the executable's size (`→ dist/wms (linux-x64, about 123 MB)`) within 5 MB. */
export function expectReadmeSize(build: Build, name: string, platform: string): void {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const stated = new RegExp(`→ ${name} \\(${platform}, about (\\d+) MB\\)`).exec(readme);
  expect(stated, `README names the size of ${name}`).not.toBeNull();
  const mb = statSync(build.binary).size / 1e6;
  expect(Math.abs(mb - Number(stated![1])), `${name} is ${mb.toFixed(1)} MB, README says about ${stated![1]} MB`).toBeLessThanOrEqual(5);
}
