import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBinary } from '../scripts/build-binary.ts';
import { tempDir } from './support/appliance.ts';
import { expectEntryIndex, expectTokenAndWrite } from './support/executable.ts';

// The single executable: built from this tree, copied alone into an empty folder (no
// node_modules, no Node.js on the PATH) and used like an installer would.

const PASSWORD = 'binary-test-password';
let folder: string;
let child: ChildProcess;
let url: string;
let exitCode: Promise<number | null>;

beforeAll(async () => {
  const binary = await buildBinary();
  folder = tempDir('wms-binary-');
  copyFileSync(binary, path.join(folder, 'wms'));
  child = spawn('./wms', ['--port', '0', '--host', '127.0.0.1'], {
    cwd: folder,
    env: { PATH: '/usr/bin:/bin', WMS_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  exitCode = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*appliance started/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`dist/wms exited with ${code}:\n${out}`)));
  });
}, 180_000);

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

describe('dist/wms from an empty folder', () => {
  it('holds nothing but the executable before it starts', () => {
    expect(existsSync(path.join(folder, 'node_modules'))).toBe(false);
  });

  it('serves the public entry index', () => expectEntryIndex(url));

  it('issues a token and keeps what is written', () => expectTokenAndWrite(url, PASSWORD, 'BINA', 'BIN-1'));

  it('keeps its database and unpacked SQLite addon in ./data', () => {
    expect(existsSync(path.join(folder, 'data', 'wms.sqlite'))).toBe(true);
    expect(readdirSync(path.join(folder, 'data', 'native')).some((f) => f.endsWith('.node'))).toBe(true);
  });

  it('serves the HMI from the executable: a browser at / is sent to /hmi/, the page names its files, they come compressed', async () => {
    const root = await fetch(`${url}/`, { headers: { Accept: 'text/html' }, redirect: 'manual' });
    expect(root.status).toBe(302);
    const page = await fetch(`${url}/hmi/`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const script = /src="\.?\/?(app-[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script, 'the page names its script').toBeDefined();
    const asset = await fetch(`${url}/hmi/${script}`, { headers: { 'Accept-Encoding': 'br' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });

  it('ships the conveyor simulator (wms simulate)', () => {
    const usage = execFileSync('./wms', ['simulate', '--help'], { cwd: folder, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
    expect(usage).toMatch(/^Usage: wms simulate /);
  });

  it('stops cleanly on SIGTERM', async () => {
    child.kill('SIGTERM');
    expect(await exitCode).toBe(0);
  });
});
