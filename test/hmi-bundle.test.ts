import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE, DIST } from '../scripts/build.ts';
import { tempDir } from './support/appliance.ts';
import { expectAccessible, launchBrowser, loginInBrowser, openPage } from './support/browser.ts';

// The HMI from the bundle (built by the global setup), as a box runs it: dist/wms.cjs
// and its addons copied alone into an empty folder, no sources and no node_modules
// beside them. The page's files come from the bundle itself, and the bundle holds no
// trace of esbuild or of the app's source files.

let cwd: string;
let child: ChildProcess;
let url: string;
const PASSWORD = 'bundle-admin-password';

beforeAll(async () => {
  cwd = tempDir('wms-hmi-bundle-');
  for (const file of readdirSync(DIST).filter((f) => f === path.basename(BUNDLE) || f.endsWith('.node'))) {
    copyFileSync(path.join(DIST, file), path.join(cwd, file));
  }
  child = spawn(process.execPath, [path.join(cwd, 'wms.cjs'), '--port', '0', '--host', '127.0.0.1', '--data-dir', path.join(cwd, 'data')], {
    cwd,
    env: { PATH: process.env.PATH, WMS_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*appliance started/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
});
afterAll(() => {
  child?.kill('SIGKILL');
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

describe('the HMI in the bundle', () => {
  it('carries the built files, not esbuild nor the sources', () => {
    const text = readFileSync(BUNDLE, 'utf8');
    expect(text).not.toMatch(/require\(["']esbuild["']\)|from ["']esbuild["']/);
    expect(text).not.toContain('build-assets');
    expect(text).toContain('embeddedAssets');
  });

  it('serves the page and its files from the bundle alone, precompressed', async () => {
    const page = await fetch(`${url}/hmi/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    const files = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const reply = await fetch(`${url}/hmi/${file}`, { headers: { 'Accept-Encoding': 'br' } });
      expect(reply.status, file).toBe(200);
      expect(reply.headers.get('cache-control')).toContain('immutable');
      await reply.arrayBuffer();
    }
  });

  it('logs in and shows the alarms in a browser', async () => {
    const browser = await launchBrowser();
    try {
      const tab = await openPage(browser, { url });
      await loginInBrowser(tab.page, { url }, 'admin', PASSWORD);
      await tab.page.locator('#alarms-title').waitFor();
      await tab.page.locator('#connection[data-state="live"]').waitFor();
      await expectAccessible(tab.page, 'the alarms from the bundle');
      tab.expectClean();
    } finally {
      await browser.close();
    }
  });
});
