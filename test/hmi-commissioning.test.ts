import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { expectAccessible, launchBrowser, loginInBrowser, openPage, screenshot, type Watched } from './support/browser.ts';
import { allPages, unitWithOrder, until } from './support/warehouse.ts';

// The commissioning screen against a real appliance in Chromium: a group and locations
// from a coordinate pattern, a refusal that stops the bulk (in German), a hop drawn on
// the plan, the dry run of the routing decision against the API's own answer, the
// route enabled from the page, live updates, a user without the write grants, the
// help's steps against docs/commissioning.md, accessibility and screenshots.

let wms: TestAppliance;
let browser: Browser;
let admin: Watched;

beforeAll(async () => {
  wms = await startTestAppliance();
  browser = await launchBrowser();
  admin = await openPage(browser, wms);
  await loginInBrowser(admin.page, wms, 'admin', undefined, '#/commissioning');
});
afterAll(async () => {
  admin?.expectClean();
  await admin?.context.close();
  await browser?.close();
  await wms?.close();
});

const coordinate = (area: string, x: number) => `${area}/0001/${String(x).padStart(4, '0')}/0000/0000`;

async function locationsOf(area: string): Promise<string[]> {
  return (await allPages(wms, `/v1/locations?area=${area}&limit=100`)).items.map((l) => l.locationId as string);
}

async function group(name: string): Promise<void> {
  const created = await wms.post('/v1/location-groups', { name, parentName: 'WAREHOUSE' });
  expect(created.status, created.text).toBe(201);
}

async function location(locationId: string, groupName: string): Promise<void> {
  const created = await wms.post('/v1/locations', { locationId, locationGroupName: groupName });
  expect(created.status, created.text).toBe(201);
}

const bulkForm = (page: Page) => page.locator('form[aria-labelledby="cm-bulk-title"]');

/** Fills the pattern form and shows the preview. */
async function previewPattern(page: Page, parts: Record<'area' | 'aisle' | 'x' | 'y' | 'z', string>, groupName: string): Promise<void> {
  for (const [part, value] of Object.entries(parts)) await page.locator(`#cm-bulk-${part}`).fill(value);
  await page.locator('#cm-bulk-group').selectOption(groupName);
  await bulkForm(page)
    .getByRole('button', { name: /^(Preview|Vorschau)$/ })
    .click();
}

async function open(page: Page, rest = ''): Promise<void> {
  await page.goto(`${wms.url}/hmi/#/commissioning${rest ? `/${rest}` : ''}`);
  await page.locator('#cm-title').waitFor();
}

/** A location on the plan (an SVG group with its coordinate). */
const onPlan = (page: Page, id: string) => page.locator(`[data-plan] [data-id="${id}"]`);

/** Chooses a location on the plan by keyboard, as the plan allows (focus, Enter). */
async function choose(page: Page, id: string): Promise<void> {
  await onPlan(page, id).focus();
  await page.keyboard.press('Enter');
}

/** Draws a link on the plan: the first location (a click), "Link to…", the second (by keyboard). */
async function drawLink(page: Page, from: string, to: string): Promise<void> {
  await onPlan(page, from).click();
  await page.locator('.plan-link-to').click();
  await choose(page, to);
}

