import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ADMIN_PASSWORD } from './appliance.ts';

// A real browser for the HMI tests: Debian's headless Chromium (`WMS_CHROMIUM` names
// another), driven by playwright-core, with the page's Content-Security-Policy in force.
// Helpers
// to log in through the page, to watch every request it makes (none may leave the
// appliance's origin), to run axe-core in it, and to keep screenshots as test artifacts
// (test-artifacts/hmi/, ignored by git).

/**
 * Debian's `chromium-headless-shell`: Chromium's own headless browser, built from the
 * same sources as the `chromium` package (the same Blink, V8 and network stack), without
 * the windowing browser around them; it is what playwright runs for headless tests too.
 * Measured on a quiet 2-vCPU box, hmi-shell and hmi-orders: 63 s wall and 49 s of CPU
 * with `/usr/bin/chromium`, 37 s and 31 s with the headless shell. `WMS_CHROMIUM=
 * /usr/bin/chromium` runs the HMI tests in the full browser.
 */
export const CHROMIUM = process.env.WMS_CHROMIUM ?? '/usr/bin/chromium-headless-shell';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'hmi');

/** How long a step in a page (a click, a wait, a navigation) may take. */
const STEP_TIMEOUT_MS = 30_000;

export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export interface Watched {
  page: Page;
  context: BrowserContext;
  /** Every URL the page asked for, in order. */
  requests: string[];
  /** Requests to another origin (each is also refused, so nothing leaves). */
  foreign: string[];
  /** Errors in the page: uncaught exceptions, console errors, refusals by the CSP. */
  problems: string[];
  /** Fails the test if the page asked anything of another origin or reported an error. */
  expectClean: () => void;
}

export interface PageOptions {
  viewport?: { width: number; height: number };
  locale?: string;
  colorScheme?: 'light' | 'dark';
}

/** Where the appliance listens: a TestAppliance, or the address of one started otherwise. */
export interface Target {
  url: string;
}

/** A new tab (its own session storage) on the appliance, every request recorded. */
export async function openPage(browser: Browser, wms: Target, options: PageOptions = {}): Promise<Watched> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1024, height: 600 },
    locale: options.locale ?? 'en-US',
    colorScheme: options.colorScheme ?? 'light',
  });
  // A step that waits in vain fails with its own call log before the test's time (60 s)
  // is up, and a busy box (a second suite beside this one) still has half a minute.
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const page = await context.newPage();
  const origin = new URL(wms.url).origin;
  const requests: string[] = [];
  const foreign: string[] = [];
  const problems: string[] = [];
  // Only what goes elsewhere is intercepted: the page's own requests (the event stream
  // among them) reach the appliance untouched.
  await context.route(
    (url) => url.protocol !== 'data:' && url.origin !== origin,
    (route) => {
      foreign.push(route.request().url());
      return route.abort('blockedbyclient');
    },
  );
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (m) => {
    // A 401 the page answers by showing the login is not a fault of the page.
    if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  return {
    page,
    context,
    requests,
    foreign,
    problems,
    expectClean: () => {
      expect(foreign, 'requests that left the appliance').toEqual([]);
      expect(
        problems.filter((p) => /Content Security Policy|Refused to/i.test(p) || p.startsWith('page error')),
        'errors in the page',
      ).toEqual([]);
    },
  };
}

/** Opens the HMI and logs in through its form; resolves once the shell shows. */
export async function loginInBrowser(page: Page, wms: Target, username = 'admin', password = ADMIN_PASSWORD, hash = ''): Promise<void> {
  await page.goto(`${wms.url}/hmi/${hash}`);
  await submitLogin(page, username, password);
}

/** Fills and sends the login form that is showing (first login or after an expiry). */
export async function submitLogin(page: Page, username: string, password: string): Promise<void> {
  const name = page.locator('#login-username');
  await name.waitFor();
  await name.fill(username);
  await page.locator('#login-password').fill(password);
  await page.locator('.login form button[type=submit]').click();
  await page.locator('.shell').waitFor();
  await page.locator('.login').waitFor({ state: 'detached' });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core in the page (evaluated through the debugging protocol, which the page's
 * CSP does not govern, so the page keeps its own policy) and fails on any serious or
 * critical violation.
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  // Once per document: axe's half megabyte of script is parsed again only after a navigation.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const w = globalThis as unknown as {
      document: unknown;
      axe: { run: (context: unknown, options: { resultTypes: string[] }) => Promise<{ violations: AxeViolation[] }> };
    };
    // Every rule runs; only the violations are gathered with all their elements, not
    // the thousands of passes. With the script parsed once per document: three HMI
    // files 54 → 49 s of CPU on a quiet 2-vCPU box.
    const result = await w.axe.run(w.document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target) }));
  });
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(grave, `axe on ${what}`).toEqual([]);
}

/**
 * Fails on an element of `targets` smaller than a finger: `min` CSS pixels on its
 * smaller side (or in height only, for full-width controls). All boxes are measured
 * in one call into the page, not two round trips per element.
 */
export async function expectTapTargets(targets: Locator, min = 44, side: 'smaller' | 'height' = 'smaller'): Promise<void> {
  const boxes = await targets.evaluateAll((elements) =>
    elements.map((e) => {
      const box = e.getBoundingClientRect();
      return { width: box.width, height: box.height, html: e.outerHTML.slice(0, 80) };
    }),
  );
  for (const box of boxes) expect(side === 'height' ? box.height : Math.min(box.width, box.height), box.html).toBeGreaterThanOrEqual(min);
}

/** Keeps a screenshot as a test artifact: test-artifacts/hmi/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
