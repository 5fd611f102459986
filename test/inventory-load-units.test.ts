import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, unique, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { apiError, serverError } from './support/expect.ts';
import {
  divide,
  divided,
  ERP_DOCK,
  FORM,
  inventoryAppliance,
  inventoryRefusal,
  kg,
  listOf,
  LOC_DOCK,
  loadUnitsOf,
  newProduct,
  newPU,
  newTransportUnit,
  pc,
  putPU,
  relsOf,
} from './support/inventory.ts';

// Load units of the inventory module (docs/inventory.md, endpoints "Load units"): a
// transport unit divided into load units, their lookups, a load unit reserved for a
// product, and the config that keeps one product per load unit. Every refused request
// is shown to change nothing: products, load units, packaging units and transport
// units read the same after it.

const LOAD_UNIT_TYPE = 'application/vnd.vendor.inventory.load-unit-v1+json';

let wms: TestAppliance;
const events: RecordedEvent[] = [];
beforeAll(async () => {
  wms = await inventoryAppliance(events);
});
afterAll(() => wms.close());

const refusedWithoutChange = inventoryRefusal(() => wms, events);

describe('indexes', () => {
  it('GET /v1/load-units/index names lu-divide and lu-put-product (and the lookups)', async () => {
    const reply = await wms.get('/v1/load-units/index');
    expect(reply.status).toBe(200);
    expect(relsOf(reply)).toEqual(['lu-divide', 'lu-findall', 'lu-findbypkey', 'lu-findontu', 'lu-put-product']);
    expect(reply.body._links['lu-divide'].href).toBe(`${wms.url}/v1/transport-unit`);
    expect(reply.body._links['lu-put-product'].href).toBe(`${wms.url}/v1/load-units/{pKey}`);
  });
});

// ---- load units ------------------------------------------------------------

describe('POST /v1/transport-unit (divide)', () => {
  it('divides a transport unit into parts: 201 without body, Location of its load units', async () => {
    const bk = await newTransportUnit(wms);
    const reply = await divide(wms, { transportUnitBK: bk, loadUnitType: 'EURO-THIRD', parts: '3' });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.text).toBe('');
    expect(reply.headers.get('location')).toBe(`${wms.url}/v1/transport-units/${bk}/load-units`);
    const lus = await listOf(wms, new URL(reply.headers.get('location')!).pathname);
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
    const bk = unique(wms, 'NEWTU');
    const reply = await divide(wms, { transportUnitBK: bk, loadUnitType: 'TOTE-HALF', parts: '2', transportUnitType: 'TOTE', actualLocation: ERP_DOCK });
    expect(reply.status, reply.text).toBe(201);
    const tu = await wms.get(`/v1/transport-units?bk=${bk}`);
    expect(tu.status).toBe(200);
    expect(tu.body).toMatchObject({ barcode: bk, transportUnitType: 'TOTE', actualLocation: LOC_DOCK });
    expect((await loadUnitsOf(wms, bk)).map((lu) => [lu.physicalPosition, lu.length, lu.width])).toEqual([
      ['1', 300, 400],
      ['2', 300, 400],
    ]);
  });

  it('refuses a transport unit that is already divided: 409 already.exists', async () => {
    const bk = await divided(wms, 2);
    await refusedWithoutChange(() => divide(wms, { transportUnitBK: bk, loadUnitType: 'X', parts: '4' }), apiError(409, 'already.exists'));
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
    await refusedWithoutChange(() => divide(wms, fields as Record<string, string>), apiError(status, key));
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
    const bk = await newTransportUnit(wms);
    await refusedWithoutChange(
      () => divide(wms, { transportUnitBK: bk, loadUnitType: 'X', ...fields } as Record<string, string>),
      apiError(400, 'core.validation.error'),
    );
  });

  it('refuses a body without any field: 400 svc.wms.inv.tu.bk', async () => {
    await refusedWithoutChange(() => wms.request('POST', '/v1/transport-unit', { headers: FORM }), apiError(400, 'svc.wms.inv.tu.bk'));
  });

  it('refuses JSON (the operation takes a form): 415 server-declined', async () => {
    const bk = await newTransportUnit(wms);
    await refusedWithoutChange(() => wms.post('/v1/transport-unit', { transportUnitBK: bk, loadUnitType: 'X', parts: 1 }), serverError(415));
  });
});

