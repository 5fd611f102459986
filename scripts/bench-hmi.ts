// The HMI in a real browser on a site of a realistic size: how long a switch from one
// screen to another takes until the screen shows its data, and what the first screen
// transfers. Debian's chromium, driven by playwright-core, against the appliance's
// bundle (dist/wms.cjs) on a fresh data directory.
//
//   node scripts/bench-hmi.ts [--locations 1000] [--rounds 5] [--bundle dist/wms.cjs]
//
// A switch is timed from the click on the screen's navigation link to the last change
// of the page's main region, once the screen shows no "Loading…" and every request it
// made has its answer (the live event stream aside), checked twice POLL_MS apart. The first visit of a screen loads its file; later visits are the
// common case and are reported apart. Figures are medians and maxima over the rounds;
// compare them with the target (100 ms) on the same machine.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { BUNDLE } from './build.ts';
import { PASSWORD, startAppliance, type Appliance } from './bench-plc/appliance.ts';
import { numberArg, textArg } from './args.ts';

const LOCATIONS = numberArg('--locations', 1000);
const ROUNDS = numberArg('--rounds', 5);
const GIVEN_BUNDLE = textArg('--bundle');
// The full browser (the tests use the lighter headless shell): the figures are what an
// operator's Chromium takes to show a screen.
const CHROMIUM = process.env.WMS_CHROMIUM ?? '/usr/bin/chromium';
const POLL_MS = 40;
const GIVE_UP_MS = 30_000;
const UNITS = 100;

type Api = Appliance['api'];

/**
 * The site: conveyors and racks in ten areas (a group each), a route over three hops,
 * units on the conveyors with transport orders, a movement and a task or two; what an
 * operator's screens have to show.
 */
async function createSite(api: Api): Promise<void> {
  const areas = Array.from({ length: 10 }, (_, i) => `AR${String(i).padStart(2, '0')}`);
  for (const area of areas) await api('POST', '/v1/location-groups', { name: area, parentName: 'WAREHOUSE' });
  const perArea = Math.ceil(LOCATIONS / areas.length);
  const coordinates: { locationId: string; locationGroupName: string }[] = [];
  for (const area of areas) {
    for (let n = 1; n <= perArea && coordinates.length < LOCATIONS; n++) {
      const aisle = String(Math.ceil(n / 20)).padStart(4, '0');
      const x = String(((n - 1) % 20) + 1).padStart(4, '0');
      coordinates.push({ locationId: `${area}/${aisle}/${x}/0000/0000`, locationGroupName: area });
    }
  }
  // Eight at a time: the appliance's group commit shares their fsyncs.
  for (let i = 0; i < coordinates.length; i += 8) {
    await Promise.all(coordinates.slice(i, i + 8).map((c) => api('POST', '/v1/locations', c)));
  }
  const [c1, c2, c3, target] = coordinates.slice(0, 4).map((c) => c.locationId) as [string, string, string, string];
  const route = await api('POST', '/v1/api/routes', { name: 'BENCH-ROUTE', sourceLocationName: c1, targetLocationName: target, enabled: true });
  await api('PUT', `/v1/api/routes/${route.key}/hops`, [
    { source: c1, next: c2 },
    { source: c2, next: c3 },
    { source: c3, next: target },
  ]);
  for (let i = 0; i < UNITS; i++) {
    const barcode = `HMI${String(i).padStart(6, '0')}`;
    const at = coordinates[(i * 7) % coordinates.length]!.locationId;
    await api('POST', '/v1/transport-units', { barcode, actualLocation: at, transportUnitType: 'EURO' });
    if (i % 2 === 0) await api('POST', '/v1/transport-orders', { barcode, targetLocation: target });
  }
}

// What runs in the page is given as text: it is the browser's code (DOM), which this
// Node script's types do not describe.

/** Records, in the page, when its main region last changed. */
const WATCH_MAIN = `(() => {
  window.lastChange = performance.now();
  window.observer?.disconnect();
  window.observer = new MutationObserver(() => { window.lastChange = performance.now(); });
  // The main region only: the top bar's clock and badge change on their own.
  window.observer.observe(document.getElementById('main'), { subtree: true, childList: true, characterData: true, attributes: true });
})()`;

