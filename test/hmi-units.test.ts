import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { ADMIN_PASSWORD, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { expectAccessible, expectTapTargets, launchBrowser, loginInBrowser, openPage, screenshot, type Watched } from './support/browser.ts';
import { connectedPlc, site, unitWithOrder, type Site } from './support/warehouse.ts';

// Unit search and trace in Debian's Chromium against a real appliance with a simulated
// PLC: a barcode typed as a keyboard-wedge scanner does (characters, then Enter) shows
// where the unit stands, its orders and its history; a REQ_ from the PLC and a move
// over REST appear on the open timeline without a reload; the address opens a unit; a
// long history pages; an unknown barcode is said so in the user's language.

let wms: TestAppliance;
let browser: Browser;
let sim: PlcSimulator;
let s: Site;
let admin: Watched;
let orderPKey: string;
const enc = encodeURIComponent;

/** The right edge of the widest thing in the screen (the top bar is the shell's, tested with it). */
const widest = (page: Page) =>
  page.locator('main').evaluate((main) => Math.max(...[main, ...main.querySelectorAll('*')].map((e) => Math.ceil(e.getBoundingClientRect().right))));

beforeAll(async () => {
  wms = await startTestAppliance({ plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0, resReasonCodes: true }] } });
  sim = await connectedPlc(wms, 'CNV01');
  browser = await launchBrowser();
  s = await site(wms, 'HUNT');
  orderPKey = await unitWithOrder(wms, 'HU-1', s.INFEED, s.STOCK);
  admin = await openPage(browser, wms);
  await loginInBrowser(admin.page, wms, 'admin', ADMIN_PASSWORD, '#/units');
  await admin.page.locator('#units-title').waitFor();
  await admin.page.locator('#connection[data-state="live"]').waitFor();
});
afterAll(async () => {
  admin?.expectClean();
  await admin?.context.close();
  await sim?.close();
  await browser?.close();
  await wms?.close();
});

const entries = (page: Page) => page.locator('ol.trace > li');
const entryTexts = async (page: Page) => (await entries(page).allTextContents()).map((t) => t.replace(/\s+/g, ' '));

