import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { expectAccessible, launchBrowser, loginInBrowser, openPage, screenshot, type Watched } from './support/browser.ts';
import { connectedPlc, site, unitWithOrder, until, type Site } from './support/warehouse.ts';

// The telegram monitor in a browser against a real appliance with a PLC channel and the
// conveyor simulator on it: a REQ_ the simulator sends shows in the open page with its
// RES_ and the answer's latency, without a reload; filter, decoded fields, pause and
// resume, late answers, the channel's state and counters, German, accessibility.

let wms: TestAppliance;
let browser: Browser;
let sim: PlcSimulator;
let s: Site;
let tab: Watched;
let page: Page;

const CHANNEL = 'CNV01';
const LATE_AFTER_MS = 4000;

beforeAll(async () => {
  wms = await startTestAppliance({
    // The site's answer budget, which the monitor judges by unless the user sets another.
    plc: { lateAfterMs: LATE_AFTER_MS, channels: [{ name: CHANNEL, transport: 'tcp-server', host: '127.0.0.1', port: 0, resReasonCodes: true }] },
  });
  browser = await launchBrowser();
  sim = await connectedPlc(wms, CHANNEL);
  await sim.synq({ timeoutMs: 10_000 });
  s = await site(wms, 'TMON');
  tab = await openPage(browser, wms);
  page = tab.page;
});
afterAll(async () => {
  tab?.expectClean();
  await tab?.context.close();
  await browser?.close();
  await sim?.close();
  await wms?.close();
});

/** The telegram rows the page shows, newest first. */
const rows = () => page.locator('.tg-row');
/**
 * The row of a telegram about a unit. A RES_ is the answer to the REQ_ (`reply`): a new
 * order for a unit where the channel has seen units also sends an unsolicited RES_.
 */
const row = (type: string, barcode: string): Locator =>
  page
    .locator(`.tg-row[data-type="${type}"]${type === 'RES_' ? '[data-outcome="reply"]' : ''}`)
    .filter({ has: page.locator('.tg-barcode', { hasText: new RegExp(`^${barcode}$`) }) });

/** Sends a REQ_ for a new unit standing at INFEED with an order to STOCK; the appliance answers a RES_ to C1. */
let units = 0;
async function request(): Promise<string> {
  units++;
  const barcode = `TM-${units}`;
  await unitWithOrder(wms, barcode, s.INFEED, s.STOCK);
  await sim.requestExchange({ barcode, actualLocation: s.INFEED }, { timeoutMs: 10_000 });
  return barcode;
}

