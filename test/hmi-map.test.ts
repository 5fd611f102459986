import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlcSimulator } from '../plc/simulator/index.ts';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { expectAccessible, expectTapTargets, launchBrowser, loginInBrowser, openPage, screenshot, type Watched } from './support/browser.ts';
import { connectedPlc, unitWithOrder, until } from './support/warehouse.ts';

// The conveyor map against a real appliance in Debian's Chromium: a small topology
// set up over the API (two areas, three groups, a route with hops, a group's default
// hop, a unit with an order), drawn on the plan; a location's details; locking with a
// reason (seen over REST and in its history); a LOCU and a REQ_ from the PLC simulator
// changing the open page without a reload; the group filter, the zoom, the wallboard,
// a user without the lock grant, a phone; and a site of 2,000 locations more, all
// drawn, where one event redraws one location. Screenshots go to test-artifacts/hmi/.

let wms: TestAppliance;
let browser: Browser;
let plc: PlcSimulator;

const enc = encodeURIComponent;
const A = (x: number) => `MAPA/0001/000${x}/0000/0000`;
const B_IN = 'MAPB/0001/0001/0000/0000';
const RACK = ['MAPB/0002/0001/0001/0000', 'MAPB/0002/0001/0002/0000', 'MAPB/0002/0002/0001/0000', 'MAPB/0002/0002/0002/0000'];
const SEEDED = [A(1), A(2), A(3), A(4), A(5), B_IN, ...RACK];
const UNIT = 'MAP-TU-1';
const pKeyOf: Record<string, string> = {};

async function seed(): Promise<void> {
  for (const [name, parentName] of [
    ['MAPA', 'WAREHOUSE'],
    ['MAPB', 'WAREHOUSE'],
    ['MAPB-RACK', 'MAPB'],
  ]) {
    const group = await wms.post('/v1/location-groups', { name, parentName });
    expect(group.status, group.text).toBe(201);
  }
  for (const locationId of SEEDED) {
    const locationGroupName = locationId.startsWith('MAPA') ? 'MAPA' : RACK.includes(locationId) ? 'MAPB-RACK' : 'MAPB';
    const created = await wms.post('/v1/locations', { locationId, locationGroupName });
    expect(created.status, created.text).toBe(201);
    pKeyOf[locationId] = created.body.pKey;
  }
  const route = await wms.post('/v1/api/routes', { name: 'MAP-IN', sourceLocationName: A(1), targetLocationName: B_IN, enabled: true });
  expect(route.status, route.text).toBe(201);
  const hops = [A(1), A(2), A(3), A(4), A(5)].map((source, i, all) => ({ source, next: all[i + 1] ?? B_IN }));
  expect((await wms.put(`/v1/api/routes/${route.body.key}/hops`, hops)).status).toBe(200);
  // Whatever stands in the rack without an order goes back to the infeed.
  expect((await wms.put('/v1/api/default-hops', [{ sourceGroup: 'MAPB-RACK', next: B_IN }])).status).toBe(200);
  await unitWithOrder(wms, UNIT, A(1), B_IN);
}

beforeAll(async () => {
  wms = await startTestAppliance({ plc: { channels: [{ name: 'MAP01', transport: 'tcp-server', host: '127.0.0.1', port: 0 }] } });
  browser = await launchBrowser();
  await seed();
  plc = await connectedPlc(wms, 'MAP01');
});
afterAll(async () => {
  await plc?.close();
  await browser?.close();
  await wms?.close();
});

const node = (page: Page, id: string) => page.locator(`.plan-loc[data-id="${id}"]`);
const stateOf = (page: Page, id: string) => node(page, id).getAttribute('data-state');
const unitsOn = (page: Page, id: string) => node(page, id).getAttribute('data-units');
const badgeCount = async (page: Page) => Number(await page.locator('#alarm-badge').getAttribute('data-count'));

/**
 * The sources of the alarms the badge counts (active, not shelved) when the badge shows
 * as many as the appliance has, else undefined. Other alarms (a channel that was slow
 * to connect on a busy box) may come and go meanwhile: the badge is held against the
 * appliance's list, not against a count taken before.
 */
async function badgeAgrees(page: Page): Promise<string[] | undefined> {
  const alarms = (await wms.get('/v1/alarms?state=active')).body as { shelved: boolean; source: { key: string } }[];
  const counted = alarms.filter((alarm) => !alarm.shelved).map((alarm) => alarm.source.key);
  return (await badgeCount(page)) === counted.length ? counted : undefined;
}
const zoom = async (page: Page) => Number(await page.locator('.plan-svg').getAttribute('data-zoom'));
const location = async (id: string) => (await wms.get(`/v1/locations?locationId=${enc(id)}`)).body;

