import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { allPages } from './support/warehouse.ts';

// Lists that can grow with the site: the whole array the spec promises, streamed, and
// pages with `limit`, `after` and `Link: rel="next"`. Over real HTTP.

let wms: TestAppliance;
const coordinate = (i: number) => `LIST/${String(Math.floor(i / 100)).padStart(4, '0')}/${String(i % 100).padStart(4, '0')}/0000/0000`;

beforeAll(async () => {
  wms = await startTestAppliance();
  for (let i = 0; i < 1200; i += 1) {
    const reply = await wms.post('/v1/locations', { locationId: coordinate(i), locationGroupName: 'WAREHOUSE' });
    expect(reply.status).toBe(201);
  }
}, 120_000);
afterAll(() => wms.close());

describe('GET /v1/locations', () => {
  it('without limit: the whole array, streamed (no Content-Length), in coordinate order', async () => {
    const reply = await wms.get('/v1/locations');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-length')).toBeNull();
    expect(reply.headers.get('content-type')).toMatch(/json/);
    const ids = (reply.body as { locationId: string }[]).map((l) => l.locationId);
    expect(ids.filter((id) => id.startsWith('LIST/'))).toHaveLength(1200);
    expect([...ids].sort()).toEqual(ids);
  });

  it('with limit: pages following Link rel="next" give the same list as the stream', async () => {
    const streamed = (await wms.get('/v1/locations')).body;
    const { items, pages } = await allPages(wms, '/v1/locations?limit=250');
    expect(pages).toBe(Math.ceil(streamed.length / 250));
    expect(items).toEqual(streamed);
  });

  it('pages walk every location once while locations are created and deleted', async () => {
    const seen: string[] = [];
    let next: string | undefined = '/v1/locations?limit=100';
    let n = 0;
    while (next) {
      const reply = await wms.get(next);
      seen.push(...reply.body.map((l: { locationId: string }) => l.locationId));
      await wms.post('/v1/locations', { locationId: `LIST/9999/${String(n++).padStart(4, '0')}/0000/0000`, locationGroupName: 'WAREHOUSE' });
      const link = reply.headers.get('link');
      next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1]!.slice(wms.url.length) : undefined;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (let i = 0; i < 1200; i++) expect(seen).toContain(coordinate(i));
  });

  it('a bad limit or a cursor it did not hand out: 400, naming the parameter', async () => {
    expectApiError(await wms.get('/v1/locations?limit=0'), 400, 'core.validation.error');
    expectApiError(await wms.get('/v1/locations?limit=1001'), 400, 'core.validation.error');
    expectApiError(await wms.get('/v1/locations?limit=10&after=bm90LWEtY3Vyc29y'), 400, 'core.validation.error');
  });

  it('clients that stop reading a stream half-way do not use up the read connections', async () => {
    for (let i = 0; i < 8; i++) {
      const controller = new AbortController();
      const res = await fetch(`${wms.url}/v1/locations`, { headers: { Authorization: `Bearer ${await wms.token()}` }, signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
    }
    const reply = await wms.get('/v1/locations');
    expect(reply.status).toBe(200);
    expect(reply.body.length).toBeGreaterThanOrEqual(1200);
  });
});
