import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/core/errors.ts';
import { expectApiError, expectServerError, startTestAppliance, type Reply, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { apiError, recordEvents, refusal, serverError } from './support/expect.ts';

// Inventory module (docs/inventory.md, endpoints
// "Products", "Load units", "Packaging units" and the inventory keys; decisions in
// docs/inventory.md). Every refused request is shown to change nothing: products, load
// units, packaging units and transport units read the same after it.

const PIECE = 'org.vendor.core.units.api.Piece';
const PIECE_UNIT = 'org.vendor.core.units.api.PieceUnit';
const WEIGHT = 'org.vendor.core.units.api.Weight';
const WEIGHT_UNIT = 'org.vendor.core.units.api.WeightUnit';
const PRODUCT_TYPE = 'application/vnd.vendor.inventory.product-v1+json';
const LOAD_UNIT_TYPE = 'application/vnd.vendor.inventory.load-unit-v1+json';
const PACKAGING_UNIT_TYPE = 'application/vnd.vendor.inventory.packaging-unit-v1+json';
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

const pc = (magnitude: number) => ({ '@class': PIECE, unitType: [PIECE_UNIT, 'PC'], magnitude });
const doz = (magnitude: number) => ({ '@class': PIECE, unitType: [PIECE_UNIT, 'DOZ'], magnitude });
const kg = (magnitude: number) => ({ '@class': WEIGHT, unitType: [WEIGHT_UNIT, 'KG'], magnitude });
const g = (magnitude: number) => ({ '@class': WEIGHT, unitType: [WEIGHT_UNIT, 'G'], magnitude });
const enc = encodeURIComponent;

// Locations: STOCK (group INV-STOCK) ⊃ INV-AISLE (group below it); DOCK elsewhere.
const LOC_AISLE = 'INV/0001/0001/0001/0001';
const LOC_STOCK = 'INV/0001/0002/0001/0001';
const LOC_DOCK = 'INV/0009/0001/0001/0001';
const LOC_PICK = 'INV/0002/0001/0001/0001';
const LOC_EMPTY = 'INV/0003/0001/0001/0001';
const ERP_DOCK = 'ERP-DOCK';

let wms: TestAppliance;
const events: RecordedEvent[] = [];

beforeAll(async () => {
  wms = await startTestAppliance();
  recordEvents(wms, events);
  for (const [name, parentName] of [
    ['INV-STOCK', 'WAREHOUSE'],
    ['INV-AISLE', 'INV-STOCK'],
    ['INV-OTHER', 'WAREHOUSE'],
  ]) {
    const reply = await wms.post('/v1/location-groups', { name, parentName });
    expect(reply.status, reply.text).toBe(201);
  }
  for (const [locationId, locationGroupName, erpCode] of [
    [LOC_AISLE, 'INV-AISLE', 'ERP-AISLE'],
    [LOC_STOCK, 'INV-STOCK', 'ERP-STOCK'],
    [LOC_DOCK, 'INV-OTHER', ERP_DOCK],
    [LOC_PICK, 'INV-OTHER', 'ERP-PICK'],
    [LOC_EMPTY, 'INV-OTHER', 'ERP-EMPTY'],
  ]) {
    const reply = await wms.post('/v1/locations', { locationId, locationGroupName, erpCode });
    expect(reply.status, reply.text).toBe(201);
  }
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

let counter = 0;
const unique = (prefix: string) => `${prefix}-${String(++counter).padStart(4, '0')}`;

async function createProducts(body: unknown, on: TestAppliance = wms): Promise<any[]> {
  const reply = await on.post('/v1/products', body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function newProduct(fields: Record<string, unknown> = {}, on: TestAppliance = wms): Promise<any> {
  const [product] = await createProducts([{ sku: unique('SKU'), baseUnit: pc(1), ...fields }], on);
  return product;
}

async function newTransportUnit(actualLocation = LOC_DOCK, on: TestAppliance = wms, transportUnitType = 'EURO'): Promise<string> {
  const barcode = unique('TU');
  const reply = await on.post('/v1/transport-units', { barcode, actualLocation, transportUnitType });
  expect(reply.status, reply.text).toBe(201);
  return barcode;
}

const divide = (fields: Record<string, string>, on: TestAppliance = wms) =>
  on.request('POST', '/v1/transport-unit', { headers: FORM, raw: new URLSearchParams(fields).toString() });

async function divided(parts = 2, on: TestAppliance = wms, location = LOC_DOCK): Promise<string> {
  const bk = await newTransportUnit(location, on);
  const reply = await divide({ transportUnitBK: bk, loadUnitType: 'EURO-HALF', parts: String(parts) }, on);
  expect(reply.status, reply.text).toBe(201);
  return bk;
}

async function loadUnitsOf(bk: string, on: TestAppliance = wms): Promise<any[]> {
  const reply = await on.get(`/v1/transport-units/${enc(bk)}/load-units`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const putPU = (bk: string, luPos: string, body: unknown, loadUnitType?: string, on: TestAppliance = wms) =>
  on.post(
    `/v1/transport-units/${enc(bk)}/load-units/${enc(luPos)}/packaging-units${loadUnitType === undefined ? '' : `?loadUnitType=${enc(loadUnitType)}`}`,
    body,
  );

async function newPU(
  bk: string,
  luPos: string,
  sku: string,
  quantity: unknown,
  extra: Record<string, unknown> = {},
  loadUnitType?: string,
  on = wms,
): Promise<any> {
  const reply = await putPU(bk, luPos, { product: { sku }, quantity, ...extra }, loadUnitType, on);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function listOf(path: string, on: TestAppliance = wms): Promise<any[]> {
  const reply = await on.get(path);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Everything the inventory and the transport units show. */
async function state(on: TestAppliance = wms) {
  return {
    products: await listOf('/v1/products', on),
    loadUnits: await listOf('/v1/load-units', on),
    packagingUnits: await listOf('/v1/packaging-units', on),
    transportUnits: await listOf('/v1/transport-units', on),
  };
}

/** Runs a request that must be refused, and proves that nothing changed (a user's login may be recorded meanwhile); `on` another appliance. */
const refusedWithoutChange = refusal({ state, events, ignore: (e) => e.type.startsWith('user.') });

const relsOf = (reply: Reply) => Object.keys(reply.body._links as Record<string, unknown>).sort();

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

  it('GET /v1/load-units/index names lu-divide and lu-put-product (and the lookups)', async () => {
    const reply = await wms.get('/v1/load-units/index');
    expect(reply.status).toBe(200);
    expect(relsOf(reply)).toEqual(['lu-divide', 'lu-findall', 'lu-findbypkey', 'lu-findontu', 'lu-put-product']);
    expect(reply.body._links['lu-divide'].href).toBe(`${wms.url}/v1/transport-unit`);
    expect(reply.body._links['lu-put-product'].href).toBe(`${wms.url}/v1/load-units/{pKey}`);
  });

  it('GET /v1/packaging-units/index names the four links of the spec (and ours)', async () => {
    const reply = await wms.get('/v1/packaging-units/index');
    expect(reply.status).toBe(200);
    expect(relsOf(reply)).toEqual([
      'packaging-units-create',
      'packaging-units-findall',
      'packaging-units-findbypkey',
      'packaging-units-findforproduct',
      'packaging-units-findforproductinlg',
      'packaging-units-findontu',
      'packaging-units-move',
    ]);
    const href = (name: string) => reply.body._links[name].href as string;
    expect(href('packaging-units-findforproduct')).toBe(`${wms.url}/v1/packaging-units?sku=&amount=&sort=`);
    expect(href('packaging-units-create')).toBe(
      `${wms.url}/v1/transport-units/{transportUnitBK}/load-units/{luPos}/packaging-units?loadUnitType={loadUnitType}`,
    );
    expect(href('packaging-units-findontu')).toBe(`${wms.url}/v1/transport-units/{transportUnitBK}/load-units/packaging-units`);
    expect(href('packaging-units-findforproductinlg')).toBe(`${wms.url}/v1/packaging-units?productPKey={productPKey}&locationGroupName={locationGroupName}`);
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
    const sku = unique('SKU');
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
    const sku = unique('SKU');
    const reply = await wms.post('/v1/products', { sku, baseUnit: kg(1) });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/products/${reply.body[0].pKey}/`);
  });

  it('creates several products at once: 201 without Location', async () => {
    const skus = [unique('SKU'), unique('SKU'), unique('SKU')];
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
    const sku = unique('SKU');
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
    const [p] = await createProducts([body]);
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
    const reply = await wms.post('/v1/products', [{ sku: unique('SKU'), baseUnit: pc(1) }], {
      headers: { Accept: PRODUCT_TYPE, 'Content-Type': PRODUCT_TYPE },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(new RegExp(`^${PRODUCT_TYPE.replace(/[.+]/g, '\\$&')}`));
  });

  describe('refuses, creating none of the batch', () => {
    const valid = () => ({ sku: unique('SKU'), baseUnit: pc(1) });
    it.each([
      ['a product without sku', () => [valid(), { baseUnit: pc(1) }], ['[1].sku']],
      ['a product without baseUnit', () => [{ sku: unique('SKU') }], ['[0].baseUnit']],
      ['an empty sku', () => [{ sku: '  ', baseUnit: pc(1) }], ['[0].sku']],
      ['a negative magnitude', () => [{ sku: unique('SKU'), baseUnit: pc(-1) }], ['[0].baseUnit', 'negative']],
      ['a base unit of nothing', () => [{ sku: unique('SKU'), baseUnit: pc(0) }], ['[0].baseUnit', 'greater than 0']],
      ['an unknown unit', () => [{ sku: unique('SKU'), baseUnit: { unitType: [PIECE_UNIT, 'BOX'], magnitude: 1 } }], ['[0].baseUnit', 'unknown unit']],
      ['a unit class of another family', () => [{ sku: unique('SKU'), baseUnit: { unitType: [WEIGHT_UNIT, 'PC'], magnitude: 1 } }], ['[0].baseUnit']],
      ['half a piece', () => [{ sku: unique('SKU'), baseUnit: pc(0.5) }], ['[0].baseUnit', 'whole number']],
      ['a magnitude that is text', () => [{ sku: unique('SKU'), baseUnit: { unitType: [PIECE_UNIT, 'PC'], magnitude: '1' } }], ['[0].baseUnit']],
      [
        'a unit of another family than the base unit',
        () => [valid(), { sku: unique('SKU'), baseUnit: pc(1), units: [{ quantity: kg(1) }] }],
        ['[1].units[0].quantity'],
      ],
      ['an unknown availabilityState', () => [{ ...valid(), availabilityState: 'BROKEN' }], ['[0].availabilityState']],
      ['a detail that is not text', () => [{ ...valid(), details: { weight: 12 } }], ['[0].details.weight']],
      ['a negative dimension', () => [{ ...valid(), dimension: { length: -1 } }], ['[0].dimension.length']],
      ['a stacking rule without product', () => [{ ...valid(), stackingRules: [{ noProducts: 1 }] }], ['[0].stackingRules[0].allowedProduct']],
      ['an empty array', () => [], ['at least one product']],
      ['an array of texts', () => ['SKU-1'], ['[0]']],
      ['several failing fields at once', () => [{ baseUnit: pc(-2) }, { sku: unique('SKU') }], ['[0].sku', '[0].baseUnit', '[1].baseUnit']],
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
      const existing = await newProduct();
      const reply = await refusedWithoutChange(
        () => wms.post('/v1/products', [valid(), { sku: existing.sku, baseUnit: pc(1) }]),
        apiError(409, 'already.exists'),
      );
      expect(reply.body.obj).toEqual([existing.sku]);
    });

    it('a SKU sent twice in the batch: 409 already.exists', async () => {
      const sku = unique('SKU');
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
    product = await newProduct({ baseUnit: kg(2.5) });
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
    const p = await newProduct({ units: [{ label: 'box', quantity: doz(1) }], description: 'old', availabilityState: 'LOCKED' });
    const reply = await wms.put('/v1/products', { ...p, label: 'new label', description: 'new', units: [...p.units, { quantity: pc(6) }] });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ pKey: p.pKey, ol: 1, label: 'new label', description: 'new', availabilityState: 'LOCKED' });
    expect(reply.body.units[0].pKey).toBe(p.units[0].pKey);
    expect(reply.body.units).toHaveLength(2);
    expect((await wms.get(`/v1/products/${p.pKey}`)).body).toEqual(reply.body);
    expect(events.some((e) => e.type === 'product.changed' && e.data.pKey === p.pKey)).toBe(true);
  });

  it('clears descriptive fields not sent, keeps account, availability and overbooking', async () => {
    const p = await newProduct({ label: 'L', description: 'D', availabilityState: 'QC_LOCKED', overbookingAllowed: true, details: { a: 'b' } });
    const reply = await wms.put('/v1/products', { pKey: p.pKey, sku: p.sku, baseUnit: p.baseUnit });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.label).toBeUndefined();
    expect(reply.body.description).toBeUndefined();
    expect(reply.body.details).toEqual({});
    expect(reply.body).toMatchObject({ availabilityState: 'QC_LOCKED', overbookingAllowed: true, accountId: 'D' });
  });

  it('changes the SKU and the base unit while no stock exists', async () => {
    const p = await newProduct();
    const sku = unique('SKU');
    const reply = await wms.put('/v1/products', { ...p, sku, baseUnit: kg(1) });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ sku, baseUnit: kg(1) });
    expectApiError(await wms.get(`/v1/products?sku=${p.sku}`), 404, 'not.found');
  });

  it('writes nothing when nothing changes (ol stays)', async () => {
    const p = await newProduct({ units: [{ quantity: pc(10) }], details: { x: 'y' } });
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
    const p = await newProduct({ label: 'before' });
    await refusedWithoutChange(() => wms.put('/v1/products', change(p)), apiError(status, key));
  });

  it('refuses a SKU another product has: 409 already.exists', async () => {
    const [a, b] = [await newProduct(), await newProduct()];
    await refusedWithoutChange(() => wms.put('/v1/products', { ...a, sku: b.sku }), apiError(409, 'already.exists'));
  });

  it('refuses a base unit of another family while stock exists: 409 svc.wms.inv.product.baseUnitInUse', async () => {
    const p = await newProduct();
    const bk = await divided(1);
    await newPU(bk, '1', p.sku, pc(3));
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
    await refusedWithoutChange(() => wms.post('/v1/products', [{ sku: unique('SKU'), baseUnit: pc(1) }], { token }), serverError(403));
    expectServerError(await wms.get('/v1/load-units', { token }), 403);
    expectServerError(await wms.get('/v1/packaging-units', { token }), 403);
  });
});

// ---- load units ------------------------------------------------------------

describe('POST /v1/transport-unit (divide)', () => {
  it('divides a transport unit into parts: 201 without body, Location of its load units', async () => {
    const bk = await newTransportUnit();
    const reply = await divide({ transportUnitBK: bk, loadUnitType: 'EURO-THIRD', parts: '3' });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.text).toBe('');
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/transport-units/${bk}/load-units`);
    const lus = await listOf(new URL(reply.headers.get('location')!).pathname);
    expect(lus.map((lu) => lu.physicalPosition)).toEqual(['1', '2', '3']);
    for (const lu of lus) {
      expect(lu).toMatchObject({ transportUnitBK: bk, type: 'EURO-THIRD', locked: false, ol: 0, packagingUnits: [] });
      // A Euro pallet (1200 x 800 x 1800 mm) in three parts side by side.
      expect(lu).toMatchObject({ length: 400, width: 800, height: 1800 });
      expect(lu.product).toBeUndefined();
    }
    expect(events.some((e) => e.type === 'transportUnit.divided' && e.data.barcode === bk)).toBe(true);
  });

  it('creates an unknown transport unit first when type and location (ERP code) are given', async () => {
    const bk = unique('NEWTU');
    const reply = await divide({ transportUnitBK: bk, loadUnitType: 'TOTE-HALF', parts: '2', transportUnitType: 'TOTE', actualLocation: ERP_DOCK });
    expect(reply.status, reply.text).toBe(201);
    const tu = await wms.get(`/v1/transport-units?bk=${bk}`);
    expect(tu.status).toBe(200);
    expect(tu.body).toMatchObject({ barcode: bk, transportUnitType: 'TOTE', actualLocation: LOC_DOCK });
    expect((await loadUnitsOf(bk)).map((lu) => [lu.physicalPosition, lu.length, lu.width])).toEqual([
      ['1', 300, 400],
      ['2', 300, 400],
    ]);
  });

  it('refuses a transport unit that is already divided: 409 already.exists', async () => {
    const bk = await divided(2);
    await refusedWithoutChange(() => divide({ transportUnitBK: bk, loadUnitType: 'X', parts: '4' }), apiError(409, 'already.exists'));
  });

  it.each([
    ['no transportUnitBK', { loadUnitType: 'X', parts: '1' }, 400, 'svc.wms.inv.tu.bk'],
    ['an empty transportUnitBK', { transportUnitBK: ' ', loadUnitType: 'X', parts: '1' }, 400, 'svc.wms.inv.tu.bk'],
    ['an unknown transport unit', { transportUnitBK: 'NO-SUCH-TU', loadUnitType: 'X', parts: '1' }, 404, 'svc.common.common.tu.notFoundByBK'],
    [
      'an unknown unit with a type but no location',
      { transportUnitBK: 'NO-SUCH-TU', loadUnitType: 'X', parts: '1', transportUnitType: 'EURO' },
      400,
      'svc.wms.inv.tu.actualLocation.erpCode',
    ],
    [
      'an unknown unit with a location but no type',
      { transportUnitBK: 'NO-SUCH-TU', loadUnitType: 'X', parts: '1', actualLocation: ERP_DOCK },
      400,
      'svc.wms.inv.tu.transportUnitType',
    ],
    [
      'an unknown ERP code',
      { transportUnitBK: 'NO-SUCH-TU', loadUnitType: 'X', parts: '1', transportUnitType: 'EURO', actualLocation: 'ERP-NOWHERE' },
      404,
      'not.found',
    ],
    [
      'an unknown transport unit type',
      { transportUnitBK: 'NO-SUCH-TU', loadUnitType: 'X', parts: '1', transportUnitType: 'BARREL', actualLocation: ERP_DOCK },
      404,
      'svc.common.common.tut.notFoundByName',
    ],
    [
      'a malformed barcode for a new unit',
      { transportUnitBK: 'NO SUCH/TU', loadUnitType: 'X', parts: '1', transportUnitType: 'EURO', actualLocation: ERP_DOCK },
      400,
      'core.validation.error',
    ],
  ])('refuses %s, changing nothing', async (_why, fields, status, key) => {
    await refusedWithoutChange(() => divide(fields as Record<string, string>), apiError(status, key));
  });

  it.each([
    ['no parts', {}],
    ['0 parts', { parts: '0' }],
    ['negative parts', { parts: '-1' }],
    ['parts that are not a number', { parts: 'two' }],
    ['fractional parts', { parts: '1.5' }],
    ['more than 1000 parts', { parts: '1001' }],
    ['no loadUnitType', { parts: '2', loadUnitType: '' }],
  ])('refuses %s: 400 core.validation.error', async (_why, fields) => {
    const bk = await newTransportUnit();
    await refusedWithoutChange(
      () => divide({ transportUnitBK: bk, loadUnitType: 'X', ...fields } as Record<string, string>),
      apiError(400, 'core.validation.error'),
    );
  });

  it('refuses a body without any field: 400 svc.wms.inv.tu.bk', async () => {
    await refusedWithoutChange(() => wms.request('POST', '/v1/transport-unit', { headers: FORM }), apiError(400, 'svc.wms.inv.tu.bk'));
  });

  it('refuses JSON (the operation takes a form): 415 server-declined', async () => {
    const bk = await newTransportUnit();
    await refusedWithoutChange(() => wms.post('/v1/transport-unit', { transportUnitBK: bk, loadUnitType: 'X', parts: 1 }), serverError(415));
  });
});

describe('load unit lookups and reservation', () => {
  let bk: string;
  let lus: any[];
  let screws: any;
  let nails: any;
  beforeAll(async () => {
    bk = await divided(2);
    lus = await loadUnitsOf(bk);
    screws = await newProduct();
    nails = await newProduct();
  });

  it('GET /v1/load-units/{pKey}: 200; unknown → 404 svc.wms.inv.lu.pKeyNotExists', async () => {
    const reply = await wms.get(`/v1/load-units/${lus[0].pKey}`, { headers: { Accept: LOAD_UNIT_TYPE } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/vnd\.vendor\.inventory\.load-unit-v1\+json/);
    expect(reply.body).toEqual(lus[0]);
    expectApiError(await wms.get('/v1/load-units/nope'), 404, 'svc.wms.inv.lu.pKeyNotExists');
  });

  it('GET /v1/load-units lists them; GET /v1/transport-units/{bk}/load-units of an unknown unit: 404', async () => {
    const all = await listOf('/v1/load-units');
    expect(all.filter((lu) => lu.transportUnitBK === bk)).toEqual(lus);
    expectApiError(await wms.get('/v1/transport-units/NO-SUCH-TU/load-units'), 404, 'svc.common.common.tu.notFoundByBK');
  });

  it('PUT /v1/load-units/{pKey} reserves the load unit for a product: 200 with the load unit', async () => {
    const reply = await wms.put(`/v1/load-units/${lus[0].pKey}`, { links: [], sku: screws.sku, baseUnit: pc(1) });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ pKey: lus[0].pKey, ol: 1, product: { sku: screws.sku, pKey: screws.pKey } });
    // The same reservation again changes nothing.
    const again = await wms.put(`/v1/load-units/${lus[0].pKey}`, { sku: screws.sku });
    expect(again.body.ol).toBe(1);
  });

  it('POST /v1/load-units/{pKey} does the same; without the config another product replaces the reservation', async () => {
    const reply = await wms.post(`/v1/load-units/${lus[0].pKey}`, { sku: nails.sku });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.product).toEqual({ sku: nails.sku, pKey: nails.pKey });
  });

  it.each([
    ['an unknown load unit', () => ['nope', { sku: screws.sku }], 404, 'svc.wms.inv.lu.pKeyNotExists'],
    ['an unknown SKU', () => [lus[1].pKey, { sku: 'NO-SUCH-SKU' }], 404, 'svc.wms.inv.product.notFoundBySku'],
    ['no SKU', () => [lus[1].pKey, { baseUnit: pc(1) }], 400, 'svc.wms.inv.product.sku'],
    ['no body', () => [lus[1].pKey, undefined], 400, 'svc.wms.inv.product.sku'],
    ['a base unit of another family', () => [lus[1].pKey, { sku: screws.sku, baseUnit: kg(1) }], 400, 'core.validation.error'],
    ['an invalid base unit', () => [lus[1].pKey, { sku: screws.sku, baseUnit: pc(-1) }], 400, 'core.validation.error'],
    ['an array', () => [lus[1].pKey, [{ sku: screws.sku }]], 400, 'core.validation.error'],
  ])('refuses a reservation with %s, changing nothing', async (_why, args, status, key) => {
    const [pKey, body] = args() as [string, unknown];
    await refusedWithoutChange(() => wms.put(`/v1/load-units/${pKey}`, body), apiError(status, key));
  });
});

// ---- packaging units --------------------------------------------------------

describe('POST /v1/transport-units/{bk}/load-units/{luPos}/packaging-units', () => {
  let bk: string;
  let product: any;
  let weighed: any;
  beforeAll(async () => {
    bk = await divided(2);
    product = await newProduct();
    weighed = await newProduct({ baseUnit: kg(1) });
  });

  it('puts a packaging unit into a load unit: 201, Location, the packaging unit with every field', async () => {
    const reply = await putPU(bk, '1', {
      links: [],
      product: { links: [], sku: product.sku },
      quantity: pc(24),
      length: 300,
      width: 200,
      height: 100,
      weight: kg(12.5),
      message: 'handle with care',
      serialNumber: 'SN-1',
      expiresAt: '2030-01-31T10:00:00+01:00',
      labels: ['fragile', 'top'],
      loadUnitDistribution: { piecesPerLoadUnitLayer: 6, numberOfLoadUnitLayers: 4 },
    });
    expect(reply.status, reply.text).toBe(201);
    const pu = reply.body;
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/transport-units/${bk}/load-units/1/packaging-units/${pu.pKey}/`);
    expect(pu).toMatchObject({
      ol: 0,
      product: { sku: product.sku, pKey: product.pKey },
      quantity: pc(24),
      loadUnit: { transportUnitBK: bk, physicalPosition: '1' },
      physicalPosition: '1',
      actualLocation: LOC_DOCK,
      length: 300,
      width: 200,
      height: 100,
      dimension: { length: 300, width: 200, height: 100, uom: 'MM' },
      weight: kg(12.5),
      message: 'handle with care',
      serialNumber: 'SN-1',
      expiresAt: '2030-01-31T09:00:00.000Z',
      labels: ['fragile', 'top'],
      loadUnitDistribution: { piecesPerLoadUnitLayer: 6, numberOfLoadUnitLayers: 4 },
      allocated: false,
    });
    const read = await wms.get(new URL(reply.headers.get('location')!).pathname);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(pu);
    expect((await wms.get(`/v1/packaging-units/${pu.pKey}`)).body).toEqual(pu);
    // The load unit shows what it holds.
    const lu = (await loadUnitsOf(bk)).find((l) => l.physicalPosition === '1');
    expect(lu.packagingUnits).toEqual([pu]);
    expect(events.some((e) => e.type === 'packagingUnit.created' && e.data.pKey === pu.pKey)).toBe(true);
  });

  it('takes a dimension object (in CM) and a weight in grams; answers the vendor type when asked', async () => {
    const reply = await putPU(bk, '2', { product: { sku: weighed.sku }, quantity: g(1500), dimension: { length: 30, width: 20, uom: 'CM' } }, undefined);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ quantity: g(1500), dimension: { length: 30, width: 20, uom: 'CM' }, length: 300, width: 200 });
    const read = await wms.get(`/v1/packaging-units/${reply.body.pKey}`, { headers: { Accept: PACKAGING_UNIT_TYPE } });
    expect(read.headers.get('content-type')).toMatch(/^application\/vnd\.vendor\.inventory\.packaging-unit-v1\+json/);
  });

  it('creates the load unit when it does not exist and loadUnitType is given', async () => {
    const tu = await newTransportUnit();
    const pu = await newPU(tu, 'A', product.sku, doz(1), {}, 'CARTON');
    expect(pu.loadUnit).toEqual({ transportUnitBK: tu, physicalPosition: 'A' });
    const lus = await loadUnitsOf(tu);
    expect(lus).toHaveLength(1);
    expect(lus[0]).toMatchObject({ physicalPosition: 'A', type: 'CARTON' });
    // An existing load unit ignores loadUnitType.
    await newPU(tu, 'A', product.sku, pc(1), {}, 'OTHER');
    expect((await loadUnitsOf(tu))[0].type).toBe('CARTON');
  });

  it('refuses a load unit that does not exist without loadUnitType: 400 svc.wms.inv.pu.loadUnitTypeMissing', async () => {
    const tu = await newTransportUnit();
    await refusedWithoutChange(() => putPU(tu, '1', { product: { sku: product.sku }, quantity: pc(1) }), apiError(400, 'svc.wms.inv.pu.loadUnitTypeMissing'));
    await refusedWithoutChange(
      () => putPU(tu, '1', { product: { sku: product.sku }, quantity: pc(1) }, ''),
      apiError(400, 'svc.wms.inv.pu.loadUnitTypeMissing'),
    );
  });

  it('refuses an unknown transport unit: 404 svc.common.common.tu.notFoundByBK', async () => {
    await refusedWithoutChange(
      () => putPU('NO-SUCH-TU', '1', { product: { sku: product.sku }, quantity: pc(1) }, 'CARTON'),
      apiError(404, 'svc.common.common.tu.notFoundByBK'),
    );
  });

  it('refuses an unknown SKU: 404 svc.wms.inv.product.notFoundBySku', async () => {
    const reply = await refusedWithoutChange(
      () => putPU(bk, '1', { product: { sku: 'NO-SUCH-SKU' }, quantity: pc(1) }),
      apiError(404, 'svc.wms.inv.product.notFoundBySku'),
    );
    expect(reply.body.obj).toEqual(['NO-SUCH-SKU']);
  });

  it('refuses a quantity of another family than the product: 400 core.validation.error', async () => {
    const reply = await refusedWithoutChange(() => putPU(bk, '1', { product: { sku: product.sku }, quantity: kg(1) }), apiError(400, 'core.validation.error'));
    expect(reply.body.message).toContain('quantity');
  });

  it.each([
    ['a negative quantity', () => ({ product: { sku: product.sku }, quantity: pc(-1) }), 'quantity'],
    ['a quantity of nothing', () => ({ product: { sku: product.sku }, quantity: pc(0) }), 'quantity'],
    ['an unknown unit', () => ({ product: { sku: product.sku }, quantity: { unitType: [PIECE_UNIT, 'BOX'], magnitude: 1 } }), 'quantity'],
    ['half a piece', () => ({ product: { sku: product.sku }, quantity: pc(0.5) }), 'quantity'],
    ['no quantity', () => ({ product: { sku: product.sku } }), 'quantity'],
    ['no product', () => ({ quantity: pc(1) }), 'product'],
    ['a product without sku', () => ({ product: {}, quantity: pc(1) }), 'product.sku'],
    ['a weight in pieces', () => ({ product: { sku: product.sku }, quantity: pc(1), weight: pc(3) }), 'weight'],
    ['an invalid expiry date', () => ({ product: { sku: product.sku }, quantity: pc(1), expiresAt: '31.01.2030' }), 'expiresAt'],
    ['labels that are not texts', () => ({ product: { sku: product.sku }, quantity: pc(1), labels: [1, 2] }), 'labels'],
    ['a length that differs from dimension', () => ({ product: { sku: product.sku }, quantity: pc(1), length: 5, dimension: { length: 6 } }), 'length'],
    [
      'negative layers',
      () => ({ product: { sku: product.sku }, quantity: pc(1), loadUnitDistribution: { numberOfLoadUnitLayers: -1 } }),
      'loadUnitDistribution',
    ],
    ['an empty body', () => undefined, 'body'],
  ])('refuses %s: 400 core.validation.error naming the field', async (_why, body, field) => {
    const reply = await refusedWithoutChange(() => putPU(bk, '1', body()), apiError(400, 'core.validation.error'));
    expect(reply.body.message).toContain(field);
  });

  it('refuses malformed JSON (400) and a form body (415), server-declined', async () => {
    const path = `/v1/transport-units/${bk}/load-units/1/packaging-units`;
    await refusedWithoutChange(() => wms.request('POST', path, { headers: { 'Content-Type': 'application/json' }, raw: '{"product":' }), serverError(400));
    await refusedWithoutChange(() => wms.request('POST', path, { headers: FORM, raw: 'sku=X' }), serverError(415));
  });

  it('GET …/packaging-units/{pKey} under another load unit or transport unit: 404 svc.wms.inv.pu.pKeyNotExists', async () => {
    const pu = await newPU(bk, '1', product.sku, pc(2));
    expectApiError(await wms.get(`/v1/transport-units/${bk}/load-units/2/packaging-units/${pu.pKey}`), 404, 'svc.wms.inv.pu.pKeyNotExists');
    const other = await divided(1);
    expectApiError(await wms.get(`/v1/transport-units/${other}/load-units/1/packaging-units/${pu.pKey}`), 404, 'svc.wms.inv.pu.pKeyNotExists');
  });
});

describe('packaging unit lookups', () => {
  let bk: string;
  let product: any;
  let other: any;
  let pus: any[];
  beforeAll(async () => {
    product = await newProduct();
    other = await newProduct();
    bk = await divided(2, wms, LOC_AISLE);
    pus = [
      await newPU(bk, '1', product.sku, pc(5)),
      await newPU(bk, '1', product.sku, pc(20)),
      await newPU(bk, '2', product.sku, pc(10)),
      await newPU(bk, '2', other.sku, pc(7)),
    ];
    // A fourth one of the product, allocated (blocked): not offered.
    const allocated = await newPU(bk, '2', product.sku, pc(99));
    wms.app.module('inventory').packagingUnits.setAllocated(allocated.pKey, true);
    pus.push((await wms.get(`/v1/packaging-units/${allocated.pKey}`)).body);
  });

  it('GET /v1/packaging-units/{pKey}: unknown → 404 svc.wms.inv.pu.pKeyNotExists', async () => {
    const reply = await wms.get('/v1/packaging-units/no-such-pu');
    expectApiError(reply, 404, 'svc.wms.inv.pu.pKeyNotExists');
    expect(reply.body.obj).toEqual(['no-such-pu']);
  });

  it('GET /v1/transport-units/{bk}/load-units/packaging-units: every packaging unit of the unit, oldest first', async () => {
    const reply = await wms.get(`/v1/transport-units/${bk}/load-units/packaging-units`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(pus);
    expect(pus[4].allocated).toBe(true);
    expectApiError(await wms.get('/v1/transport-units/NO-SUCH-TU/load-units/packaging-units'), 404, 'svc.common.common.tu.notFoundByBK');
  });

  it('?sku= gives the free ones of the product; amount limits, sort orders by quantity', async () => {
    const base = `/v1/transport-units/${bk}/load-units/packaging-units?sku=${product.sku}`;
    const magnitudes = async (path: string) => (await listOf(path)).map((pu) => pu.quantity.magnitude);
    expect(await magnitudes(base)).toEqual([5, 20, 10]);
    expect(await magnitudes(`${base}&sort=DESC`)).toEqual([20, 10, 5]);
    expect(await magnitudes(`${base}&sort=asc`)).toEqual([5, 10, 20]);
    expect(await magnitudes(`${base}&sort=DESC&amount=2`)).toEqual([20, 10]);
    expect(await magnitudes(`${base}&amount=1`)).toEqual([5]);
  });

  it('?sku= refuses a bad amount or sort (400) and an unknown SKU (404)', async () => {
    const base = `/v1/transport-units/${bk}/load-units/packaging-units?sku=${product.sku}`;
    for (const bad of ['amount=0', 'amount=-1', 'amount=many', 'sort=UP']) {
      expectApiError(await wms.get(`${base}&${bad}`), 400, 'core.validation.error');
    }
    expectApiError(await wms.get(`/v1/transport-units/${bk}/load-units/packaging-units?sku=NO-SUCH`), 404, 'svc.wms.inv.product.notFoundBySku');
  });

  it('GET /v1/packaging-units?sku=&amount=&sort= (the index link) looks on every transport unit', async () => {
    const elsewhere = await divided(1);
    await newPU(elsewhere, '1', product.sku, pc(50));
    const found = await listOf(`/v1/packaging-units?sku=${product.sku}&sort=DESC&amount=2`);
    expect(found.map((pu) => [pu.loadUnit.transportUnitBK, pu.quantity.magnitude])).toEqual([
      [elsewhere, 50],
      [bk, 20],
    ]);
    expectApiError(await wms.get('/v1/packaging-units?sku=NO-SUCH'), 404, 'svc.wms.inv.product.notFoundBySku');
    // The index link as the spec writes it (empty values) is refused as a request.
    expectApiError(await wms.get('/v1/packaging-units?sku=&amount=&sort='), 400, 'core.validation.error');
  });

  it('GET /v1/packaging-units?productPKey=&locationGroupName= looks in the group and the groups below it', async () => {
    const inStock = await divided(1, wms, LOC_STOCK);
    const stockPu = await newPU(inStock, '1', product.sku, pc(1));
    const keys = async (group: string) =>
      (await listOf(`/v1/packaging-units?productPKey=${product.pKey}&locationGroupName=${group}`)).map((pu) => pu.pKey).sort();
    const onAisle = pus.filter((pu) => pu.product.sku === product.sku).map((pu) => pu.pKey);
    expect(await keys('INV-AISLE')).toEqual([...onAisle].sort());
    expect(await keys('INV-STOCK')).toEqual([...onAisle, stockPu.pKey].sort());
    expect(await keys('INV-OTHER')).not.toContain(stockPu.pKey);
    expectApiError(await wms.get(`/v1/packaging-units?productPKey=${product.pKey}&locationGroupName=NO-GROUP`), 404, 'svc.common.common.lg.notFoundByName');
    expectApiError(await wms.get('/v1/packaging-units?productPKey=nope&locationGroupName=INV-STOCK'), 404, 'not.found');
  });
});

describe('POST /v1/packaging-units/move', () => {
  it('takes the quantity oldest first, splitting the last packaging unit, into a new one on the target', async () => {
    const product = await newProduct();
    const source = await divided(2, wms, LOC_PICK);
    const older = await newPU(source, '1', product.sku, pc(10), { expiresAt: '2031-06-01T00:00:00Z' });
    const newer = await newPU(source, '2', product.sku, doz(1), { expiresAt: '2030-06-01T00:00:00Z' });
    const target = await divided(1);
    const before = events.length;
    const reply = await wms.post('/v1/packaging-units/move', {
      sku: product.sku,
      sourceLocation: LOC_PICK,
      quantity: pc(15),
      targetTransportUnitBK: target,
      targetLuPos: '1',
    });
    expect(reply.status, reply.text).toBe(201);
    const moved = reply.body;
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/transport-units/${target}/load-units/1/packaging-units/${moved.pKey}/`);
    expect(moved).toMatchObject({
      product: { sku: product.sku },
      quantity: pc(15),
      loadUnit: { transportUnitBK: target, physicalPosition: '1' },
      actualLocation: LOC_DOCK,
      // The earliest expiry of the stock taken.
      expiresAt: '2030-06-01T00:00:00.000Z',
    });
    // The older unit is used up, the newer one split: 12 - 5 = 7 pieces remain (not a whole dozen: shown in PC).
    expectApiError(await wms.get(`/v1/packaging-units/${older.pKey}`), 404, 'svc.wms.inv.pu.pKeyNotExists');
    const rest = (await wms.get(`/v1/packaging-units/${newer.pKey}`)).body;
    expect(rest).toMatchObject({ quantity: pc(7), ol: 1 });
    expect((await listOf(`/v1/transport-units/${source}/load-units/packaging-units`)).map((pu) => pu.pKey)).toEqual([newer.pKey]);
    const move = events.slice(before).find((e) => e.type === 'packagingUnit.moved')!;
    expect(move.data).toMatchObject({ sku: product.sku, sourceLocation: LOC_PICK, pKey: moved.pKey });
    expect(move.data.taken).toEqual([
      { pKey: older.pKey, quantity: '10 PC', emptied: true },
      { pKey: newer.pKey, quantity: '5 PC', emptied: false },
    ]);
  });

  it('moves all of it, creates the target load unit with loadUnitType, and keeps a remainder in its unit when whole', async () => {
    const product = await newProduct({ baseUnit: kg(1) });
    const source = await divided(1, wms, LOC_EMPTY);
    const a = await newPU(source, '1', product.sku, kg(2));
    const target = await newTransportUnit();
    const reply = await wms.post('/v1/packaging-units/move', {
      sku: product.sku,
      sourceLocation: LOC_EMPTY,
      quantity: g(1000),
      targetTransportUnitBK: target,
      targetLuPos: '1',
      loadUnitType: 'CARTON',
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.quantity).toEqual(g(1000));
    expect((await wms.get(`/v1/packaging-units/${a.pKey}`)).body.quantity).toEqual(kg(1));
    expect((await loadUnitsOf(target))[0]).toMatchObject({ physicalPosition: '1', type: 'CARTON' });
    // The rest, exactly.
    const all = await wms.post('/v1/packaging-units/move', {
      sku: product.sku,
      sourceLocation: LOC_EMPTY,
      quantity: kg(1),
      targetTransportUnitBK: target,
      targetLuPos: '1',
    });
    expect(all.status, all.text).toBe(201);
    expectApiError(await wms.get(`/v1/packaging-units/${a.pKey}`), 404, 'svc.wms.inv.pu.pKeyNotExists');
  });

  describe('refuses, changing nothing', () => {
    let product: any;
    let source: string;
    let target: string;
    const move = (fields: Record<string, unknown> = {}) =>
      wms.post('/v1/packaging-units/move', {
        sku: product.sku,
        sourceLocation: LOC_STOCK,
        quantity: pc(3),
        targetTransportUnitBK: target,
        targetLuPos: '1',
        ...fields,
      });
    beforeAll(async () => {
      product = await newProduct();
      source = await divided(1, wms, LOC_STOCK);
      await newPU(source, '1', product.sku, pc(4));
      const blocked = await newPU(source, '1', product.sku, pc(100));
      wms.app.module('inventory').packagingUnits.setAllocated(blocked.pKey, true);
      target = await divided(1);
    });

    it('a product not on the location: 404 svc.wms.inv.pu.noPUOnLocation', async () => {
      const reply = await refusedWithoutChange(() => move({ sourceLocation: LOC_AISLE }), apiError(404, 'svc.wms.inv.pu.noPUOnLocation'));
      expect(reply.body.obj).toEqual([product.sku, LOC_AISLE]);
    });

    it('an empty location: 404 svc.wms.inv.pu.noPUOnLocation', async () => {
      const empty = 'INV/0007/0001/0001/0001';
      expect((await wms.post('/v1/locations', { locationId: empty, locationGroupName: 'INV-OTHER' })).status).toBe(201);
      await refusedWithoutChange(() => move({ sourceLocation: empty }), apiError(404, 'svc.wms.inv.pu.noPUOnLocation'));
    });

    it('more than is free there (allocated stock does not count): 409 svc.wms.inv.pu.notEnoughOnLocation', async () => {
      const reply = await refusedWithoutChange(() => move({ quantity: pc(5) }), apiError(409, 'svc.wms.inv.pu.notEnoughOnLocation'));
      expect(reply.body.obj).toEqual([product.sku, LOC_STOCK, '4 PC', '5 PC']);
    });

    it.each([
      ['an unknown location', { sourceLocation: 'INV/9999/9999/9999/9999' }, 404, 'svc.common.common.loc.notFoundByName'],
      ['an unknown target transport unit', { targetTransportUnitBK: 'NO-SUCH-TU' }, 404, 'svc.common.common.tu.notFoundByBK'],
      ['an unknown SKU', { sku: 'NO-SUCH-SKU' }, 404, 'svc.wms.inv.product.notFoundBySku'],
      ['a missing target load unit without loadUnitType', { targetLuPos: '9' }, 400, 'svc.wms.inv.pu.loadUnitTypeMissing'],
      ['a quantity of another family', { quantity: kg(1) }, 400, 'core.validation.error'],
      ['a negative quantity', { quantity: pc(-3) }, 400, 'core.validation.error'],
      ['no quantity', { quantity: undefined }, 400, 'core.validation.error'],
      ['an unknown unit', { quantity: { amount: 3, unit: 'CRATE' } }, 400, 'core.validation.error'],
      ['no target', { targetTransportUnitBK: undefined }, 400, 'core.validation.error'],
    ])('%s', async (_why, fields, status, key) => {
      await refusedWithoutChange(() => move(fields), apiError(status, key));
    });

    it('stock already in the target load unit is not taken from', async () => {
      // Two pieces free on the target (at the dock), none elsewhere at the dock.
      await newPU(target, '1', product.sku, pc(2));
      await refusedWithoutChange(() => move({ sourceLocation: LOC_DOCK, quantity: pc(1) }), apiError(404, 'svc.wms.inv.pu.noPUOnLocation'));
    });

    it('malformed JSON: 400 server-declined', async () => {
      await refusedWithoutChange(
        () => wms.request('POST', '/v1/packaging-units/move', { headers: { 'Content-Type': 'application/json' }, raw: '{' }),
        serverError(400),
      );
    });
  });
});

// ---- the service API other modules use ---------------------------------------

describe('service API (receiving, shipping)', () => {
  it('products.bySku throws 404, findBySku answers undefined', async () => {
    const { products } = wms.app.module('inventory');
    const p = await newProduct();
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

  it('packagingUnits.create puts stock in, creating the load unit; onTransportUnit reads it', async () => {
    const { packagingUnits } = wms.app.module('inventory');
    const p = await newProduct();
    const bk = await newTransportUnit();
    const pu = packagingUnits.create({
      transportUnitBK: bk,
      luPos: '1',
      sku: p.sku,
      quantity: { family: 'Piece', unit: 'DOZ', base: 36 },
      loadUnitType: 'CARTON',
      loadUnitLabel: 'LU-LABEL',
      message: 'received',
    });
    expect(pu).toMatchObject({ transportUnitBK: bk, physicalPosition: '1', productSku: p.sku, message: 'received', actualLocation: LOC_DOCK });
    expect(packagingUnits.onTransportUnit(bk).map((u) => u.pk)).toEqual([pu.pk]);
    expect((await wms.get(`/v1/packaging-units/${pu.pk}`)).body.quantity).toEqual(doz(3));
    expect((await loadUnitsOf(bk))[0]).toMatchObject({ label: 'LU-LABEL', type: 'CARTON' });
  });

  it("packagingUnits.create joins the caller's unit of work: rolled back with it, announced after its commit", async () => {
    const { packagingUnits } = wms.app.module('inventory');
    const { work } = wms.app;
    const p = await newProduct();
    const bk = await newTransportUnit();
    const before = await state();
    const eventsBefore = events.length;
    expect(() =>
      work.run(() => {
        packagingUnits.create({ transportUnitBK: bk, luPos: '1', sku: p.sku, quantity: { family: 'Piece', unit: 'PC', base: 1 }, loadUnitType: 'CARTON' });
        throw new Error('the caller fails later');
      }),
    ).toThrow('the caller fails later');
    expect(await state()).toEqual(before);
    expect(events.length).toBe(eventsBefore);
    const { pu, delivered } = work.run(() => ({
      pu: packagingUnits.create({ transportUnitBK: bk, luPos: '1', sku: p.sku, quantity: { family: 'Piece', unit: 'PC', base: 2 }, loadUnitType: 'CARTON' }),
      delivered: events.length,
    }));
    expect(delivered).toBe(eventsBefore);
    expect(events.at(-1)).toMatchObject({ type: 'packagingUnit.created', data: { pKey: pu.pk, sku: p.sku, quantity: '2 PC' } });
  });

  it('packagingUnits.setAllocated blocks and releases; an unknown one is 404', async () => {
    const { packagingUnits } = wms.app.module('inventory');
    const p = await newProduct();
    const bk = await divided(1);
    const pu = await newPU(bk, '1', p.sku, pc(1));
    expect(packagingUnits.setAllocated(pu.pKey, true).allocated).toBe(true);
    expect(await listOf(`/v1/packaging-units?sku=${p.sku}`)).toEqual([]);
    expect(packagingUnits.setAllocated(pu.pKey, false).allocated).toBe(false);
    expect((await listOf(`/v1/packaging-units?sku=${p.sku}`)).map((u) => u.pKey)).toEqual([pu.pKey]);
    expect(() => packagingUnits.setAllocated('nope', true)).toThrow(DomainError);
  });
});

// ---- one product per load unit ----------------------------------------------

describe('config inventory.oneProductPerLoadUnit', () => {
  let strict: TestAppliance;
  beforeAll(async () => {
    strict = await startTestAppliance({ inventory: { oneProductPerLoadUnit: true } });
    const reply = await strict.post('/v1/locations', { locationId: LOC_DOCK, locationGroupName: 'WAREHOUSE' });
    expect(reply.status, reply.text).toBe(201);
  });
  afterAll(() => strict.close());

  it('refuses to reserve a load unit reserved for another product: 409 svc.wms.inv.lu.otherProduct', async () => {
    const [a, b] = [await newProduct({}, strict), await newProduct({}, strict)];
    const bk = await divided(1, strict);
    const [lu] = await loadUnitsOf(bk, strict);
    expect((await strict.put(`/v1/load-units/${lu.pKey}`, { sku: a.sku })).status).toBe(200);
    // The same product again is fine.
    expect((await strict.put(`/v1/load-units/${lu.pKey}`, { sku: a.sku })).status).toBe(200);
    await refusedWithoutChange(() => strict.put(`/v1/load-units/${lu.pKey}`, { sku: b.sku }), apiError(409, 'svc.wms.inv.lu.otherProduct'), strict);
    // …and to put another product's stock into it.
    await refusedWithoutChange(
      () => putPU(bk, '1', { product: { sku: b.sku }, quantity: pc(1) }, undefined, strict),
      apiError(409, 'svc.wms.inv.lu.otherProduct'),
      strict,
    );
    await newPU(bk, '1', a.sku, pc(1), {}, undefined, strict);
  });

  it('refuses another product in a load unit that carries one, by reservation, create or move', async () => {
    const [a, b] = [await newProduct({}, strict), await newProduct({}, strict)];
    const bk = await divided(2, strict);
    const [lu] = await loadUnitsOf(bk, strict);
    await newPU(bk, '1', a.sku, pc(5), {}, undefined, strict);
    await newPU(bk, '2', b.sku, pc(5), {}, undefined, strict);
    const reply = await refusedWithoutChange(
      () => strict.put(`/v1/load-units/${lu.pKey}`, { sku: b.sku }),
      apiError(409, 'svc.wms.inv.lu.otherProduct'),
      strict,
    );
    expect(reply.body.obj).toEqual([bk, '1', a.sku, b.sku]);
    await refusedWithoutChange(
      () => putPU(bk, '1', { product: { sku: b.sku }, quantity: pc(1) }, undefined, strict),
      apiError(409, 'svc.wms.inv.lu.otherProduct'),
      strict,
    );
    const source = await divided(1, strict);
    await newPU(source, '1', b.sku, pc(3), {}, undefined, strict);
    await refusedWithoutChange(
      () => strict.post('/v1/packaging-units/move', { sku: b.sku, sourceLocation: LOC_DOCK, quantity: pc(1), targetTransportUnitBK: bk, targetLuPos: '1' }),
      apiError(409, 'svc.wms.inv.lu.otherProduct'),
      strict,
    );
    // The product it carries may join.
    expect((await strict.put(`/v1/load-units/${lu.pKey}`, { sku: a.sku })).status).toBe(200);
  });

  it('without the setting, another product shares the load unit', async () => {
    const [a, b] = [await newProduct(), await newProduct()];
    const bk = await divided(1);
    await newPU(bk, '1', a.sku, pc(1));
    await newPU(bk, '1', b.sku, pc(1));
    const [lu] = await loadUnitsOf(bk);
    expect(lu.packagingUnits.map((pu: any) => pu.product.sku)).toEqual([a.sku, b.sku]);
  });
});
