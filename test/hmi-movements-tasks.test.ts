import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { expectAccessible, expectTapTargets, launchBrowser, loginInBrowser, openPage, screenshot, type Watched } from './support/browser.ts';
import { site, until, type Site } from './support/warehouse.ts';

// The movements and the tasks screens (docs/hmi.md) in Debian's Chromium against a real
// appliance: records set up over REST, filtered and worked on in the page, every action
// checked over REST; records changed over REST arrive without a reload; a refused move
// is told in the user's language and changes nothing; a user without write grants is
// offered nothing. Screenshots go to test-artifacts/hmi/.

let wms: TestAppliance;
let browser: Browser;
let mvt: Site;

beforeAll(async () => {
  wms = await startTestAppliance();
  browser = await launchBrowser();
  mvt = await site(wms, 'MVT');
});
afterAll(async () => {
  await browser?.close();
  await wms?.close();
});

async function unit(barcode: string, at: string): Promise<void> {
  const reply = await wms.post('/v1/transport-units', { barcode, actualLocation: at, transportUnitType: 'EURO' });
  expect(reply.status, reply.text).toBe(201);
}

/** A movement of the unit, INACTIVE; returns its pKey. */
async function movement(barcode: string, body: Record<string, unknown>): Promise<string> {
  const reply = await wms.post(`/v1/transport-units/${encodeURIComponent(barcode)}/movements`, body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body.pKey;
}

const movementNow = async (pKey: string) => (await wms.get(`/v1/movements/${pKey}`)).body;

/** A MANUAL task, CREATED; returns its pKey and taskId. */
async function task(description: string): Promise<{ pKey: string; taskId: string }> {
  const reply = await wms.post('/tasks', { type: 'MANUAL', description });
  expect(reply.status, reply.text).toBe(201);
  return { pKey: reply.body.pKey, taskId: reply.body.taskId };
}

/** Every task, oldest first. */
const allTasks = async (): Promise<{ pKey: string; state: string }[]> => (await wms.get('/tasks')).body ?? [];

const taskNow = async (pKey: string) => (await wms.get(`/tasks/${pKey}`)).body;

async function moveTask(pKey: string, operation: string): Promise<void> {
  const reply = await wms.post(`/tasks/${pKey}/${operation}`);
  expect(reply.status, reply.text).toBe(200);
}

/** A user with a role of these grants. */
async function userWith(username: string, grants: string[]): Promise<string> {
  const password = `${username}-password`;
  expect((await wms.post('/roles', { name: `${username}-role`, grants })).status).toBe(201);
  const user = await wms.post('/users', { username, password, roleNames: [`${username}-role`] });
  expect(user.status, user.text).toBe(201);
  return password;
}

const movementCard = (page: Page, pKey: string) => page.locator(`li[data-movement="${pKey}"]`);
const taskCard = (page: Page, pKey: string) => page.locator(`li[data-task="${pKey}"]`);
const shownMovements = (page: Page) => page.locator('li[data-movement]').evaluateAll((els) => els.map((e) => e.getAttribute('data-movement')));
const shownTasks = (page: Page) => page.locator('li[data-task]').evaluateAll((els) => els.map((e) => e.getAttribute('data-task')));

/** The list has been read (it shows records, or says there are none). */
const listed = (page: Page) => page.locator('.work-list, .work-none').first().waitFor();

/** The page's window, for code evaluated in it (the tests are compiled without the DOM's types). */
interface PageWindow {
  document: { documentElement: { scrollWidth: number }; activeElement: { textContent: string | null } | null };
}

/** The text of the element that has the keyboard focus. */
const focused = (page: Page) => page.evaluate(() => (globalThis as unknown as PageWindow).document.activeElement?.textContent ?? null);

async function toastSays(page: Page, kind: 'done' | 'failed', text: string | RegExp): Promise<Locator> {
  const toast = page.locator(`.toast.${kind}`);
  await expect.poll(() => toast.textContent()).toMatch(text);
  return toast;
}

describe('the movements screen', () => {
  let admin: Watched;
  /** pKeys by name. */
  const mv: Record<string, string> = {};

  beforeAll(async () => {
    await unit('MV-TU-1', mvt.INFEED);
    await unit('MV-TU-2', mvt.C1);
    await unit('MV-TU-3', mvt.C2);
    mv.relocation = await movement('MV-TU-1', {
      sourceLocation: mvt.INFEED,
      target: mvt.STOCK,
      type: 'RELOCATION',
      priority: 10,
      sku: 'SKU-77',
      initiator: 'shift lead',
    });
    mv.inbound = await movement('MV-TU-2', { sourceLocation: mvt.C1, target: 'MVT', type: 'INBOUND', latestDueAt: '2030-01-01T08:00:00Z' });
    mv.cancelled = await movement('MV-TU-3', { sourceLocation: mvt.C2, target: mvt.STOCK, type: 'OUTBOUND' });
    expect((await wms.del(`/v1/movements/${mv.cancelled}`)).status).toBe(200);
    admin = await openPage(browser, wms);
    await loginInBrowser(admin.page, wms, 'admin', undefined, '#/movements');
    await admin.page.locator('#movements-title').waitFor();
    await admin.page.locator('#connection[data-state="live"]').waitFor();
  });
  afterAll(async () => {
    admin?.expectClean();
    await admin?.context.close();
  });

  it('lists the open movements in work order, each with its unit, route, type and state', async () => {
    const { page } = admin;
    await listed(page);
    expect(await shownMovements(page)).toEqual([mv.relocation, mv.inbound]);
    const card = movementCard(page, mv.relocation!);
    expect(await card.getAttribute('data-state')).toBe('INACTIVE');
    const text = await card.textContent();
    for (const part of ['MV-TU-1', mvt.INFEED, mvt.STOCK, 'Relocation', 'Inactive', 'SKU-77', 'shift lead']) expect(text).toContain(part);
    expect(await movementCard(page, mv.inbound!).textContent()).toContain('any location of this group');
    expect(await page.title()).toBe('Movements · Warehouse appliance');
    await screenshot(page, 'movements');
    await expectAccessible(page, 'the movements screen');
  });

  it('filters by state, type, unit and source as the API does', async () => {
    const { page } = admin;
    await page.getByLabel('State', { exact: true }).selectOption('CANCELLED');
    await expect.poll(() => shownMovements(page)).toEqual([mv.cancelled]);
    await page.getByLabel('State', { exact: true }).selectOption('all');
    await expect.poll(() => shownMovements(page)).toHaveLength(3);
    await page.getByLabel('Type', { exact: true }).selectOption('INBOUND');
    await expect.poll(() => shownMovements(page)).toEqual([mv.inbound]);

    await page.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => shownMovements(page)).toEqual([mv.relocation, mv.inbound]);
    // A scanner types the barcode and Enter.
    await page.getByLabel('Unit barcode').fill('MV-TU-1');
    await page.getByLabel('Unit barcode').press('Enter');
    await expect.poll(() => shownMovements(page)).toEqual([mv.relocation]);
    // The API filters by unit or by source: with a barcode the source waits.
    expect(await page.getByLabel('Source location/group').isDisabled()).toBe(true);

    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByLabel('Source location/group').fill(mvt.C1);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await expect.poll(() => shownMovements(page)).toEqual([mv.inbound]);
    await page.getByLabel('Source location/group').fill('MVT');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await expect.poll(() => shownMovements(page)).toEqual([mv.relocation, mv.inbound]);
    await page.getByLabel('Source location/group').fill('NO-SUCH-GROUP');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No movement matches the filter.').waitFor();
    await page.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => shownMovements(page)).toEqual([mv.relocation, mv.inbound]);
  });

  it('activates a movement and completes it onto the location where the unit was put down', async () => {
    const { page } = admin;
    const card = movementCard(page, mv.relocation!);
    await card.getByRole('button', { name: 'Activate' }).click();
    await until(async () => (await movementNow(mv.relocation!)).state === 'ACTIVE', 'the movement is active');
    expect((await movementNow(mv.relocation!)).startedAt).toBeDefined();
    await expect.poll(() => card.getAttribute('data-state')).toBe('ACTIVE');
    await toastSays(page, 'done', 'Movement of MV-TU-1 activated.');

    await card.getByRole('button', { name: 'Complete…' }).click();
    const field = card.getByLabel('Put down on location');
    // The movement's own target, a location, is filled in; the unit went elsewhere.
    expect(await field.inputValue()).toBe(mvt.STOCK);
    await screenshot(page, 'movements-complete');
    await expectAccessible(page, 'the completion form');
    await field.fill(mvt.C2);
    await field.press('Enter');
    await until(async () => (await movementNow(mv.relocation!)).state === 'DONE', 'the movement is done');
    expect(await movementNow(mv.relocation!)).toMatchObject({ state: 'DONE', target: mvt.C2 });
    expect((await wms.get('/v1/transport-units?bk=MV-TU-1')).body.actualLocation).toBe(mvt.C2);
    // Done: off the list of open movements.
    await card.waitFor({ state: 'detached' });
    await toastSays(page, 'done', /Movement of MV-TU-1 done/);
  });

  it('refuses a completion onto a group or nowhere in words, and changes nothing', async () => {
    const { page } = admin;
    const before = await movementNow(mv.inbound!);
    const card = movementCard(page, mv.inbound!);
    await card.getByRole('button', { name: 'Complete…' }).click();
    const field = card.getByLabel('Put down on location');
    // Its target is a group: the operator names the location.
    expect(await field.inputValue()).toBe('');
    await card.getByRole('button', { name: 'Complete movement' }).click();
    await expect.poll(() => card.locator('.error-text').textContent()).toBe('Enter the location where the unit was put down.');
    await field.fill('MVT');
    await card.getByRole('button', { name: 'Complete movement' }).click();
    await toastSays(page, 'failed', 'This is not a location: a unit is put down on a location, not on a group.');
    await field.fill('MVT/0009/0000/0000/0000');
    await card.getByRole('button', { name: 'Complete movement' }).click();
    await toastSays(page, 'failed', 'There is no location with this coordinate or ERP code.');
    expect(await page.locator('body').textContent()).not.toMatch(/messageKey|notFoundByName|core\.validation/);
    expect(await movementNow(mv.inbound!)).toEqual(before);
    await card.getByRole('button', { name: 'Back' }).click();
    await page.locator('.toast.failed').getByRole('button', { name: 'Close' }).click();
  });

  it('cancels a movement only after the question', async () => {
    const { page } = admin;
    const card = movementCard(page, mv.inbound!);
    await card.getByRole('button', { name: 'Cancel movement…' }).click();
    const question = card.getByRole('group', { name: 'Cancel the movement of MV-TU-2' });
    expect(await question.textContent()).toContain('This cannot be undone');
    await expectAccessible(page, 'the cancel question');
    // The question takes the focus on its way back; back, the focus is on the card's buttons again.
    expect(await focused(page)).toBe('Keep it');
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('Activate');
    expect((await movementNow(mv.inbound!)).state).toBe('INACTIVE');

    await card.getByRole('button', { name: 'Cancel movement…' }).click();
    await card.getByRole('button', { name: 'Cancel movement', exact: true }).click();
    await until(async () => (await movementNow(mv.inbound!)).state === 'CANCELLED', 'the movement is cancelled');
    await card.waitFor({ state: 'detached' });
    await toastSays(page, 'done', 'Movement of MV-TU-2 cancelled.');
  });

  it('shows a movement created over REST without a reload, and drops one cancelled over REST', async () => {
    const { page } = admin;
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    await unit('MV-TU-4', mvt.C1);
    const created = await movement('MV-TU-4', { sourceLocation: mvt.C1, target: mvt.STOCK, type: 'REPLENISHMENT', priority: 5 });
    await movementCard(page, created).waitFor();
    expect(await movementCard(page, created).textContent()).toContain('Replenishment');
    // Priority 5 comes before the priority 50 ones in work order.
    const other = await movement('MV-TU-4', { sourceLocation: mvt.C1, target: mvt.STOCK });
    await expect.poll(() => shownMovements(page)).toEqual([created, other]);
    expect((await wms.patch(`/v1/movements/${other}`, { state: 'ACTIVE' })).status).toBe(200);
    await expect.poll(() => movementCard(page, other).getAttribute('data-state')).toBe('ACTIVE');
    expect((await wms.del(`/v1/movements/${other}`)).status).toBe(200);
    await movementCard(page, other).waitFor({ state: 'detached' });
    expect(loads).toEqual([]);
    mv.live = created;
  });

  it("tells a refused step in the user's language and changes nothing", async () => {
    const { page } = admin;
    const pKey = mv.live!;
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await expect.poll(() => page.locator('#movements-title').textContent()).toBe('Bewegungen');
    const card = movementCard(page, pKey);
    await card.getByRole('button', { name: 'Bewegung stornieren…' }).click();
    // Someone completes the movement just before the cancellation reaches the appliance.
    await page.route(`**/v1/movements/${pKey}`, async (route) => {
      if (route.request().method() === 'DELETE') expect((await wms.post(`/v1/movements/${pKey}/complete`, {})).status).toBe(200);
      await route.continue();
    });
    await card.getByRole('button', { name: 'Bewegung stornieren', exact: true }).click();
    // Said how it ended: done, not "done or cancelled".
    const toast = await toastSays(page, 'failed', 'Diese Bewegung ist bereits erledigt: Es gibt nichts mehr zu stornieren.');
    await page.unroute(`**/v1/movements/${pKey}`);
    const after = await movementNow(pKey);
    expect(after).toMatchObject({ state: 'DONE', target: mvt.STOCK });
    // The refusal changed nothing: still as the completion left it.
    expect(after.ol).toBe(1);
    expect(await page.locator('body').textContent()).not.toMatch(/messageKey|completedNotCancelled|svc\./);
    await screenshot(page, 'movements-refused-de');
    await card.waitFor({ state: 'detached' });
    await toast.getByRole('button', { name: 'Schließen' }).click();
    await page.getByRole('button', { name: 'Language: English' }).click();
  });

  it('fits a phone, dark', async () => {
    const phone = await openPage(browser, wms, { viewport: { width: 375, height: 667 }, colorScheme: 'dark' });
    try {
      await unit('MV-TU-5', mvt.C2);
      await movement('MV-TU-5', { sourceLocation: mvt.C2, target: mvt.INFEED, type: 'OUTBOUND', sku: 'SKU-12', latestDueAt: '2030-06-01T12:00:00Z' });
      await movement('MV-TU-5', { sourceLocation: mvt.C2, target: 'MVT', type: 'RELOCATION' });
      await loginInBrowser(phone.page, wms, 'admin', undefined, '#/movements');
      await phone.page.locator('li[data-movement]').first().waitFor();
      await phone.page.locator('li[data-movement]').first().getByRole('button', { name: 'Cancel movement…' }).click();
      expect(await phone.page.evaluate(() => (globalThis as unknown as PageWindow).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await expectTapTargets(phone.page.locator('main button:visible, main input:visible, main select:visible'));
      await screenshot(phone.page, 'movements-phone-dark');
      await expectAccessible(phone.page, 'the movements on a phone, dark');
      phone.expectClean();
    } finally {
      await phone.context.close();
    }
  });

  it('pages: the next movements come with Show more', async () => {
    const { page } = admin;
    await unit('MV-PAGED', mvt.INFEED);
    const keys: string[] = [];
    for (let n = 0; n < 53; n++) keys.push(await movement('MV-PAGED', { sourceLocation: mvt.INFEED, target: mvt.STOCK }));
    await page.getByLabel('Unit barcode').fill('MV-PAGED');
    await page.getByLabel('Unit barcode').press('Enter');
    await expect.poll(() => shownMovements(page)).toEqual(keys.slice(0, 50));
    await page.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => shownMovements(page)).toEqual(keys);
    expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Reset' }).click();
  });

  it('shows no controls on a wallboard', async () => {
    const { page } = admin;
    await page.goto(`${wms.url}/hmi/?wallboard=1#/movements`);
    await page.locator('li[data-movement]').first().waitFor();
    expect(await page.locator('button:visible, select:visible, input:visible').count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Activate' }).first().waitFor();
  });
});

describe('the tasks screen', () => {
  let admin: Watched;
  const tk: Record<string, { pKey: string; taskId: string }> = {};

  beforeAll(async () => {
    tk.count = await task('count the pallets in aisle 3');
    tk.clean = await task('clean conveyor C2');
    tk.closed = await task('relabel bin 17');
    await moveTask(tk.closed.pKey, 'start');
    await moveTask(tk.closed.pKey, 'finish');
    admin = await openPage(browser, wms);
    await loginInBrowser(admin.page, wms, 'admin', undefined, '#/tasks');
    await admin.page.locator('#tasks-title').waitFor();
    await admin.page.locator('#connection[data-state="live"]').waitFor();
  });
  afterAll(async () => {
    admin?.expectClean();
    await admin?.context.close();
  });

  it('lists the open tasks, filters by state and search', async () => {
    const { page } = admin;
    await listed(page);
    expect(await shownTasks(page)).toEqual([tk.count!.pKey, tk.clean!.pKey]);
    const text = await taskCard(page, tk.count!.pKey).textContent();
    for (const part of [tk.count!.taskId, 'MANUAL', 'Created', 'count the pallets in aisle 3']) expect(text).toContain(part);
    await page.getByLabel('State', { exact: true }).selectOption('FINISHED');
    await expect.poll(() => shownTasks(page)).toEqual([tk.closed!.pKey]);
    await page.getByLabel('State', { exact: true }).selectOption('all');
    await expect.poll(() => shownTasks(page)).toHaveLength(3);
    await page.getByLabel('Search: task ID, type or description').fill('conveyor');
    await expect.poll(() => shownTasks(page)).toEqual([tk.clean!.pKey]);
    await page.getByLabel('Search: task ID, type or description').fill(tk.closed!.taskId);
    await expect.poll(() => shownTasks(page)).toEqual([tk.closed!.pKey]);
    await page.getByLabel('Search: task ID, type or description').fill('');
    await page.getByLabel('State', { exact: true }).selectOption('open');
    await expect.poll(() => shownTasks(page)).toEqual([tk.count!.pKey, tk.clean!.pKey]);
    expect(await page.title()).toBe('Tasks · Warehouse appliance');
    await screenshot(page, 'tasks');
    await expectAccessible(page, 'the tasks screen');
  });

  it('starts, pauses, resumes and finishes a task; REST shows each step', async () => {
    const { page } = admin;
    const { pKey, taskId } = tk.count!;
    const card = taskCard(page, pKey);
    const stateIs = (state: string) => until(async () => (await taskNow(pKey)).state === state, `the task is ${state}`);

    await card.getByRole('button', { name: 'Start' }).click();
    await stateIs('ACTIVE');
    await expect.poll(() => card.getAttribute('data-state')).toBe('ACTIVE');
    await toastSays(page, 'done', `Task ${taskId} started.`);
    expect(await card.getByRole('button').allTextContents()).toEqual(['Pause', 'Finish…']);
    // The pressed button is gone: the focus moves on to the card's next one, for the keyboard.
    await expect.poll(() => focused(page)).toBe('Pause');

    await card.getByRole('button', { name: 'Pause' }).click();
    await stateIs('PAUSED');
    await expect.poll(() => card.getAttribute('data-state')).toBe('PAUSED');
    expect(await card.getByRole('button').allTextContents()).toEqual(['Resume']);

    await card.getByRole('button', { name: 'Resume' }).click();
    await stateIs('ACTIVE');
    await expect.poll(() => card.getAttribute('data-state')).toBe('ACTIVE');

    await card.getByRole('button', { name: 'Finish…' }).click();
    const question = card.getByRole('group', { name: `Finish task ${taskId}` });
    expect(await question.textContent()).toContain('cannot be resumed');
    await screenshot(page, 'tasks-finish');
    await expectAccessible(page, 'the finish question');
    await question.getByRole('button', { name: 'Back' }).click();
    // Back from the question: the focus is on the card's first button as soon as it is drawn.
    expect(await focused(page)).toBe('Pause');
    expect((await taskNow(pKey)).state).toBe('ACTIVE');
    // By keyboard: Finish… with Enter, then Tab back to the question's first button.
    await card.getByRole('button', { name: 'Finish…' }).focus();
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('Back');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe('Finish task');
    await page.keyboard.press('Enter');
    await stateIs('FINISHED');
    expect((await taskNow(pKey)).finishedAt).toBeDefined();
    // Finished: off the list of open tasks.
    await card.waitFor({ state: 'detached' });
    await toastSays(page, 'done', `Task ${taskId} finished.`);
  });

  it('shows a task created or moved over REST without a reload', async () => {
    const { page } = admin;
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    const created = await task('unload the truck at gate 2');
    await taskCard(page, created.pKey).waitFor();
    expect(await taskCard(page, created.pKey).textContent()).toContain('unload the truck at gate 2');
    await moveTask(created.pKey, 'start');
    await expect.poll(() => taskCard(page, created.pKey).getAttribute('data-state')).toBe('ACTIVE');
    await moveTask(tk.clean!.pKey, 'start');
    await moveTask(tk.clean!.pKey, 'finish');
    await taskCard(page, tk.clean!.pKey).waitFor({ state: 'detached' });
    expect(loads).toEqual([]);
    tk.live = created;
  });

  it("tells a refused move in the user's language and changes nothing", async () => {
    const { page } = admin;
    const { pKey } = tk.live!;
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await expect.poll(() => page.locator('#tasks-title').textContent()).toBe('Aufgaben');
    // Someone finishes the task just before the pause reaches the appliance.
    await page.route(`**/tasks/${pKey}/pause`, async (route) => {
      await moveTask(pKey, 'finish');
      await route.continue();
    });
    const before = await taskNow(pKey);
    await taskCard(page, pKey).getByRole('button', { name: 'Pausieren' }).click();
    const toast = await toastSays(page, 'failed', 'Diese Aufgabe ist bereits abgeschlossen: Sie lässt sich nicht mehr ändern.');
    await page.unroute(`**/tasks/${pKey}/pause`);
    const after = await taskNow(pKey);
    expect(after.state).toBe('FINISHED');
    // Only the finish moved it: the refused pause changed nothing.
    expect(after.ol).toBe(before.ol + 1);
    expect(await page.locator('body').textContent()).not.toMatch(/messageKey|alreadyFinished|svc\./);
    await screenshot(page, 'tasks-refused-de');
    await taskCard(page, pKey).waitFor({ state: 'detached' });
    await toast.getByRole('button', { name: 'Schließen' }).click();
    await page.getByRole('button', { name: 'Language: English' }).click();
  });

  it('fits a phone', async () => {
    const phone = await openPage(browser, wms, { viewport: { width: 375, height: 667 } });
    try {
      const started = await task('check the light barrier at C1');
      await moveTask(started.pKey, 'start');
      await task('sweep the goods-in area');
      await loginInBrowser(phone.page, wms, 'admin', undefined, '#/tasks');
      await phone.page.locator('li[data-task]').first().waitFor();
      expect(await phone.page.evaluate(() => (globalThis as unknown as PageWindow).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await expectTapTargets(phone.page.locator('main button:visible, main input:visible, main select:visible'));
      await screenshot(phone.page, 'tasks-phone');
      await expectAccessible(phone.page, 'the tasks on a phone');
      phone.expectClean();
    } finally {
      await phone.context.close();
    }
  });

  it('pages: the next tasks come with Show more, reading on while the filter hides finished ones', async () => {
    const { page } = admin;
    // More than two pages, the oldest tasks finished (hidden by the filter "open").
    for (let n = 0; n < 100; n++) await task(`paged task ${n}`);
    const openOnes = (await allTasks()).filter((t) => t.state !== 'FINISHED').map((t) => t.pKey);
    await page.reload();
    await listed(page);
    const first = await shownTasks(page);
    expect(first.length).toBeGreaterThanOrEqual(50);
    expect(first).toEqual(openOnes.slice(0, first.length));
    await page.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => shownTasks(page)).toEqual(openOnes);
    expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
  });
});

describe('grants', () => {
  it('a user without write grants sees the lists and is offered no action', async () => {
    const password = await userWith('hmi-watcher', ['movements:read', 'tasks:read', 'events:read']);
    await unit('MV-TU-RO', mvt.C1);
    // Priority 1: first in the work order, on the first page whatever else is open.
    const pKey = await movement('MV-TU-RO', { sourceLocation: mvt.C1, target: mvt.STOCK, priority: 1 });
    const open = await task('read-only view');
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await loginInBrowser(page, wms, 'hmi-watcher', password, '#/movements');
      await movementCard(page, pKey).waitFor();
      expect(await page.locator('nav.nav').textContent()).toMatch(/Movements.*Tasks/);
      expect(await page.locator('.work-list button').count()).toBe(0);
      // Reading and filtering stay.
      expect(await page.getByLabel('State', { exact: true }).count()).toBe(1);
      await page.getByRole('link', { name: 'Tasks' }).click();
      // The newest task is last of many: the search reads on until it is found.
      await page.getByLabel('Search: task ID, type or description').fill('read-only view');
      await taskCard(page, open.pKey).waitFor();
      expect(await page.locator('.work-list button').count()).toBe(0);
      // Live all the same.
      await moveTask(open.pKey, 'start');
      await expect.poll(() => taskCard(page, open.pKey).getAttribute('data-state')).toBe('ACTIVE');
      await expectAccessible(page, 'the tasks, read only');
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });

  it('a user with one of the two read grants sees only that screen', async () => {
    const password = await userWith('hmi-tasker', ['tasks:read', 'tasks:write']);
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await loginInBrowser(page, wms, 'hmi-tasker', password, '#/tasks');
      await page.locator('#tasks-title').waitFor();
      await listed(page);
      expect(await page.locator('nav.nav a').allTextContents()).toEqual(['Tasks']);
      await page.goto(`${wms.url}/hmi/#/movements`);
      await page.getByText('There is no screen at this address.').waitFor();
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });
});
