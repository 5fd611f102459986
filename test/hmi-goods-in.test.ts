import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { expectAccessible, expectTapTargets, launchBrowser, loginInBrowser, openPage, screenshot, type Watched } from './support/browser.ts';
import { until } from './support/warehouse.ts';

// Goods-in in a browser against a real appliance: a receiving order announced over the
// API, captured in the page the way a keyboard-wedge scanner does it (characters, then
// Enter, into the focused field), the bookings checked over REST; a wrong barcode
// refused in the user's language with nothing booked; bookings by others arriving live;
// a user without the grant to capture; a phone.

let wms: TestAppliance;
let browser: Browser;
let tab: Watched;
let page: Page;
let orderPKey: string;

const enc = encodeURIComponent;
const PALLET = 'GI-PALLET-1';
const pieces = (magnitude: number) => ({ '@class': 'org.vendor.core.units.api.Piece', unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'], magnitude });
const kilograms = (magnitude: number) => ({
  '@class': 'org.vendor.core.units.api.Weight',
  unitType: ['org.vendor.core.units.api.WeightUnit', 'KG'],
  magnitude,
});

beforeAll(async () => {
  wms = await startTestAppliance();
  browser = await launchBrowser();
  const products = await wms.post('/v1/products', [
    { sku: 'GI-SKU', baseUnit: pieces(1), description: 'Screws, box' },
    { sku: 'GI-FLOUR', baseUnit: kilograms(1), description: 'Flour' },
  ]);
  expect(products.status, products.text).toBe(201);
  const location = await wms.post('/v1/locations', { locationId: 'GDIN/0001/0000/0000/0000', locationGroupName: 'WAREHOUSE' });
  expect(location.status, location.text).toBe(201);
  const pallet = await wms.post('/v1/transport-units', { barcode: PALLET, actualLocation: 'GDIN/0001/0000/0000/0000', transportUnitType: 'EURO' });
  expect(pallet.status, pallet.text).toBe(201);
  const order = await wms.post('/v1/receiving-orders', {
    orderId: 'GI-1',
    positions: [
      { positionId: '10', quantityExpected: pieces(10), product: { sku: 'GI-SKU' } },
      { positionId: '20', quantityExpected: kilograms(5), product: { sku: 'GI-FLOUR' } },
    ],
  });
  expect(order.status, order.text).toBe(201);
  orderPKey = order.body.pKey;
  tab = await openPage(browser, wms);
  page = tab.page;
});
afterAll(async () => {
  tab?.expectClean();
  await tab?.context.close();
  await browser?.close();
  await wms?.close();
});

/** The order's position as the appliance has it. */
async function position(positionId: string): Promise<any> {
  const order = await wms.get(`/v1/receiving-orders/${orderPKey}`);
  expect(order.status, order.text).toBe(200);
  return order.body.positions.find((p: { positionId: string }) => p.positionId === positionId);
}

/** The stock of a product on the pallet, in its base unit. */
async function onPallet(sku: string): Promise<number> {
  const units = await wms.get(`/v1/transport-units/${enc(PALLET)}/load-units/packaging-units`);
  if (units.status === 404) return 0;
  expect(units.status, units.text).toBe(200);
  return (units.body as { product: { sku: string }; quantity: { magnitude: number } }[])
    .filter((u) => u.product.sku === sku)
    .reduce((sum, u) => sum + u.quantity.magnitude, 0);
}

/** What a wedge scanner does: the characters, then Enter, into whatever has the focus. */
async function scan(code: string): Promise<void> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
}

const focused = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id);
const feedback = (kind: 'done' | 'failed') => page.locator(`.gi-feedback[data-kind="${kind}"]`);

