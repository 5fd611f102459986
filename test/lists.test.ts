import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { allPages } from './support/warehouse.ts';

// Every list: the whole array the spec promises (streamed when the list grows with the
// site, read at once when it is small by nature), and pages with `limit`, `after` and
// `Link: rel="next"`. Over real HTTP.

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

const page = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

/**
 * The list at `path` walked in pages of `limit` equals the whole list, item for item; the
 * whole list streams (no Content-Length) or is read at once, as `streamed` says; a cursor
 * this appliance did not hand out, and one without limit, are refused. Returns the list.
 */
async function pagesEqualWhole(path: string, limit: number, streamed: boolean): Promise<any[]> {
  const whole = await wms.get(path);
  expect(whole.status, whole.text).toBe(200);
  expect(whole.headers.get('content-length') === null, `${path} streamed`).toBe(streamed);
  const { items, pages } = await allPages(wms, page(path, `limit=${limit}`));
  expect(items).toEqual(whole.body);
  expect(pages).toBe(Math.max(1, Math.ceil(whole.body.length / limit)));
  expectApiError(await wms.get(page(path, `limit=${limit}&after=bm90LWEtY3Vyc29y`)), 400, 'core.validation.error');
  expectApiError(await wms.get(page(path, `after=WyIiXQ`)), 400, 'core.validation.error');
  return whole.body;
}