describe('unit search and trace', () => {
  it('takes a scanned barcode and Enter: where the unit is, its order, its history', async () => {
    const { page } = admin;
    // The field has the focus: a scanner types into it at once.
    expect(await page.locator('#unit-barcode').evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    await page.keyboard.type('HU-1');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/units\/HU-1$/);
    await page.locator('.unit-location').waitFor();
    expect(await page.locator('.unit-location').textContent()).toBe(s.INFEED);
    expect(await page.locator('.unit-place').textContent()).toContain('Available');
    expect(await page.locator('.unit-place').textContent()).toContain('Free for inbound and outbound');
    const order = page.locator(`li.unit-order[data-order="${orderPKey}"]`);
    expect(await order.textContent()).toContain('Running');
    expect(await order.textContent()).toContain(s.STOCK);
    await entries(page).first().waitFor();
    // Newest first, in words.
    expect(await entryTexts(page)).toEqual([
      expect.stringContaining(`Transport order to ${s.STOCK} started`),
      expect.stringContaining(`Transport order to ${s.STOCK} created, priority Normal: Running`),
      expect.stringContaining(`Registered on ${s.INFEED}`),
    ]);
    expect(await entries(page).first().textContent()).toContain('by admin');
    // The next scan replaces what is in the field.
    expect(await page.locator('#unit-barcode').evaluate((el: any) => [el.selectionStart, el.selectionEnd, el.value.length])).toEqual([0, 4, 4]);
    await screenshot(page, 'units');
    await expectAccessible(page, 'the unit screen');
  });

  it("shows a REQ_ from the PLC on the open timeline without a reload: the telegrams, the answer's latency, the move", async () => {
    const { page } = admin;
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    const res = await sim.request({ barcode: 'HU-1', actualLocation: s.C1 });
    expect(res.targetLocation).toBeDefined();
    await expect.poll(() => page.locator('.unit-location').textContent()).toBe(s.C1);
    const answer = page.locator('ol.trace > li[data-source="telegram"][data-type="RES_"]');
    await answer.waitFor();
    expect(await answer.textContent()).toContain(`RES_ to PLC CNV01 for ${s.C1}: answer: on to ${res.targetLocation}`);
    expect(await answer.textContent()).toMatch(/answered after [\d.]+ ms/);
    const request = page.locator('ol.trace > li[data-source="telegram"][data-type="REQ_"]');
    expect(await request.textContent()).toContain(`REQ_ from PLC CNV01 at ${s.C1}`);
    const move = page.locator('ol.trace > li[data-type="transportUnit.moved"]');
    expect(await move.textContent()).toContain(`Moved from ${s.INFEED} to ${s.C1}`);
    expect(await move.textContent()).toContain('by PLC CNV01');
    // In time order, newest first: the answer, the move, the request.
    const types = await entries(page).evaluateAll((lis) => lis.map((li) => li.getAttribute('data-type')));
    expect(types.slice(0, 3)).toEqual(['RES_', 'transportUnit.moved', 'REQ_']);
    expect(loads).toEqual([]);
    await screenshot(page, 'units-trace');
  });

  it("shows a move over REST and a lock of the unit's location without a reload", async () => {
    const { page } = admin;
    expect((await wms.patch(`/v1/transport-units?bk=HU-1&newLocation=${enc(s.C2)}`)).status).toBe(200);
    await expect.poll(() => entries(page).first().textContent()).toContain(`Moved from ${s.C1} to ${s.C2}`);
    expect(await entries(page).first().textContent()).toContain('by admin');
    await expect.poll(() => page.locator('.unit-location').textContent()).toBe(s.C2);
    expect((await wms.patch(`/v1/location/${s.pKey[s.C2]}?op=change-state`, { errorCode: '00000001', reason: 'roller jammed' })).status).toBe(204);
    await expect.poll(() => page.locator('.unit-location-state').textContent()).toBe('Locked for inbound');
  });

  it('opens a unit from the address, as other screens link to it', async () => {
    const { page } = admin;
    await page.goto(`${wms.url}/hmi/#/units/HU-1`);
    await page.locator('.unit-location').waitFor();
    expect(await page.locator('#unit-barcode').inputValue()).toBe('HU-1');
    expect(await page.locator('.unit-location').textContent()).toBe(s.C2);
  });

  it('pages a long history: the newest 50, older ones on demand', async () => {
    const { page } = admin;
    expect((await wms.post('/v1/transport-units', { barcode: 'HU-LONG', actualLocation: s.INFEED, transportUnitType: 'EURO' })).status).toBe(201);
    for (let i = 0; i < 55; i++) {
      expect((await wms.patch(`/v1/transport-units?bk=HU-LONG&newLocation=${enc(i % 2 ? s.C1 : s.C2)}`)).status).toBe(200);
    }
    await page.locator('#unit-barcode').fill('HU-LONG');
    await page.locator('#unit-barcode').press('Enter');
    await page.waitForURL(/#\/units\/HU-LONG$/);
    await expect.poll(() => entries(page).count()).toBe(50);
    // The newest first: the last move (55th, to C2 from C1).
    expect(await entries(page).first().textContent()).toContain(`Moved from ${s.C1} to ${s.C2}`);
    await page.getByRole('button', { name: 'Older (6 more)' }).click();
    await expect.poll(() => entries(page).count()).toBe(56);
    expect(await entries(page).last().textContent()).toContain(`Registered on ${s.INFEED}`);
    expect(await page.getByRole('button', { name: /^Older/ }).count()).toBe(0);
  });

  it("says clearly that a barcode is unknown, in the user's language", async () => {
    const { page } = admin;
    await page.locator('#unit-barcode').fill('NO-SUCH-UNIT');
    await page.locator('#unit-barcode').press('Enter');
    const unknown = page.locator('.unit-unknown');
    await unknown.waitFor();
    expect(await unknown.textContent()).toContain('No transport unit has the barcode NO-SUCH-UNIT');
    expect(await page.locator('body').textContent()).not.toMatch(/messageKey|notFoundByBK|svc\./);
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await expect.poll(() => unknown.textContent()).toContain('Keine Transporteinheit hat den Barcode NO-SUCH-UNIT');
    await screenshot(page, 'units-unknown-de');
    await expectAccessible(page, 'an unknown barcode');
    await page.getByRole('button', { name: 'Language: English' }).click();
  });

  it('offers to create a unit with a barcode no unit has, at a chosen location, of a chosen type', async () => {
    const { page } = admin;
    await page.locator('#unit-barcode').fill('HU-NEW');
    await page.locator('#unit-barcode').press('Enter');
    await page.locator('.unit-unknown').waitFor();
    const form = page.locator('form.unit-create');
    await form.waitFor();
    expect(await form.locator('h2').textContent()).toBe('Create unit here: HU-NEW');
    // The site's types, its default chosen.
    const type = page.getByLabel('Transport unit type');
    await expect.poll(() => type.inputValue()).toBe('EURO');
    expect(await type.locator('option').evaluateAll((options) => options.map((o) => o.getAttribute('value')))).toEqual(['EURO', 'INDUSTRIAL', 'TOTE']);
    const where = page.getByLabel('Location (coordinate)');
    // A malformed coordinate: which part and why, nothing sent.
    await where.fill('HUNT/0001');
    await form.getByRole('button', { name: 'Create unit' }).click();
    await expect.poll(() => form.locator('.error-text').textContent()).toBe('A coordinate has 5 parts, AREA/AISLE/X/Y/Z, separated by /; this one has 2.');
    // A location that does not exist: the appliance's refusal, in words.
    await where.fill('HUNT/0009/0000/0000/0000');
    await form.getByRole('button', { name: 'Create unit' }).click();
    await expect.poll(() => form.locator('.error-text').textContent()).toBe('There is no location with this coordinate.');
    expect((await wms.get('/v1/transport-units?bk=HU-NEW')).status).toBe(404);
    await expectAccessible(page, 'create unit here');
    await screenshot(page, 'units-create');

    await type.selectOption('TOTE');
    await where.fill(s.C1);
    await form.getByRole('button', { name: 'Create unit' }).click();
    await expect.poll(() => page.locator('.unit-location').textContent()).toBe(s.C1);
    expect(await form.count()).toBe(0);
    expect((await wms.get('/v1/transport-units?bk=HU-NEW')).body).toMatchObject({ barcode: 'HU-NEW', actualLocation: s.C1, transportUnitType: 'TOTE' });
    await expect.poll(() => entries(page).first().textContent()).toContain(`Registered on ${s.C1}`);
  });

  it('does not offer to create a unit to a user who may not', async () => {
    expect((await wms.post('/roles', { name: 'UNIT-VIEWER', grants: ['transport-units:read', 'transport-unit-types:read', 'events:read'] })).status).toBe(201);
    expect((await wms.post('/users', { username: 'unit-viewer', password: 'unit-viewer-password', roleNames: ['UNIT-VIEWER'] })).status).toBe(201);
    const viewer = await openPage(browser, wms);
    try {
      await loginInBrowser(viewer.page, wms, 'unit-viewer', 'unit-viewer-password', '#/units/HU-NONE');
      await viewer.page.locator('.unit-unknown').waitFor();
      expect(await viewer.page.locator('form.unit-create').count()).toBe(0);
      viewer.expectClean();
    } finally {
      await viewer.context.close();
    }
  });

  it('shows a unit on a wallboard without the search field and buttons', async () => {
    const { page } = admin;
    await page.goto(`${wms.url}/hmi/?wallboard=1#/units/HU-1`);
    await entries(page).first().waitFor();
    expect(await page.locator('button:visible, input:visible, select:visible').count()).toBe(0);
    expect(await page.locator('.unit-location').textContent()).toBe(s.C2);
    await page.keyboard.press('Escape');
    await page.locator('#unit-barcode').waitFor();
  });

  it('says of the RES_ at the target that the unit has arrived, not that it goes on', async () => {
    const { page } = admin;
    await unitWithOrder(wms, 'HU-END', s.INFEED, s.STOCK);
    expect((await sim.request({ barcode: 'HU-END', actualLocation: s.INFEED })).targetLocation).toBe(s.C1);
    expect((await sim.request({ barcode: 'HU-END', actualLocation: s.STOCK })).targetLocation).toBeNull();
    await page.goto(`${wms.url}/hmi/#/units/HU-END`);
    const answers = page.locator('ol.trace > li[data-source="telegram"][data-type="RES_"] .trace-text');
    // Newest first: the answer at the target, then the one that sent the unit on.
    await expect
      .poll(() => answers.allTextContents())
      .toEqual([
        `RES_ to PLC CNV01 for ${s.STOCK}: answer: no further destination, the unit has arrived at its target`,
        `RES_ to PLC CNV01 for ${s.INFEED}: answer: on to ${s.C1}`,
      ]);
    expect(await entries(page).first().textContent()).not.toMatch(/next destination/);
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await expect
      .poll(() => answers.first().textContent())
      .toBe(`RES_ an SPS CNV01 für ${s.STOCK}: Antwort: kein weiteres Ziel, die Einheit ist an ihrem Ziel angekommen`);
    await page.getByRole('button', { name: 'Language: English' }).click();
  });

  it('works on a phone: nothing wider than the screen, big enough to tap', async () => {
    const phone = await openPage(browser, wms, { viewport: { width: 375, height: 667 }, colorScheme: 'dark' });
    try {
      const { page } = phone;
      await loginInBrowser(page, wms, 'admin', ADMIN_PASSWORD, '#/units/HU-1');
      await page.locator('ol.trace > li').first().waitFor();
      expect(await widest(page)).toBeLessThanOrEqual(375);
      await expectTapTargets(page.locator('main button:visible, main a:visible, main input:visible'));
      await screenshot(page, 'units-phone');
      await expectAccessible(page, 'the unit screen on a phone');
      // The offer to create a unit, too.
      await page.goto(`${wms.url}/hmi/#/units/HU-PHONE`);
      // The type field is a text field until the site's types are read, then a list: the
      // boxes are measured once the list is there, not of a field that is being replaced.
      await page.locator('form.unit-create select#unit-create-type').waitFor();
      expect(await widest(page)).toBeLessThanOrEqual(375);
      await expectTapTargets(page.locator('form.unit-create :is(button, input, select):visible'));
      await screenshot(page, 'units-create-phone');
      await expectAccessible(page, 'create unit here on a phone');
      phone.expectClean();
    } finally {
      await phone.context.close();
    }
  });
});