describe('goods-in', () => {
  it('lists the open orders, a new one arriving live; scanning the order number opens it', async () => {
    await loginInBrowser(page, wms, 'admin', undefined, '#/goods-in');
    await page.locator('#gi-title').waitFor();
    await page.locator('a[data-order="GI-1"]').waitFor();
    const later = await wms.post('/v1/receiving-orders', {
      orderId: 'GI-2',
      positions: [{ positionId: '1', quantityExpected: pieces(3), product: { sku: 'GI-SKU' } }],
    });
    expect(later.status, later.text).toBe(201);
    await page.locator('a[data-order="GI-2"]').waitFor();
    await expectAccessible(page, 'the goods-in order choice');
    await screenshot(page, 'goods-in-orders');

    // The order field has the focus: the delivery note's barcode is scanned into it.
    expect(await focused()).toBe('gi-order');
    await scan('NO-SUCH-ORDER');
    await page.locator('.gi-order-form .gi-feedback.failed').waitFor();
    expect(await page.locator('.gi-order-form .gi-feedback.failed').textContent()).toContain('There is no receiving order NO-SUCH-ORDER.');
    await page.locator('#gi-order').fill('');
    await scan('GI-1');
    await page.waitForURL(new RegExp(`#/goods-in/${orderPKey}$`));
    await page.locator('.gi-order-title').waitFor();
    expect(await page.locator('.gi-order-title').textContent()).toBe('Receiving order GI-1');
    expect(await page.locator('li[data-position="10"]').textContent()).toContain('0 PC of 10 PC');
  });

  it('captures by scanning the pallet, then the article with Enter: green feedback, booked over REST, the focus kept', async () => {
    // A new pallet has no load unit yet: it is created of the site's default type,
    // preselected from the site's transport unit types, with nothing to type.
    await expect.poll(() => page.locator('.gi-load-unit summary').textContent()).toBe('Load unit: 1, type EURO');
    await page.locator('.gi-load-unit summary').click();
    const type = page.getByLabel('Load unit type (for a load unit to be created)');
    expect(await type.evaluate((e) => e.tagName)).toBe('SELECT');
    expect(await type.locator('option').evaluateAll((options) => options.map((o) => o.getAttribute('value')))).toEqual(['EURO', 'INDUSTRIAL', 'TOTE']);
    expect(await type.inputValue()).toBe('EURO');
    expect(await type.locator('option:checked').textContent()).toBe('EURO – Euro pallet 1200 x 800 mm');
    await expectAccessible(page, 'goods-in with the load unit types');
    await page.locator('.gi-load-unit summary').click();
    await page.locator('#gi-unit').click();
    await scan(PALLET);
    expect(await focused()).toBe('gi-scan');
    await page.locator('#gi-quantity').fill('4');
    await page.locator('#gi-quantity').press('Enter');
    expect(await focused()).toBe('gi-scan');
    expect(await page.locator('#gi-unit-symbol').inputValue()).toBe('PC');
    await scan('GI-SKU');

    await feedback('done').waitFor();
    expect(await feedback('done').textContent()).toContain(`Booked 4 PC of GI-SKU onto ${PALLET}`);
    expect(await feedback('done').textContent()).toContain('Position 10: 4 PC of 10 PC received');
    expect(await position('10')).toMatchObject({ state: 'PROCESSING', quantityReceived: { magnitude: 4, unitType: [expect.any(String), 'PC'] } });
    expect(await onPallet('GI-SKU')).toBe(4);
    const loadUnits = await wms.get(`/v1/transport-units/${enc(PALLET)}/load-units`);
    expect(loadUnits.status, loadUnits.text).toBe(200);
    expect(loadUnits.body).toEqual([expect.objectContaining({ physicalPosition: '1', type: 'EURO' })]);
    expect(await focused()).toBe('gi-scan');
    expect(await page.locator('#gi-quantity').inputValue()).toBe('1');
    await expect.poll(() => page.locator('li[data-position="10"]').textContent()).toContain('4 PC of 10 PC');

    // The next scan needs no touch: one more piece.
    await scan('GI-SKU');
    await until(async () => (await position('10')).quantityReceived.magnitude === 5, 'the second scan is booked');
    await expect.poll(() => feedback('done').textContent()).toContain('Position 10: 5 PC of 10 PC received');
    expect(await onPallet('GI-SKU')).toBe(5);
    expect(await page.locator('.gi-booked li').count()).toBe(2);
    await screenshot(page, 'goods-in');
    await expectAccessible(page, 'goods-in after a booking');
  });

  it("refuses a wrong barcode in German after switching: red, the appliance's reason, nothing booked", async () => {
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await expect.poll(() => page.locator('#gi-title').textContent()).toBe('Wareneingang');
    await page.locator('#gi-scan').click();
    await scan('NO-SUCH-ARTICLE');
    await feedback('failed').waitFor();
    const text = await feedback('failed').textContent();
    expect(text).toContain('NO-SUCH-ARTICLE nicht gebucht');
    // Said which: no such article at all.
    expect(text).toContain('Es gibt keinen Artikel NO-SUCH-ARTICLE.');
    expect(await page.locator('body').textContent()).not.toMatch(/svc\.wms|messageKey|does not exist|No open position/);
    expect(await focused()).toBe('gi-scan');
    // Nothing changed.
    expect(await position('10')).toMatchObject({ quantityReceived: { magnitude: 5 } });
    expect(await position('20')).toMatchObject({ state: 'OPEN', quantityReceived: { magnitude: 0 } });
    expect(await onPallet('GI-SKU')).toBe(5);
    expect(await page.locator('.gi-booked li').count()).toBe(2);
    await screenshot(page, 'goods-in-refused-de');
    await expectAccessible(page, 'goods-in with a refusal, in German');

    // An article the appliance knows, but not on this order.
    expect((await wms.post('/v1/products', [{ sku: 'GI-OTHER', baseUnit: pieces(1) }])).status).toBe(201);
    await scan('GI-OTHER');
    await expect.poll(() => feedback('failed').textContent()).toContain('Dieser Auftrag erwartet GI-OTHER nicht.');
    expect(await onPallet('GI-OTHER')).toBe(0);

    // More than the position still expects: the product may not be overbooked.
    await page.locator('#gi-quantity').fill('50');
    await page.locator('#gi-quantity').press('Enter');
    await scan('GI-SKU');
    await expect.poll(() => feedback('failed').textContent()).toContain('darf nicht überbucht werden');
    expect(await position('10')).toMatchObject({ quantityReceived: { magnitude: 5 } });
    // The quantity typed for the refused scan is back, to correct it.
    expect(await page.locator('#gi-quantity').inputValue()).toBe('50');
    await page.locator('#gi-quantity').fill('1');
    await page.getByRole('button', { name: 'Language: English' }).click();
  });

  it("books in the position's unit: kilograms, with a decimal comma", async () => {
    await page.locator('li[data-position="20"] button').click();
    expect(await page.locator('#gi-unit-symbol').inputValue()).toBe('KG');
    expect(await focused()).toBe('gi-scan');
    await page.locator('#gi-quantity').fill('1,5');
    await page.locator('#gi-quantity').press('Enter');
    await scan('GI-FLOUR');
    await expect.poll(() => feedback('done').textContent()).toContain('Booked 1.5 KG of GI-FLOUR');
    // Not a whole number of kilograms: the appliance writes it in grams; the page in the position's unit.
    expect(await position('20')).toMatchObject({ state: 'PROCESSING', quantityReceived: { magnitude: 1500, unitType: [expect.any(String), 'G'] } });
    expect(await feedback('done').textContent()).toContain('Position 20: 1.5 KG of 5 KG received');
    expect(await page.locator('li[data-position="20"]').textContent()).toContain('1.5 KG of 5 KG');
  });

  it('shows captures by another desk without a reload', async () => {
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    const other = await wms.post(`/v1/receiving-orders/${orderPKey}/capture`, {
      quantityReceived: pieces(2),
      product: { sku: 'GI-SKU' },
      barcode: PALLET,
      loadUnitLabel: '1',
    });
    expect(other.status, other.text).toBe(200);
    await expect.poll(() => page.locator('li[data-position="10"]').textContent()).toContain('7 PC of 10 PC');
    expect(loads).toEqual([]);
    // The session list is this desk's own.
    expect(await page.locator('.gi-booked li').count()).toBe(3);
  });

  it('says whether an order was completed or cancelled meanwhile (a desk without live updates)', async () => {
    // Without events:read the page does not see the order close: the capture is what tells.
    expect((await wms.post('/roles', { name: 'GI-CLERK', grants: ['receiving-orders:read', 'receiving-orders:write'] })).status).toBe(201);
    expect((await wms.post('/users', { username: 'gi-clerk', password: 'gi-clerk-password', roleNames: ['GI-CLERK'] })).status).toBe(201);
    const closing = {
      complete: async (pKey: string) => {
        const done = await wms.post(`/v1/receiving-orders/${pKey}/capture`, {
          quantityReceived: pieces(1),
          product: { sku: 'GI-SKU' },
          barcode: PALLET,
          loadUnitLabel: '1',
        });
        expect(done.status, done.text).toBe(200);
      },
      cancel: async (pKey: string) => expect((await wms.del(`/v1/receiving-orders/${pKey}`)).status).toBe(204),
    };
    const clerk = await openPage(browser, wms);
    try {
      const desk = clerk.page;
      for (const [how, said] of [
        ['complete', 'This order is complete: nothing more can be captured on it.'],
        ['cancel', 'This order is cancelled: nothing can be captured on it.'],
      ] as const) {
        const order = await wms.post('/v1/receiving-orders', {
          orderId: `GI-${how}`,
          positions: [{ positionId: '1', quantityExpected: pieces(1), product: { sku: 'GI-SKU' } }],
        });
        expect(order.status, order.text).toBe(201);
        const pKey = order.body.pKey as string;
        if (how === 'complete') {
          await loginInBrowser(desk, wms, 'gi-clerk', 'gi-clerk-password', `#/goods-in/${pKey}`);
          await desk.locator('#gi-unit').fill(PALLET);
          await desk.locator('#gi-unit').press('Enter');
        } else {
          await desk.goto(`${wms.url}/hmi/#/goods-in/${pKey}`);
        }
        await desk.locator('#gi-scan').waitFor();
        // The order closes over REST just before the page's capture reaches the appliance.
        await desk.route(`**/v1/receiving-orders/${pKey}/capture**`, async (route) => {
          await closing[how](pKey);
          await route.continue();
        });
        await desk.locator('#gi-scan').fill('GI-SKU');
        await desk.locator('#gi-scan').press('Enter');
        await expect.poll(() => desk.locator('.gi-feedback[data-kind="failed"]').textContent()).toContain(said);
        await desk.unroute(`**/v1/receiving-orders/${pKey}/capture**`);
      }
      clerk.expectClean();
    } finally {
      await clerk.context.close();
    }
  });

  it('works on a handheld: 375 px, dark, the scanner flow the same', async () => {
    const phone = await openPage(browser, wms, { viewport: { width: 375, height: 667 }, colorScheme: 'dark' });
    try {
      const hand = phone.page;
      await loginInBrowser(hand, wms, 'admin', undefined, `#/goods-in/${orderPKey}`);
      await hand.locator('#gi-unit').waitFor();
      // A new tab is a new session: the pallet is scanned first.
      expect(await hand.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id)).toBe(
        'gi-unit',
      );
      await hand.keyboard.type(PALLET);
      await hand.keyboard.press('Enter');
      await hand.keyboard.type('GI-SKU');
      await hand.keyboard.press('Enter');
      await hand.locator('.gi-feedback[data-kind="done"]').waitFor();
      await until(async () => (await position('10')).quantityReceived.magnitude === 8, "the handheld's scan is booked");
      expect(await hand.locator('main').evaluate((m) => m.scrollWidth)).toBeLessThanOrEqual(375);
      await expectTapTargets(hand.locator('main button:visible, main input:visible, main select:visible, main summary:visible'), 44, 'height');
      await screenshot(hand, 'goods-in-phone-dark');
      await expectAccessible(hand, 'goods-in on a handheld, dark');
      // And a refusal, red on the dark theme.
      await hand.keyboard.type('NO-SUCH-ARTICLE');
      await hand.keyboard.press('Enter');
      await hand.locator('.gi-feedback[data-kind="failed"]').waitFor();
      await expectAccessible(hand, 'a refusal on a handheld, dark');
      phone.expectClean();
    } finally {
      await phone.context.close();
    }
  });

  it('takes a typed load unit type from a user who may not read the transport unit types', async () => {
    expect((await wms.post('/roles', { name: 'GI-DESK', grants: ['receiving-orders:read', 'receiving-orders:write', 'events:read'] })).status).toBe(201);
    expect((await wms.post('/users', { username: 'gi-desk', password: 'gi-desk-password', roleNames: ['GI-DESK'] })).status).toBe(201);
    const desk = await openPage(browser, wms);
    try {
      await loginInBrowser(desk.page, wms, 'gi-desk', 'gi-desk-password', `#/goods-in/${orderPKey}`);
      await desk.page.locator('.gi-load-unit summary').click();
      const type = desk.page.getByLabel('Load unit type (for a load unit to be created)');
      expect(await type.evaluate((e) => e.tagName)).toBe('INPUT');
      await type.fill('CARTON');
      expect(await desk.page.locator('.gi-load-unit summary').textContent()).toBe('Load unit: 1, type CARTON');
      // No list was asked for without the grant.
      expect(desk.requests.filter((url) => url.includes('/v1/transport-unit-types'))).toEqual([]);
      desk.expectClean();
    } finally {
      await desk.context.close();
    }
  });

  it('does not offer capturing to a user who may only read receiving orders', async () => {
    expect((await wms.post('/roles', { name: 'GI-VIEWER', grants: ['receiving-orders:read', 'events:read'] })).status).toBe(201);
    expect((await wms.post('/users', { username: 'gi-viewer', password: 'gi-viewer-password', roleNames: ['GI-VIEWER'] })).status).toBe(201);
    const viewer = await openPage(browser, wms);
    try {
      await loginInBrowser(viewer.page, wms, 'gi-viewer', 'gi-viewer-password', `#/goods-in/${orderPKey}`);
      await viewer.page.locator('li[data-position="10"]').waitFor();
      expect(await viewer.page.locator('#gi-scan').count()).toBe(0);
      expect(await viewer.page.locator('li[data-position] button').count()).toBe(0);
      expect(await viewer.page.locator('.notice').textContent()).toContain('receiving-orders:write');
      viewer.expectClean();
    } finally {
      await viewer.context.close();
    }
  });
});
