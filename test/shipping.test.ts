import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, type Reply, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { apiError, recordEvents, refusal, serverError } from './support/expect.ts';

// Shipping module (docs/shipping.md, "States and transitions /
// Shipping order", endpoints "Shipping orders"; decisions and the state transition
// table in docs/shipping.md), black-box over real HTTP. Every refused request is shown
// to change nothing: all orders with their positions read the same after it, the order
// and position tables hold as many rows, and no shipping event was published.

const PIECE = 'org.vendor.core.units.api.Piece';
const PIECE_UNIT = 'org.vendor.core.units.api.PieceUnit';
const WEIGHT = 'org.vendor.core.units.api.Weight';
const WEIGHT_UNIT = 'org.vendor.core.units.api.WeightUnit';
const PRODUCT_POSITION = 'org.vendor.wms.shipping.api.ShippingOrderPositionVO';
const TU_POSITION = 'org.vendor.wms.shipping.api.ShippingTransportUnitOrderPositionVO';
const ORDER_TYPE = 'application/vnd.vendor.shipping-order-v1+json';
const MINIMUM_TYPE = 'application/vnd.vendor.shipping-order-v1-minimum+json';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const SO = '/v1/shipping-orders';
const POS = '/v1/shipping-order-positions';
const UI = '/v1/ui/shipping-orders';
const LOC = 'SHP/0001/0001/0000/0000';

const STATES = ['CREATED', 'AVAILABLE', 'PROCESSING', 'PROCESSED', 'COMMISSIONING', 'ON_TRUCK', 'FAILURE_WMS', 'FAILURE_TMS', 'COMPLETED'] as const;
type State = (typeof STATES)[number];

/** The transition table of docs/shipping.md, written out independently of the code. */
const ALLOWED: Record<State, readonly State[]> = {
  CREATED: ['AVAILABLE', 'FAILURE_WMS'],
  AVAILABLE: ['CREATED', 'PROCESSING', 'FAILURE_WMS'],
  PROCESSING: ['PROCESSED', 'FAILURE_WMS', 'FAILURE_TMS'],
  PROCESSED: ['COMMISSIONING', 'FAILURE_WMS'],
  COMMISSIONING: ['ON_TRUCK', 'FAILURE_WMS', 'FAILURE_TMS'],
  ON_TRUCK: ['COMPLETED', 'FAILURE_TMS'],
  FAILURE_WMS: ['AVAILABLE', 'PROCESSING'],
  FAILURE_TMS: ['COMMISSIONING', 'ON_TRUCK'],
  COMPLETED: [],
};

/** A legal walk from CREATED to each state. */
const PATH_TO: Record<State, readonly State[]> = {
  CREATED: [],
  AVAILABLE: ['AVAILABLE'],
  PROCESSING: ['AVAILABLE', 'PROCESSING'],
  PROCESSED: ['AVAILABLE', 'PROCESSING', 'PROCESSED'],
  COMMISSIONING: ['AVAILABLE', 'PROCESSING', 'PROCESSED', 'COMMISSIONING'],
  ON_TRUCK: ['AVAILABLE', 'PROCESSING', 'PROCESSED', 'COMMISSIONING', 'ON_TRUCK'],
  COMPLETED: ['AVAILABLE', 'PROCESSING', 'PROCESSED', 'COMMISSIONING', 'ON_TRUCK', 'COMPLETED'],
  FAILURE_WMS: ['FAILURE_WMS'],
  FAILURE_TMS: ['AVAILABLE', 'PROCESSING', 'FAILURE_TMS'],
};

const pc = (magnitude: number) => ({ '@class': PIECE, unitType: [PIECE_UNIT, 'PC'], magnitude });
const doz = (magnitude: number) => ({ '@class': PIECE, unitType: [PIECE_UNIT, 'DOZ'], magnitude });
const kg = (magnitude: number) => ({ '@class': WEIGHT, unitType: [WEIGHT_UNIT, 'KG'], magnitude });
const g = (magnitude: number) => ({ '@class': WEIGHT, unitType: [WEIGHT_UNIT, 'G'], magnitude });
const q = encodeURIComponent;

