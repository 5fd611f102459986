import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/core/errors.ts';
import { expectApiError, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { apiError, serverError } from './support/expect.ts';
import {
  divided,
  doz,
  FORM,
  g,
  inventoryAppliance,
  inventoryRefusal,
  inventoryState,
  kg,
  listOf,
  LOC_AISLE,
  LOC_DOCK,
  LOC_EMPTY,
  LOC_PICK,
  LOC_STOCK,
  loadUnitsOf,
  newProduct,
  newPU,
  newTransportUnit,
  pc,
  PIECE_UNIT,
  putPU,
  relsOf,
} from './support/inventory.ts';

// Packaging units of the inventory module (docs/inventory.md, endpoints "Packaging
// units"): stock put into a load unit, its lookups on a transport unit, by product and
// in a location group, stock moved oldest first from a location onto a transport unit,
// and the service the receiving and shipping modules call. Every refused request is
// shown to change nothing: products, load units, packaging units and transport units
// read the same after it.

const PACKAGING_UNIT_TYPE = 'application/vnd.vendor.inventory.packaging-unit-v1+json';

let wms: TestAppliance;
const events: RecordedEvent[] = [];
beforeAll(async () => {
  wms = await inventoryAppliance(events);
});
afterAll(() => wms.close());

const refusedWithoutChange = inventoryRefusal(() => wms, events);

describe('indexes', () => {
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
});

// ---- packaging units --------------------------------------------------------

describe('POST /v1/transport-units/{bk}/load-units/{luPos}/packaging-units', () => {
  let bk: string;
  let product: any;
  let weighed: any;
  beforeAll(async () => {
    bk = await divided(wms, 2);
    product = await newProduct(wms);
    weighed = await newProduct(wms, { baseUnit: kg(1) });
  });

  it('puts a packaging unit into a load unit: 201, Location, the packaging unit with every field', async () => {
    const reply = await putPU(wms, bk, '1', {
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
    const lu = (await loadUnitsOf(wms, bk)).find((l) => l.physicalPosition === '1');
    expect(lu.packagingUnits).toEqual([pu]);
    expect(events.some((e) => e.type === 'packagingUnit.created' && e.data.pKey === pu.pKey)).toBe(true);
  });

  it('takes a dimension object (in CM) and a weight in grams; answers the vendor type when asked', async () => {
    const reply = await putPU(wms, bk, '2', { product: { sku: weighed.sku }, quantity: g(1500), dimension: { length: 30, width: 20, uom: 'CM' } }, undefined);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ quantity: g(1500), dimension: { length: 30, width: 20, uom: 'CM' }, length: 300, width: 200 });
    const read = await wms.get(`/v1/packaging-units/${reply.body.pKey}`, { headers: { Accept: PACKAGING_UNIT_TYPE } });
    expect(read.headers.get('content-type')).toMatch(/^application\/vnd\.vendor\.inventory\.packaging-unit-v1\+json/);
  });

  it('creates the load unit when it does not exist and loadUnitType is given', async () => {
    const tu = await newTransportUnit(wms);
    const pu = await newPU(wms, tu, 'A', product.sku, doz(1), {}, 'CARTON');
    expect(pu.loadUnit).toEqual({ transportUnitBK: tu, physicalPosition: 'A' });
    const lus = await loadUnitsOf(wms, tu);
    expect(lus).toHaveLength(1);
    expect(lus[0]).toMatchObject({ physicalPosition: 'A', type: 'CARTON' });
    // An existing load unit ignores loadUnitType.
    await newPU(wms, tu, 'A', product.sku, pc(1), {}, 'OTHER');
    expect((await loadUnitsOf(wms, tu))[0].type).toBe('CARTON');
  });

  it('refuses a load unit that does not exist without loadUnitType: 400 svc.wms.inv.pu.loadUnitTypeMissing', async () => {
    const tu = await newTransportUnit(wms);
    await refusedWithoutChange(
      () => putPU(wms, tu, '1', { product: { sku: product.sku }, quantity: pc(1) }),
      apiError(400, 'svc.wms.inv.pu.loadUnitTypeMissing'),
    );
    await refusedWithoutChange(
      () => putPU(wms, tu, '1', { product: { sku: product.sku }, quantity: pc(1) }, ''),
      apiError(400, 'svc.wms.inv.pu.loadUnitTypeMissing'),
    );
  });

  it('refuses an unknown transport unit: 404 svc.common.common.tu.notFoundByBK', async () => {
    await refusedWithoutChange(
      () => putPU(wms, 'NO-SUCH-TU', '1', { product: { sku: product.sku }, quantity: pc(1) }, 'CARTON'),
      apiError(404, 'svc.common.common.tu.notFoundByBK'),
    );
  });

  it('refuses an unknown SKU: 404 svc.wms.inv.product.notFoundBySku', async () => {
    const reply = await refusedWithoutChange(
      () => putPU(wms, bk, '1', { product: { sku: 'NO-SUCH-SKU' }, quantity: pc(1) }),
      apiError(404, 'svc.wms.inv.product.notFoundBySku'),
    );
    expect(reply.body.obj).toEqual(['NO-SUCH-SKU']);
  });

  it('refuses a quantity of another family than the product: 400 core.validation.error', async () => {
    const reply = await refusedWithoutChange(
      () => putPU(wms, bk, '1', { product: { sku: product.sku }, quantity: kg(1) }),
      apiError(400, 'core.validation.error'),
    );
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
    const reply = await refusedWithoutChange(() => putPU(wms, bk, '1', body()), apiError(400, 'core.validation.error'));
    expect(reply.body.message).toContain(field);
  });

  it('refuses malformed JSON (400) and a form body (415), server-declined', async () => {
    const path = `/v1/transport-units/${bk}/load-units/1/packaging-units`;
    await refusedWithoutChange(() => wms.request('POST', path, { headers: { 'Content-Type': 'application/json' }, raw: '{"product":' }), serverError(400));
    await refusedWithoutChange(() => wms.request('POST', path, { headers: FORM, raw: 'sku=X' }), serverError(415));
  });

  it('GET …/packaging-units/{pKey} under another load unit or transport unit: 404 svc.wms.inv.pu.pKeyNotExists', async () => {
    const pu = await newPU(wms, bk, '1', product.sku, pc(2));
    expectApiError(await wms.get(`/v1/transport-units/${bk}/load-units/2/packaging-units/${pu.pKey}`), 404, 'svc.wms.inv.pu.pKeyNotExists');
    const other = await divided(wms, 1);
    expectApiError(await wms.get(`/v1/transport-units/${other}/load-units/1/packaging-units/${pu.pKey}`), 404, 'svc.wms.inv.pu.pKeyNotExists');
  });
});

describe('packaging unit lookups', () => {
  let bk: string;
  let product: any;
  let other: any;
  let pus: any[];
  beforeAll(async () => {
    product = await newProduct(wms);
    other = await newProduct(wms);
    bk = await divided(wms, 2, LOC_AISLE);
    pus = [
      await newPU(wms, bk, '1', product.sku, pc(5)),
      await newPU(wms, bk, '1', product.sku, pc(20)),
      await newPU(wms, bk, '2', product.sku, pc(10)),
      await newPU(wms, bk, '2', other.sku, pc(7)),
    ];
    // A fourth one of the product, allocated (blocked): not offered.
    const allocated = await newPU(wms, bk, '2', product.sku, pc(99));
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
    const magnitudes = async (path: string) => (await listOf(wms, path)).map((pu) => pu.quantity.magnitude);
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
    const elsewhere = await divided(wms, 1);
    await newPU(wms, elsewhere, '1', product.sku, pc(50));
    const found = await listOf(wms, `/v1/packaging-units?sku=${product.sku}&sort=DESC&amount=2`);
    expect(found.map((pu) => [pu.loadUnit.transportUnitBK, pu.quantity.magnitude])).toEqual([
      [elsewhere, 50],
      [bk, 20],
    ]);
    expectApiError(await wms.get('/v1/packaging-units?sku=NO-SUCH'), 404, 'svc.wms.inv.product.notFoundBySku');
    // The index link as the spec writes it (empty values) is refused as a request.
    expectApiError(await wms.get('/v1/packaging-units?sku=&amount=&sort='), 400, 'core.validation.error');
  });

  it('GET /v1/packaging-units?productPKey=&locationGroupName= looks in the group and the groups below it', async () => {
    const inStock = await divided(wms, 1, LOC_STOCK);
    const stockPu = await newPU(wms, inStock, '1', product.sku, pc(1));
    const keys = async (group: string) =>
      (await listOf(wms, `/v1/packaging-units?productPKey=${product.pKey}&locationGroupName=${group}`)).map((pu) => pu.pKey).sort();
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
    const product = await newProduct(wms);
    const source = await divided(wms, 2, LOC_PICK);
    const older = await newPU(wms, source, '1', product.sku, pc(10), { expiresAt: '2031-06-01T00:00:00Z' });
    const newer = await newPU(wms, source, '2', product.sku, doz(1), { expiresAt: '2030-06-01T00:00:00Z' });
    const target = await divided(wms, 1);
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
    expect((await listOf(wms, `/v1/transport-units/${source}/load-units/packaging-units`)).map((pu) => pu.pKey)).toEqual([newer.pKey]);
    const move = events.slice(before).find((e) => e.type === 'packagingUnit.moved')!;
    expect(move.data).toMatchObject({ sku: product.sku, sourceLocation: LOC_PICK, pKey: moved.pKey });
    expect(move.data.taken).toEqual([
      { pKey: older.pKey, quantity: '10 PC', emptied: true },
      { pKey: newer.pKey, quantity: '5 PC', emptied: false },
    ]);
  });

  it('moves all of it, creates the target load unit with loadUnitType, and keeps a remainder in its unit when whole', async () => {
    const product = await newProduct(wms, { baseUnit: kg(1) });
    const source = await divided(wms, 1, LOC_EMPTY);
    const a = await newPU(wms, source, '1', product.sku, kg(2));
    const target = await newTransportUnit(wms);
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
    expect((await loadUnitsOf(wms, target))[0]).toMatchObject({ physicalPosition: '1', type: 'CARTON' });
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
      product = await newProduct(wms);
      source = await divided(wms, 1, LOC_STOCK);
      await newPU(wms, source, '1', product.sku, pc(4));
      const blocked = await newPU(wms, source, '1', product.sku, pc(100));
      wms.app.module('inventory').packagingUnits.setAllocated(blocked.pKey, true);
      target = await divided(wms, 1);
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
      await newPU(wms, target, '1', product.sku, pc(2));
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
  it('packagingUnits.create puts stock in, creating the load unit; onTransportUnit reads it', async () => {
    const { packagingUnits } = wms.app.module('inventory');
    const p = await newProduct(wms);
    const bk = await newTransportUnit(wms);
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
    expect((await loadUnitsOf(wms, bk))[0]).toMatchObject({ label: 'LU-LABEL', type: 'CARTON' });
  });

  it("packagingUnits.create joins the caller's unit of work: rolled back with it, announced after its commit", async () => {
    const { packagingUnits } = wms.app.module('inventory');
    const { work } = wms.app;
    const p = await newProduct(wms);
    const bk = await newTransportUnit(wms);
    const before = await inventoryState(wms);
    const eventsBefore = events.length;
    expect(() =>
      work.run(() => {
        packagingUnits.create({ transportUnitBK: bk, luPos: '1', sku: p.sku, quantity: { family: 'Piece', unit: 'PC', base: 1 }, loadUnitType: 'CARTON' });
        throw new Error('the caller fails later');
      }),
    ).toThrow('the caller fails later');
    expect(await inventoryState(wms)).toEqual(before);
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
    const p = await newProduct(wms);
    const bk = await divided(wms, 1);
    const pu = await newPU(wms, bk, '1', p.sku, pc(1));
    expect(packagingUnits.setAllocated(pu.pKey, true).allocated).toBe(true);
    expect(await listOf(wms, `/v1/packaging-units?sku=${p.sku}`)).toEqual([]);
    expect(packagingUnits.setAllocated(pu.pKey, false).allocated).toBe(false);
    expect((await listOf(wms, `/v1/packaging-units?sku=${p.sku}`)).map((u) => u.pKey)).toEqual([pu.pKey]);
    expect(() => packagingUnits.setAllocated('nope', true)).toThrow(DomainError);
  });
});
