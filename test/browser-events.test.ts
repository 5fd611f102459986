import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { launchBrowser } from './support/browser.ts';

// Live events in a real browser: Debian's headless Chromium, driven by playwright-core,
// opens the stream with its own EventSource (which sends `Accept: text/event-stream` and
// cannot send an Authorization header), authenticated by a ticket, as an HMI page does.

let wms: TestAppliance;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  wms = await startTestAppliance();
  browser = await launchBrowser();
  page = await browser.newPage();
  // A page of the appliance's own origin (the HMI's situation): no CORS in the way.
  await page.goto(`${wms.url}/healthz`);
});
afterAll(async () => {
  await browser?.close();
  await wms?.close();
});

interface Received {
  type: string;
  lastEventId: string;
  data: { id: number; type: string; actor: { kind: string; name: string }; reason?: string; data: Record<string, unknown> };
}

/** In the page: log in, get a ticket, open an EventSource (optionally from a last id); resolves once it is open. */
async function openInPage(query: string, lastEventId?: string): Promise<void> {
  await page.evaluate(
    async ({ password, query, lastEventId }) => {
      const w = globalThis as unknown as { received: unknown[]; source?: EventSource };
      const login = await fetch('/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username: 'admin', password }).toString(),
      });
      const { access_token: token } = (await login.json()) as { access_token: string };
      const issued = await fetch('/v1/events/tickets', { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
      const { ticket } = (await issued.json()) as { ticket: string };
      w.source?.close();
      w.received = [];
      const from = lastEventId ? `&lastEventId=${encodeURIComponent(lastEventId)}` : '';
      const source = new EventSource(`/v1/events?ticket=${encodeURIComponent(ticket)}${query}${from}`);
      w.source = source;
      for (const type of ['location.stateChanged', 'location.created', 'reset']) {
        source.addEventListener(type, (e) => {
          const m = e as unknown as { type: string; lastEventId: string; data: string };
          w.received.push({ type: m.type, lastEventId: m.lastEventId, data: JSON.parse(m.data) });
        });
      }
      await new Promise<void>((resolve, reject) => {
        source.onopen = () => resolve();
        source.onerror = () => reject(new Error(`EventSource failed (readyState ${source.readyState})`));
      });
    },
    { password: ADMIN_PASSWORD, query, lastEventId },
  );
}

const receivedInPage = async (count: number): Promise<Received[]> => {
  await page.waitForFunction((n) => (globalThis as unknown as { received: unknown[] }).received.length >= n, count, { timeout: 10_000 });
  return page.evaluate(() => (globalThis as unknown as { received: Received[] }).received);
};

describe("a browser's EventSource", () => {
  it('opens the stream with a ticket and receives a location lock with who did it and why', async () => {
    const created = await wms.post('/v1/locations', { locationId: 'BRWS/0001/0000/0000/0000', locationGroupName: 'WAREHOUSE' });
    expect(created.status).toBe(201);
    await openInPage('&types=location.stateChanged');
    const locked = await wms.patch(`/v1/location/${created.body.pKey}?op=change-state`, { errorCode: '00000001', reason: 'inspection' });
    expect(locked.status).toBe(204);
    const [event] = await receivedInPage(1);
    expect(event).toMatchObject({
      type: 'location.stateChanged',
      data: {
        type: 'location.stateChanged',
        actor: { kind: 'user', name: 'admin' },
        reason: 'inspection',
        data: { locationId: 'BRWS/0001/0000/0000/0000', field: 'incomingActive', value: false },
      },
    });
    expect(event!.lastEventId).toBe(String(event!.data.id));
  });

  it('reopened with a new ticket and the last id it saw, it is replayed what it missed', async () => {
    const [seen] = await receivedInPage(1);
    await page.evaluate(() => (globalThis as unknown as { source: EventSource }).source.close());
    for (const n of ['0002', '0003']) {
      expect((await wms.post('/v1/locations', { locationId: `BRWS/${n}/0000/0000/0000`, locationGroupName: 'WAREHOUSE' })).status).toBe(201);
    }
    await openInPage('&types=location.created', seen!.lastEventId);
    const replayed = await receivedInPage(2);
    expect(replayed.map((e) => [e.type, e.data.data.locationId])).toEqual([
      ['location.created', 'BRWS/0002/0000/0000/0000'],
      ['location.created', 'BRWS/0003/0000/0000/0000'],
    ]);
  });
});