const created = async (path: string, body?: unknown) => {
  const reply = await wms.post(path, body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
};
const n2 = (i: number) => String(i).padStart(2, '0');

describe('the location wildcard search', () => {
  /** The coordinates of beforeAll that match, in coordinate order. */
  const expected = (match: (aisle: number, x: number) => boolean) => {
    const ids: string[] = [];
    for (let i = 0; i < 1200; i++) if (match(Math.floor(i / 100), i % 100)) ids.push(coordinate(i));
    return ids.sort();
  };
  const ids = (body: { locationId: string }[]) => body.map((l) => l.locationId);

  it('a leading wildcard with an exact part: pages equal the stream, in coordinate order', async () => {
    const found = await pagesEqualWhole('/v1/locations?area=%25&x=0042', 5, true);
    expect(ids(found)).toEqual(expected((_, x) => x === 42));
  });

  it('an exact area, wildcards inside parts, several exact parts: the same rows as the patterns say', async () => {
    expect(ids(await pagesEqualWhole('/v1/locations?area=LIST&aisle=0003', 30, true))).toEqual(expected((aisle) => aisle === 3));
    expect(ids(await pagesEqualWhole('/v1/locations?area=%25T&aisle=%251&x=00_7', 4, true))).toEqual(
      expected((aisle, x) => aisle % 10 === 1 && x % 10 === 7 && x < 100),
    );
    expect(ids(await pagesEqualWhole('/v1/locations?area=L%25&aisle=0011&x=0099&y=0000&z=0000', 2, true))).toEqual([coordinate(1199)]);
  });

  it('nothing found: 404 with an empty body as the spec shows; a page answers []', async () => {
    const none = await wms.get('/v1/locations?area=%25&x=0042&y=0001');
    expect(none.status).toBe(404);
    expect(none.text).toBe('');
    const emptyPage = await wms.get('/v1/locations?area=%25&x=0042&y=0001&limit=10');
    expect(emptyPage.status).toBe(200);
    expect(emptyPage.body).toEqual([]);
    expect(emptyPage.headers.get('link')).toBeNull();
  });
});

describe('every other list', () => {
  it('locations of groups (one, several, a wildcard) and location groups, by name or the names asked for', async () => {
    for (let g = 0; g < 12; g++) await created('/v1/location-groups', { name: `LG-${n2(g)}`, parentName: 'WAREHOUSE' });
    for (let i = 0; i < 9; i++) await created('/v1/locations', { locationId: `LGL/${n2(i)}/0000/0000/0000`, locationGroupName: `LG-${n2(i % 3)}` });
    expect(await pagesEqualWhole('/v1/locations?locationGroupNames=LG-00', 2, true)).toHaveLength(3);
    expect(await pagesEqualWhole('/v1/locations?locationGroupNames=LG-00&locationGroupNames=LG-01', 2, true)).toHaveLength(6);
    expect(await pagesEqualWhole('/v1/locations?locationGroupNames=LG-0%25', 4, true)).toHaveLength(9);
    const groups = await pagesEqualWhole('/v1/location-groups', 5, true);
    expect(groups.map((g) => g.name)).toEqual([...groups.map((g) => g.name)].sort());
    // Groups named in the request: in the order named, paged by position.
    const named = await pagesEqualWhole('/v1/location-groups?names=LG-07,LG-02,NONE,LG-05', 2, false);
    expect(named.map((g) => g.name)).toEqual(['LG-07', 'LG-02', 'LG-05']);
  });

  it('transport units: all, on a location, by barcodes', async () => {
    for (let i = 0; i < 11; i++)
      await created('/v1/transport-units', { barcode: `LTU-${n2(i)}`, actualLocation: coordinate(i % 2), transportUnitType: 'EURO' });
    expect((await pagesEqualWhole('/v1/transport-units', 4, true)).length).toBeGreaterThanOrEqual(11);
    expect(await pagesEqualWhole(`/v1/transport-units?actualLocation=${encodeURIComponent(coordinate(0))}`, 2, true)).toHaveLength(6);
    expect(await pagesEqualWhole('/v1/transport-units?bks=LTU-03&bks=LTU-01&bks=LTU-09', 2, false)).toHaveLength(3);
  });

  it('products, load units and packaging units: all, on a transport unit, of a product (sorted, an amount), in a group', async () => {
    for (let i = 0; i < 9; i++) await created('/v1/products', { sku: `LSKU-${n2(i)}`, label: `product ${i}`, baseUnit: { unit: 'PC', amount: 1 } });
    for (let i = 0; i < 10; i++) {
      const bk = `LTU-${n2(i)}`;
      await created(`/v1/transport-units/${bk}/load-units/${(i % 2) + 1}/packaging-units?loadUnitType=BOX`, {
        product: { sku: `LSKU-${n2(i % 3)}` },
        quantity: { unit: 'PC', amount: 10 - i },
      });
    }
    expect((await pagesEqualWhole('/v1/products', 4, true)).length).toBeGreaterThanOrEqual(9);
    expect(await pagesEqualWhole('/v1/load-units', 3, true)).toHaveLength(10);
    expect(await pagesEqualWhole('/v1/transport-units/LTU-00/load-units', 1, false)).toHaveLength(1);
    expect(await pagesEqualWhole('/v1/packaging-units', 3, true)).toHaveLength(10);
    expect(await pagesEqualWhole('/v1/transport-units/LTU-03/load-units/packaging-units', 1, false)).toHaveLength(1);
    const oldest = await pagesEqualWhole('/v1/packaging-units?sku=LSKU-00', 1, true);
    expect(oldest.map((pu) => Number(pu.quantity.magnitude))).toEqual([10, 7, 4, 1]);
    const smallest = await pagesEqualWhole('/v1/packaging-units?sku=LSKU-00&sort=ASC', 3, true);
    expect(smallest.map((pu) => Number(pu.quantity.magnitude))).toEqual([1, 4, 7, 10]);
    // `amount` caps the whole list, across pages.
    const largest = await pagesEqualWhole('/v1/packaging-units?sku=LSKU-00&sort=DESC&amount=3', 2, true);
    expect(largest.map((pu) => Number(pu.quantity.magnitude))).toEqual([10, 7, 4]);
    const product = (await wms.get('/v1/products?sku=LSKU-01')).body;
    // In a group: tested unit by unit, so a page may be short; the walk still gives the stream.
    const whole = await wms.get(`/v1/packaging-units?productPKey=${product.pKey}&locationGroupName=WAREHOUSE`);
    expect(whole.body).toHaveLength(3);
    expect((await allPages(wms, `/v1/packaging-units?productPKey=${product.pKey}&locationGroupName=WAREHOUSE&limit=2`)).items).toEqual(whole.body);
  });

  it('movements: all, of a unit, in a state (one or several) in work order', async () => {
    for (let i = 0; i < 7; i++) {
      await created(`/v1/transport-units/LTU-${n2(i)}/movements`, { sourceLocation: coordinate(i % 2), target: 'WAREHOUSE', priority: i % 3 });
    }
    expect((await pagesEqualWhole('/v1/movements', 3, true)).length).toBeGreaterThanOrEqual(7);
    expect(await pagesEqualWhole('/v1/movements?barcode=LTU-01', 1, true)).toHaveLength(1);
    const queue = await pagesEqualWhole('/v1/movements?state=INACTIVE', 2, true);
    expect(queue.map((m) => m.priority)).toEqual([...queue.map((m) => m.priority)].sort());
    await pagesEqualWhole('/v1/movements?state=INACTIVE,ACTIVE&types=INBOUND,OUTBOUND,RELOCATION,REPLENISHMENT,MANUAL', 2, true);
  });

  it('transport orders: all, in a state, of a unit', async () => {
    for (let i = 0; i < 6; i++) await created('/v1/transport-orders', { barcode: `LTU-${n2(i)}`, targetLocation: coordinate(100 + i) });
    await created('/v1/transport-orders', { barcode: 'LTU-00', targetLocation: coordinate(200) });
    expect((await pagesEqualWhole('/v1/transport-orders', 4, true)).length).toBeGreaterThanOrEqual(7);
    expect(await pagesEqualWhole('/v1/transport-orders?state=STARTED', 4, true)).toHaveLength(6);
    expect(await pagesEqualWhole('/v1/transport-orders?state=STARTED,INITIALIZED', 4, true)).toHaveLength(7);
    expect(await pagesEqualWhole('/v1/transport-orders?barcode=LTU-00', 1, true)).toHaveLength(2);
  });

  it('shipping and receiving orders, oldest first', async () => {
    for (let i = 0; i < 5; i++) {
      await created('/v1/shipping-orders', {
        orderId: `LSO-${n2(i)}`,
        positions: [
          { '@class': 'org.vendor.wms.shipping.api.ShippingOrderPositionVO', pos: '1', product: { sku: 'LSKU-00' }, qtyOrdered: { unit: 'PC', amount: 1 } },
        ],
      });
      await created('/v1/receiving-orders', {
        orderId: `LRO-${n2(i)}`,
        positions: [{ positionId: '1', product: { sku: 'LSKU-01' }, quantityExpected: { unit: 'PC', amount: 2 } }],
      });
    }
    expect(await pagesEqualWhole('/v1/ui/shipping-orders', 2, true)).toHaveLength(5);
    expect(await pagesEqualWhole('/v1/ui/shipping-orders?states=CREATED', 2, true)).toHaveLength(5);
    expect(await pagesEqualWhole('/v1/ui/shipping-orders?states=CREATED,PROCESSED', 2, true)).toHaveLength(5);
    expect(await pagesEqualWhole('/v1/receiving-orders', 2, true)).toHaveLength(5);
  });

  it('routes by name, the hops of a route and the default hops by position', async () => {
    for (let i = 0; i < 6; i++) {
      await created('/v1/api/routes', { name: `LR-${n2(i)}`, sourceLocationName: coordinate(i), targetLocationName: coordinate(i + 1), enabled: false });
    }
    expect(await pagesEqualWhole('/v1/api/routes', 4, true)).toHaveLength(6);
    const hops = [0, 1, 2, 3].map((i) => ({ source: coordinate(i), next: coordinate(i + 1) }));
    const key = (await wms.get('/v1/api/routes')).body[0].key;
    expect((await wms.put(`/v1/api/routes/${key}/hops`, hops)).status).toBe(200);
    expect(await pagesEqualWhole(`/v1/api/routes/${key}/hops`, 3, false)).toHaveLength(4);
    expect((await wms.put('/v1/api/default-hops', hops)).status).toBe(200);
    expect(await pagesEqualWhole('/v1/api/default-hops', 3, false)).toHaveLength(4);
  });

  it('preferences in the order of scope, owner and key', async () => {
    for (let i = 0; i < 7; i++) {
      await created('/v1/preferences', {
        '@class': 'org.vendor.core.preferences.api.ApplicationPreferenceVO',
        key: `list.${n2(i)}`,
        value: String(i),
        groupName: 'LIST',
      });
      await created('/v1/preferences', {
        '@class': 'org.vendor.core.preferences.api.RolePreferenceVO',
        owner: 'ADMIN',
        key: `list.${n2(i)}`,
        value: String(i),
      });
    }
    expect(await pagesEqualWhole('/v1/preferences', 3, true)).toHaveLength(14);
    expect(await pagesEqualWhole('/v1/preferences?scope=APPLICATION', 3, true)).toHaveLength(7);
    expect(await pagesEqualWhole('/v1/preferences?role=ADMIN', 3, true)).toHaveLength(7);
    expect(await pagesEqualWhole('/preferences/groups?scope=APPLICATION&name=LIST', 3, true)).toHaveLength(7);
  });

  it('tasks: 204 while there is none (a page: []), then oldest first', async () => {
    expect((await wms.get('/tasks')).status).toBe(204);
    const emptyPage = await wms.get('/tasks?limit=5');
    expect(emptyPage.status).toBe(200);
    expect(emptyPage.body).toEqual([]);
    for (let i = 0; i < 7; i++) await created('/tasks', { type: 'MANUAL', description: `count ${i}` });
    const tasks = await pagesEqualWhole('/tasks', 3, true);
    expect(tasks.map((t) => t.description)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `count ${i}`));
  });

  it('small by nature, read at once: users, roles, grants, API keys, accounts, types, backups', async () => {
    for (let i = 0; i < 4; i++) await created('/users', { links: [], username: `list-user-${i}`, roleNames: ['ADMIN'] });
    await created('/api-keys', { name: 'list-key-1', roleName: 'ADMIN' });
    await created('/api-keys', { name: 'list-key-2', roleName: 'ADMIN' });
    const users = await pagesEqualWhole('/users', 2, false);
    expect(await pagesEqualWhole(`/users/${users[0].pKey}/roles`, 1, false)).toHaveLength(1);
    expect((await pagesEqualWhole(`/users/${users[0].pKey}/grants`, 10, false)).length).toBeGreaterThan(10);
    await pagesEqualWhole('/roles', 1, false);
    await pagesEqualWhole('/grants', 10, false);
    expect(await pagesEqualWhole('/api-keys', 1, false)).toHaveLength(2);
    expect(await pagesEqualWhole('/v1/accounts', 1, false)).toHaveLength(1);
    await pagesEqualWhole('/v1/location-types', 2, false);
    await pagesEqualWhole('/v1/transport-unit-types', 2, false);
    await created('/v1/backups');
    await created('/v1/backups');
    expect((await pagesEqualWhole('/v1/backups', 1, false)).length).toBeGreaterThanOrEqual(2);
  });
});