let wms: TestAppliance;
const events: RecordedEvent[] = [];
/** A piece product and a weight product, and two transport units (EURO). */
let pieceSku: string;
let pieceProduct: any;
let weightSku: string;
let tu1: string;
let tu2: string;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${String(++counter).padStart(4, '0')}`;

async function newProduct(baseUnit: unknown): Promise<any> {
  const reply = await wms.post('/v1/products', [{ sku: unique('SHP-SKU'), baseUnit }]);
  expect(reply.status, reply.text).toBe(201);
  return reply.body[0];
}

async function newTransportUnit(transportUnitType = 'EURO'): Promise<string> {
  const barcode = unique('SHP-TU');
  const reply = await wms.post('/v1/transport-units', { barcode, actualLocation: LOC, transportUnitType });
  expect(reply.status, reply.text).toBe(201);
  return barcode;
}

beforeAll(async () => {
  wms = await startTestAppliance();
  recordEvents(wms, events, (event) => event.type.startsWith('shippingOrder'));
  const location = await wms.post('/v1/locations', { locationId: LOC, locationGroupName: 'WAREHOUSE' });
  expect(location.status, location.text).toBe(201);
  pieceProduct = await newProduct({ '@class': PIECE, unitType: [PIECE_UNIT, 'PC'], magnitude: 1 });
  pieceSku = pieceProduct.sku;
  weightSku = (await newProduct(kg(1))).sku;
  tu1 = await newTransportUnit();
  tu2 = await newTransportUnit('TOTE');
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

const productPosition = (pos: string, fields: Record<string, unknown> = {}) => ({
  '@class': PRODUCT_POSITION,
  pos,
  product: { sku: pieceSku },
  qtyOrdered: pc(5),
  ...fields,
});

const tuPosition = (pos: string, fields: Record<string, unknown> = {}) => ({
  '@class': TU_POSITION,
  pos,
  transportUnitBK: tu1,
  ...fields,
});

/** A valid order body: one product and one transport unit position. */
const orderBody = (fields: Record<string, unknown> = {}) => ({
  orderId: unique('SO'),
  positions: [productPosition('10'), tuPosition('20')],
  ...fields,
});

async function createOrder(fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await wms.post(SO, orderBody(fields));
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function read(pKey: string): Promise<any> {
  const reply = await wms.get(`${SO}/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function patchOrder(pKey: string, body: unknown): Promise<any> {
  const reply = await wms.patch(`${SO}/${pKey}`, body);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function patchPosition(pKey: string, body: unknown): Promise<any> {
  const reply = await wms.patch(`${POS}/${pKey}`, body);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Walks an order along legal moves. */
async function walk(pKey: string, states: readonly State[]): Promise<any> {
  let order = await read(pKey);
  for (const state of states) {
    order = await patchOrder(pKey, { state });
    expect(order.state).toBe(state);
  }
  return order;
}

/** A new order in the given state. */
async function orderIn(state: State): Promise<any> {
  const order = await createOrder();
  return walk(order.pKey, PATH_TO[state]);
}

const count = (table: string) => wms.app.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

/** Every order (with its positions) as the API shows it, and the row counts. */
async function snapshot() {
  const reply = await wms.get(UI);
  expect(reply.status, reply.text).toBe(200);
  return { orders: reply.body as any[], orderRows: count('shipping_orders'), positionRows: count('shipping_order_positions') };
}

/** Runs a request that must be refused, and proves that nothing changed. */
const refusedWithoutChange = refusal({ state: snapshot, events });

const relsOf = (reply: Reply) => Object.keys(reply.body._links).sort();

// ---- indexes ----------------------------------------------------------------

describe('indexes', () => {
  it('GET /v1/shipping-orders/index names the links of both revisions', async () => {
    const reply = await wms.get(`${SO}/index`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(relsOf(reply)).toEqual(
      [
        'shipping-order-create',
        'shipping-order-findbyorderid',
        'shipping-order-findbypkey',
        'shipping-order-findbypositionpkey',
        'shipping-order-partialupdate',
        'shipping-order-updateorderpartially',
        'shipping-order-updatepositionpartially',
      ].sort(),
    );
    const href = (name: string) => reply.body._links[name].href as string;
    expect(href('shipping-order-create')).toBe(`${wms.url}${SO}`);
    expect(href('shipping-order-findbypkey')).toBe(`${wms.url}${SO}/{pKey}`);
    expect(href('shipping-order-findbyorderid')).toBe(`${wms.url}${SO}?orderId={orderId}`);
    expect(href('shipping-order-findbypositionpkey')).toBe(`${wms.url}/v1/shipping-order-positions/{pKey}`);
    expect(href('shipping-order-updateorderpartially')).toBe(`${wms.url}${SO}/{pKey}`);
    expect(href('shipping-order-partialupdate')).toBe(`${wms.url}${SO}/{pKey}`);
    expect(href('shipping-order-updatepositionpartially')).toBe(`${wms.url}/v1/shipping-order-positions/{pKey}`);
  });

  it('GET /v1/shipping-order-positions/index names the position operations', async () => {
    const reply = await wms.get(`${POS}/index`);
    expect(reply.status).toBe(200);
    expect(relsOf(reply)).toEqual(['shipping-order-findbypositionpkey', 'shipping-order-updatepositionpartially']);
    expect(reply.body._links['shipping-order-updatepositionpartially'].href).toBe(`${wms.url}${POS}/{pKey}`);
  });

  it('GET /v1/ui/shipping-orders/index names the lookup by states', async () => {
    const reply = await wms.get(`${UI}/index`);
    expect(reply.status).toBe(200);
    expect(reply.body._links['shipping-order-ui-findbystates'].href).toBe(`${wms.url}${UI}?states={states}`);
  });

  it('the entry index links the three shipping indexes, and each answers', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['shipping-order-index'].href).toBe(`${wms.url}${SO}/index`);
    expect(reply.body._links['shipping-order-position-index'].href).toBe(`${wms.url}${POS}/index`);
    expect(reply.body._links['shipping-order-ui-index'].href).toBe(`${wms.url}${UI}/index`);
    for (const name of ['shipping-order-index', 'shipping-order-position-index', 'shipping-order-ui-index']) {
      expect((await wms.get(new URL(reply.body._links[name].href).pathname)).status, name).toBe(200);
    }
  });
});

// ---- create and read ----------------------------------------------------------

describe('POST /v1/shipping-orders', () => {
  it('creates an order with both position kinds mixed and every optional field', async () => {
    const orderId = unique('SO-FULL');
    const eventsBefore = events.length;
    const reply = await wms.post(SO, {
      orderId,
      customerOrderId: 'CUST-ORDER-1',
      customerNo: 'C-100',
      shippingType: 'DHL',
      startMode: 'MANUAL',
      priority: 3,
      latestDueDate: '2025-03-12T08:15:00Z',
      startDate: '2025-03-11T06:00:00.123456789Z',
      details: { ramp: 'R1', fragile: true, weight: 12.5 },
      positions: [
        productPosition('10', { qtyOrdered: pc(5), qtyCrossdock: pc(2), priority: 1, details: { note: 'top' }, targetName: 'RAMP-1' }),
        tuPosition('20', { transportUnitTypeName: 'EURO', targetName: 'RAMP-2' }),
        productPosition('30', { qtyOrdered: doz(2) }),
        tuPosition('40', { transportUnitBK: tu2 }),
      ],
    });
    expect(reply.status, reply.text).toBe(201);
    const order = reply.body;
    expect(reply.headers.get('location')).toBe(`${wms.url}${SO}/${order.pKey}`);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(order).toMatchObject({
      orderId,
      customerOrderId: 'CUST-ORDER-1',
      customerNo: 'C-100',
      shippingType: 'DHL',
      startMode: 'MANUAL',
      priority: 3,
      state: 'CREATED',
      latestDueDate: '2025-03-12T08:15:00.000Z',
      startDate: '2025-03-11T06:00:00.123Z',
      details: { ramp: 'R1', fragile: true, weight: 12.5 },
      ol: 0,
    });
    expect(order.createDt).toMatch(ISO_MS);
    expect(order.lastModifiedDt).toMatch(ISO_MS);
    expect(order.links).toEqual([{ rel: 'shipping-order-findbypkey', href: `${wms.url}${SO}/${order.pKey}` }]);
    expect(order.positions.map((p: any) => p.pos)).toEqual(['10', '20', '30', '40']);
    const [p10, p20, p30, p40] = order.positions;
    for (const p of order.positions) {
      expect(p).toMatchObject({ orderPKey: order.pKey, orderId, orderPositionState: 'CREATED', ol: 0 });
      expect(p.pKey).toEqual(expect.any(String));
      expect(p.createDt).toMatch(ISO_MS);
      expect(p.links).toEqual([{ rel: 'shipping-order-findbypositionpkey', href: `${wms.url}${POS}/${p.pKey}` }]);
    }
    expect(p10).toMatchObject({
      '@class': PRODUCT_POSITION,
      priority: 1,
      details: { note: 'top' },
      targetName: 'RAMP-1',
      product: {
        sku: pieceSku,
        pKey: pieceProduct.pKey,
        ol: pieceProduct.ol,
        createDt: pieceProduct.createDt,
        lastModifiedDt: pieceProduct.lastModifiedDt,
      },
      qtyOrdered: pc(5),
      qtyCrossdock: pc(2),
    });
    expect(p20).toEqual(expect.objectContaining({ '@class': TU_POSITION, transportUnitBK: tu1, transportUnitTypeName: 'EURO', targetName: 'RAMP-2' }));
    expect(p20.qtyOrdered).toBeUndefined();
    expect(p20.product).toBeUndefined();
    expect(p30).toMatchObject({ '@class': PRODUCT_POSITION, qtyOrdered: doz(2) });
    expect(p30.qtyCrossdock).toBeUndefined();
    // The type name defaults to the unit's own type.
    expect(p40).toMatchObject({ '@class': TU_POSITION, transportUnitBK: tu2, transportUnitTypeName: 'TOTE' });
    expect(events.slice(eventsBefore).map((e) => e.type)).toEqual(['shippingOrder.created']);
  });

  it('accepts timestamps with 0, 3 and 9 fractional digits and offsets, stored as UTC milliseconds', async () => {
    for (const [sent, stored] of [
      ['2025-06-01T10:00:00Z', '2025-06-01T10:00:00.000Z'],
      ['2025-06-01T10:00:00.250Z', '2025-06-01T10:00:00.250Z'],
      ['2025-06-01T10:00:00.987654321Z', '2025-06-01T10:00:00.987Z'],
      ['2025-06-01T12:00:00.000+02:00', '2025-06-01T10:00:00.000Z'],
    ]) {
      const order = await createOrder({ latestDueDate: sent, startDate: sent });
      expect(order.latestDueDate, sent).toBe(stored);
      expect(order.startDate, sent).toBe(stored);
    }
  });

  it('leaves absent optional fields out of the reply', async () => {
    const order = await createOrder();
    for (const field of ['customerOrderId', 'customerNo', 'shippingType', 'startMode', 'priority', 'latestDueDate', 'startDate']) {
      expect(order[field], field).toBeUndefined();
    }
    expect(order.details).toEqual({});
  });

  it("takes any unit of the product's family: grams for a product counted in kilograms", async () => {
    const order = await createOrder({
      positions: [productPosition('1', { product: { sku: weightSku }, qtyOrdered: g(1500), qtyCrossdock: kg(1) })],
    });
    expect(order.positions[0]).toMatchObject({ qtyOrdered: g(1500), qtyCrossdock: kg(1) });
  });

  it('accepts a crossdock quantity equal to the ordered one, compared in base units (1 DOZ = 12 PC)', async () => {
    const order = await createOrder({ positions: [productPosition('1', { qtyOrdered: pc(12), qtyCrossdock: doz(1) })] });
    expect(order.positions[0]).toMatchObject({ qtyOrdered: pc(12), qtyCrossdock: doz(1) });
  });
});

describe('GET /v1/shipping-orders', () => {
  let created: any;
  beforeAll(async () => {
    created = await createOrder({ customerNo: 'C-READ' });
  });

  it('GET /v1/shipping-orders/{pKey} answers the order with its positions', async () => {
    const reply = await wms.get(`${SO}/${created.pKey}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(created);
  });

  it('GET /v1/shipping-orders?orderId= answers the same order', async () => {
    const reply = await wms.get(`${SO}?orderId=${q(created.orderId)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(created);
  });

  it('GET /v1/shipping-order-positions/{pKey} answers the order the position belongs to', async () => {
    for (const position of created.positions) {
      const reply = await wms.get(`${POS}/${position.pKey}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(created);
    }
  });

  it('answers the vendor media type when asked for it', async () => {
    const reply = await wms.get(`${SO}/${created.pKey}`, { headers: { Accept: ORDER_TYPE } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe(ORDER_TYPE);
    expect(reply.body).toEqual(created);
  });

  it('answers 404 not.found for an unknown order pKey, orderId or position pKey', async () => {
    expectApiError(await wms.get(`${SO}/no-such-order`), 404, 'not.found');
    expectApiError(await wms.get(`${SO}?orderId=NO-SUCH-ORDER`), 404, 'not.found');
    expectApiError(await wms.get(`${POS}/no-such-position`), 404, 'not.found');
    // An order's pKey is not a position's.
    expectApiError(await wms.get(`${POS}/${created.pKey}`), 404, 'not.found');
  });
});

// ---- UI list by states ----------------------------------------------------------

describe('GET /v1/ui/shipping-orders', () => {
  let inCreated: any;
  let inProcessing: any;
  let inCompleted: any;
  beforeAll(async () => {
    inCreated = await orderIn('CREATED');
    inProcessing = await orderIn('PROCESSING');
    inCompleted = await orderIn('COMPLETED');
  });

  const keysOf = (orders: any[]) => orders.map((o) => o.pKey);

  it('?states=CREATED,PROCESSING answers only the orders in those states, in full with positions', async () => {
    const reply = await wms.get(`${UI}?states=CREATED,PROCESSING`);
    expect(reply.status).toBe(200);
    const orders = reply.body as any[];
    expect(orders.every((o) => o.state === 'CREATED' || o.state === 'PROCESSING')).toBe(true);
    expect(keysOf(orders)).toEqual(expect.arrayContaining([inCreated.pKey, inProcessing.pKey]));
    expect(keysOf(orders)).not.toContain(inCompleted.pKey);
    expect(orders.find((o) => o.pKey === inProcessing.pKey)).toEqual(await read(inProcessing.pKey));
    expect(orders.find((o) => o.pKey === inCreated.pKey).positions).toHaveLength(2);
  });

  it('with Accept of the full vendor type answers the full orders in that type', async () => {
    const reply = await wms.get(`${UI}?states=CREATED,PROCESSING`, { headers: { Accept: ORDER_TYPE } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe(ORDER_TYPE);
    expect(reply.body.find((o: any) => o.pKey === inProcessing.pKey)).toEqual(await read(inProcessing.pKey));
  });

  it('with Accept of the -minimum type answers the orders without positions in that type', async () => {
    const reply = await wms.get(`${UI}?states=CREATED,PROCESSING`, { headers: { Accept: MINIMUM_TYPE } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe(MINIMUM_TYPE);
    const orders = reply.body as any[];
    expect(orders.length).toBeGreaterThan(0);
    for (const o of orders) expect(o.positions, o.orderId).toBeUndefined();
    const { positions: _positions, ...withoutPositions } = await read(inProcessing.pKey);
    expect(orders.find((o) => o.pKey === inProcessing.pKey)).toEqual(withoutPositions);
    expect(keysOf(orders)).not.toContain(inCompleted.pKey);
  });

  it('?states=COMPLETED answers the completed orders only', async () => {
    const reply = await wms.get(`${UI}?states=COMPLETED`);
    expect(reply.status).toBe(200);
    expect(reply.body.every((o: any) => o.state === 'COMPLETED')).toBe(true);
    expect(keysOf(reply.body)).toContain(inCompleted.pKey);
  });

  it('without states answers every order, in any state', async () => {
    const reply = await wms.get(UI);
    expect(reply.status).toBe(200);
    expect(keysOf(reply.body)).toEqual(expect.arrayContaining([inCreated.pKey, inProcessing.pKey, inCompleted.pKey]));
    expect(reply.body).toHaveLength(count('shipping_orders'));
    expect(reply.body.find((o: any) => o.pKey === inCompleted.pKey)).toEqual(await read(inCompleted.pKey));
  });

  it('without states and with Accept of the -minimum type leaves the positions out', async () => {
    const reply = await wms.get(UI, { headers: { Accept: MINIMUM_TYPE } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe(MINIMUM_TYPE);
    expect(reply.body).toHaveLength(count('shipping_orders'));
    for (const o of reply.body) expect(o.positions).toBeUndefined();
  });

  it('an unknown state (or an empty list) is refused with 400 core.validation.error', async () => {
    await refusedWithoutChange(() => wms.get(`${UI}?states=CREATED,SHIPPED`), apiError(400, 'core.validation.error'));
    await refusedWithoutChange(() => wms.get(`${UI}?states=created`), apiError(400, 'core.validation.error'));
    await refusedWithoutChange(() => wms.get(`${UI}?states=`), apiError(400, 'core.validation.error'));
  });
});

// ---- order partial updates --------------------------------------------------------

describe('PATCH /v1/shipping-orders/{pKey}', () => {
  it('changes only the fields the body carries, and null clears an optional one', async () => {
    const order = await createOrder({ customerNo: 'C-1', priority: 5, shippingType: 'UPS', details: { a: 1 } });
    const eventsBefore = events.length;
    const changed = await patchOrder(order.pKey, { customerNo: 'C-2', priority: 7, details: { b: 'two' } });
    expect(changed).toMatchObject({ customerNo: 'C-2', priority: 7, shippingType: 'UPS', details: { b: 'two' }, state: 'CREATED', ol: 1 });
    expect(changed.positions).toEqual(order.positions);
    expect(events.slice(eventsBefore).map((e) => e.type)).toEqual(['shippingOrder.changed']);

    const cleared = await patchOrder(order.pKey, { shippingType: null, latestDueDate: '2025-04-01T00:00:00.5Z' });
    expect(cleared.shippingType).toBeUndefined();
    expect(cleared).toMatchObject({ customerNo: 'C-2', priority: 7, latestDueDate: '2025-04-01T00:00:00.500Z', ol: 2 });
    const clearedMore = await patchOrder(order.pKey, { customerNo: null, priority: null, latestDueDate: null, details: null });
    for (const field of ['customerNo', 'priority', 'latestDueDate', 'shippingType']) expect(clearedMore[field], field).toBeUndefined();
    expect(clearedMore.details).toEqual({});
    expect(await read(order.pKey)).toEqual(clearedMore);
  });

  it('walks the happy path CREATED → AVAILABLE → PROCESSING → PROCESSED → COMMISSIONING → ON_TRUCK → COMPLETED', async () => {
    const order = await createOrder();
    const eventsBefore = events.length;
    const path = ['AVAILABLE', 'PROCESSING', 'PROCESSED', 'COMMISSIONING', 'ON_TRUCK', 'COMPLETED'] as const;
    let from: State = 'CREATED';
    for (const state of path) {
      const changed = await patchOrder(order.pKey, { state });
      expect(changed.state).toBe(state);
      expect((await read(order.pKey)).state).toBe(state);
      const stateChanged = events.slice(eventsBefore).filter((e) => e.type === 'shippingOrder.stateChanged');
      expect(stateChanged.at(-1)).toMatchObject({ data: { pKey: order.pKey, orderId: order.orderId, from, to: state } });
      from = state;
    }
  });

  it('failures are retried: FAILURE_WMS back to AVAILABLE or PROCESSING, FAILURE_TMS back to COMMISSIONING or ON_TRUCK', async () => {
    const order = await createOrder();
    await walk(order.pKey, ['AVAILABLE', 'FAILURE_WMS', 'AVAILABLE', 'PROCESSING', 'FAILURE_WMS', 'PROCESSING', 'PROCESSED']);
    await walk(order.pKey, ['FAILURE_WMS', 'PROCESSING', 'FAILURE_TMS', 'COMMISSIONING', 'FAILURE_TMS', 'ON_TRUCK', 'FAILURE_TMS']);
    await walk(order.pKey, ['COMMISSIONING', 'ON_TRUCK', 'COMPLETED']);
  });

  it('an AVAILABLE order can be withdrawn to CREATED', async () => {
    const order = await orderIn('AVAILABLE');
    expect((await patchOrder(order.pKey, { state: 'CREATED' })).state).toBe('CREATED');
  });

  it('moving to the state the order is in is accepted and changes no state', async () => {
    const order = await orderIn('PROCESSED');
    const eventsBefore = events.length;
    const same = await patchOrder(order.pKey, { state: 'PROCESSED' });
    expect(same.state).toBe('PROCESSED');
    expect(events.slice(eventsBefore).filter((e) => e.type === 'shippingOrder.stateChanged')).toEqual([]);
  });

  describe('every move of the transition table is accepted', () => {
    for (const from of STATES) {
      for (const to of ALLOWED[from]) {
        it(`${from} → ${to}`, async () => {
          const order = await orderIn(from);
          const changed = await patchOrder(order.pKey, { state: to });
          expect(changed.state).toBe(to);
          expect((await read(order.pKey)).state).toBe(to);
        });
      }
    }
  });

  describe('every other move is refused with 409 svc.wms.shp.order.invalidStateTransition and changes nothing', () => {
    for (const from of STATES.filter((s) => s !== 'COMPLETED')) {
      const illegal = STATES.filter((to) => to !== from && !ALLOWED[from].includes(to));
      it(`from ${from}: ${illegal.join(', ')}`, async () => {
        const order = await orderIn(from);
        for (const to of illegal) {
          const reply = await refusedWithoutChange(
            () => wms.patch(`${SO}/${order.pKey}`, { state: to, customerNo: 'SHOULD-NOT-STICK' }),
            apiError(409, 'svc.wms.shp.order.invalidStateTransition'),
          );
          expect(reply.body.obj, `${from} → ${to}`).toEqual([order.orderId, from, to]);
        }
        expect(await read(order.pKey)).toEqual(order);
      });
    }
  });

  it('a COMPLETED order refuses any change with 409 svc.wms.shp.order.completed', async () => {
    const order = await orderIn('COMPLETED');
    for (const body of [...STATES.map((state) => ({ state })), { customerNo: 'C-LATE' }, { priority: 1 }, { details: { late: true } }, {}]) {
      await refusedWithoutChange(() => wms.patch(`${SO}/${order.pKey}`, body), apiError(409, 'svc.wms.shp.order.completed'));
    }
    for (const position of order.positions) {
      await refusedWithoutChange(() => wms.patch(`${POS}/${position.pKey}`, { priority: 9 }), apiError(409, 'svc.wms.shp.order.completed'));
    }
    expect(await read(order.pKey)).toEqual(order);
  });

  it('a matching ol is accepted; a stale ol is refused with 409 core.optimistic.lock', async () => {
    const order = await createOrder();
    const changed = await patchOrder(order.pKey, { ol: 0, customerNo: 'C-OL' });
    expect(changed.ol).toBe(1);
    await refusedWithoutChange(
      () => wms.patch(`${SO}/${order.pKey}`, { ol: 0, customerNo: 'C-STALE', state: 'AVAILABLE' }),
      apiError(409, 'core.optimistic.lock'),
    );
    expect(await read(order.pKey)).toEqual(changed);
  });

  it('refuses invalid fields with 400 core.validation.error and changes nothing', async () => {
    const order = await createOrder();
    for (const body of [
      { state: 'SHIPPED' },
      { priority: 'high' },
      { priority: 1.5 },
      { startMode: 'SOMETIMES' },
      { latestDueDate: '2025-02-30T00:00:00Z' },
      { startDate: '2025-03-12 08:15:00' },
      { details: ['a'] },
      { ol: -1 },
    ]) {
      await refusedWithoutChange(() => wms.patch(`${SO}/${order.pKey}`, body), apiError(400, 'core.validation.error'));
    }
    expect(await read(order.pKey)).toEqual(order);
  });

  it('refuses malformed JSON and a wrong content type (server-declined) and changes nothing', async () => {
    const order = await createOrder();
    await refusedWithoutChange(
      () => wms.request('PATCH', `${SO}/${order.pKey}`, { headers: { 'Content-Type': 'application/json' }, raw: '{"state": "AVAILABLE",' }),
      serverError(400),
    );
    await refusedWithoutChange(
      () => wms.request('PATCH', `${SO}/${order.pKey}`, { headers: { 'Content-Type': 'text/plain' }, raw: 'state=AVAILABLE' }),
      serverError(415),
    );
    expect(await read(order.pKey)).toEqual(order);
  });

  it('answers 404 not.found for an unknown order', async () => {
    await refusedWithoutChange(() => wms.patch(`${SO}/no-such-order`, { priority: 1 }), apiError(404, 'not.found'));
  });
});

// ---- position partial updates --------------------------------------------------

describe('PATCH /v1/shipping-order-positions/{pKey}', () => {
  it('moves the position state along the table and answers the position', async () => {
    const order = await createOrder();
    const position = order.positions[0];
    const eventsBefore = events.length;
    let changed: any;
    for (const state of ['AVAILABLE', 'PROCESSING', 'FAILURE_WMS', 'PROCESSING', 'PROCESSED']) {
      changed = await patchPosition(position.pKey, { orderPositionState: state });
      expect(changed.orderPositionState).toBe(state);
    }
    expect(changed).toMatchObject({ pKey: position.pKey, orderPKey: order.pKey, orderId: order.orderId, pos: position.pos, ol: 5 });
    expect(changed.links).toEqual(position.links);
    const after = await read(order.pKey);
    expect(after.positions[0]).toEqual(changed);
    // The order and its other position are untouched.
    expect(after.state).toBe('CREATED');
    expect(after.ol).toBe(order.ol);
    expect(after.positions[1]).toEqual(order.positions[1]);
    expect(events.slice(eventsBefore).map((e) => e.type)).toEqual(Array(5).fill('shippingOrderPosition.changed'));
  });

  it('refuses every illegal position move with 409 svc.wms.shp.position.invalidStateTransition [orderId/pos, from, to]', async () => {
    const order = await createOrder();
    const position = order.positions[1];
    for (const to of STATES.filter((s) => s !== 'CREATED' && !ALLOWED.CREATED.includes(s))) {
      const reply = await refusedWithoutChange(
        () => wms.patch(`${POS}/${position.pKey}`, { orderPositionState: to, targetName: 'SHOULD-NOT-STICK' }),
        apiError(409, 'svc.wms.shp.position.invalidStateTransition'),
      );
      expect(reply.body.obj).toEqual([`${order.orderId}/${position.pos}`, 'CREATED', to]);
    }
    await patchPosition(position.pKey, { orderPositionState: 'AVAILABLE' });
    const reply = await refusedWithoutChange(
      () => wms.patch(`${POS}/${position.pKey}`, { orderPositionState: 'COMPLETED' }),
      apiError(409, 'svc.wms.shp.position.invalidStateTransition'),
    );
    expect(reply.body.obj).toEqual([`${order.orderId}/${position.pos}`, 'AVAILABLE', 'COMPLETED']);
  });

  it('changes priority, details and targetName; null clears them', async () => {
    const order = await createOrder();
    const position = order.positions[0];
    const changed = await patchPosition(position.pKey, { priority: 4, targetName: 'DOCK-7', details: { lane: 3 } });
    expect(changed).toMatchObject({ priority: 4, targetName: 'DOCK-7', details: { lane: 3 }, qtyOrdered: pc(5), orderPositionState: 'CREATED' });
    const cleared = await patchPosition(position.pKey, { priority: null, targetName: null });
    expect(cleared.priority).toBeUndefined();
    expect(cleared.targetName).toBeUndefined();
    expect(cleared.details).toEqual({ lane: 3 });
    expect((await read(order.pKey)).positions[0]).toEqual(cleared);
    expect((await patchPosition(position.pKey, { details: null })).details).toEqual({});
  });

  it("changes qtyOrdered within the product's family and qtyCrossdock up to the ordered amount; null clears crossdock", async () => {
    const order = await createOrder();
    const position = order.positions[0];
    expect((await patchPosition(position.pKey, { qtyOrdered: doz(2) })).qtyOrdered).toEqual(doz(2));
    expect((await patchPosition(position.pKey, { qtyCrossdock: pc(24) })).qtyCrossdock).toEqual(pc(24));
    const cleared = await patchPosition(position.pKey, { qtyCrossdock: null });
    expect(cleared.qtyCrossdock).toBeUndefined();
    expect(cleared.qtyOrdered).toEqual(doz(2));
  });

  it('refuses quantities of another family, crossdock above ordered and invalid quantities with 400, changing nothing', async () => {
    const order = await createOrder({ positions: [productPosition('1', { qtyOrdered: pc(10), qtyCrossdock: pc(4) })] });
    const position = order.positions[0];
    for (const body of [
      { qtyOrdered: kg(1) },
      { qtyCrossdock: g(1) },
      { qtyCrossdock: pc(11) },
      { qtyCrossdock: doz(1) },
      // Lowering the ordered amount below the crossdock amount.
      { qtyOrdered: pc(3) },
      { qtyOrdered: pc(-1) },
      { qtyOrdered: pc(0.5) },
      { qtyOrdered: { '@class': PIECE, unitType: [PIECE_UNIT, 'BOX'], magnitude: 1 } },
      { qtyOrdered: null },
      { priority: 'urgent' },
      { orderPositionState: 'LOST' },
    ]) {
      await refusedWithoutChange(() => wms.patch(`${POS}/${position.pKey}`, body), apiError(400, 'core.validation.error'));
    }
    expect(await read(order.pKey)).toEqual(order);
  });

  it('refuses quantities on a transport unit position with 400, changing nothing', async () => {
    const order = await createOrder();
    const position = order.positions[1];
    expect(position['@class']).toBe(TU_POSITION);
    for (const body of [{ qtyOrdered: pc(1) }, { qtyCrossdock: pc(1) }, { qtyCrossdock: null, priority: 2 }]) {
      await refusedWithoutChange(() => wms.patch(`${POS}/${position.pKey}`, body), apiError(400, 'core.validation.error'));
    }
    // Its other fields change.
    expect(await patchPosition(position.pKey, { targetName: 'RAMP-9', orderPositionState: 'AVAILABLE' })).toMatchObject({
      '@class': TU_POSITION,
      targetName: 'RAMP-9',
      orderPositionState: 'AVAILABLE',
      transportUnitBK: tu1,
    });
  });

  it('a stale ol is refused with 409 core.optimistic.lock', async () => {
    const order = await createOrder();
    const position = order.positions[0];
    expect((await patchPosition(position.pKey, { ol: 0, priority: 1 })).ol).toBe(1);
    await refusedWithoutChange(() => wms.patch(`${POS}/${position.pKey}`, { ol: 0, priority: 2 }), apiError(409, 'core.optimistic.lock'));
  });

  it('answers 404 not.found for an unknown position', async () => {
    await refusedWithoutChange(() => wms.patch(`${POS}/no-such-position`, { priority: 1 }), apiError(404, 'not.found'));
  });
});

// ---- refused creates ------------------------------------------------------------

describe('POST /v1/shipping-orders refuses bad input and changes nothing', () => {
  const validation = apiError(400, 'core.validation.error');
  const post = (body: unknown) => () => wms.post(SO, body);

  it('a duplicate orderId → 409 already.exists', async () => {
    const existing = await createOrder();
    await refusedWithoutChange(post(orderBody({ orderId: existing.orderId, customerNo: 'OTHER' })), apiError(409, 'already.exists'));
    expect(await read(existing.pKey)).toEqual(existing);
  });

  it('empty or missing positions → 400', async () => {
    await refusedWithoutChange(post(orderBody({ positions: [] })), validation);
    await refusedWithoutChange(post({ orderId: unique('SO') }), validation);
    await refusedWithoutChange(post(orderBody({ positions: null })), validation);
  });

  it('missing or empty orderId → 400', async () => {
    const { orderId: _orderId, ...withoutId } = orderBody();
    await refusedWithoutChange(post(withoutId), validation);
    await refusedWithoutChange(post(orderBody({ orderId: '' })), validation);
    await refusedWithoutChange(post(orderBody({ orderId: '   ' })), validation);
  });

  it('an unknown or missing position @class → 400', async () => {
    const { '@class': _class, ...withoutClass } = productPosition('20');
    await refusedWithoutChange(
      post(orderBody({ positions: [productPosition('10'), { ...productPosition('20'), '@class': 'org.vendor.wms.shipping.api.Other' }] })),
      validation,
    );
    await refusedWithoutChange(post(orderBody({ positions: [productPosition('10'), withoutClass] })), validation);
  });

  it('a duplicate pos → 400', async () => {
    await refusedWithoutChange(post(orderBody({ positions: [productPosition('10'), tuPosition('10')] })), validation);
  });

  it('invalid quantities → 400: negative, unknown unit, weight for a piece product, half a piece, missing', async () => {
    for (const qtyOrdered of [
      pc(-1),
      { '@class': PIECE, unitType: [PIECE_UNIT, 'CRATE'], magnitude: 1 },
      kg(1),
      pc(0.5),
      { '@class': PIECE, unitType: [PIECE_UNIT, 'PC'] },
      undefined,
    ]) {
      await refusedWithoutChange(post(orderBody({ positions: [tuPosition('10'), productPosition('20', { qtyOrdered })] })), validation);
    }
    // A piece quantity for a product counted in weight.
    await refusedWithoutChange(post(orderBody({ positions: [productPosition('10', { product: { sku: weightSku }, qtyOrdered: pc(1) })] })), validation);
  });

  it('a crossdock quantity above the ordered one → 400 (compared in base units)', async () => {
    await refusedWithoutChange(post(orderBody({ positions: [productPosition('10', { qtyOrdered: pc(5), qtyCrossdock: pc(6) })] })), validation);
    await refusedWithoutChange(post(orderBody({ positions: [productPosition('10', { qtyOrdered: pc(11), qtyCrossdock: doz(1) })] })), validation);
    await refusedWithoutChange(post(orderBody({ positions: [productPosition('10', { qtyOrdered: pc(5), qtyCrossdock: kg(1) })] })), validation);
  });

  it('a position without product sku → 400', async () => {
    await refusedWithoutChange(post(orderBody({ positions: [productPosition('10', { product: {} })] })), validation);
    await refusedWithoutChange(post(orderBody({ positions: [tuPosition('10', { transportUnitBK: undefined })] })), validation);
  });

  it('an unknown sku → 404 svc.wms.inv.product.notFoundBySku', async () => {
    await refusedWithoutChange(
      post(orderBody({ positions: [productPosition('10', { product: { sku: 'NO-SUCH-SKU' } })] })),
      apiError(404, 'svc.wms.inv.product.notFoundBySku'),
    );
  });

  it('an unknown transport unit → 404 svc.common.common.tu.notFoundByBK', async () => {
    await refusedWithoutChange(
      post(orderBody({ positions: [tuPosition('10', { transportUnitBK: 'NO-SUCH-TU' })] })),
      apiError(404, 'svc.common.common.tu.notFoundByBK'),
    );
  });

  it('an unknown transport unit type → 404 svc.common.common.tut.notFoundByName', async () => {
    await refusedWithoutChange(
      post(orderBody({ positions: [tuPosition('10', { transportUnitTypeName: 'NO-SUCH-TYPE' })] })),
      apiError(404, 'svc.common.common.tut.notFoundByName'),
    );
  });

  it('an order whose second position is invalid leaves no order and no position behind', async () => {
    const orderId = unique('SO-HALF');
    for (const [second, check] of [
      [productPosition('20', { product: { sku: 'NO-SUCH-SKU' } }), apiError(404, 'svc.wms.inv.product.notFoundBySku')],
      [tuPosition('20', { transportUnitBK: 'NO-SUCH-TU' }), apiError(404, 'svc.common.common.tu.notFoundByBK')],
      [tuPosition('20', { transportUnitTypeName: 'NO-SUCH-TYPE' }), apiError(404, 'svc.common.common.tut.notFoundByName')],
      [productPosition('20', { qtyOrdered: kg(1) }), validation],
      [productPosition('20', { qtyCrossdock: pc(6) }), validation],
    ] as const) {
      await refusedWithoutChange(post({ orderId, positions: [productPosition('10'), second] }), check);
      expectApiError(await wms.get(`${SO}?orderId=${q(orderId)}`), 404, 'not.found');
    }
    // The orderId is still free.
    const order = await createOrder({ orderId });
    expect(order.positions).toHaveLength(2);
  });

  it('malformed JSON → 400 and a wrong content type → 415 (server-declined)', async () => {
    await refusedWithoutChange(
      () => wms.request('POST', SO, { headers: { 'Content-Type': 'application/json' }, raw: '{"orderId": "X", "positions": [' }),
      serverError(400),
    );
    await refusedWithoutChange(
      () => wms.request('POST', SO, { headers: { 'Content-Type': 'text/plain' }, raw: JSON.stringify(orderBody()) }),
      serverError(415),
    );
    await refusedWithoutChange(() => wms.request('POST', SO), validation);
  });

  it('invalid timestamps → 400', async () => {
    for (const value of [
      '2025-02-30T00:00:00Z',
      '2025-03-12T08:15:00',
      '2025-03-12 08:15:00Z',
      '2025-03-12T25:00:00Z',
      '2025-03-12T08:15:00.1234567890Z',
      'tomorrow',
      1741767300000,
    ]) {
      await refusedWithoutChange(post(orderBody({ latestDueDate: value })), validation);
      await refusedWithoutChange(post(orderBody({ startDate: value })), validation);
    }
  });

  it('invalid order fields → 400: startMode, priority, details', async () => {
    await refusedWithoutChange(post(orderBody({ startMode: 'LATER' })), validation);
    await refusedWithoutChange(post(orderBody({ priority: 'high' })), validation);
    await refusedWithoutChange(post(orderBody({ details: 'free text' })), validation);
    await refusedWithoutChange(post(orderBody({ details: { nested: { deep: true } } })), validation);
  });

  it('a body that is no object → 400', async () => {
    await refusedWithoutChange(post([orderBody()]), validation);
    await refusedWithoutChange(post('order'), validation);
  });
});
