import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/core/errors.ts';
import { expectApiError, expectServerError, unique, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { apiError, serverError } from './support/expect.ts';
import {
  createProducts,
  divided,
  doz,
  enc,
  inventoryAppliance,
  inventoryRefusal,
  kg,
  newProduct,
  newPU,
  pc,
  PIECE_UNIT,
  relsOf,
  WEIGHT_UNIT,
} from './support/inventory.ts';

// Products of the inventory module (docs/inventory.md, endpoints "Products"; the
// entry index's inventory links): creating them one or many at a time, the lookups by
// SKU, pKey and unit, replacing them, the grant that reads them, and the lookup by SKU
// the service offers other modules. Every refused request is shown to change nothing:
// products, load units, packaging units and transport units read the same after it.

const PRODUCT_TYPE = 'application/vnd.vendor.inventory.product-v1+json';

let wms: TestAppliance;
const events: RecordedEvent[] = [];
beforeAll(async () => {
  wms = await inventoryAppliance(events);
});
afterAll(() => wms.close());

const refusedWithoutChange = inventoryRefusal(() => wms, events);

// ---- indexes ----------------------------------------------------------------

describe('indexes', () => {
  it('the entry index links the three inventory indexes', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['product-index'].href).toBe(`${wms.url}/v1/products/index`);
    expect(reply.body._links['load-unit-index'].href).toBe(`${wms.url}/v1/load-units/index`);
    expect(reply.body._links['packaging-unit-index'].href).toBe(`${wms.url}/v1/packaging-units/index`);
    for (const name of ['product-index', 'load-unit-index', 'packaging-unit-index']) {
      expect((await wms.get(new URL(reply.body._links[name].href).pathname)).status, name).toBe(200);
    }
  });

  it('GET /v1/products/index has exactly the six link names of the spec', async () => {
    const reply = await wms.get('/v1/products/index');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(relsOf(reply)).toEqual(
      ['products-create', 'products-findall', 'products-findbysku', 'products-findbyskuanduom', 'products-findbyspkey', 'products-update'].sort(),
    );
    const href = (name: string) => reply.body._links[name].href as string;
    expect(href('products-findall')).toBe(`${wms.url}/v1/products`);
    expect(href('products-findbysku')).toBe(`${wms.url}/v1/products?sku={sku}`);
    expect(href('products-findbyspkey')).toBe(`${wms.url}/v1/products/{pKey}`);
    expect(href('products-findbyskuanduom')).toBe(`${wms.url}/v1/products?sku={sku}&uom={uom}`);
  });

  it('answers the indexes as XML when asked', async () => {
    const reply = await wms.get('/v1/products/index', { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('rel="products-findbyspkey"');
  });
});

// ---- products ---------------------------------------------------------------

describe('POST /v1/products', () => {
  it('creates one product sent as an array: 201, Location, the created products with the defaults', async () => {
    const sku = unique(wms, 'SKU');
    const reply = await wms.post('/v1/products', [{ links: [], sku, baseUnit: pc(1) }]);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toHaveLength(1);
    const p = reply.body[0];
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/products/${p.pKey}/`);
    expect(p).toMatchObject({
      sku,
      accountId: 'D',
      baseUnit: pc(1),
      overbookingAllowed: false,
      availabilityState: 'AVAILABLE',
      ol: 0,
      units: [],
      stackingRules: [],
      details: {},
    });
    expect(p.createDt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(p.links).toEqual([{ rel: 'products-findbyspkey', href: `${wms.url}/v1/products/${p.pKey}` }]);
    const read = await wms.get(new URL(reply.headers.get('location')!).pathname);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(p);
    expect(events.some((e) => e.type === 'product.created' && e.data.sku === sku)).toBe(true);
  });

  it('creates one product sent as a single object, with Location', async () => {
    const sku = unique(wms, 'SKU');
    const reply = await wms.post('/v1/products', { sku, baseUnit: kg(1) });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/products/${reply.body[0].pKey}/`);
  });

  it('creates several products at once: 201 without Location', async () => {
    const skus = [unique(wms, 'SKU'), unique(wms, 'SKU'), unique(wms, 'SKU')];
    const reply = await wms.post(
      '/v1/products',
      skus.map((sku) => ({ sku, baseUnit: pc(1) })),
    );
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('location')).toBeNull();
    expect(reply.body.map((p: any) => p.sku)).toEqual(skus);
    for (const sku of skus) expect((await wms.get(`/v1/products?sku=${sku}`)).status).toBe(200);
  });

  it('keeps every field of the spec: units, dimension, stacking rules, details', async () => {
    const sku = unique(wms, 'SKU');
    const body = {
      sku,
      label: 'LBL-4711',
      accountId: 'D',
      baseUnit: pc(1),
      overbookingAllowed: true,
      description: 'Screws M6',
      availabilityState: 'QC_LOCKED',
      classification: 'A',
      group: 'FASTENERS',
      stockZone: 'ZONE-1',
      units: [
        {
          label: 'box',
          quantity: doz(2),
          dimension: { length: 30, width: 20, height: 10, uom: 'CM' },
          details: { piecesPerLayer: '4', numbersOfLayers: 3, carrierType: 'EURO' },
        },
        { quantity: { amount: 100, unit: 'PC' } },
      ],
      dimension: { length: 60, width: 10, height: 10, uom: 'MM' },
      stackingRules: [{ noProducts: 2, allowedProduct: { sku: 'OTHER-SKU' } }],
      details: { colour: 'blue', material: 'steel' },
    };
    const [p] = await createProducts(wms, [body]);
    expect(p).toMatchObject({
      sku,
      label: 'LBL-4711',
      accountId: 'D',
      baseUnit: pc(1),
      overbookingAllowed: true,
      description: 'Screws M6',
      availabilityState: 'QC_LOCKED',
      classification: 'A',
      group: 'FASTENERS',
      stockZone: 'ZONE-1',
      dimension: { length: 60, width: 10, height: 10, uom: 'MM' },
      stackingRules: [{ noProducts: 2, allowedProduct: { sku: 'OTHER-SKU' } }],
      details: { colour: 'blue', material: 'steel' },
    });
    expect(p.units).toHaveLength(2);
    expect(p.units[0]).toMatchObject({
      label: 'box',
      quantity: doz(2),
      dimension: { length: 30, width: 20, height: 10, uom: 'CM' },
      details: { piecesPerLayer: '4', numbersOfLayers: '3', carrierType: 'EURO' },
    });
    // The earlier form (amount, unit) is read and written in the current form.
    expect(p.units[1]).toMatchObject({ quantity: pc(100), details: {} });
    expect(typeof p.units[0].pKey).toBe('string');
    expect(p.units[0].pKey).not.toBe(p.units[1].pKey);
    expect((await wms.get(`/v1/products/${p.pKey}`)).body).toEqual(p);
  });

  it('answers with the vendor media type when asked for it', async () => {
    const reply = await wms.post('/v1/products', [{ sku: unique(wms, 'SKU'), baseUnit: pc(1) }], {
      headers: { Accept: PRODUCT_TYPE, 'Content-Type': PRODUCT_TYPE },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(new RegExp(`^${PRODUCT_TYPE.replace(/[.+]/g, '\\$&')}`));
  });

  describe('refuses, creating none of the batch', () => {
    const valid = () => ({ sku: unique(wms, 'SKU'), baseUnit: pc(1) });
    it.each([
      ['a product without sku', () => [valid(), { baseUnit: pc(1) }], ['[1].sku']],
      ['a product without baseUnit', () => [{ sku: unique(wms, 'SKU') }], ['[0].baseUnit']],
      ['an empty sku', () => [{ sku: '  ', baseUnit: pc(1) }], ['[0].sku']],
      ['a negative magnitude', () => [{ sku: unique(wms, 'SKU'), baseUnit: pc(-1) }], ['[0].baseUnit', 'negative']],
      ['a base unit of nothing', () => [{ sku: unique(wms, 'SKU'), baseUnit: pc(0) }], ['[0].baseUnit', 'greater than 0']],
      ['an unknown unit', () => [{ sku: unique(wms, 'SKU'), baseUnit: { unitType: [PIECE_UNIT, 'BOX'], magnitude: 1 } }], ['[0].baseUnit', 'unknown unit']],
      ['a unit class of another family', () => [{ sku: unique(wms, 'SKU'), baseUnit: { unitType: [WEIGHT_UNIT, 'PC'], magnitude: 1 } }], ['[0].baseUnit']],
      ['half a piece', () => [{ sku: unique(wms, 'SKU'), baseUnit: pc(0.5) }], ['[0].baseUnit', 'whole number']],
      ['a magnitude that is text', () => [{ sku: unique(wms, 'SKU'), baseUnit: { unitType: [PIECE_UNIT, 'PC'], magnitude: '1' } }], ['[0].baseUnit']],
      [
        'a unit of another family than the base unit',
        () => [valid(), { sku: unique(wms, 'SKU'), baseUnit: pc(1), units: [{ quantity: kg(1) }] }],
        ['[1].units[0].quantity'],
      ],
      ['an unknown availabilityState', () => [{ ...valid(), availabilityState: 'BROKEN' }], ['[0].availabilityState']],
      ['a detail that is not text', () => [{ ...valid(), details: { weight: 12 } }], ['[0].details.weight']],
      ['a negative dimension', () => [{ ...valid(), dimension: { length: -1 } }], ['[0].dimension.length']],
      ['a stacking rule without product', () => [{ ...valid(), stackingRules: [{ noProducts: 1 }] }], ['[0].stackingRules[0].allowedProduct']],
      ['an empty array', () => [], ['at least one product']],
      ['an array of texts', () => ['SKU-1'], ['[0]']],
      ['several failing fields at once', () => [{ baseUnit: pc(-2) }, { sku: unique(wms, 'SKU') }], ['[0].sku', '[0].baseUnit', '[1].baseUnit']],
    ])('%s: 400 core.validation.error naming the fields', async (_why, body, fields) => {
      const reply = await refusedWithoutChange(() => wms.post('/v1/products', body()), apiError(400, 'core.validation.error'));
      for (const field of fields) expect(reply.body.message).toContain(field);
    });

    it('a single object without sku names the field without index', async () => {
      const reply = await refusedWithoutChange(() => wms.post('/v1/products', { baseUnit: pc(1) }), apiError(400, 'core.validation.error'));
      expect(reply.body.message).toMatch(/sku/);
      expect(reply.body.message).not.toContain('[0]');
    });

    it('no body: 400 core.validation.error', async () => {
      await refusedWithoutChange(() => wms.request('POST', '/v1/products'), apiError(400, 'core.validation.error'));
    });

    it('malformed JSON: 400 server-declined', async () => {
      await refusedWithoutChange(
        () => wms.request('POST', '/v1/products', { headers: { 'Content-Type': 'application/json' }, raw: '[{"sku": "X",' }),
        serverError(400),
      );
    });

    it('a body that is not JSON: 415 server-declined', async () => {
      await refusedWithoutChange(() => wms.request('POST', '/v1/products', { headers: { 'Content-Type': 'text/plain' }, raw: 'sku=X' }), serverError(415));
    });

    it('a SKU that exists: 409 already.exists', async () => {
      const existing = await newProduct(wms);
      const reply = await refusedWithoutChange(
        () => wms.post('/v1/products', [valid(), { sku: existing.sku, baseUnit: pc(1) }]),
        apiError(409, 'already.exists'),
      );
      expect(reply.body.obj).toEqual([existing.sku]);
    });

    it('a SKU sent twice in the batch: 409 already.exists', async () => {
      const sku = unique(wms, 'SKU');
      await refusedWithoutChange(
        () =>
          wms.post('/v1/products', [
            { sku, baseUnit: pc(1) },
            { sku, baseUnit: kg(1) },
          ]),
        apiError(409, 'already.exists'),
      );
    });

    it('an unknown account: 404 svc.common.common.account.notFound', async () => {
      await refusedWithoutChange(
        () => wms.post('/v1/products', [valid(), { ...valid(), accountId: 'NOPE' }]),
        apiError(404, 'svc.common.common.account.notFound'),
      );
    });
  });
});

describe('product lookups', () => {
  let product: any;
  beforeAll(async () => {
    product = await newProduct(wms, { baseUnit: kg(2.5) });
  });

  it('GET /v1/products lists every product by SKU', async () => {
    const reply = await wms.get('/v1/products');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    const skus = (reply.body as any[]).map((p) => p.sku);
    expect(skus).toContain(product.sku);
    expect([...skus].sort()).toEqual(skus);
  });

  it('GET /v1/products?sku= finds the product', async () => {
    const reply = await wms.get(`/v1/products?sku=${enc(product.sku)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(product);
  });

  it('GET /v1/products?sku= of an unknown SKU: 404 not.found', async () => {
    const reply = await wms.get('/v1/products?sku=NO-SUCH-SKU');
    expectApiError(reply, 404, 'not.found');
    expect(reply.body.message).toContain('NO-SUCH-SKU');
  });

  it('GET /v1/products/{pKey}: 200, unknown → 404 not.found', async () => {
    expect((await wms.get(`/v1/products/${product.pKey}`)).body).toEqual(product);
    expectApiError(await wms.get('/v1/products/nope'), 404, 'not.found');
  });

  it('GET /v1/products?sku=&uom= finds the product kept in that unit', async () => {
    const reply = await wms.get(`/v1/products?sku=${enc(product.sku)}&uom=KG`);
    expect(reply.status).toBe(200);
    expect(reply.body.pKey).toBe(product.pKey);
    expect(reply.body.baseUnit).toEqual(kg(2.5));
  });

  it('GET /v1/products?sku=&uom= of another unit: 404 not.found; of an unknown unit: 400', async () => {
    expectApiError(await wms.get(`/v1/products?sku=${enc(product.sku)}&uom=G`), 404, 'not.found');
    expectApiError(await wms.get(`/v1/products?sku=NO-SUCH&uom=KG`), 404, 'not.found');
    expectApiError(await wms.get(`/v1/products?sku=${enc(product.sku)}&uom=BARREL`), 400, 'core.validation.error');
  });
});

describe('PUT /v1/products', () => {
  it('replaces the product: 200, ol + 1, units keep their pKeys when sent back', async () => {
    const p = await newProduct(wms, { units: [{ label: 'box', quantity: doz(1) }], description: 'old', availabilityState: 'LOCKED' });
    const reply = await wms.put('/v1/products', { ...p, label: 'new label', description: 'new', units: [...p.units, { quantity: pc(6) }] });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ pKey: p.pKey, ol: 1, label: 'new label', description: 'new', availabilityState: 'LOCKED' });
    expect(reply.body.units[0].pKey).toBe(p.units[0].pKey);
    expect(reply.body.units).toHaveLength(2);
    expect((await wms.get(`/v1/products/${p.pKey}`)).body).toEqual(reply.body);
    expect(events.some((e) => e.type === 'product.changed' && e.data.pKey === p.pKey)).toBe(true);
  });

  it('clears descriptive fields not sent, keeps account, availability and overbooking', async () => {
    const p = await newProduct(wms, { label: 'L', description: 'D', availabilityState: 'QC_LOCKED', overbookingAllowed: true, details: { a: 'b' } });
    const reply = await wms.put('/v1/products', { pKey: p.pKey, sku: p.sku, baseUnit: p.baseUnit });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.label).toBeUndefined();
    expect(reply.body.description).toBeUndefined();
    expect(reply.body.details).toEqual({});
    expect(reply.body).toMatchObject({ availabilityState: 'QC_LOCKED', overbookingAllowed: true, accountId: 'D' });
  });

  it('changes the SKU and the base unit while no stock exists', async () => {
    const p = await newProduct(wms);
    const sku = unique(wms, 'SKU');
    const reply = await wms.put('/v1/products', { ...p, sku, baseUnit: kg(1) });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ sku, baseUnit: kg(1) });
    expectApiError(await wms.get(`/v1/products?sku=${p.sku}`), 404, 'not.found');
  });

  it('writes nothing when nothing changes (ol stays)', async () => {
    const p = await newProduct(wms, { units: [{ quantity: pc(10) }], details: { x: 'y' } });
    const reply = await wms.put('/v1/products', p);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual(p);
  });

  it.each([
    ['without pKey', (p: any) => ({ ...p, pKey: undefined }), 400, 'svc.wms.inv.product.pKey'],
    ['with an empty pKey', (p: any) => ({ ...p, pKey: '' }), 400, 'svc.wms.inv.product.pKey'],
    ['without sku', (p: any) => ({ ...p, sku: undefined }), 400, 'svc.wms.inv.product.sku'],
    ['without baseUnit', (p: any) => ({ ...p, baseUnit: undefined }), 400, 'svc.wms.inv.product.baseUnit'],
    ['with a null baseUnit', (p: any) => ({ ...p, baseUnit: null }), 400, 'svc.wms.inv.product.baseUnit'],
    ['with a stale ol', (p: any) => ({ ...p, ol: p.ol + 5, label: 'x' }), 409, 'core.optimistic.lock'],
    ['of an unknown pKey', (p: any) => ({ ...p, pKey: 'no-such-product' }), 404, 'not.found'],
    ['with an invalid base unit', (p: any) => ({ ...p, baseUnit: pc(-3) }), 400, 'core.validation.error'],
    ['with a unit pKey of another product', (p: any) => ({ ...p, units: [{ pKey: 'foreign', quantity: pc(1) }] }), 400, 'core.validation.error'],
    ['as an array', (p: any) => [p], 400, 'core.validation.error'],
  ])('refuses an update %s, changing nothing', async (_why, change, status, key) => {
    const p = await newProduct(wms, { label: 'before' });
    await refusedWithoutChange(() => wms.put('/v1/products', change(p)), apiError(status, key));
  });

  it('refuses a SKU another product has: 409 already.exists', async () => {
    const [a, b] = [await newProduct(wms), await newProduct(wms)];
    await refusedWithoutChange(() => wms.put('/v1/products', { ...a, sku: b.sku }), apiError(409, 'already.exists'));
  });

  it('refuses a base unit of another family while stock exists: 409 svc.wms.inv.product.baseUnitInUse', async () => {
    const p = await newProduct(wms);
    const bk = await divided(wms, 1);
    await newPU(wms, bk, '1', p.sku, pc(3));
    await refusedWithoutChange(() => wms.put('/v1/products', { ...p, baseUnit: kg(1) }), apiError(409, 'svc.wms.inv.product.baseUnitInUse'));
    // Another unit of the same family is fine.
    const reply = await wms.put('/v1/products', { ...p, baseUnit: doz(1) });
    expect(reply.status, reply.text).toBe(200);
  });

  it('malformed JSON: 400 server-declined', async () => {
    await refusedWithoutChange(
      () => wms.request('PUT', '/v1/products', { headers: { 'Content-Type': 'application/json' }, raw: '{"pKey":' }),
      serverError(400),
    );
  });
});

describe('grants', () => {
  it('a caller holding products:read only reads products and cannot create them (403)', async () => {
    const role = await wms.post('/roles', { name: 'INV_READER', grants: ['products:read'] });
    expect(role.status, role.text).toBe(201);
    const key = await wms.post('/api-keys', { name: 'inv-reader', roleName: 'INV_READER' });
    expect(key.status, key.text).toBe(201);
    const token = key.body.key as string;
    expect((await wms.get('/v1/products', { token })).status).toBe(200);
    await refusedWithoutChange(() => wms.post('/v1/products', [{ sku: unique(wms, 'SKU'), baseUnit: pc(1) }], { token }), serverError(403));
    expectServerError(await wms.get('/v1/load-units', { token }), 403);
    expectServerError(await wms.get('/v1/packaging-units', { token }), 403);
  });
});

// ---- the service API other modules use ---------------------------------------

describe('service API (receiving, shipping)', () => {
  it('products.bySku throws 404, findBySku answers undefined', async () => {
    const { products } = wms.app.module('inventory');
    const p = await newProduct(wms);
    expect(products.bySku(p.sku).pk).toBe(p.pKey);
    expect(products.findBySku(p.sku)?.baseUnit).toEqual({ family: 'Piece', unit: 'PC', base: 1 });
    expect(products.findBySku('NO-SUCH-SKU')).toBeUndefined();
    let caught: unknown;
    try {
      products.bySku('NO-SUCH-SKU');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect(caught).toMatchObject({ status: 404, messageKey: 'svc.wms.inv.product.notFoundBySku' });
  });
});
