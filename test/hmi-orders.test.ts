import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { expectAccessible, expectTapTargets, launchBrowser, loginInBrowser, openPage, screenshot, type Watched } from './support/browser.ts';
import { site, until, type Site } from './support/warehouse.ts';

// The transport orders board in Debian's Chromium against a real appliance: create,
// change the priority, redirect and cancel in the page and see it over REST; orders
// made and changed over REST arrive on the open board without a reload and move between
// its lanes; refusals in the user's language; no actions without the write grant; a big
// lane pages; a phone shows one lane chosen by a state filter; the wallboard has no
// controls. Screenshots go to test-artifacts/hmi/.

let wms: TestAppliance;
let browser: Browser;
let s: Site;
let admin: Watched;
const enc = encodeURIComponent;

/** The right edge of the widest thing in the screen (the top bar is the shell's, tested with it). */
const widest = (page: Page) =>
  page.locator('main').evaluate((main) => Math.max(...[main, ...main.querySelectorAll('*')].map((e) => Math.ceil(e.getBoundingClientRect().right))));

beforeAll(async () => {
  wms = await startTestAppliance();
  browser = await launchBrowser();
  s = await site(wms, 'HORD');
  admin = await openPage(browser, wms);
  await loginInBrowser(admin.page, wms, 'admin', ADMIN_PASSWORD, '#/orders');
  await admin.page.locator('#orders-title').waitFor();
  await admin.page.locator('#connection[data-state="live"]').waitFor();
});
afterAll(async () => {
  admin?.expectClean();
  await admin?.context.close();
  await browser?.close();
  await wms?.close();
});

async function unit(barcode: string, at: string): Promise<void> {
  const created = await wms.post('/v1/transport-units', { barcode, actualLocation: at, transportUnitType: 'EURO' });
  expect(created.status, created.text).toBe(201);
}

async function ordersOf(barcode: string): Promise<any[]> {
  return (await wms.get(`/v1/transport-orders?barcode=${enc(barcode)}`)).body;
}

async function userWith(username: string, grants: string[]): Promise<string> {
  const password = `${username}-password`;
  expect((await wms.post('/roles', { name: `${username}-role`, grants })).status).toBe(201);
  const user = await wms.post('/users', { username, password, roleNames: [`${username}-role`] });
  expect(user.status, user.text).toBe(201);
  return password;
}

const card = (page: Page, pKey: string): Locator => page.locator(`li[data-order="${pKey}"]`);
const lane = (page: Page, name: 'waiting' | 'running' | 'ended'): Locator => page.locator(`section[data-lane="${name}"]`);
/** The board read afresh, at its own address whatever screen a test before left open. */
async function reloadBoard(page: Page): Promise<void> {
  await page.goto(`${wms.url}/hmi/#/orders`);
  await page.reload();
}
const laneOf = (page: Page, pKey: string) => card(page, pKey).evaluate((li) => li.closest('section[data-lane]')?.getAttribute('data-lane'));