describe('groups and locations', () => {
  it('creates a group, then locations from a coordinate pattern, each once', async () => {
    const { page } = admin;
    await open(page);
    await page.locator('#cm-group-name').fill('CMA');
    await page.locator('#cm-group-parent').selectOption('WAREHOUSE');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.locator('li[data-group="CMA"]').waitFor();
    await expect.poll(() => page.locator('.toast.done').textContent()).toBe('Group CMA created.');
    const created = await wms.get('/v1/location-groups?name=CMA');
    expect(created.status).toBe(200);
    expect(created.body.parentName).toBe('WAREHOUSE');

    // The same name again: refused, said in words (what exists), nothing changed; the
    // success told before it is gone, not left standing beside the refusal.
    await page.locator('#cm-group-name').fill('CMA');
    await page.locator('#cm-group-parent').selectOption('');
    await page.getByRole('button', { name: 'Create group' }).click();
    const refusal = page.locator('form[aria-label="New location group"] .error-text');
    await expect.poll(() => refusal.textContent()).toBe('There is a location group named CMA already.');
    expect(await page.locator('.toast.done').count()).toBe(0);
    expect((await wms.get('/v1/location-groups?name=CMA')).body).toMatchObject({ pKey: created.body.pKey, ol: created.body.ol, parentName: 'WAREHOUSE' });

    // The new group is offered at once for the locations.
    await until(async () => (await page.locator('#cm-bulk-group option', { hasText: /^CMA$/ }).count()) === 1, 'the group is offered');
    await previewPattern(page, { area: 'CMA', aisle: '0001', x: '0001..0006', y: '0000', z: '0000' }, 'CMA');
    const expected = [1, 2, 3, 4, 5, 6].map((x) => coordinate('CMA', x));
    await expect.poll(() => page.locator('.cm-preview li').allTextContents()).toEqual(expected);
    // Nothing is created by the preview.
    expect((await wms.get('/v1/locations?area=CMA&limit=10')).body).toEqual([]);

    await page.getByRole('button', { name: 'Create 6 locations' }).click();
    await page.locator('.cm-bulk-run[data-state="finished"]').waitFor();
    await expect.poll(() => page.locator('.cm-progress').textContent()).toBe('Created 6 of 6.');
    const made = await locationsOf('CMA');
    expect(made.sort()).toEqual(expected);
    expect(new Set(made).size).toBe(made.length);
    for (const id of made) expect((await wms.get(`/v1/locations?locationId=${encodeURIComponent(id)}`)).body.locationGroupName).toBe('CMA');
    // The plan follows by itself.
    await onPlan(page, expected[5]!).waitFor();
  });

  it('stops the bulk at a refused coordinate, says which and why in German; those before stay', async () => {
    await group('CMB');
    await location(coordinate('CMB', 3), 'CMB');
    const german = await openPage(browser, wms, { locale: 'de-DE' });
    try {
      const { page } = german;
      await loginInBrowser(page, wms, 'admin', undefined, '#/commissioning');
      await page.locator('#cm-title').waitFor();
      expect(await page.locator('#cm-title').textContent()).toBe('Inbetriebnahme');
      await until(async () => (await page.locator('#cm-bulk-group option', { hasText: /^CMB$/ }).count()) === 1, 'the group is offered');
      await previewPattern(page, { area: 'CMB', aisle: '0001', x: '0001..0005', y: '0000', z: '0000' }, 'CMB');
      await page.getByRole('button', { name: '5 Lagerplätze anlegen' }).click();
      const stopped = page.locator('.cm-stopped');
      await stopped.waitFor();
      expect(await stopped.getAttribute('data-at')).toBe(coordinate('CMB', 3));
      const text = (await stopped.textContent()) ?? '';
      expect(text).toContain(`Angehalten bei ${coordinate('CMB', 3)}`);
      expect(text).toContain(`Es gibt schon einen Lagerplatz ${coordinate('CMB', 3)}.`);
      expect(text).not.toMatch(/already exists|Location with/);
      expect(await page.locator('.cm-progress').textContent()).toBe('2 von 5 angelegt.');
      // The two before it were created, nothing after it was sent.
      expect((await locationsOf('CMB')).sort()).toEqual([1, 2, 3].map((x) => coordinate('CMB', x)));
      german.expectClean();
    } finally {
      await german.context.close();
    }
  });

  it('refuses a bad pattern before anything is sent', async () => {
    const { page } = admin;
    await open(page);
    await previewPattern(page, { area: 'CM/X', aisle: '0001', x: '0001', y: '0000', z: '0000' }, 'CMA');
    await expect.poll(() => bulkForm(page).locator('.error-text').textContent()).toBe('Area: “CM/X” contains /; a part takes only A–Z, a–z, 0–9 and _ . -');
    expect(await page.locator('#cm-bulk-area').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.cm-preview').count()).toBe(0);
  });

  it('checks a typed coordinate part by part: says which part is wrong and why, sends nothing', async () => {
    const { page } = admin;
    await open(page);
    const field = page.locator('#cm-location-id');
    const check = page.locator('#cm-location-check .cm-check-problem');
    // Left with four parts: said at once.
    await field.fill('CMA/0001/0009/0000');
    await field.press('Tab');
    await expect.poll(() => check.textContent()).toBe('A coordinate has 5 parts, AREA/AISLE/X/Y/Z, separated by /; this one has 4.');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    // Corrected as it is typed.
    await field.fill('CMA/0001/0009/0000/0000');
    await expect.poll(() => check.count()).toBe(0);
    await field.fill('CMA/0001/00#9/0000/0000');
    await page.locator('#cm-location-group').selectOption('CMA');
    await page.getByRole('button', { name: 'Create location' }).click();
    await expect.poll(() => check.textContent()).toBe('X: “00#9” contains #; a part takes only A–Z, a–z, 0–9 and _ . -');
    await field.fill('CMA/0001/0009/0000/THISPARTISLONGERTHAN20');
    await expect.poll(() => check.textContent()).toBe('Z: “THISPARTISLONGERTHAN20” has 22 characters; a part has at most 20.');
    await field.fill('CMA/0001//0000/0000');
    await expect.poll(() => check.textContent()).toBe('X: empty; each part has 1 to 20 characters.');
    await expectAccessible(page, 'a coordinate refused as it is typed');
    // None of it reached the appliance.
    expect((await locationsOf('CMA')).filter((id) => !/^CMA\/0001\/000[1-6]\/0000\/0000$/.test(id))).toEqual([]);
  });

  it('warns before creating a location no PLC can address, in English and German; a PLC code addresses it', async () => {
    const { page } = admin;
    // A fresh form: nothing typed or checked before.
    await page.reload();
    await page.locator('#cm-title').waitFor();
    const field = page.locator('#cm-location-id');
    const warning = page.locator('#cm-location-check .cm-warning');
    const form = page.locator('form[aria-labelledby="cm-location-title"]');
    // Enter sends at once: the warning comes first, and nothing is created.
    await field.fill('CONVEYOR/00001/0001/0000/0000');
    await page.locator('#cm-location-group').selectOption('CMA');
    await field.press('Enter');
    await expect
      .poll(() => warning.textContent())
      .toBe(
        'No PLC can address this location: Area “CONVEYOR” has 8 characters, and an OSIP telegram carries 4 a part. Shorten it, or give a PLC code (at most 20 characters) for the PLC to use.',
      );
    expect((await wms.get('/v1/locations?locationId=CONVEYOR%2F00001%2F0001%2F0000%2F0000')).status).toBe(404);
    await expectAccessible(page, 'a coordinate no PLC can address');
    await screenshot(page, 'commissioning-plc-warning');
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await expect
      .poll(() => warning.textContent())
      .toBe(
        'Keine SPS kann diesen Lagerplatz ansprechen: Bereich „CONVEYOR“ hat 8 Zeichen, ein OSIP-Telegramm trägt 4 je Teil. Kürzen Sie ihn, oder geben Sie einen SPS-Code (höchstens 20 Zeichen) an, den die SPS verwendet.',
      );
    // Seen, the warning may be overruled: a place no PLC reports on.
    await form.getByRole('button', { name: 'Trotzdem anlegen' }).click();
    await expect.poll(async () => (await wms.get('/v1/locations?locationId=CONVEYOR%2F00001%2F0001%2F0000%2F0000')).status).toBe(200);
    await page.getByRole('button', { name: 'Language: English' }).click();

    // Parts shorter than four travel padded: the PLC would report another coordinate.
    await field.fill('CMA/1/1/0/0');
    await field.press('Enter');
    await expect
      .poll(() => warning.textContent())
      .toContain('a telegram carries Area “CMA” as “CMA_”, so the PLC would name another coordinate. Write CMA_/0001/0001/0000/0000');
    expect((await wms.get('/v1/locations?locationId=CMA%2F1%2F1%2F0%2F0')).status).toBe(404);

    // With a PLC code that fits the telegram, the PLC addresses it by that: no warning.
    await field.fill('CONVEYOR/00002/0001/0000/0000');
    await page.locator('#cm-location-plc').fill('CONV-P2');
    await expect.poll(() => warning.count()).toBe(0);
    await form.getByRole('button', { name: 'Create location' }).click();
    await expect.poll(async () => (await wms.get('/v1/locations?locationId=CONVEYOR%2F00002%2F0001%2F0000%2F0000')).body.plcCode).toBe('CONV-P2');

    // A pattern says it in its preview, before anything is created.
    await previewPattern(page, { area: 'CMW', aisle: '0001', x: '00001..00003', y: '0000', z: '0000' }, 'CMA');
    await expect
      .poll(() => bulkForm(page).locator('.cm-warning').textContent())
      .toBe(
        'No PLC can address these locations: X “00001” has 5 characters, and an OSIP telegram carries 4 a part. Create them so only for places no PLC reports on, or shorten the part.',
      );
    expect(await locationsOf('CMW')).toEqual([]);
  });
});

describe('routes on the plan', () => {
  let routeKey: string;

  it('creates a route in the page and adds a hop drawn on the plan', async () => {
    const { page } = admin;
    await open(page, 'routes');
    await page.locator('#cm-route-name').fill('CMA-IN');
    await page.locator('#cm-route-source-location').fill(coordinate('CMA', 1));
    // The target from the plan: select it there, then "Use selected".
    await onPlan(page, coordinate('CMA', 4)).click();
    await expect.poll(() => page.locator('.cm-selected').textContent()).toContain(coordinate('CMA', 4));
    await page.locator('#cm-route-target-location').locator('..').getByRole('button', { name: 'Use selected' }).click();
    expect(await page.locator('#cm-route-target-location').inputValue()).toBe(coordinate('CMA', 4));
    await page.getByRole('button', { name: 'Create route' }).click();
    const row = page.locator('li[data-route]', { hasText: 'CMA-IN' });
    await row.waitFor();
    routeKey = (await row.getAttribute('data-route'))!;
    const route = await wms.get(`/v1/api/routes/${routeKey}`);
    expect(route.body).toMatchObject({ name: 'CMA-IN', sourceLocationName: coordinate('CMA', 1), targetLocationName: coordinate('CMA', 4), enabled: false });

    // Draw: select the first location, "Link to…", the second.
    await drawLink(page, coordinate('CMA', 1), coordinate('CMA', 2));
    const form = page.locator('.cm-hop-form');
    await form.waitFor();
    expect(await form.locator('.cm-link').textContent()).toBe(`${coordinate('CMA', 1)} → ${coordinate('CMA', 2)}`);
    expect(await form.locator('#cm-hop-target').inputValue()).toBe(routeKey);
    await form.getByRole('button', { name: 'Add hop' }).click();
    await form.waitFor({ state: 'detached' });
    expect((await wms.get(`/v1/api/routes/${routeKey}/hops`)).body).toEqual([{ pos: 0, source: coordinate('CMA', 1), next: coordinate('CMA', 2) }]);
    await page.locator(`[data-hop="${coordinate('CMA', 1)}>${coordinate('CMA', 2)}"]`).waitFor();

    // The same hop again is refused in the page, and nothing changes.
    await drawLink(page, coordinate('CMA', 1), coordinate('CMA', 2));
    await form.getByRole('button', { name: 'Add hop' }).click();
    await expect.poll(() => form.locator('.error-text').textContent()).toBe('This hop is there already.');
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect((await wms.get(`/v1/api/routes/${routeKey}/hops`)).body).toHaveLength(1);

    // A second route of the same name: refused, and the page says the name is what clashes.
    await page.locator('#cm-route-name').fill('CMA-IN');
    await page.locator('#cm-route-source-location').fill(coordinate('CMA', 2));
    await page.locator('#cm-route-target-location').fill(coordinate('CMA', 5));
    await page.getByRole('button', { name: 'Create route' }).click();
    await expect.poll(() => page.locator('form:has(#cm-route-name) .error-text').textContent()).toBe('There is a route named CMA-IN already.');
    expect((await wms.get('/v1/api/routes')).body.filter((r: { name: string }) => r.name === 'CMA-IN')).toHaveLength(1);
  });

  it('the dry run says where a unit with an order would go, as the API answers; enabling the route in the page changes it', async () => {
    const { page } = admin;
    // The rest of the hops arrive over REST while the page is open: the list follows.
    const hops = await wms.put(`/v1/api/routes/${routeKey}/hops`, [
      { source: coordinate('CMA', 1), next: coordinate('CMA', 2) },
      { source: coordinate('CMA', 2), next: coordinate('CMA', 3) },
      { source: coordinate('CMA', 3), next: coordinate('CMA', 4) },
    ]);
    expect(hops.status, hops.text).toBe(200);
    await page.locator('.cm-hops li[data-hop]').nth(2).waitFor();
    await unitWithOrder(wms, 'CMU1', coordinate('CMA', 1), coordinate('CMA', 4));
    const decision = () => wms.get(`/v1/api/routes/decision?location=${encodeURIComponent(coordinate('CMA', 1))}&barcode=CMU1`);

    await page.locator('#cm-dry-location').fill(coordinate('CMA', 1));
    await page.locator('#cm-dry-barcode').fill('CMU1');
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.locator('.cm-answer');
    // Disabled: the appliance would hold the unit; the page adds the decision once it is enabled.
    const before = (await decision()).body;
    const dry = (await wms.get(`/v1/api/routes/decision?location=${encodeURIComponent(coordinate('CMA', 1))}&barcode=CMU1&assumeEnabled=${routeKey}`)).body;
    expect(dry).toMatchObject({ result: 'NEXT', nextLocation: coordinate('CMA', 2), via: 'ROUTE' });
    expect(before.result).toBe('NO_ROUTE');
    await expect.poll(() => answer.getAttribute('data-result')).toBe('NO_ROUTE');
    expect(await answer.locator('p').first().textContent()).toBe(
      `Unit CMU1 with its order to ${coordinate('CMA', 4)}, standing at ${coordinate('CMA', 1)}, would stay there: no enabled route leads on from here, and no default hop applies.`,
    );
    const onceEnabled = answer.locator('[data-once-enabled-next]');
    expect(await onceEnabled.getAttribute('data-once-enabled-next')).toBe(dry.nextLocation);
    expect(await onceEnabled.textContent()).toBe(
      `Route CMA-IN is disabled and takes no part in this answer. Once it is enabled: Unit CMU1 with its order to ${coordinate('CMA', 4)}, standing at ${coordinate('CMA', 1)}, would go to ${coordinate('CMA', 2)}, by the hops of route CMA-IN.`,
    );

    await page.locator(`li[data-route="${routeKey}"]`).getByRole('button', { name: 'Enable' }).click();
    await page.locator(`li[data-route="${routeKey}"][data-enabled="true"]`).waitFor();
    expect((await wms.get(`/v1/api/routes/${routeKey}`)).body.enabled).toBe(true);

    await page.getByRole('button', { name: 'Ask' }).click();
    const after = (await decision()).body;
    expect(after).toMatchObject({ result: 'NEXT', nextLocation: coordinate('CMA', 2), via: 'ROUTE', route: { key: routeKey, name: 'CMA-IN' } });
    await expect.poll(() => answer.getAttribute('data-next')).toBe(after.nextLocation);
    expect(await answer.getAttribute('data-result')).toBe(after.result);
    expect(await answer.locator('p').first().textContent()).toBe(
      `Unit CMU1 with its order to ${coordinate('CMA', 4)}, standing at ${coordinate('CMA', 1)}, would go to ${coordinate('CMA', 2)}, by the hops of route CMA-IN.`,
    );
    await expectAccessible(page, 'commissioning, routes and dry run');
    await page.evaluate(() => (globalThis as unknown as { scrollTo: (x: number, y: number) => void }).scrollTo(0, 0));
    await screenshot(page, 'commissioning-routes');
  });

  it('follows routes changed elsewhere without a reload', async () => {
    const { page } = admin;
    const other = await wms.post('/v1/api/routes', {
      name: 'CMA-OUT',
      sourceLocationName: coordinate('CMA', 4),
      targetLocationName: coordinate('CMA', 6),
      enabled: false,
    });
    expect(other.status, other.text).toBe(201);
    await page.locator(`li[data-route="${other.body.key}"][data-enabled="false"]`).waitFor();
    expect((await wms.post(`/v1/api/routes/${other.body.key}/enable`)).status).toBe(200);
    await page.locator(`li[data-route="${other.body.key}"][data-enabled="true"]`).waitFor();
  });
});

describe('who may do what', () => {
  it('offers no editing to a user without the write grants, but the dry run', async () => {
    const grants = ['routes:read', 'locations:read', 'location-groups:read', 'transport-units:read', 'events:read'];
    expect((await wms.post('/roles', { name: 'CM-VIEWER', grants })).status).toBe(201);
    expect((await wms.post('/users', { username: 'cm-viewer', password: 'cm-viewer-password', roleNames: ['CM-VIEWER'] })).status).toBe(201);
    const viewer = await openPage(browser, wms);
    try {
      const { page } = viewer;
      await loginInBrowser(page, wms, 'cm-viewer', 'cm-viewer-password', '#/commissioning');
      await page.locator('li[data-group="CMA"]').waitFor();
      expect(await page.locator('#cm-group-name, #cm-bulk-area, #cm-location-id').count()).toBe(0);
      await open(page, 'routes');
      await page.locator('li[data-route]').first().waitFor();
      await onPlan(page, coordinate('CMA', 1)).click();
      await expect.poll(() => page.locator('.cm-selected').textContent()).toContain(coordinate('CMA', 1));
      expect(await page.locator('.plan-link-to').count()).toBe(0);
      expect(await page.locator('#cm-route-name').count()).toBe(0);
      expect(await page.getByRole('button', { name: /^(Enable|Disable|Remove)$/ }).count()).toBe(0);
      // Reading the decision is allowed with routes:read.
      await page.locator('#cm-dry-barcode').fill('CMU1');
      await page.getByRole('button', { name: 'Ask' }).click();
      await expect.poll(() => page.locator('.cm-answer').getAttribute('data-next')).toBe(coordinate('CMA', 2));
      viewer.expectClean();
    } finally {
      await viewer.context.close();
    }
  });
});

describe('help, accessibility, screenshots', () => {
  it('shows the steps of docs/commissioning.md, title by title', async () => {
    const { page } = admin;
    await open(page, 'help');
    const doc = readFileSync(new URL('../docs/commissioning.md', import.meta.url), 'utf8');
    const headings = [...doc.matchAll(/^### Step (\d+): (.+)$/gm)].map((m) => m[2]!.trim());
    expect(headings.length).toBeGreaterThan(5);
    expect(await page.locator('.cm-steps h3').allTextContents()).toEqual(headings);
    await expectAccessible(page, 'commissioning help');
    await screenshot(page, 'commissioning-help');
  });

  it('is accessible and fits 1024×600 and a phone', async () => {
    const { page } = admin;
    await open(page);
    await onPlan(page, coordinate('CMA', 1)).waitFor();
    await page.evaluate(() => (globalThis as unknown as { scrollTo: (x: number, y: number) => void }).scrollTo(0, 0));
    await expectAccessible(page, 'commissioning, groups and locations');
    await screenshot(page, 'commissioning');
    await page.setViewportSize({ width: 375, height: 740 });
    try {
      // The screen's own content fits (the shell's navigation is the shell's; what the
      // plan draws beyond its frame is clipped by its SVG).
      const widest = await page.locator('section.commissioning').evaluate((section) => {
        let right = 0;
        for (const el of [section, ...section.querySelectorAll('*')]) {
          if (el.namespaceURI === 'http://www.w3.org/1999/xhtml') right = Math.max(right, el.getBoundingClientRect().right);
        }
        return right;
      });
      expect(widest).toBeLessThanOrEqual(375);
      await screenshot(page, 'commissioning-phone');
    } finally {
      await page.setViewportSize({ width: 1024, height: 600 });
    }
  });
});