describe('load unit lookups and reservation', () => {
  let bk: string;
  let lus: any[];
  let screws: any;
  let nails: any;
  beforeAll(async () => {
    bk = await divided(wms, 2);
    lus = await loadUnitsOf(wms, bk);
    screws = await newProduct(wms);
    nails = await newProduct(wms);
  });

  it('GET /v1/load-units/{pKey}: 200; unknown → 404 svc.wms.inv.lu.pKeyNotExists', async () => {
    const reply = await wms.get(`/v1/load-units/${lus[0].pKey}`, { headers: { Accept: LOAD_UNIT_TYPE } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/vnd\.vendor\.inventory\.load-unit-v1\+json/);
    expect(reply.body).toEqual(lus[0]);
    expectApiError(await wms.get('/v1/load-units/nope'), 404, 'svc.wms.inv.lu.pKeyNotExists');
  });

  it('GET /v1/load-units lists them; GET /v1/transport-units/{bk}/load-units of an unknown unit: 404', async () => {
    const all = await listOf(wms, '/v1/load-units');
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
    const [a, b] = [await newProduct(strict), await newProduct(strict)];
    const bk = await divided(strict, 1);
    const [lu] = await loadUnitsOf(strict, bk);
    expect((await strict.put(`/v1/load-units/${lu.pKey}`, { sku: a.sku })).status).toBe(200);
    // The same product again is fine.
    expect((await strict.put(`/v1/load-units/${lu.pKey}`, { sku: a.sku })).status).toBe(200);
    await refusedWithoutChange(() => strict.put(`/v1/load-units/${lu.pKey}`, { sku: b.sku }), apiError(409, 'svc.wms.inv.lu.otherProduct'), strict);
    // …and to put another product's stock into it.
    await refusedWithoutChange(
      () => putPU(strict, bk, '1', { product: { sku: b.sku }, quantity: pc(1) }),
      apiError(409, 'svc.wms.inv.lu.otherProduct'),
      strict,
    );
    await newPU(strict, bk, '1', a.sku, pc(1));
  });

  it('refuses another product in a load unit that carries one, by reservation, create or move', async () => {
    const [a, b] = [await newProduct(strict), await newProduct(strict)];
    const bk = await divided(strict, 2);
    const [lu] = await loadUnitsOf(strict, bk);
    await newPU(strict, bk, '1', a.sku, pc(5));
    await newPU(strict, bk, '2', b.sku, pc(5));
    const reply = await refusedWithoutChange(
      () => strict.put(`/v1/load-units/${lu.pKey}`, { sku: b.sku }),
      apiError(409, 'svc.wms.inv.lu.otherProduct'),
      strict,
    );
    expect(reply.body.obj).toEqual([bk, '1', a.sku, b.sku]);
    await refusedWithoutChange(
      () => putPU(strict, bk, '1', { product: { sku: b.sku }, quantity: pc(1) }),
      apiError(409, 'svc.wms.inv.lu.otherProduct'),
      strict,
    );
    const source = await divided(strict, 1);
    await newPU(strict, source, '1', b.sku, pc(3));
    await refusedWithoutChange(
      () => strict.post('/v1/packaging-units/move', { sku: b.sku, sourceLocation: LOC_DOCK, quantity: pc(1), targetTransportUnitBK: bk, targetLuPos: '1' }),
      apiError(409, 'svc.wms.inv.lu.otherProduct'),
      strict,
    );
    // The product it carries may join.
    expect((await strict.put(`/v1/load-units/${lu.pKey}`, { sku: a.sku })).status).toBe(200);
  });

  it('without the setting, another product shares the load unit', async () => {
    const [a, b] = [await newProduct(wms), await newProduct(wms)];
    const bk = await divided(wms, 1);
    await newPU(wms, bk, '1', a.sku, pc(1));
    await newPU(wms, bk, '1', b.sku, pc(1));
    const [lu] = await loadUnitsOf(wms, bk);
    expect(lu.packagingUnits.map((pu: any) => pu.product.sku)).toEqual([a.sku, b.sku]);
  });
});