/** A user with a role of these grants. */
async function userWith(username: string, grants: string[]): Promise<string> {
  const password = `${username}-password`;
  expect((await wms.post('/roles', { name: `${username}-role`, grants })).status).toBe(201);
  expect((await wms.post('/users', { username, password, roleNames: [`${username}-role`] })).status).toBe(201);
  return password;
}

/** Opens the map logged in as admin and waits until it is live and drawn. */
async function openMap(tab: Watched, hash = '#/map', count = SEEDED.length): Promise<void> {
  await loginInBrowser(tab.page, wms, 'admin', undefined, hash);
  await tab.page.locator('#map-title').waitFor();
  await tab.page.locator('#connection[data-state="live"]').waitFor();
  await until(async () => (await tab.page.locator('.plan-loc').count()) === count, `${count} locations are drawn`);
}

describe('the conveyor map', () => {
  let admin: Watched;
  const loads: string[] = [];

  beforeAll(async () => {
    admin = await openPage(browser, wms);
    await openMap(admin);
    admin.page.on('load', () => loads.push(admin.page.url()));
  });
  afterAll(async () => {
    admin?.expectClean();
    await admin?.context.close();
  });

  it('shows every seeded location, the route, its hops, the default hops and the unit on its location', async () => {
    const { page } = admin;
    for (const id of SEEDED) expect(await stateOf(page, id), id).toBe('ok');
    const links = async (kind: string) =>
      (
        await page.locator(`.plan-link[data-kind="${kind}"]`).evaluateAll((ls) => ls.map((l) => `${l.getAttribute('data-from')}>${l.getAttribute('data-to')}`))
      ).sort();
    expect(await links('hop')).toEqual([`${A(1)}>${A(2)}`, `${A(2)}>${A(3)}`, `${A(3)}>${A(4)}`, `${A(4)}>${A(5)}`, `${A(5)}>${B_IN}`].sort());
    expect(await links('route')).toEqual([`${A(1)}>${B_IN}`]);
    expect(await links('default-hop')).toEqual(RACK.map((r) => `${r}>${B_IN}`).sort());
    expect(await unitsOn(page, A(1))).toBe(UNIT);
    expect(await page.locator('.map-count').textContent()).toBe(`${SEEDED.length} of ${SEEDED.length} locations`);
    // Bands per area, the groups of each named in it.
    expect(await page.locator('.plan-band-name').allTextContents()).toEqual(['MAPA  MAPA', 'MAPB  MAPB · MAPB-RACK']);
    await screenshot(page, 'map');
    await expectAccessible(page, 'the conveyor map');
  });

  it('redraws the default hops when they are replaced over REST, without a reload', async () => {
    const { page } = admin;
    const defaultHops = async () =>
      (
        await page
          .locator('.plan-link[data-kind="default-hop"]')
          .evaluateAll((ls) => ls.map((l) => `${l.getAttribute('data-from')}>${l.getAttribute('data-to')}`))
      ).sort();
    const before = loads.length;
    expect((await wms.put('/v1/api/default-hops', [{ sourceGroup: 'MAPB-RACK', next: A(1) }])).status).toBe(200);
    await expect.poll(defaultHops).toEqual(RACK.map((r) => `${r}>${A(1)}`).sort());
    expect((await wms.put('/v1/api/default-hops', [{ sourceGroup: 'MAPB-RACK', next: B_IN }])).status).toBe(200);
    await expect.poll(defaultHops).toEqual(RACK.map((r) => `${r}>${B_IN}`).sort());
    expect(loads.length).toBe(before);
  });

  it("opens a location's details by a click and by the keyboard; the address names it", async () => {
    const { page } = admin;
    await node(page, A(1)).click();
    await page.locator('#map-panel-title', { hasText: A(1) }).waitFor();
    expect(page.url()).toMatch(/#\/map\/MAPA\/0001\/0001\/0000\/0000$/);
    const panel = page.locator('.map-panel');
    await expect.poll(() => panel.locator('.map-units').textContent()).toBe(UNIT);
    await expect.poll(async () => (await panel.locator('.map-facts').textContent()) ?? '').toContain('MAPA');
    // Its history: the unit was created on it.
    await panel.locator('.map-events li[data-type="transportUnit.created"]').waitFor();

    // The keyboard: the plan is one tab stop; arrows go on, Enter chooses.
    await node(page, A(1)).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await page.locator('#map-panel-title', { hasText: A(2) }).waitFor();
    expect(await page.locator('.plan-loc[tabindex="0"]').count()).toBe(1);
    await expectAccessible(page, "the map with a location's details");
  });

  it('locks a location for inbound with a reason, after a confirmation; REST and the history show it', async () => {
    const { page } = admin;
    await page.goto(`${wms.url}/hmi/#/map/${A(3)}`);
    const panel = page.locator('.map-panel[data-location="' + A(3) + '"]');
    await panel.getByRole('button', { name: 'Lock inbound' }).click();
    const form = panel.locator('form.map-lock-form');
    await form.getByLabel('Reason').fill('roller 4 broken');
    await expectAccessible(page, 'the lock form');
    expect((await location(A(3))).incomingActive).toBe(true);
    await form.getByRole('button', { name: 'Lock inbound' }).click();

    await until(async () => (await location(A(3))).incomingActive === false, 'the location is locked for inbound');
    expect(await location(A(3))).toMatchObject({ incomingActive: false, outgoingActive: true });
    const history = await wms.get(`/v1/events/history?subjectKind=location&subject=${enc(A(3))}&types=location.stateChanged`);
    expect(history.body).toEqual([
      expect.objectContaining({
        actor: { kind: 'user', name: 'admin' },
        reason: 'roller 4 broken',
        data: expect.objectContaining({ field: 'incomingActive', value: false }),
      }),
    ]);
    await expect.poll(() => stateOf(page, A(3))).toBe('inLocked');
    await page.locator('.toast.done', { hasText: `Inbound locked at ${A(3)}.` }).waitFor();
    await panel.locator('.map-events li', { hasText: 'roller 4 broken' }).waitFor();
    await screenshot(page, 'map-locked');

    // And unlocked again, the same way.
    await panel.getByRole('button', { name: 'Unlock inbound' }).click();
    await form.getByLabel('Reason').fill('roller replaced');
    await form.getByRole('button', { name: 'Unlock inbound' }).click();
    await until(async () => (await location(A(3))).incomingActive === true, 'the location is open again');
    await expect.poll(() => stateOf(page, A(3))).toBe('ok');
  });

  it("shows the appliance's refusal of a blank reason in the user's language; nothing changes", async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    const panel = page.locator('.map-panel');
    await panel.getByRole('button', { name: 'Auslagerung sperren' }).click();
    await panel.getByLabel('Grund').fill('   ');
    await panel.locator('form.map-lock-form button[type=submit]').click();
    const toast = page.locator('.toast.failed');
    await toast.waitFor();
    expect(await toast.textContent()).toContain('Eine Eingabe ist ungültig.');
    expect(await page.locator('body').textContent()).not.toMatch(/messageKey|core\.validation|must not be empty/);
    expect((await location(A(3))).outgoingActive).toBe(true);
    await toast.getByRole('button', { name: 'Schließen' }).click();
    await panel.getByRole('button', { name: 'Abbrechen' }).click();
    await page.getByRole('button', { name: 'Language: English' }).click();
    await page.locator('#map-title', { hasText: 'Conveyor map' }).waitFor();
  });

  it('turns a location to the error state when the PLC reports one (LOCU), without a reload; the badge counts its alarm', async () => {
    const { page } = admin;
    const loaded = loads.length;
    await plc.report(A(4), '0012****');
    await expect.poll(() => stateOf(page, A(4))).toBe('error');
    await until(async () => (await badgeAgrees(page))?.includes(A(4)) === true, "the badge counts the location's alarm");
    await node(page, A(4)).click();
    await page.locator('.map-panel .map-state.s-error').waitFor();
    await page.locator('.map-panel a.sev-major', { hasText: 'Location reports a PLC error' }).waitFor();
    await screenshot(page, 'map-error');

    await plc.report(A(4), '0000****');
    await expect.poll(() => stateOf(page, A(4))).toBe('ok');
    await until(async () => {
      const counted = await badgeAgrees(page);
      return counted !== undefined && !counted.includes(A(4));
    }, "the badge no longer counts the location's alarm");
    expect(loads.length).toBe(loaded);
  });

  it('moves a unit on the plan when the PLC reports it elsewhere (REQ_), without a reload', async () => {
    const { page } = admin;
    const loaded = loads.length;
    await node(page, A(2)).click();
    const res = await plc.request({ barcode: UNIT, actualLocation: A(2) }, { timeoutMs: 10_000 });
    expect(res.targetLocation).toBe(A(3));
    await expect.poll(() => unitsOn(page, A(2))).toBe(UNIT);
    expect(await unitsOn(page, A(1))).toBe('');
    expect((await wms.get(`/v1/transport-units?bk=${UNIT}`)).body.actualLocation).toBe(A(2));
    await expect.poll(() => page.locator('.map-panel .map-units').textContent()).toBe(UNIT);
    await page.locator('.map-panel .map-events li[data-type="transportUnit.moved"]').waitFor();
    expect(loads.length).toBe(loaded);
  });

  it('filters by group, the groups below it included', async () => {
    const { page } = admin;
    await page.getByLabel('Group').selectOption('MAPB');
    await expect.poll(() => page.locator('.plan-loc').count()).toBe(5);
    expect(await page.locator('.map-count').textContent()).toBe(`5 of ${SEEDED.length} locations`);
    // Only links between what is shown.
    expect(await page.locator('.plan-link[data-kind="hop"]').count()).toBe(0);
    expect(await page.locator('.plan-link[data-kind="default-hop"]').count()).toBe(4);
    await page.getByLabel('Group').selectOption('MAPB-RACK');
    await expect.poll(() => page.locator('.plan-loc').count()).toBe(4);
    await page.getByLabel('Group').selectOption('');
    await expect.poll(() => page.locator('.plan-loc').count()).toBe(SEEDED.length);
  });

  it('finds a location by its coordinate', async () => {
    const { page } = admin;
    await page.getByLabel('Location', { exact: true }).fill('mapb/0002/0002/0002');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator('#map-panel-title', { hasText: RACK[3]! }).waitFor();
    await page.getByLabel('Location', { exact: true }).fill('NOWHERE');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator('.toast.failed', { hasText: 'No location matches “NOWHERE”.' }).waitFor();
    await page.locator('.toast.failed').getByRole('button', { name: 'Close' }).click();
  });

  it("zooms with the buttons and the keyboard; zoomed in, the units' barcodes are drawn", async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Show all' }).click();
    const fitted = await zoom(page);
    await page.getByRole('button', { name: 'Zoom in' }).click();
    expect(await zoom(page)).toBeGreaterThan(fitted);
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await page.getByRole('button', { name: 'Zoom out' }).click();
    expect(await zoom(page)).toBeLessThan(fitted);
    await page.getByRole('button', { name: 'Show all' }).click();
    expect(await zoom(page)).toBeCloseTo(fitted, 3);

    // The wheel zooms about the pointer; a drag pans and chooses nothing.
    const frame = (await page.locator('.plan-svg').boundingBox())!;
    await page.mouse.move(frame.x + frame.width / 2, frame.y + frame.height / 2);
    await page.mouse.wheel(0, -300);
    await expect.poll(() => zoom(page)).toBeGreaterThan(fitted);
    const transform = async () => page.locator('.plan-svg > g').getAttribute('transform');
    const before = await transform();
    const url = page.url();
    const start = (await node(page, A(1)).boundingBox())!;
    await page.mouse.move(start.x + 5, start.y + 5);
    await page.mouse.down();
    await page.mouse.move(start.x + 60, start.y + 40, { steps: 5 });
    await page.mouse.up();
    expect(await transform()).not.toBe(before);
    expect(page.url()).toBe(url);
    await page.getByRole('button', { name: 'Show all' }).click();

    for (let i = 0; i < 6 && (await page.locator('.plan-svg.detail-2').count()) === 0; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.locator('.plan-unit-code', { hasText: UNIT }).waitFor({ state: 'attached' });
    await node(page, A(2)).focus();
    await page.keyboard.press('0');
    expect(await zoom(page)).toBeCloseTo(fitted, 3);
  });

  it('has a wallboard mode: the plan full screen with its legend, nothing to press', async () => {
    const { page } = admin;
    await page.goto(`${wms.url}/hmi/?wallboard=1#/map`);
    await expect.poll(() => page.locator('.plan-loc').count()).toBe(SEEDED.length);
    expect(await page.locator('button:visible, select:visible, input:visible, textarea:visible, summary:visible').count()).toBe(0);
    expect(await page.locator('nav').count()).toBe(0);
    expect(await page.locator('.map-panel').count()).toBe(0);
    await page.locator('.plan-legend li', { hasText: 'Locked for inbound' }).waitFor();
    await screenshot(page, 'map-wallboard');
    await expectAccessible(page, 'the map on a wallboard');
    await page.keyboard.press('Escape');
    await page.locator('nav.nav').waitFor();
  });
});

