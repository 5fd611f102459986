import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, type TestAppliance } from './support/appliance.ts';

// The flows across modules that issue 4 names, end to end over HTTP: goods announced and
// received onto a transport unit, the unit moved by a movement, and the product shipped.

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

const pieces = (magnitude: number) => ({
  '@class': 'org.vendor.core.units.api.Piece',
  unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'],
  magnitude,
});
const enc = encodeURIComponent;
const GOODS_IN = 'FLOW/GDIN/0001/0000/0000';
const STOCK = 'FLOW/STCK/0001/0001/0001';
const BARCODE = 'FLOW-PALLET-1';

describe('receive, move, ship', () => {
  let order: { pKey: string };

  it('sets up a product, two locations and an empty pallet at goods-in', async () => {
    expect((await wms.post('/v1/products', [{ sku: 'FLOW-SKU', baseUnit: pieces(1), description: 'Flow test article' }])).status).toBe(201);
    for (const locationId of [GOODS_IN, STOCK]) {
      const reply = await wms.post('/v1/locations', { locationId, locationGroupName: 'WAREHOUSE' });
      expect(reply.status, reply.text).toBe(201);
    }
    const tu = await wms.post('/v1/transport-units', { barcode: BARCODE, actualLocation: GOODS_IN, transportUnitType: 'EURO' });
    expect(tu.status, tu.text).toBe(201);
  });

  it('announces a receiving order and captures the goods onto the pallet: packaging units appear, the order is PROCESSED', async () => {
    const created = await wms.post('/v1/receiving-orders', {
      links: [],
      orderId: 'FLOW-REC-1',
      positions: [{ positionId: '1', quantityExpected: pieces(40), product: { sku: 'FLOW-SKU' } }],
    });
    expect(created.status, created.text).toBe(201);
    order = created.body;

    const captured = await wms.post(`/v1/receiving-orders/${order.pKey}/capture?loadUnitType=EURO_LU`, [
      { quantityReceived: pieces(25), product: { sku: 'FLOW-SKU' }, barcode: BARCODE, loadUnitLabel: '1' },
      { quantityReceived: pieces(15), product: { sku: 'FLOW-SKU' }, barcode: BARCODE, loadUnitLabel: '1' },
    ]);
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body.state).toBe('PROCESSED');

    const units = await wms.get(`/v1/transport-units/${enc(BARCODE)}/load-units/packaging-units`);
    expect(units.status, units.text).toBe(200);
    const received = (units.body as { product: { sku: string }; quantity: { magnitude: number } }[])
      .filter((u) => u.product.sku === 'FLOW-SKU')
      .reduce((sum, u) => sum + u.quantity.magnitude, 0);
    expect(received).toBe(40);
  });

  it('refuses to cancel the processed order with 403 CANCELLATION.DENIED', async () => {
    const reply = await wms.del(`/v1/receiving-orders/${order.pKey}`);
    expectApiError(reply, 403, 'CANCELLATION.DENIED');
    expect(reply.body.obj).toEqual(['FLOW-REC-1', 'PROCESSED', order.pKey]);
  });

  it('moves the pallet by a movement: created, activated, completed to the stock location', async () => {
    const created = await wms.post(`/v1/transport-units/${enc(BARCODE)}/movements`, {
      initiator: 'flow-test',
      sourceLocation: GOODS_IN,
      target: STOCK,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.state).toBe('INACTIVE');
    const active = await wms.patch(`/v1/movements/${created.body.pKey}`, { state: 'ACTIVE' });
    expect(active.status, active.text).toBe(200);
    expect(typeof active.body.startedAt).toBe('string');
    const done = await wms.post(`/v1/movements/${created.body.pKey}/complete`, { target: STOCK });
    expect(done.status, done.text).toBe(200);
    expect(done.body.state).toBe('DONE');

    const tu = await wms.get(`/v1/transport-units?bk=${enc(BARCODE)}`);
    expect(tu.body.actualLocation).toBe(STOCK);
  });

  it('ships the product: the order is listed by state in the full and the minimum representation', async () => {
    const created = await wms.post('/v1/shipping-orders', {
      orderId: 'FLOW-SHP-1',
      positions: [{ '@class': 'org.vendor.wms.shipping.api.ShippingOrderPositionVO', pos: '1', product: { sku: 'FLOW-SKU' }, qtyOrdered: pieces(10) }],
    });
    expect(created.status, created.text).toBe(201);

    const full = await wms.get('/v1/ui/shipping-orders?states=CREATED');
    expect(full.status).toBe(200);
    const mine = (full.body as { orderId: string; positions?: unknown[] }[]).find((o) => o.orderId === 'FLOW-SHP-1');
    expect(mine?.positions).toHaveLength(1);

    const minimum = await wms.get('/v1/ui/shipping-orders?states=CREATED', {
      headers: { Accept: 'application/vnd.vendor.shipping-order-v1-minimum+json' },
    });
    expect(minimum.headers.get('content-type')).toMatch(/^application\/vnd\.vendor\.shipping-order-v1-minimum\+json/);
    const slim = (minimum.body as { orderId: string; positions?: unknown[] }[]).find((o) => o.orderId === 'FLOW-SHP-1');
    expect(slim).toBeDefined();
    expect(slim?.positions).toBeUndefined();
  });

  it('refuses to delete the pallet while it carries stock (409), and keeps it', async () => {
    const tu = await wms.get(`/v1/transport-units?bk=${enc(BARCODE)}`);
    const reply = await wms.del(`/v1/transport-units/${tu.body.pKey}`);
    expectApiError(reply, 409, 'svc.common.common.tu.inUse');
    expect((await wms.get(`/v1/transport-units?bk=${enc(BARCODE)}`)).status).toBe(200);
  });
});

describe('entry index', () => {
  it('carries every link name of the reference API entry index for the modules built so far', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(Object.keys(reply.body._links)).toEqual(
      expect.arrayContaining([
        'preferences-index',
        'user-index',
        'role-index',
        'grant-index',
        'tasks-index',
        'account-index',
        'location-index',
        'location-group-index',
        'transport-unit-type-index',
        'transport-unit-index',
        'product-index',
        'load-unit-index',
        'packaging-unit-index',
        'receiving-order-index',
        'movement-index',
        'shipping-order-index',
        'shipping-order-position-index',
        'shipping-order-ui-index',
      ]),
    );
    for (const { href } of Object.values(reply.body._links as Record<string, { href: string }>)) {
      expect((await wms.get(new URL(href).pathname)).status, href).toBe(200);
    }
  });
});