describe('the telegram monitor', () => {
  it('opens on the channel with its state and counters, the newest telegrams already there', async () => {
    await loginInBrowser(page, wms, 'admin', undefined, '#/telegrams');
    await page.waitForURL(/#\/telegrams\/CNV01$/);
    await page.locator('#telegrams-title').waitFor();
    const panel = page.locator('.tg-channel');
    await expect.poll(() => panel.getAttribute('data-state')).toBe('ONLINE');
    expect(await panel.locator('.tg-state').textContent()).toBe('Online');
    expect(await page.locator('.tg-tabs a[data-channel="CNV01"]').getAttribute('aria-current')).toBe('page');
    // The SYNQ sent before the page opened is read on open: the newest of the log.
    await page.locator('.tg-row[data-type="SYNQ"]').first().waitFor();
    expect(Number(await panel.locator('[data-counter="rxOk"] dd').textContent())).toBeGreaterThanOrEqual(1);
  });

  it('shows a REQ_ from the simulator and its RES_ with the latency, without a reload, and the counters follow', async () => {
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    const received = Number(await page.locator('[data-counter="rxOk"] dd').textContent());
    const barcode = await request();
    await row('RES_', barcode).waitFor();
    await row('REQ_', barcode).waitFor();
    // Newest on top: the RES_ above its REQ_.
    const types = await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-type')));
    expect(types.indexOf('RES_')).toBeLessThan(types.indexOf('REQ_'));
    const latency = await row('RES_', barcode).locator('.tg-latency').textContent();
    expect(latency).toMatch(/^\d+(\.\d+)? ms/);
    // What the page shows is what the log holds.
    const log = (await wms.get(`/v1/plc-channels/${CHANNEL}/telegrams?barcode=${barcode}&type=RES_`)).body;
    expect(log).toHaveLength(1);
    expect(await row('RES_', barcode).getAttribute('data-id')).toBe(String(log[0].id));
    await expect.poll(async () => Number(await page.locator('[data-counter="rxOk"] dd').textContent())).toBeGreaterThan(received);
    expect(loads).toEqual([]);
    // The chart has the answer of this minute.
    await expect.poll(() => page.locator('.tg-chart-now').textContent()).toMatch(/p50 .* ms, p99 .* ms/);
    expect(await page.locator('.tg-chart rect.tg-p50').count()).toBeGreaterThan(0);
    await screenshot(page, 'telegrams');
    await expectAccessible(page, 'the telegram monitor');
  });

  it('expands a telegram into its decoded fields', async () => {
    const barcode = `TM-${units}`;
    const res = row('RES_', barcode);
    await res.locator('summary').click();
    const fields = res.locator('.tg-fields');
    await fields.first().waitFor();
    const text = await res.locator('.tg-decoded').textContent();
    expect(text).toContain('Target location');
    expect(text).toContain(s.C1);
    expect(text).toContain('Receiver');
    expect(text).toContain(CHANNEL);
    expect(await res.locator('.tg-text').textContent()).toMatch(/^###/);
    await screenshot(page, 'telegrams-decoded');
    await expectAccessible(page, 'a decoded telegram');
    await res.locator('summary').click();
  });

  it('filters by type and by barcode', async () => {
    await page.getByLabel('Type', { exact: true }).selectOption('RES_');
    await expect.poll(async () => new Set(await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-type'))))).toEqual(new Set(['RES_']));
    const barcode = await request();
    await row('RES_', barcode).waitFor();
    expect(await row('REQ_', barcode).count()).toBe(0);

    await page.getByLabel('Type', { exact: true }).selectOption('');
    await page.getByLabel('Barcode', { exact: true }).fill('TM-1');
    await page.getByRole('button', { name: 'Apply' }).click();
    const barcodes = () => rows().evaluateAll((els) => [...new Set(els.map((e) => e.querySelector('.tg-barcode')?.textContent))]);
    await expect.poll(barcodes).toEqual(['TM-1']);
    await row('REQ_', 'TM-1').waitFor();
    await row('RES_', 'TM-1').waitFor();
    await page.getByRole('button', { name: 'Clear filter' }).click();
    await row('REQ_', barcode).waitFor();
  });

  it('pauses: nothing moves while telegrams arrive, a counter says how many; resume shows them', async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    const before = await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    const barcode = await request();
    // The REQ_ and its RES_ have arrived: the counter says so, the list stands still.
    await expect.poll(async () => Number(await page.locator('.tg-paused').getAttribute('data-arrived'))).toBeGreaterThanOrEqual(2);
    expect(await page.locator('.tg-paused').textContent()).toMatch(/Paused: \d+ new telegrams arrived meanwhile\./);
    expect(await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))).toEqual(before);
    expect(await row('RES_', barcode).count()).toBe(0);
    await screenshot(page, 'telegrams-paused');

    await page.getByRole('button', { name: 'Resume' }).click();
    await row('RES_', barcode).waitFor();
    await row('REQ_', barcode).waitFor();
    expect(await page.locator('.tg-paused').count()).toBe(0);
  });

  it("marks answers above the site's answer budget (plc.lateAfterMs), or above a threshold the user sets for the page", async () => {
    const barcode = `TM-${units}`;
    const threshold = page.getByLabel('Late above (ms)');
    // The site's budget, from the channel's diagnostics: an answer on this box is well within it.
    await expect.poll(() => threshold.inputValue()).toBe(String(LATE_AFTER_MS));
    await expect.poll(() => page.locator('.tg-chart .tg-legend').textContent()).toContain(`late above ${LATE_AFTER_MS.toLocaleString('en')} ms`);
    await expect.poll(() => row('RES_', barcode).getAttribute('class')).not.toContain('late');
    // Every answer takes some time: above a threshold of a microsecond, all are late.
    // The tail reads on while the user types: new telegrams arrive between the typing
    // and the Enter, and what was typed stays.
    await threshold.fill('0.001');
    const meanwhile = await request();
    await row('RES_', meanwhile).waitFor();
    expect(await threshold.inputValue()).toBe('0.001');
    await threshold.press('Enter');
    await expect.poll(() => row('RES_', barcode).getAttribute('class')).toContain('late');
    expect(await row('RES_', barcode).locator('.tg-late').textContent()).toBe('late');
    expect(await row('REQ_', barcode).getAttribute('class')).not.toContain('late');
    // For this page only: a reload judges by the site's budget again.
    await page.reload();
    await row('RES_', barcode).waitFor();
    await expect.poll(() => threshold.inputValue()).toBe(String(LATE_AFTER_MS));
    await expect.poll(() => row('RES_', barcode).getAttribute('class')).not.toContain('late');
  });

  it('speaks German after switching', async () => {
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await expect.poll(() => page.locator('#telegrams-title').textContent()).toBe('Telegramm-Monitor');
    expect(await page.getByRole('button', { name: 'Anhalten' }).count()).toBe(1);
    expect(await page.locator('.tg-chart figcaption').textContent()).toContain('Antwortzeit');
    await screenshot(page, 'telegrams-de');
    await expectAccessible(page, 'the telegram monitor in German');
    await page.getByRole('button', { name: 'Language: English' }).click();
    await expect.poll(() => page.locator('#telegrams-title').textContent()).toBe('Telegram monitor');
  });

  it("shows the channel's state change live when the PLC goes away", async () => {
    await sim.close();
    const panel = page.locator('.tg-channel');
    await expect.poll(() => panel.getAttribute('data-state')).not.toBe('ONLINE');
    expect(['CLOSED', 'WAITING']).toContain(await panel.getAttribute('data-state'));
    expect(await page.locator('.tg-tabs a[data-channel="CNV01"] .tg-state').textContent()).toMatch(/Closed|Waiting/);
    sim = await connectedPlc(wms, CHANNEL);
    await sim.synq({ timeoutMs: 10_000 });
    await expect.poll(() => panel.getAttribute('data-state')).toBe('ONLINE');
    await until(async () => (await wms.get(`/v1/plc-channels/${CHANNEL}`)).body.state === 'ONLINE', 'the channel is online again');
  });

  it('works on a phone', async () => {
    const phone = await openPage(browser, wms, { viewport: { width: 375, height: 667 }, colorScheme: 'dark' });
    try {
      await loginInBrowser(phone.page, wms, 'admin', undefined, '#/telegrams/CNV01');
      await phone.page.locator('.tg-row').first().waitFor();
      // Nothing of the screen wider than the phone.
      expect(await phone.page.locator('main').evaluate((m) => m.scrollWidth)).toBeLessThanOrEqual(375);
      await screenshot(phone.page, 'telegrams-phone-dark');
      await expectAccessible(phone.page, 'the telegram monitor on a phone');
      phone.expectClean();
    } finally {
      await phone.context.close();
    }
  });
});