describe('the map for other users and devices', () => {
  it('does not offer locking to a user without locations:write', async () => {
    const password = await userWith('map-viewer', ['locations:read', 'location-groups:read', 'transport-units:read', 'routes:read', 'events:read']);
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await loginInBrowser(page, wms, 'map-viewer', password, `#/map/${A(5)}`);
      await page.locator('#map-panel-title', { hasText: A(5) }).waitFor();
      await page.locator('.map-facts').waitFor();
      expect(await page.locator('.map-panel button').allTextContents()).toEqual(['×']);
      expect(await page.locator('.map-lock-actions').count()).toBe(0);
      // The plan's locations come with a read of their own, which may answer after the panel's.
      await expect.poll(() => page.locator('.plan-loc').count()).toBe(SEEDED.length);
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });

  it('works on a phone, dark', async () => {
    const tab = await openPage(browser, wms, { viewport: { width: 375, height: 667 }, colorScheme: 'dark' });
    try {
      const { page } = tab;
      await openMap(tab, `#/map/${A(2)}`);
      await page.locator('#map-panel-title').waitFor();
      await screenshot(page, 'map-phone-dark');
      // Nothing of the screen wider than the phone (the top bar is the shell's; the plan's
      // drawing is clipped by its frame).
      const wide = await page.evaluate(() => {
        const d = (
          globalThis as unknown as {
            document: { querySelectorAll: (s: string) => Iterable<{ tagName: string; getBoundingClientRect: () => { right: number } }> };
          }
        ).document;
        return [...d.querySelectorAll('main *:not(.plan-svg *)')].filter((e) => e.getBoundingClientRect().right > 375).map((e) => e.tagName);
      });
      expect(wide).toEqual([]);
      await expectTapTargets(page.locator('main button:visible, main summary:visible, main input:visible, main select:visible'));
      await expectAccessible(page, 'the map on a phone, dark');
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });
});

describe('a site of 2,000 locations more', () => {
  const BULK = 2000;
  const bulkId = (i: number) => `BULK/${String(Math.floor(i / 100) + 1).padStart(4, '0')}/${String((i % 100) + 1).padStart(4, '0')}/0000/0000`;

  beforeAll(async () => {
    expect((await wms.post('/v1/location-groups', { name: 'BULK', parentName: 'WAREHOUSE' })).status).toBe(201);
    // The API creates one location per request: eight at a time.
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < BULK) {
          const i = next++;
          const created = await wms.post('/v1/locations', { locationId: bulkId(i), locationGroupName: 'BULK' });
          expect(created.status, created.text).toBe(201);
        }
      }),
    );
  });

  it('draws them all, and one event redraws only the location it is about', async () => {
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await openMap(tab, '#/map', SEEDED.length + BULK);
      expect(await page.locator('.map-count').textContent()).toBe(`${SEEDED.length + BULK} of ${SEEDED.length + BULK} locations`);
      expect(await page.locator('.plan-band-name').count()).toBe(3);

      // Watch which locations' drawings change while one of them gets locked.
      await page.evaluate(() => {
        const w = globalThis as unknown as { document: any; MutationObserver: any; touched: Set<string> };
        w.touched = new Set();
        new w.MutationObserver((records: any[]) => {
          for (const r of records) {
            const cell = (r.target.nodeType === 1 ? r.target : r.target.parentElement)?.closest?.('.plan-cell');
            if (cell) w.touched.add(cell.querySelector('.plan-loc').getAttribute('data-id'));
          }
        }).observe(w.document.querySelector('.plan-nodes'), { subtree: true, childList: true, attributes: true, characterData: true });
      });
      const target = bulkId(1234);
      const pKey = (await location(target)).pKey;
      expect((await wms.patch(`/v1/location/${pKey}?op=change-state`, { errorCode: '******11', reason: 'survey' })).status).toBe(204);
      await expect.poll(() => stateOf(page, target)).toBe('locked');
      const touched = await page.evaluate(() => [...(globalThis as unknown as { touched: Set<string> }).touched]);
      expect(touched).toEqual([target]);
      await screenshot(page, 'map-2000');
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });
});