describe('the transport orders board', () => {
  let created: string;

  it('creates an order in the page (barcode scanned with Enter); REST has it; it runs on the board', async () => {
    const { page } = admin;
    await unit('HO-1', s.INFEED);
    await page.getByRole('link', { name: 'New transport order' }).click();
    await page.waitForURL(/#\/orders\/new$/);
    const form = page.locator('form.order-create');
    // A keyboard-wedge scanner types the barcode and presses Enter: on to the target, not sent.
    await form.getByLabel('Transport unit (barcode)').focus();
    await page.keyboard.type('HO-1');
    await page.keyboard.press('Enter');
    expect(await form.getByLabel('Target location', { exact: true }).evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    expect(await ordersOf('HO-1')).toEqual([]);
    await page.keyboard.type(s.STOCK);
    await form.getByLabel('Priority').selectOption('HIGH');
    await expectAccessible(page, 'the new order form');
    await form.getByRole('button', { name: 'Create order' }).click();

    await until(async () => (await ordersOf('HO-1')).length === 1, 'the order is created');
    const [order] = await ordersOf('HO-1');
    expect(order).toMatchObject({ priority: 'HIGH', state: 'STARTED', sourceLocation: s.INFEED, targetLocation: s.STOCK, targetLocationGroup: null });
    created = order.persistentKey;
    await page.locator('.toast.done').waitFor();
    expect(await page.locator('.toast.done').textContent()).toContain('Transport order for HO-1');
    await card(page, created).waitFor();
    expect(await laneOf(page, created)).toBe('running');
    const text = await card(page, created).textContent();
    expect(text).toContain('High');
    expect(text).toContain(s.STOCK);
    // The card comes with the order; where its unit stands comes with the next answer.
    await expect.poll(() => card(page, created).locator('.path-now').textContent()).toContain(s.INFEED);
    expect(await card(page, created).locator('.order-age').textContent()).toContain('just now');
    await page.getByRole('button', { name: 'Close' }).click();
    await page.waitForURL(/#\/orders$/);
    await screenshot(page, 'orders');
    await expectAccessible(page, 'the orders board');
  });

  it('changes the priority and redirects in the page; REST shows both; a bad target is refused and changes nothing', async () => {
    const { page } = admin;
    const c = card(page, created);
    await c.getByRole('button', { name: 'Priority' }).click();
    await c.getByLabel('Priority', { exact: true }).selectOption('LOW');
    await expectAccessible(page, 'the priority form');
    await c.getByRole('button', { name: 'Save' }).click();
    await until(async () => (await wms.get(`/v1/transport-orders/${created}`)).body.priority === 'LOW', 'the priority is LOW');
    await expect.poll(() => c.locator('.prio').textContent()).toBe('Low');

    await c.getByRole('button', { name: 'Redirect' }).click();
    await c.getByLabel('Target location', { exact: true }).fill(s.C2);
    await c.getByRole('button', { name: 'Redirect' }).click();
    await until(async () => (await wms.get(`/v1/transport-orders/${created}`)).body.targetLocation === s.C2, 'the order goes to C2');
    await expect.poll(() => c.locator('.path-target').textContent()).toContain(s.C2);

    const before = (await wms.get(`/v1/transport-orders/${created}`)).body;
    await c.getByRole('button', { name: 'Redirect' }).click();
    await c.getByLabel('Target location', { exact: true }).fill('NOPE/0001/0000/0000/0000');
    await c.getByRole('button', { name: 'Redirect' }).click();
    const failed = page.locator('.toast.failed');
    await failed.waitFor();
    // The appliance's refusal names neither; the page finds out which target it does not know.
    expect(await failed.textContent()).toContain('There is no location NOPE/0001/0000/0000/0000: check the target location.');
    expect(await page.locator('body').textContent()).not.toMatch(/messageKey|not\.found/);
    expect((await wms.get(`/v1/transport-orders/${created}`)).body).toMatchObject({ targetLocation: s.C2, ol: before.ol });
    await failed.getByRole('button', { name: 'Close' }).click();
    await c.getByLabel('Target location', { exact: true }).fill(s.C2);
    await c.getByLabel('Target location group').fill('NO-SUCH-GROUP');
    await c.getByRole('button', { name: 'Redirect' }).click();
    await expect.poll(() => failed.textContent()).toContain('There is no location group NO-SUCH-GROUP: check the target group.');
    expect((await wms.get(`/v1/transport-orders/${created}`)).body).toMatchObject({ targetLocation: s.C2, ol: before.ol });
    await failed.getByRole('button', { name: 'Close' }).click();
    await c.getByRole('button', { name: 'Back' }).click();
  });

  it('cancels in the page after a confirmation; REST says CANCELED; the card moves to the ended lane', async () => {
    const { page } = admin;
    const c = card(page, created);
    await c.getByRole('button', { name: 'Cancel order' }).click();
    expect(await c.locator('form').textContent()).toContain('Cancel the transport order of HO-1');
    expect((await wms.get(`/v1/transport-orders/${created}`)).body.state).toBe('STARTED');
    await c.getByRole('button', { name: 'Cancel order' }).click();
    await until(async () => (await wms.get(`/v1/transport-orders/${created}`)).body.state === 'CANCELED', 'the order is cancelled');
    await expect.poll(() => laneOf(page, created)).toBe('ended');
    expect(await card(page, created).textContent()).toContain('Cancelled');
    expect(await card(page, created).getByRole('button').count()).toBe(0);
  });

  it('shows orders made and changed over REST without a reload: new ones appear, a state change moves the card, a move updates where the unit is', async () => {
    const { page } = admin;
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    await unit('HO-2', s.INFEED);
    const first = (await wms.post('/v1/transport-orders', { barcode: 'HO-2', targetLocation: s.STOCK })).body;
    const second = (await wms.post('/v1/transport-orders', { barcode: 'HO-2', targetLocation: s.STOCK, targetLocationGroup: 'HORD', priority: 'HIGHEST' }))
      .body;
    expect([first.state, second.state]).toEqual(['STARTED', 'INITIALIZED']);
    await card(page, first.persistentKey).waitFor();
    await card(page, second.persistentKey).waitFor();
    expect(await laneOf(page, first.persistentKey)).toBe('running');
    expect(await laneOf(page, second.persistentKey)).toBe('waiting');
    expect(await card(page, second.persistentKey).locator('.path-target').textContent()).toContain(`${s.STOCK} in HORD`);

    expect((await wms.patch(`/v1/transport-units?bk=HO-2&newLocation=${enc(s.C1)}`)).status).toBe(200);
    await expect.poll(() => card(page, first.persistentKey).locator('.path-now').textContent()).toContain(s.C1);

    // Cancelled over REST: the first ends, the unit's next order starts.
    expect((await wms.del(`/v1/transport-orders/${first.persistentKey}`)).status).toBe(200);
    await expect.poll(() => laneOf(page, first.persistentKey)).toBe('ended');
    await expect.poll(() => laneOf(page, second.persistentKey)).toBe('running');
    expect(loads).toEqual([]);
  });

  it("refuses bad input in the user's language, and nothing is created", async () => {
    const { page } = admin;
    await unit('HO-3', s.STOCK);
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await page.getByRole('link', { name: 'Neuer Transportauftrag' }).click();
    const form = page.locator('form.order-create');
    const failed = page.locator('.toast.failed');

    await form.getByLabel('Transporteinheit (Barcode)').fill('NO-SUCH-UNIT');
    await form.getByLabel('Zielplatz', { exact: true }).fill(s.STOCK);
    await form.getByRole('button', { name: 'Auftrag anlegen' }).click();
    await failed.waitFor();
    // Said which: the unit, the target location, the target group.
    expect(await failed.textContent()).toContain('Es gibt keine Transporteinheit mit dem Barcode NO-SUCH-UNIT.');
    expect(await ordersOf('NO-SUCH-UNIT')).toEqual([]);
    await form.getByLabel('Transporteinheit (Barcode)').fill('HO-3');
    await form.getByLabel('Zielplatz', { exact: true }).fill('NOPE/0001/0000/0000/0000');
    await form.getByRole('button', { name: 'Auftrag anlegen' }).click();
    await expect.poll(() => failed.textContent()).toContain('Es gibt keinen Lagerplatz NOPE/0001/0000/0000/0000: Prüfen Sie den Zielplatz.');
    await form.getByLabel('Transporteinheit (Barcode)').fill('HO-3');
    await form.getByLabel('Zielplatz', { exact: true }).fill(s.C1);
    await form.getByLabel('Zielplatzgruppe').fill('NO-SUCH-GROUP');
    await form.getByRole('button', { name: 'Auftrag anlegen' }).click();
    await expect.poll(() => failed.textContent()).toContain('Es gibt keine Lagerplatzgruppe NO-SUCH-GROUP: Prüfen Sie die Zielgruppe.');
    await form.getByLabel('Zielplatzgruppe').fill('');
    expect(await ordersOf('HO-3')).toEqual([]);

    // The unit stands at the target already: the order would have nothing to do.
    await form.getByLabel('Transporteinheit (Barcode)').fill('HO-3');
    await form.getByLabel('Zielplatz', { exact: true }).fill(s.STOCK);
    await form.getByRole('button', { name: 'Auftrag anlegen' }).click();
    await expect.poll(() => failed.textContent()).toContain('Die Einheit steht bereits an diesem Ziel');
    expect(await ordersOf('HO-3')).toEqual([]);

    // No target at all.
    await form.getByLabel('Zielplatz', { exact: true }).fill('');
    await form.getByRole('button', { name: 'Auftrag anlegen' }).click();
    await expect.poll(() => failed.textContent()).toContain('Geben Sie einen Zielplatz oder eine Gruppe an');
    expect(await ordersOf('HO-3')).toEqual([]);
    expect(await page.locator('body').textContent()).not.toMatch(/messageKey|httpStatus|svc\.tms/);
    await screenshot(page, 'orders-refused-de');

    await failed.getByRole('button', { name: 'Schließen' }).click();
    await form.getByRole('button', { name: 'Schließen' }).click();
    await page.getByRole('button', { name: 'Language: English' }).click();
    await page.waitForURL(/#\/orders$/);
  });

  it('shows the board on a wallboard without controls', async () => {
    const { page } = admin;
    await page.goto(`${wms.url}/hmi/?wallboard=1#/orders`);
    await lane(page, 'running').locator('li[data-order]').first().waitFor();
    expect(await page.locator('button:visible, select:visible, input:visible').count()).toBe(0);
    await screenshot(page, 'orders-wallboard');
    await page.keyboard.press('Escape');
  });

  it('pages a big lane: the first 50, then more on demand', async () => {
    await unit('HO-BIG', s.INFEED);
    expect((await wms.post('/v1/transport-orders', { barcode: 'HO-BIG', targetLocation: s.STOCK })).status).toBe(201);
    for (let i = 0; i < 55; i++) {
      const waiting = await wms.post('/v1/transport-orders', { barcode: 'HO-BIG', targetLocation: i % 2 ? s.C1 : s.C2 });
      expect(waiting.body.state).toBe('INITIALIZED');
    }
    const total = (await wms.get('/v1/transport-orders?state=INITIALIZED')).body.length;
    expect(total).toBeGreaterThan(50);
    const { page } = admin;
    await reloadBoard(page);
    const waiting = lane(page, 'waiting');
    await waiting.locator('li[data-order]').first().waitFor();
    expect(await waiting.locator('li[data-order]').count()).toBe(50);
    expect(await waiting.locator('.lane-count').textContent()).toBe('50+');
    await waiting.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => waiting.locator('li[data-order]').count()).toBe(total);
    // The button goes once the page that had no next one is taken in; an order the event
    // stream brought may have filled the lane a moment before.
    await expect.poll(() => waiting.getByRole('button', { name: 'Show more' }).count()).toBe(0);
  });

  it('keeps the pages Show more read when the board reloads after them (a stream that opens late)', async () => {
    const total = (await wms.get('/v1/transport-orders?state=INITIALIZED')).body.length;
    expect(total).toBeGreaterThan(50);
    const { page } = admin;
    // The event stream is held until Show more has read the rest: its opening, which makes
    // the board read itself again, comes after, as on a busy box or after a reconnect.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/v1\/events\?/, async (route) => {
      await held;
      // The test may have ended and let go of the route meanwhile.
      await route.continue().catch(() => {});
    });
    try {
      await reloadBoard(page);
      const waiting = lane(page, 'waiting');
      await waiting.locator('li[data-order]').first().waitFor();
      await waiting.getByRole('button', { name: 'Show more' }).click();
      await expect.poll(() => waiting.locator('li[data-order]').count()).toBe(total);
      await expect.poll(() => waiting.getByRole('button', { name: 'Show more' }).count()).toBe(0);
      release();
      await expect.poll(() => page.locator('#connection').getAttribute('data-state')).toBe('live');
      // The reload the opened stream asked for reads as many as the lane shows.
      await expect.poll(() => waiting.locator('li[data-order]').count()).toBe(total);
      expect(await waiting.getByRole('button', { name: 'Show more' }).count()).toBe(0);
    } finally {
      release();
      await page.unroute(/\/v1\/events\?/);
    }
  });

  it('says it cannot tell which when the user may not look up units and targets', async () => {
    const password = await userWith('hmi-orders-writer', ['transport-orders:read', 'transport-orders:write']);
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await loginInBrowser(page, wms, 'hmi-orders-writer', password, '#/orders/new');
      const form = page.locator('form.order-create');
      await form.getByLabel('Transport unit (barcode)').fill('NO-SUCH-UNIT');
      await form.getByLabel('Target location', { exact: true }).fill(s.STOCK);
      await form.getByRole('button', { name: 'Create order' }).click();
      await expect.poll(() => page.locator('.toast.failed').textContent()).toContain('your user may not look up which');
      expect(await ordersOf('NO-SUCH-UNIT')).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('offers no create, priority, redirect or cancel to a user without transport-orders:write', async () => {
    const password = await userWith('hmi-orders-reader', ['transport-orders:read', 'transport-units:read', 'events:read']);
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await loginInBrowser(page, wms, 'hmi-orders-reader', password, '#/orders/new');
      await lane(page, 'running').locator('li[data-order]').first().waitFor();
      expect(await page.locator('form.order-create').count()).toBe(0);
      expect(await page.getByRole('link', { name: 'New transport order' }).count()).toBe(0);
      expect(
        await page
          .locator('.board')
          .getByRole('button', { name: /Priority|Redirect|Cancel order/ })
          .count(),
      ).toBe(0);
      // Still live for a reader.
      await unit('HO-4', s.INFEED);
      const order = (await wms.post('/v1/transport-orders', { barcode: 'HO-4', targetLocation: s.STOCK })).body;
      await card(page, order.persistentKey).waitFor();
      expect(await card(page, order.persistentKey).getByRole('button').count()).toBe(0);
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });

  it('on a phone shows one lane at a time, chosen by a state filter; dark, nothing wider than the phone', async () => {
    const phone = await openPage(browser, wms, { viewport: { width: 375, height: 667 }, colorScheme: 'dark' });
    try {
      const { page } = phone;
      await loginInBrowser(page, wms, 'admin', ADMIN_PASSWORD, '#/orders');
      await lane(page, 'running').locator('li[data-order]').first().waitFor();
      expect(await lane(page, 'running').isVisible()).toBe(true);
      expect(await lane(page, 'waiting').isVisible()).toBe(false);
      await expectTapTargets(page.locator('main button:visible, main a:visible, main select:visible'));
      await screenshot(page, 'orders-phone');
      await page.getByLabel('Show').selectOption('waiting');
      expect(await lane(page, 'waiting').isVisible()).toBe(true);
      expect(await lane(page, 'running').isVisible()).toBe(false);
      expect(await widest(page)).toBeLessThanOrEqual(375);
      await expectAccessible(page, 'the orders board on a phone');
      phone.expectClean();
    } finally {
      await phone.context.close();
    }
  });
});
