import http, { type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, expectServerError, startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';
import { expectAccessible, expectTapTargets, launchBrowser, loginInBrowser, openPage, screenshot, submitLogin, type Watched } from './support/browser.ts';
import { until } from './support/warehouse.ts';
import { loadConfig } from '../src/config.ts';

// The HMI against a real appliance: its files as served (headers, encodings, caching,
// the CSP), and the page in Debian's Chromium: logging in, the alarms arriving live,
// acknowledging in the page, German, a session that ends, no request leaving the
// appliance, accessibility, the wallboard. Screenshots go to test-artifacts/hmi/.

let wms: TestAppliance;
let browser: Browser;

beforeAll(async () => {
  wms = await startTestAppliance();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await wms?.close();
});

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request as sent, the reply as received: no decompression, no added headers (unlike fetch). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${wms.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/** The files index.html names: script, preloaded chunks, style sheet, icon. */
async function assetNames(): Promise<string[]> {
  const html = (await raw('/hmi/')).body.toString('utf8');
  return [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
}

let alarmLocation = 0;
/** Raises a location.plcState alarm (major) over REST, as a PLC would with a LOCU; returns its id. */
async function raiseAlarm(): Promise<{ id: number; locationId: string; pKey: string }> {
  alarmLocation++;
  const locationId = `HMI/${String(alarmLocation).padStart(4, '0')}/0000/0000/0000`;
  const created = await wms.post('/v1/locations', { locationId, locationGroupName: 'WAREHOUSE' });
  expect(created.status, created.text).toBe(201);
  const reported = await wms.patch(`/v1/location/${created.body.pKey}?op=change-state`, { errorCode: '********', plcState: 12 });
  expect(reported.status, reported.text).toBe(204);
  const alarm = ((await wms.get('/v1/alarms')).body as { id: number; source: { key: string } }[]).find((a) => a.source.key === locationId);
  expect(alarm).toBeDefined();
  return { id: alarm!.id, locationId, pKey: created.body.pKey };
}

/** A user with a role of these grants. */
async function userWith(username: string, grants: string[]): Promise<{ pKey: string; password: string }> {
  const password = `${username}-password`;
  expect((await wms.post('/roles', { name: `${username}-role`, grants })).status).toBe(201);
  const user = await wms.post('/users', { username, password, roleNames: [`${username}-role`] });
  expect(user.status, user.text).toBe(201);
  return { pKey: user.body.pKey, password };
}

/** The page's window, for code evaluated in it (the tests are compiled without the DOM's types). */
interface PageWindow {
  getComputedStyle(element: unknown): Record<string, string>;
  document: { documentElement: { scrollWidth: number } };
}
/** A computed style property of the first element a selector finds. */
const styleOf = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => (globalThis as unknown as PageWindow).getComputedStyle(el)[p], property);

const card = (page: Page, id: number) => page.locator(`li[data-alarm-id="${id}"]`);
const badgeCount = async (page: Page) => Number(await page.locator('#alarm-badge').getAttribute('data-count'));

describe('serving the HMI', () => {
  it('sends a browser asking for / to /hmi/; API clients keep the 404', async () => {
    const browserReply = await raw('/', { Accept: BROWSER_ACCEPT });
    expect(browserReply.status).toBe(302);
    expect(new URL(browserReply.headers.location!, wms.url).pathname).toBe('/hmi/');
    // A client that asks for nothing but HTML is a browser too.
    expect((await raw('/', { Accept: 'text/html' })).status).toBe(302);
    expectServerError(await wms.get('/', { anonymous: true, headers: { Accept: 'application/json' } }), 404);
    expectServerError(await wms.get('/', { anonymous: true }), 404);
  });

  it('answers /hmi with a redirect to /hmi/, keeping the query', async () => {
    const reply = await raw('/hmi?wallboard=1');
    expect(reply.status).toBe(301);
    expect(reply.headers.location).toBe(`${wms.url}/hmi/?wallboard=1`);
  });

  it('serves the page revalidated on every load, with a CSP that allows nothing from elsewhere', async () => {
    const reply = await raw('/hmi/', { Accept: BROWSER_ACCEPT });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('no-cache');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    const csp = Object.fromEntries(
      String(reply.headers['content-security-policy'])
        .split(';')
        .map((d) => {
          const [name, ...values] = d.trim().split(/\s+/);
          return [name, values.join(' ')];
        }),
    );
    expect(csp).toMatchObject({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' data:",
      'connect-src': "'self'",
      'frame-ancestors': "'none'",
    });
    // No inline script or style in the page itself: the CSP would refuse them.
    const html = reply.body.toString('utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/);

    const etag = reply.headers.etag!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await raw('/hmi/', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
  });

  it('serves hashed files for a year, brotli or gzip as Accept-Encoding allows, with ETag and 304', async () => {
    const names = await assetNames();
    expect(names.some((n) => /^app-[A-Z0-9]+\.js$/.test(n))).toBe(true);
    expect(names.some((n) => /^app-[A-Z0-9]+\.css$/.test(n))).toBe(true);
    for (const name of names) {
      const plain = await raw(`/hmi/${name}`);
      expect(plain.status, name).toBe(200);
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toMatch(/Accept-Encoding/);
      expect(plain.headers['content-security-policy']).toBeDefined();

      const br = await raw(`/hmi/${name}`, { 'Accept-Encoding': 'gzip, deflate, br' });
      const gzip = await raw(`/hmi/${name}`, { 'Accept-Encoding': 'gzip;q=1, br;q=0.5' });
      if (plain.body.length > 1000) {
        expect(br.headers['content-encoding'], name).toBe('br');
        expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
        expect(br.body.length).toBeLessThan(plain.body.length);
        expect(gzip.headers['content-encoding'], name).toBe('gzip');
        expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
        expect(new Set([plain.headers.etag, br.headers.etag, gzip.headers.etag]).size).toBe(3);
      }
      const notModified = await raw(`/hmi/${name}`, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag! });
      expect(notModified.status).toBe(304);
      expect(notModified.body.length).toBe(0);

      const head = await raw(`/hmi/${name}`, {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(String(plain.body.length));
      expect(head.body.length).toBe(0);
    }
  });

  it("refuses an unknown file in the appliance's error format", async () => {
    expectServerError(await wms.get('/hmi/app-NOSUCHFILE.js', { anonymous: true }), 404);
    expectServerError(await wms.get('/hmi/nothing/here', { anonymous: true }), 404);
  });

  it('tells a token who it is and what it may do, and refuses without one', async () => {
    expectServerError(await wms.get('/hmi/session', { anonymous: true }), 401);
    expectServerError(await wms.get('/hmi/session', { token: 'not-a-token' }), 401);
    const me = await wms.get('/hmi/session');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'admin', kind: 'user', roleNames: ['ADMIN'] });
    expect(me.body.grants).toEqual(expect.arrayContaining(['alarms:read', 'alarms:write', 'events:read']));
    // Whatever it holds: an API key of a role with one grant learns just that one.
    expect((await wms.post('/roles', { name: 'HMI-SESSION-VIEWER', grants: ['alarms:read'] })).status).toBe(201);
    const key = (await wms.post('/api-keys', { name: 'hmi-session-viewer', roleName: 'HMI-SESSION-VIEWER' })).body.key as string;
    const viewer = await wms.get('/hmi/session', { token: key });
    expect(viewer.status, viewer.text).toBe(200);
    expect(viewer.body).toMatchObject({ kind: 'api-key', roleNames: ['HMI-SESSION-VIEWER'], grants: ['alarms:read'] });
  });
});

describe('the HMI in a browser', () => {
  let admin: Watched;

  beforeAll(async () => {
    admin = await openPage(browser, wms);
  });
  afterAll(async () => {
    admin?.expectClean();
    await admin?.context.close();
  });

  it('shows the login, accessible; logs in and opens the alarms, the first screen within 150 KB', async () => {
    const { page, context } = admin;
    // Bytes as transferred (compressed, with headers), counted by the browser itself.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const received = new Map<string, number>();
    const finished = new Map<string, number>();
    cdp.on('Network.dataReceived', (e) => received.set(e.requestId, (received.get(e.requestId) ?? 0) + e.encodedDataLength));
    cdp.on('Network.loadingFinished', (e) => finished.set(e.requestId, e.encodedDataLength));

    await page.goto(`${wms.url}/hmi/`);
    await page.locator('#login-username').waitFor();
    await screenshot(page, 'login');
    await expectAccessible(page, 'the login');

    await submitLogin(page, 'admin', ADMIN_PASSWORD);
    await page.waitForURL(/#\/alarms$/);
    await page.locator('#alarms-title').waitFor();
    await page.locator('#connection[data-state="live"]').waitFor();
    await page.locator('.all-clear').waitFor();
    const bytes = [...new Set([...received.keys(), ...finished.keys()])].reduce((sum, id) => sum + (finished.get(id) ?? received.get(id) ?? 0), 0);
    expect(bytes).toBeGreaterThan(10_000);
    expect(bytes, `bytes transferred for the first screen: ${bytes}`).toBeLessThanOrEqual(150 * 1024);
    await cdp.detach();

    expect(await page.title()).toBe('Alarms · Warehouse appliance');
    expect(await badgeCount(page)).toBe(0);
    await expectAccessible(page, 'the alarms screen');
  });

  it('shows an alarm raised meanwhile without a reload, counted by the badge', async () => {
    const { page } = admin;
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    const { id, locationId } = await raiseAlarm();
    await card(page, id).waitFor();
    await expect.poll(() => badgeCount(page)).toBe(1);
    expect(await card(page, id).textContent()).toContain(locationId);
    expect(await card(page, id).getAttribute('data-state')).toBe('active');
    expect(loads).toEqual([]);
    await screenshot(page, 'alarms');
    await expectAccessible(page, 'the alarms screen with an alarm');
  });

  it('acknowledges an alarm in the page with a comment; REST shows it acknowledged', async () => {
    const { page } = admin;
    const { id } = await raiseAlarm();
    await card(page, id).waitFor();
    const count = await badgeCount(page);
    await card(page, id).getByRole('button', { name: 'Acknowledge' }).click();
    await card(page, id).getByLabel('Comment (optional)').fill('roller cleaned');
    await expectAccessible(page, 'the acknowledge form');
    await card(page, id).locator('form button[type=submit]').click();
    await until(async () => (await wms.get(`/v1/alarms/${id}`)).body.state === 'acknowledged', 'the alarm is acknowledged');
    expect((await wms.get(`/v1/alarms/${id}`)).body).toMatchObject({ state: 'acknowledged', acknowledgedBy: 'admin', ackComment: 'roller cleaned' });
    await expect.poll(() => card(page, id).getAttribute('data-state')).toBe('acknowledged');
    await expect.poll(() => badgeCount(page)).toBe(count - 1);
  });

  it('shelves an alarm with a comment: it leaves the open list for the shelved group', async () => {
    const { page } = admin;
    const { id } = await raiseAlarm();
    await card(page, id).waitFor();
    await card(page, id).getByRole('button', { name: 'Shelve' }).click();
    await card(page, id).getByLabel('Shelve for').selectOption('15');
    await card(page, id).getByLabel('Comment (optional)').fill('sensor replaced at 14:00');
    await card(page, id).locator('form button[type=submit]').click();
    await until(async () => (await wms.get(`/v1/alarms/${id}`)).body.shelved === true, 'the alarm is shelved');
    expect((await wms.get(`/v1/alarms/${id}`)).body).toMatchObject({ shelvedBy: 'admin', shelveComment: 'sensor replaced at 14:00' });
    await page.locator('details.shelved').locator(`li[data-alarm-id="${id}"]`).waitFor({ state: 'attached' });
  });

  it('keeps the journal of cleared alarms, newly cleared ones arriving live', async () => {
    const { page } = admin;
    const { id, pKey } = await raiseAlarm();
    await page.getByRole('link', { name: 'Journal' }).click();
    await page.waitForURL(/#\/alarms\/journal$/);
    await page.locator('.journal, .empty').first().waitFor();
    expect(await card(page, id).count()).toBe(0);
    expect((await wms.patch(`/v1/location/${pKey}?op=change-state`, { errorCode: '********', plcState: 0 })).status).toBe(204);
    await card(page, id).waitFor();
    expect(await card(page, id).getAttribute('data-state')).toBe('cleared');
    await screenshot(page, 'alarms-journal');
    await expectAccessible(page, 'the journal');
    await page.getByRole('link', { name: 'Open', exact: true }).click();
    await page.waitForURL(/#\/alarms$/);
  });

  it('speaks German after switching, and remembers it', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await expect.poll(() => page.locator('#alarms-title').textContent()).toBe('Alarme');
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.locator('nav.nav').textContent()).toContain('Alarme');
    expect(await page.locator('#connection').textContent()).toContain('Live');
    expect(await page.getByRole('link', { name: 'Journal' }).count()).toBe(1);
    await page.reload();
    await page.locator('#alarms-title').waitFor();
    expect(await page.locator('#alarms-title').textContent()).toBe('Alarme');
    await screenshot(page, 'alarms-de');
    await page.getByRole('button', { name: 'Language: English' }).click();
    await expect.poll(() => page.locator('#alarms-title').textContent()).toBe('Alarms');
  });

  it("words an alarm in the user's language, from its kind and values", async () => {
    const { page } = admin;
    const { id, locationId } = await raiseAlarm();
    const message = card(page, id).locator('.alarm-message');
    await expect.poll(() => message.textContent()).toBe(`Location ${locationId} reports PLC state 12`);
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await expect.poll(() => message.textContent()).toBe(`Lagerplatz ${locationId} meldet SPS-Zustand 12`);
    expect(await card(page, id).locator('.alarm-title').textContent()).toBe('Lagerplatz meldet SPS-Fehler');
    await page.getByRole('button', { name: 'Language: English' }).click();
    await expect.poll(() => message.textContent()).toBe(`Location ${locationId} reports PLC state 12`);
  });

  it("shows a refusal from its message key in the user's language, never the body", async () => {
    const { page } = admin;
    const { id, pKey } = await raiseAlarm();
    await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
    await card(page, id).getByRole('button', { name: 'Quittieren' }).click();
    // The alarm clears just before the acknowledgement reaches the appliance, which
    // refuses it (409 alarm.cleared); the page says so in German.
    await page.route(`**/v1/alarms/${id}/acknowledge`, async (route) => {
      expect((await wms.patch(`/v1/location/${pKey}?op=change-state`, { errorCode: '********', plcState: 0 })).status).toBe(204);
      await route.continue();
    });
    await card(page, id).locator('form button[type=submit]').click();
    const toast = page.locator('.toast.failed');
    await toast.waitFor();
    expect(await toast.textContent()).toContain('Dieser Alarm ist inzwischen gegangen.');
    expect(await page.locator('body').textContent()).not.toMatch(/messageKey|httpStatus|alarm\.cleared|was cleared at/);
    await page.unroute(`**/v1/alarms/${id}/acknowledge`);
    await toast.getByRole('button', { name: 'Schließen' }).click();
    await page.getByRole('button', { name: 'Language: English' }).click();
  });

  it('offers a wallboard: large type, no controls', async () => {
    const { page } = admin;
    await raiseAlarm();
    await page.getByRole('button', { name: /Wallboard mode/ }).click();
    await expect.poll(() => page.url()).toMatch(/[?&]wallboard=1/);
    expect(await page.locator('html').getAttribute('class')).toContain('wallboard');
    expect(await page.locator('button:visible, select:visible, textarea:visible, input:visible').count()).toBe(0);
    expect(await page.locator('nav').count()).toBe(0);
    expect(await page.locator('li[data-alarm-id]').count()).toBeGreaterThan(0);
    const size = await styleOf(page, 'html', 'fontSize');
    expect(size).toBe('24px');
    await screenshot(page, 'alarms-wallboard');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.url()).not.toMatch(/wallboard/);
    expect(await page.locator('nav.nav').count()).toBe(1);
  });

  it('opens in wallboard mode from the address', async () => {
    const { page } = admin;
    await page.goto(`${wms.url}/hmi/?wallboard=1#/alarms`);
    await page.locator('#alarms-title').waitFor();
    expect(await page.locator('button:visible').count()).toBe(0);
    await page.locator('header.bar').dblclick();
    expect(await page.locator('nav.nav').count()).toBe(1);
  });

  it('has a dark high-contrast theme and works on a phone', async () => {
    const phone = await openPage(browser, wms, { viewport: { width: 375, height: 667 }, colorScheme: 'dark' });
    try {
      await loginInBrowser(phone.page, wms, 'admin', ADMIN_PASSWORD, '#/alarms');
      await phone.page.locator('li[data-alarm-id]').first().waitFor();
      const background = await styleOf(phone.page, 'html', 'backgroundColor');
      expect(background).toBe('rgb(0, 0, 0)');
      // Nothing wider than the phone.
      expect(await phone.page.evaluate(() => (globalThis as unknown as PageWindow).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await expectTapTargets(phone.page.locator('button:visible, nav a:visible, #alarm-badge'));
      await screenshot(phone.page, 'alarms-phone-dark');
      await expectAccessible(phone.page, 'the alarms on a phone, dark');
      phone.expectClean();
    } finally {
      await phone.context.close();
    }
  });
});

describe('counts in both languages', () => {
  it('says "1 position" and "2 positions", "1 Position" and "2 Positionen"', async () => {
    const pieces = (magnitude: number) => ({ '@class': 'org.vendor.core.units.api.Piece', unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'], magnitude });
    expect((await wms.post('/v1/products', [{ sku: 'PLURAL-SKU', baseUnit: pieces(1) }])).status).toBe(201);
    const position = (positionId: string) => ({ positionId, quantityExpected: pieces(4), product: { sku: 'PLURAL-SKU' } });
    expect((await wms.post('/v1/receiving-orders', { orderId: 'PLURAL-1', positions: [position('10')] })).status).toBe(201);
    expect((await wms.post('/v1/receiving-orders', { orderId: 'PLURAL-2', positions: [position('10'), position('20')] })).status).toBe(201);
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await loginInBrowser(page, wms, 'admin', ADMIN_PASSWORD, '#/goods-in');
      const count = (orderId: string) => page.locator(`a[data-order="${orderId}"] .muted`).first().textContent();
      await page.locator('a[data-order="PLURAL-2"]').waitFor();
      expect(await count('PLURAL-1')).toBe('1 position');
      expect(await count('PLURAL-2')).toBe('2 positions');
      await page.getByRole('button', { name: 'Sprache: Deutsch' }).click();
      await expect.poll(() => count('PLURAL-1')).toBe('1 Position');
      expect(await count('PLURAL-2')).toBe('2 Positionen');
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });
});

describe('the navigation on a phone', () => {
  it('shows the entry of every screen at 375 px, none beyond the edge or hidden in a scroll', async () => {
    const phone = await openPage(browser, wms, { viewport: { width: 375, height: 667 } });
    try {
      const { page } = phone;
      await loginInBrowser(page, wms, 'admin', ADMIN_PASSWORD, '#/alarms');
      const links = page.locator('nav.nav a.nav-link');
      // The admin may open every screen: nine entries.
      await expect.poll(() => links.count()).toBe(9);
      for (const link of await links.all()) {
        const name = await link.getAttribute('title');
        const box = (await link.boundingBox())!;
        expect(box.x, name!).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, name!).toBeLessThanOrEqual(375);
        expect(box.y + box.height, name!).toBeLessThanOrEqual(667);
        // What is drawn at its middle is the entry itself: not cut off by a scrolling bar.
        const onTop = await link.evaluate((a) => {
          const r = a.getBoundingClientRect();
          const hit = (globalThis as unknown as { document: { elementFromPoint(x: number, y: number): unknown } }).document.elementFromPoint(
            r.x + r.width / 2,
            r.y + r.height / 2,
          );
          return a.contains(hit as never);
        });
        expect(onTop, name!).toBe(true);
      }
      await screenshot(page, 'navigation-phone');
      await expectAccessible(page, 'the navigation on a phone');
      phone.expectClean();
    } finally {
      await phone.context.close();
    }
  });
});

describe('sessions and grants in the browser', () => {
  it('returns to the login when the session ends, and after it to the same screen, the work kept', async () => {
    const op = await userWith('hmi-operator', ['alarms:read', 'alarms:write', 'events:read']);
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      const { id } = await raiseAlarm();
      await loginInBrowser(page, wms, 'hmi-operator', op.password, '#/alarms');
      await card(page, id).getByRole('button', { name: 'Acknowledge' }).click();
      await card(page, id).getByLabel('Comment (optional)').fill('typed before the session ended');

      // A password change ends the tokens issued before it (in whole seconds).
      const issuedAt = Math.floor(Date.now() / 1000);
      await until(() => Math.floor(Date.now() / 1000) > issuedAt, 'the next second');
      expect((await wms.post(`/users/${op.pKey}/password`, { password: 'a-new-password' })).status).toBe(200);

      await card(page, id).locator('form button[type=submit]').click();
      await page.locator('.login-layer').waitFor();
      expect(await page.locator('.login').textContent()).toContain('Your session has ended');
      expect(await page.locator('#login-username').inputValue()).toBe('hmi-operator');
      await expectAccessible(page, 'the login after an expiry');
      await submitLogin(page, 'hmi-operator', 'a-new-password');

      // The acknowledgement held during the login went through with the new token.
      await until(async () => (await wms.get(`/v1/alarms/${id}`)).body.state === 'acknowledged', 'the alarm is acknowledged');
      expect((await wms.get(`/v1/alarms/${id}`)).body).toMatchObject({ acknowledgedBy: 'hmi-operator', ackComment: 'typed before the session ended' });
      expect(page.url()).toMatch(/#\/alarms$/);
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });

  it('a token the appliance refuses leads to the login and back to the screen of the address', async () => {
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await page.goto(`${wms.url}/hmi/#/alarms/journal`);
      await page.evaluate(() => sessionStorage.setItem('wms.hmi.session', JSON.stringify({ token: 'eyJ.not.valid', username: 'admin' })));
      await page.reload();
      await page.locator('.login').waitFor();
      expect(await page.locator('.login').textContent()).toContain('Your session has ended');
      await submitLogin(page, 'admin', ADMIN_PASSWORD);
      await page.locator('.journal, .empty').first().waitFor();
      expect(page.url()).toMatch(/#\/alarms\/journal$/);
      await page.locator('#alarm-badge').waitFor();
      expect(await page.locator('.tabs a[aria-current="page"]').textContent()).toBe('Journal');
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });

  it("does not offer what the user's grants do not allow", async () => {
    const viewer = await userWith('hmi-viewer', ['alarms:read', 'events:read']);
    const { id } = await raiseAlarm();
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await loginInBrowser(page, wms, 'hmi-viewer', viewer.password, '#/alarms');
      await card(page, id).waitFor();
      expect(await page.locator('li[data-alarm-id] button').count()).toBe(0);
      expect(await badgeCount(page)).toBeGreaterThan(0);
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });

  it('a user who may open no screen is told so', async () => {
    // A grant no screen asks for.
    const nobody = await userWith('hmi-nobody', ['preferences:read']);
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      await loginInBrowser(page, wms, 'hmi-nobody', nobody.password);
      await page.getByText('Your user may open no screen').waitFor();
      expect(await page.locator('#alarm-badge').count()).toBe(0);
      expect(await page.locator('#connection').getAttribute('data-state')).toBe('off');
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });
});

/** The lifetime of the tokens the file's appliance issues (the default). */
const TOKEN_TTL_SECONDS = loadConfig({}, { values: {} }, {}).config.auth.tokenTtlSeconds;

describe('a session that runs out', () => {
  it('says "Signed out" when the token expires, without waiting for the user to act, and offers the login', async () => {
    const tab = await openPage(browser, wms);
    try {
      const { page } = tab;
      // The page's clock is the browser's (the expiry is counted on it, from the token's
      // arrival): installed before the page loads, it is moved past the token's lifetime
      // instead of waiting for it.
      await page.clock.install();
      await loginInBrowser(page, wms, 'admin', ADMIN_PASSWORD, '#/alarms');
      await page.locator('#connection[data-state="live"]').waitFor();
      // The shell asks once whether its box is one of a pair (this one runs alone): on a busy box that may come after the stream.
      await expect.poll(() => tab.requests.some((u) => u.includes('/v1/ha'))).toBe(true);
      const requests = tab.requests.length;
      // Nothing is done in the page meanwhile: the expiry alone ends the session.
      await page.clock.fastForward(TOKEN_TTL_SECONDS * 1000 + 1000);
      await page.locator('#connection[data-state="signed-out"]').waitFor();
      expect(await page.locator('#connection').textContent()).toBe('Signed out');
      await page.locator('.login-layer').waitFor();
      expect(await page.locator('.login').textContent()).toContain('Your session has ended');
      expect(await page.locator('.banner.lost').count()).toBe(0);
      expect(tab.requests.slice(requests).filter((u) => !u.includes('/v1/events'))).toEqual([]);
      await expectAccessible(page, 'the login after the token expired');
      await submitLogin(page, 'admin', ADMIN_PASSWORD);
      await page.locator('#connection[data-state="live"]').waitFor();
      tab.expectClean();
    } finally {
      await tab.context.close();
    }
  });
});

describe('the live connection in the browser', () => {
  it('shows a lost connection, reconnects by itself and is replayed what it missed', async () => {
    const dataDir = tempDir();
    let first: TestAppliance | undefined = await startTestAppliance({}, dataDir);
    let second: TestAppliance | undefined;
    const tab = await openPage(browser, first);
    try {
      const { page } = tab;
      await loginInBrowser(page, first, 'admin', ADMIN_PASSWORD, '#/alarms');
      await page.locator('#connection[data-state="live"]').waitFor();
      // An event seen, so that the page has an id to be replayed from.
      const location = await first.post('/v1/locations', { locationId: 'LIVE/0001/0000/0000/0000', locationGroupName: 'WAREHOUSE' });
      expect(location.status).toBe(201);
      const seen = await first.patch(`/v1/location/${location.body.pKey}?op=change-state`, { errorCode: '********', plcState: 3 });
      expect(seen.status).toBe(204);
      await expect.poll(() => badgeCount(page)).toBe(1);

      // The appliance stops: the page says so and keeps trying.
      const port = first.app.port;
      await first.app.close();
      first = undefined;
      await page.locator('#connection[data-state="lost"]').waitFor();
      await page.locator('.banner.lost').waitFor();
      await screenshot(page, 'connection-lost');

      // Back on the same port and data; a change made before the page is back with it.
      const before = tab.requests.length;
      second = await startTestAppliance({ server: { port } }, dataDir);
      const again = await second.patch(`/v1/location/${location.body.pKey}?op=change-state`, { errorCode: '********', plcState: 0 });
      expect(again.status).toBe(204);
      await page.locator('#connection[data-state="live"]').waitFor();
      await expect.poll(() => badgeCount(page)).toBe(0);
      expect(await page.locator('.banner.lost').count()).toBe(0);
      const reopened = tab.requests.slice(before).filter((u) => u.includes('/v1/events?'));
      expect(reopened.length).toBeGreaterThan(0);
      expect(reopened.every((u) => /[?&]lastEventId=\d+/.test(u))).toBe(true);
      tab.expectClean();
    } finally {
      await tab.context.close();
      await first?.close();
      await second?.close();
    }
  });
});