/** When the main region last changed, whether it shows "Loading…", and the address. */
const MAIN_STATE = `(() => {
  const main = document.getElementById('main');
  const loading = [...(main ? main.querySelectorAll('*') : [])].some((e) => e.childElementCount === 0 && /^(Loading|Wird geladen)/.test((e.textContent || '').trim()));
  return { lastChange: window.lastChange, loading, hash: location.hash };
})()`;

/**
 * Clicks a navigation link and resolves with the ms until the screen settled with its
 * data: the address changed, the main region changed since the click, no "Loading…" is
 * shown and no request of the page waits for its answer — twice in a row, POLL_MS
 * apart, with no change of the main region between.
 */
async function timeSwitch(page: Page, hash: string, pending: Set<unknown>): Promise<number> {
  const clickedAt = (await page.evaluate('performance.now()')) as number;
  await page.locator(`nav a.nav-link[href$="${hash}"]`).click();
  let settled: number | undefined;
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`${hash} did not settle within ${GIVE_UP_MS} ms (requests waiting: ${pending.size})`);
    await page.waitForTimeout(POLL_MS);
    const state = (await page.evaluate(MAIN_STATE)) as { lastChange: number; loading: boolean; hash: string };
    const ok = state.hash.startsWith(hash) && !state.loading && pending.size === 0 && state.lastChange > clickedAt;
    if (ok && settled === state.lastChange) return state.lastChange - clickedAt;
    settled = ok ? state.lastChange : undefined;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  // playwright's own handles do not keep the process alive while a page is polled.
  const alive = setInterval(() => undefined, 1000);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wms-bench-hmi-'));
  // With its PLC channel CNV01 (the telegram monitor shows it, idle).
  const app = await startAppliance(dataDir, undefined, 0, GIVEN_BUNDLE ?? BUNDLE);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const seeded = performance.now();
    await createSite(app.api);
    console.log(
      `site: ${LOCATIONS} locations in 10 groups, a route over three hops, ${UNITS} units, ${UNITS / 2} orders (${((performance.now() - seeded) / 1000).toFixed(1)} s)`,
    );

    const context = await browser.newContext({ viewport: { width: 1024, height: 600 } });
    const page = await context.newPage();
    // Every request of the page but the event stream, until its answer has arrived.
    const pending = new Set<unknown>();
    let transferred = 0;
    page.on('request', (r) => {
      if (!r.url().includes('/v1/events?')) pending.add(r);
    });
    const settle = (r: unknown) => pending.delete(r);
    page.on('requestfinished', async (r) => {
      settle(r);
      const sizes = await r.sizes().catch(() => undefined);
      if (sizes) transferred += sizes.responseBodySize + sizes.responseHeadersSize;
    });
    page.on('requestfailed', settle);

    await page.goto(`${app.url}/hmi/`);
    await page.locator('#login-username').fill('admin');
    await page.locator('#login-password').fill(PASSWORD);
    await page.locator('.login form button[type=submit]').click();
    await page.locator('.shell').waitFor();
    await page.waitForLoadState('networkidle');
    console.log(`first screen after login: ${(transferred / 1024).toFixed(1)} KiB transferred (headers and API replies included)`);

    const links = (await page.locator('nav a.nav-link').evaluateAll((all) => all.map((a) => a.getAttribute('href') ?? ''))).map(
      (href) => `#${href.split('#')[1]}`,
    );
    // The page opens on the first screen: every switch is from another one, so it ends with the first.
    const hashes = [...links.slice(1), links[0]!];
    await page.evaluate(WATCH_MAIN);
    const first = new Map<string, number>();
    const later = new Map<string, number[]>();
    for (let round = 0; round <= ROUNDS; round++) {
      for (const hash of hashes) {
        const ms = await timeSwitch(page, hash, pending);
        process.stderr.write(`round ${round} ${hash}: ${ms.toFixed(0)} ms\n`);
        if (round === 0) first.set(hash, ms);
        else later.set(hash, [...(later.get(hash) ?? []), ms]);
      }
    }
    console.log(`\nscreen switch, click → screen settled with its data (${ROUNDS} rounds; target < 100 ms):`);
    console.log('| screen | first visit ms | median ms | max ms |');
    console.log('|---|---|---|---|');
    for (const hash of hashes) {
      const xs = later.get(hash)!;
      console.log(`| ${hash} | ${first.get(hash)!.toFixed(0)} | ${median(xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`);
    }
  } finally {
    await browser.close();
    app.child.kill('SIGTERM');
    await new Promise((r) => app.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    clearInterval(alive);
  }
}

await main();
