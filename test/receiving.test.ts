import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, type Reply, type TestAppliance, type RecordedEvent } from './support/appliance.ts';
import { apiError, recordEvents, refusal } from './support/expect.ts';

// Receiving module (docs/receiving.md, "States and transitions /
// Receiving order", endpoints "Receiving orders", errors; decisions in
// docs/receiving.md). Every refused request is shown to change nothing: receiving
// orders, load units and packaging units read the same after it, and no event is
// published.

const PIECE = 'org.vendor.core.units.api.Piece';
const PIECE_UNIT = 'org.vendor.core.units.api.PieceUnit';
/** What a refusal of a malformed quantity shows as the quantity format (docs/inventory.md). */
const QUANTITY_EXAMPLE = '{"@class": "org.vendor.core.units.api.Piece", "unitType": ["org.vendor.core.units.api.PieceUnit", "PC"], "magnitude": 5}';
const WEIGHT = 'org.vendor.core.units.api.Weight';
const WEIGHT_UNIT = 'org.vendor.core.units.api.WeightUnit';
const ORDER_TYPE = 'application/vnd.vendor.receiving.receiving-order-v1+json';
const RO = '/v1/receiving-orders';
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const LOC_DOCK = 'REC/0001/0001/0001/0001';

const pc = (magnitude: number) => ({ '@class': PIECE, unitType: [PIECE_UNIT, 'PC'], magnitude });
const doz = (magnitude: number) => ({ '@class': PIECE, unitType: [PIECE_UNIT, 'DOZ'], magnitude });
const kg = (magnitude: number) => ({ '@class': WEIGHT, unitType: [WEIGHT_UNIT, 'KG'], magnitude });
const g = (magnitude: number) => ({ '@class': WEIGHT, unitType: [WEIGHT_UNIT, 'G'], magnitude });
const enc = encodeURIComponent;

let wms: TestAppliance;
const events: RecordedEvent[] = [];

beforeAll(async () => {
  wms = await startTestAppliance();
  recordEvents(wms, events);
  const reply = await wms.post('/v1/locations', { locationId: LOC_DOCK, locationGroupName: 'WAREHOUSE' });
  expect(reply.status, reply.text).toBe(201);
});
afterAll(() => wms.close());

// ---- helpers ----------------------------------------------------------------

let counter = 0;
const unique = (prefix: string) => `${prefix}-${String(++counter).padStart(4, '0')}`;

async function newProduct(fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await wms.post('/v1/products', [{ sku: unique('SKU'), baseUnit: pc(1), ...fields }]);
  expect(reply.status, reply.text).toBe(201);
  return reply.body[0];
}

async function newTransportUnit(): Promise<string> {
  const barcode = unique('TU');
  const reply = await wms.post('/v1/transport-units', { barcode, actualLocation: LOC_DOCK, transportUnitType: 'EURO' });
  expect(reply.status, reply.text).toBe(201);
  return barcode;
}

async function dividedTransportUnit(parts: number): Promise<string> {
  const bk = await newTransportUnit();
  const reply = await wms.request('POST', '/v1/transport-unit', {
    headers: FORM,
    raw: new URLSearchParams({ transportUnitBK: bk, loadUnitType: 'EURO-HALF', parts: String(parts) }).toString(),
  });
  expect(reply.status, reply.text).toBe(201);
  return bk;
}

const position = (positionId: string, sku: string, quantityExpected: unknown) => ({ positionId, product: { sku }, quantityExpected });

async function newOrder(positions: unknown[], extra: Record<string, unknown> = {}): Promise<any> {
  const reply = await wms.post(RO, { links: [], orderId: unique('RO'), positions, ...extra });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

const capture = (pKey: string, body: unknown, loadUnitType?: string) =>
  wms.post(`${RO}/${pKey}/capture${loadUnitType === undefined ? '' : `?loadUnitType=${enc(loadUnitType)}`}`, body);

async function captured(pKey: string, body: unknown, loadUnitType?: string): Promise<any> {
  const reply = await capture(pKey, body, loadUnitType);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const captureOf = (sku: string, quantityReceived: unknown, barcode: string, loadUnitLabel?: string) => ({
  quantityReceived,
  product: { sku },
  barcode,
  ...(loadUnitLabel === undefined ? {} : { loadUnitLabel }),
});

async function listOf(path: string): Promise<any[]> {
  const reply = await wms.get(path);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const orderOf = async (pKey: string) => {
  const reply = await wms.get(`${RO}/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
};

const packagingUnitsOn = (bk: string) => listOf(`/v1/transport-units/${enc(bk)}/load-units/packaging-units`);

/** Everything receiving can change. */
async function state() {
  return {
    orders: await listOf(RO),
    loadUnits: await listOf('/v1/load-units'),
    packagingUnits: await listOf('/v1/packaging-units'),
  };
}

/** Runs a request that must be refused, and proves that nothing changed (a user's login may be recorded meanwhile). */
const refusedWithoutChange = refusal({ state, events, ignore: (e) => e.type.startsWith('user.') });

/** 400 `core.validation.error`, message exactly 'Generic validation error', an `obj` entry per failing field. */
const validation =
  (...fragments: string[]) =>
  (reply: Reply) => {
    expectApiError(reply, 400, 'core.validation.error');
    expect(reply.body.message).toBe('Generic validation error');
    expect(reply.body.class).toBe('String');
    expect(Array.isArray(reply.body.obj)).toBe(true);
    for (const item of reply.body.obj) expect(typeof item).toBe('string');
    const details = (reply.body.obj as string[]).join(' | ');
    for (const fragment of fragments) expect(details, details).toContain(fragment);
  };

const rels = (o: any) => (o.links as { rel: string }[]).map((l) => l.rel);
const typesSince = (from: number) =>
  events
    .slice(from)
    .map((e) => e.type)
    .filter((t) => !t.startsWith('user.'));

// ---- lists and indexes --------------------------------------------------------

describe('indexes and lists', () => {
  it('GET /v1/receiving-orders answers an empty array before any order exists', async () => {
    const reply = await wms.get(RO);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('the entry index links receiving-order-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['receiving-order-index'].href).toBe(`${wms.url}/v1/receiving-orders/index`);
    expect((await wms.get(new URL(reply.body._links['receiving-order-index'].href).pathname)).status).toBe(200);
  });

  it('GET /v1/receiving-orders/index has exactly the six link names of the spec', async () => {
    const reply = await wms.get(`${RO}/index`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(Object.keys(reply.body._links).sort()).toEqual([
      'receiving-order-cancel',
      'receiving-order-capture',
      'receiving-order-create',
      'receiving-order-findall',
      'receiving-order-findbyorderid',
      'receiving-order-findbypkey',
    ]);
    const href = (name: string) => reply.body._links[name].href as string;
    expect(href('receiving-order-findall')).toBe(`${wms.url}${RO}`);
    expect(href('receiving-order-create')).toBe(`${wms.url}${RO}`);
    expect(href('receiving-order-findbypkey')).toBe(`${wms.url}${RO}/{pKey}`);
    expect(href('receiving-order-findbyorderid')).toBe(`${wms.url}${RO}?orderId={orderId}`);
    expect(href('receiving-order-capture')).toBe(`${wms.url}${RO}/{pKey}/capture?loadUnitType={loadUnitType}`);
    expect(href('receiving-order-cancel')).toBe(`${wms.url}${RO}/{pKey}`);
  });

  it('answers the index as XML when asked', async () => {
    const reply = await wms.get(`${RO}/index`, { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(reply.text).toContain('receiving-order-capture');
  });
});

// ---- create and find ---------------------------------------------------------

describe('POST /v1/receiving-orders', () => {
  it('creates the order: 201, Location with trailing slash, positions OPEN, nothing received yet', async () => {
    const a = await newProduct();
    const w = await newProduct({ baseUnit: kg(1) });
    const orderId = unique('RO');
    const from = events.length;
    const reply = await wms.post(RO, {
      links: [],
      orderId,
      details: { supplier: 'ACME', dock: 3, notes: { fragile: true } },
      positions: [position('10', a.sku, doz(2)), position('20', w.sku, kg(1.5))],
    });
    expect(reply.status, reply.text).toBe(201);
    const o = reply.body;
    expect(reply.headers.get('location')).toBe(`${wms.url}${RO}/${o.pKey}/`);
    expect(o).toMatchObject({ ol: 0, orderId, state: 'CREATED', details: { supplier: 'ACME', dock: 3, notes: { fragile: true } } });
    expect(typeof o.pKey).toBe('string');
    expect(o.createDt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(o.lastModifiedDt).toBe(o.createDt);
    expect(o.links).toEqual([
      { rel: 'receiving-order-findbypkey', href: `${wms.url}${RO}/${o.pKey}` },
      { rel: 'receiving-order-capture', href: `${wms.url}${RO}/${o.pKey}/capture` },
      { rel: 'receiving-order-cancel', href: `${wms.url}${RO}/${o.pKey}` },
    ]);
    expect(o.positions).toHaveLength(2);
    expect(o.positions[0]).toMatchObject({
      positionId: '10',
      state: 'OPEN',
      product: { sku: a.sku, pKey: a.pKey },
      quantityExpected: doz(2),
      quantityReceived: doz(0),
      captures: [],
    });
    expect(o.positions[1]).toMatchObject({ positionId: '20', state: 'OPEN', product: { sku: w.sku }, quantityExpected: kg(1.5), quantityReceived: kg(0) });
    expect(typesSince(from)).toEqual(['receivingOrder.created']);
    expect(events.at(-1)?.data).toEqual({ pKey: o.pKey, orderId, positions: 2 });
    // The Location is readable as it is.
    const located = await wms.get(new URL(reply.headers.get('location')!).pathname);
    expect(located.status).toBe(200);
    expect(located.body).toEqual(o);
  });

  it('accepts the earlier quantity form (amount, unit) and answers in the current one', async () => {
    const a = await newProduct();
    const o = await newOrder([{ positionId: '1', product: { sku: a.sku }, quantityExpected: { amount: 4, unit: 'PC' } }]);
    expect(o.positions[0].quantityExpected).toEqual(pc(4));
    expect(o.details).toEqual({});
  });

  it('answers the vendor media type when asked for it', async () => {
    const a = await newProduct();
    const reply = await wms.post(RO, { orderId: unique('RO'), positions: [position('1', a.sku, pc(1))] }, { headers: { Accept: ORDER_TYPE } });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/vnd\.vendor\.receiving\.receiving-order-v1\+json/);
  });

  it('refuses a duplicate orderId: 409 already.exists', async () => {
    const a = await newProduct();
    const o = await newOrder([position('1', a.sku, pc(1))]);
    await refusedWithoutChange(() => wms.post(RO, { orderId: o.orderId, positions: [position('1', a.sku, pc(2))] }), apiError(409, 'already.exists'));
  });

  it('refuses an unknown product: 404 svc.wms.rec.product404 naming the SKU', async () => {
    const a = await newProduct();
    const reply = await refusedWithoutChange(
      () => wms.post(RO, { orderId: unique('RO'), positions: [position('1', a.sku, pc(1)), position('2', 'NO-SUCH-SKU', pc(1))] }),
      apiError(404, 'svc.wms.rec.product404'),
    );
    expect(reply.body.message).toBe('Product with SKU [NO-SUCH-SKU] does not exist');
  });

  describe('invalid or missing fields: 400 core.validation.error, "Generic validation error", details in obj', () => {
    let sku: string;
    beforeAll(async () => {
      sku = (await newProduct()).sku;
    });
    const cases: [string, () => unknown, string[]][] = [
      ['missing orderId', () => ({ positions: [position('1', sku, pc(1))] }), ['orderId:']],
      ['empty orderId', () => ({ orderId: '  ', positions: [position('1', sku, pc(1))] }), ['orderId: must not be empty']],
      ['missing positions', () => ({ orderId: unique('RO') }), ['positions:']],
      ['empty positions', () => ({ orderId: unique('RO'), positions: [] }), ['positions: must not be empty']],
      ['positions not an array', () => ({ orderId: unique('RO'), positions: 'x' }), ['positions:']],
      [
        'duplicate positionId',
        () => ({ orderId: unique('RO'), positions: [position('1', sku, pc(1)), position('1', sku, pc(2))] }),
        ['positions[1].positionId: [1] appears more than once'],
      ],
      ['missing positionId', () => ({ orderId: unique('RO'), positions: [{ product: { sku }, quantityExpected: pc(1) }] }), ['positions[0].positionId:']],
      ['missing product', () => ({ orderId: unique('RO'), positions: [{ positionId: '1', quantityExpected: pc(1) }] }), ['positions[0].product:']],
      ['missing quantity', () => ({ orderId: unique('RO'), positions: [{ positionId: '1', product: { sku } }] }), ['positions[0].quantityExpected:']],
      [
        'quantity without magnitude',
        () => ({ orderId: unique('RO'), positions: [position('1', sku, { '@class': PIECE, unitType: [PIECE_UNIT, 'PC'] })] }),
        ['positions[0].quantityExpected: magnitude (or amount) is required'],
      ],
      [
        'unknown unit',
        () => ({ orderId: unique('RO'), positions: [position('1', sku, { '@class': PIECE, unitType: [PIECE_UNIT, 'BOX'], magnitude: 1 })] }),
        ['positions[0].quantityExpected: unknown unit [BOX]'],
      ],
      [
        'negative magnitude',
        () => ({ orderId: unique('RO'), positions: [position('1', sku, pc(-3))] }),
        ['positions[0].quantityExpected: magnitude must not be negative'],
      ],
      ['zero quantity', () => ({ orderId: unique('RO'), positions: [position('1', sku, pc(0))] }), ['positions[0].quantityExpected: must be greater than 0']],
      [
        'fractional pieces',
        () => ({ orderId: unique('RO'), positions: [position('1', sku, pc(1.5))] }),
        ['positions[0].quantityExpected: 1.5 PC is not a whole number of pieces'],
      ],
      ['details not an object', () => ({ orderId: unique('RO'), details: 'x', positions: [position('1', sku, pc(1))] }), ['details:']],
      ['no body', () => undefined, ['body:']],
      [
        'several fields at once',
        () => ({ positions: [position('1', sku, pc(-1)), position('1', sku, pc(1))] }),
        ['orderId:', 'positions[0].quantityExpected:', 'positions[1].positionId:'],
      ],
    ];
    for (const [what, body, fragments] of cases) {
      it(what, async () => {
        await refusedWithoutChange(() => wms.post(RO, body()), validation(...fragments));
      });
    }

    it('a quantity of another family than the product base unit', async () => {
      const weighed = await newProduct({ baseUnit: g(500) });
      await refusedWithoutChange(
        () => wms.post(RO, { orderId: unique('RO'), positions: [position('1', sku, pc(1)), position('2', weighed.sku, pc(3))] }),
        validation(`positions[1].quantityExpected: [PC] is a unit of Piece, but product [${weighed.sku}] is kept in Weight`),
      );
    });

    it('malformed JSON is refused before processing (server-declined 400)', async () => {
      await refusedWithoutChange(
        () => wms.request('POST', RO, { headers: { 'Content-Type': 'application/json' }, raw: '{"orderId":' }),
        (reply) => expectServerError(reply, 400),
      );
    });
  });
});

describe('GET /v1/receiving-orders…', () => {
  it('finds an order by pKey and by orderId; lists it among all', async () => {
    const a = await newProduct();
    const o = await newOrder([position('1', a.sku, pc(5))]);
    const byPKey = await wms.get(`${RO}/${o.pKey}`);
    expect(byPKey.status).toBe(200);
    expect(byPKey.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(byPKey.body).toEqual(o);
    const byOrderId = await wms.get(`${RO}?orderId=${enc(o.orderId)}`);
    expect(byOrderId.status).toBe(200);
    expect(byOrderId.body).toEqual(o);
    const all = await listOf(RO);
    expect(all.find((x) => x.pKey === o.pKey)).toEqual(o);
    // Oldest first.
    const created = all.map((x) => x.createDt as string);
    expect([...created].sort()).toEqual(created);
  });

  it('answers 404 not.found for an unknown pKey or orderId', async () => {
    expectApiError(await wms.get(`${RO}/no-such-order`), 404, 'not.found');
    const reply = await wms.get(`${RO}?orderId=NO-SUCH-ORDER`);
    expectApiError(reply, 404, 'not.found');
    expect(reply.body.message).toContain('NO-SUCH-ORDER');
  });
});

// ---- cancel -------------------------------------------------------------------

describe('DELETE /v1/receiving-orders/{pKey}', () => {
  it('cancels a CREATED order: 204, state CANCELED, positions CANCELED, no capture or cancel link', async () => {
    const a = await newProduct();
    const o = await newOrder([position('1', a.sku, pc(5)), position('2', a.sku, pc(1))]);
    const from = events.length;
    const reply = await wms.del(`${RO}/${o.pKey}`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    const after = await orderOf(o.pKey);
    expect(after).toMatchObject({ state: 'CANCELED', ol: 1 });
    expect(after.positions.map((p: any) => p.state)).toEqual(['CANCELED', 'CANCELED']);
    expect(rels(after)).toEqual(['receiving-order-findbypkey']);
    expect(typesSince(from)).toEqual(['receivingOrder.canceled']);
    expect(events.at(-1)?.data).toEqual({ pKey: o.pKey, orderId: o.orderId });
  });

  it('refuses to cancel an already cancelled order: 403 CANCELLATION.DENIED [orderId, state, pKey]', async () => {
    const a = await newProduct();
    const o = await newOrder([position('1', a.sku, pc(5))]);
    expect((await wms.del(`${RO}/${o.pKey}`)).status).toBe(204);
    const reply = await refusedWithoutChange(() => wms.del(`${RO}/${o.pKey}`), apiError(403, 'CANCELLATION.DENIED'));
    expect(reply.body.obj).toEqual([o.orderId, 'CANCELED', o.pKey]);
  });

  it('refuses to cancel an order in process: 403 CANCELLATION.DENIED [orderId, PROCESSING, pKey]', async () => {
    const a = await newProduct();
    const bk = await newTransportUnit();
    const o = await newOrder([position('1', a.sku, pc(5))]);
    expect((await captured(o.pKey, captureOf(a.sku, pc(2), bk), 'CARTON')).state).toBe('PROCESSING');
    const reply = await refusedWithoutChange(() => wms.del(`${RO}/${o.pKey}`), apiError(403, 'CANCELLATION.DENIED'));
    expect(reply.body.obj).toEqual([o.orderId, 'PROCESSING', o.pKey]);
    expect(reply.body.message).toContain('in process');
  });

  it('answers 404 not.found for an unknown order', async () => {
    await refusedWithoutChange(() => wms.del(`${RO}/no-such-order`), apiError(404, 'not.found'));
  });
});

// ---- capture --------------------------------------------------------------------

describe('POST /v1/receiving-orders/{pKey}/capture', () => {
  it('announce, capture onto a transport unit: packaging units appear there, the order is PROCESSED, a later cancel is denied', async () => {
    const a = await newProduct();
    const bk = await newTransportUnit();
    const o = await newOrder([position('10', a.sku, pc(10))]);
    expect(await packagingUnitsOn(bk)).toEqual([]);
    const from = events.length;
    const reply = await capture(o.pKey, { quantityReceived: pc(10), product: { links: [], sku: a.sku }, barcode: bk, loadUnitLabel: '1' }, 'CARTON');
    expect(reply.status, reply.text).toBe(200);
    const after = reply.body;
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    expect(after).toMatchObject({ pKey: o.pKey, orderId: o.orderId, state: 'PROCESSED', ol: 1 });
    expect(rels(after)).toEqual(['receiving-order-findbypkey']);
    expect(after.positions[0]).toMatchObject({ positionId: '10', state: 'PROCESSED', quantityExpected: pc(10), quantityReceived: pc(10) });

    const units = await packagingUnitsOn(bk);
    expect(units).toHaveLength(1);
    expect(units[0]).toMatchObject({
      product: { sku: a.sku },
      quantity: pc(10),
      physicalPosition: '1',
      actualLocation: LOC_DOCK,
      message: `Received with ReceivingOrder [${o.orderId}]`,
    });
    expect(after.positions[0].captures).toEqual([
      { packagingUnitPKey: units[0].pKey, transportUnitBK: bk, loadUnitLabel: '1', quantity: pc(10), capturedAt: after.lastModifiedDt },
    ]);
    const [lu] = await listOf(`/v1/transport-units/${enc(bk)}/load-units`);
    expect(lu).toMatchObject({ physicalPosition: '1', type: 'CARTON', label: '1' });

    expect(typesSince(from)).toEqual(['packagingUnit.created', 'receivingOrder.captured', 'receivingOrder.processed']);
    expect(events.find((e, i) => i >= from && e.type === 'receivingOrder.captured')?.data).toEqual({
      pKey: o.pKey,
      orderId: o.orderId,
      state: 'PROCESSED',
      captures: [
        {
          sku: a.sku,
          quantity: '10 PC',
          transportUnitBK: bk,
          loadUnitLabel: '1',
          packagingUnitPKey: units[0].pKey,
          positions: [{ positionId: '10', quantity: '10 PC' }],
        },
      ],
    });

    expect(await orderOf(o.pKey)).toEqual(after);
    const denied = await refusedWithoutChange(() => wms.del(`${RO}/${o.pKey}`), apiError(403, 'CANCELLATION.DENIED'));
    expect(denied.body.obj).toEqual([o.orderId, 'PROCESSED', o.pKey]);
    // Nothing more can be captured on it.
    const closed = await refusedWithoutChange(() => capture(o.pKey, captureOf(a.sku, pc(1), bk, '1')), apiError(409, 'svc.wms.rec.order.captureDenied'));
    expect(closed.body.obj).toEqual([o.orderId, 'PROCESSED', o.pKey]);
  });

  it('partial captures across two positions of the same product fill them in order', async () => {
    const a = await newProduct();
    const bk = await newTransportUnit();
    const o = await newOrder([position('P1', a.sku, pc(5)), position('P2', a.sku, pc(7))]);

    let after = await captured(o.pKey, captureOf(a.sku, pc(3), bk, '1'), 'CARTON');
    expect(after.state).toBe('PROCESSING');
    expect(rels(after)).toEqual(['receiving-order-findbypkey', 'receiving-order-capture']);
    expect(after.positions.map((p: any) => [p.positionId, p.state, p.quantityReceived.magnitude])).toEqual([
      ['P1', 'PROCESSING', 3],
      ['P2', 'OPEN', 0],
    ]);

    // 4 more: 2 complete P1, 2 go to P2; one packaging unit of 4, booked as two parts.
    const from = events.length;
    after = await captured(o.pKey, captureOf(a.sku, pc(4), bk, '1'));
    expect(after.state).toBe('PROCESSING');
    expect(after.positions.map((p: any) => [p.positionId, p.state, p.quantityReceived.magnitude])).toEqual([
      ['P1', 'PROCESSED', 5],
      ['P2', 'PROCESSING', 2],
    ]);
    const second = after.positions[0].captures[1].packagingUnitPKey;
    expect(after.positions[1].captures).toEqual([expect.objectContaining({ packagingUnitPKey: second, quantity: pc(2) })]);
    expect(after.positions[0].captures.map((c: any) => c.quantity)).toEqual([pc(3), pc(2)]);
    expect(typesSince(from)).toEqual(['packagingUnit.created', 'receivingOrder.captured']);

    after = await captured(o.pKey, captureOf(a.sku, pc(5), bk, '1'));
    expect(after.state).toBe('PROCESSED');
    expect(after.positions.map((p: any) => [p.positionId, p.state, p.quantityReceived.magnitude])).toEqual([
      ['P1', 'PROCESSED', 5],
      ['P2', 'PROCESSED', 7],
    ]);
    expect((await packagingUnitsOn(bk)).map((u) => u.quantity.magnitude).sort()).toEqual([3, 4, 5]);
  });

  it('captures of different products go into different load units (array request, one transaction)', async () => {
    const a = await newProduct();
    const w = await newProduct({ baseUnit: kg(1) });
    const bk = await newTransportUnit();
    const o = await newOrder([position('A', a.sku, doz(1)), position('W', w.sku, kg(2))]);
    const from = events.length;
    const after = await captured(
      o.pKey,
      [captureOf(a.sku, pc(12), bk, 'LU-A'), captureOf(w.sku, g(1500), bk, 'LU-W'), captureOf(w.sku, g(500), bk, 'LU-W')],
      'CARTON',
    );
    expect(after.state).toBe('PROCESSED');
    expect(after.positions[0]).toMatchObject({ state: 'PROCESSED', quantityExpected: doz(1), quantityReceived: doz(1) });
    expect(after.positions[1]).toMatchObject({ state: 'PROCESSED', quantityExpected: kg(2), quantityReceived: kg(2) });
    const units = await packagingUnitsOn(bk);
    expect(units.map((u) => [u.physicalPosition, u.product.sku, u.quantity])).toEqual([
      ['LU-A', a.sku, pc(12)],
      ['LU-W', w.sku, g(1500)],
      ['LU-W', w.sku, g(500)],
    ]);
    const loadUnits = await listOf(`/v1/transport-units/${enc(bk)}/load-units`);
    expect(loadUnits.map((lu) => lu.physicalPosition).sort()).toEqual(['LU-A', 'LU-W']);
    expect(typesSince(from)).toEqual([
      'packagingUnit.created',
      'packagingUnit.created',
      'packagingUnit.created',
      'receivingOrder.captured',
      'receivingOrder.processed',
    ]);
  });

  it('puts the goods on load unit "1" when no loadUnitLabel is given', async () => {
    const a = await newProduct();
    const bk = await dividedTransportUnit(2);
    const o = await newOrder([position('1', a.sku, pc(3))]);
    // The load unit exists (division), so no loadUnitType is needed.
    const after = await captured(o.pKey, captureOf(a.sku, pc(1), bk));
    expect(after.positions[0].captures[0].loadUnitLabel).toBe('1');
    expect((await packagingUnitsOn(bk)).map((u) => u.physicalPosition)).toEqual(['1']);
    // An empty loadUnitType is the same as none.
    expect((await capture(o.pKey, captureOf(a.sku, pc(1), bk, '2'), '')).status).toBe(200);
    expect((await packagingUnitsOn(bk)).map((u) => u.physicalPosition).sort()).toEqual(['1', '2']);
  });

  it('books more than expected onto the last open position when the product allows overbooking', async () => {
    const a = await newProduct({ overbookingAllowed: true });
    const bk = await newTransportUnit();
    const o = await newOrder([position('1', a.sku, pc(4)), position('2', a.sku, pc(6))]);
    const after = await captured(o.pKey, captureOf(a.sku, pc(12), bk, '1'), 'CARTON');
    expect(after.state).toBe('PROCESSED');
    expect(after.positions.map((p: any) => [p.state, p.quantityReceived])).toEqual([
      ['PROCESSED', pc(4)],
      ['PROCESSED', pc(8)],
    ]);
    expect((await packagingUnitsOn(bk)).map((u) => u.quantity)).toEqual([pc(12)]);
  });

  it('refuses more than the open positions demand without overbooking: 409 svc.wms.rec.overbookingNotAllowed', async () => {
    const a = await newProduct();
    const bk = await newTransportUnit();
    const o = await newOrder([position('1', a.sku, pc(4)), position('2', a.sku, pc(6))]);
    await captured(o.pKey, captureOf(a.sku, pc(3), bk, '1'), 'CARTON');
    const reply = await refusedWithoutChange(() => capture(o.pKey, captureOf(a.sku, pc(8), bk, '1')), apiError(409, 'svc.wms.rec.overbookingNotAllowed'));
    expect(reply.body.obj).toEqual([o.orderId, a.sku, '8 PC', '7 PC']);
    // Exactly the rest is fine.
    expect((await captured(o.pKey, captureOf(a.sku, pc(7), bk, '1'))).state).toBe('PROCESSED');
  });

  describe('refusals (each changes nothing)', () => {
    let a: any;
    let b: any;
    let other: any;
    let bk: string;
    let o: any;
    beforeAll(async () => {
      a = await newProduct();
      b = await newProduct();
      other = await newProduct();
      bk = await newTransportUnit();
      o = await newOrder([position('A', a.sku, pc(5)), position('B', b.sku, pc(5))]);
      // Position B is satisfied, A still open: the order is in process.
      expect((await captured(o.pKey, captureOf(b.sku, pc(5), bk, '1'), 'CARTON')).state).toBe('PROCESSING');
    });

    it('unknown product: 404 svc.wms.rec.product404 "Product with SKU [..] does not exist"', async () => {
      const reply = await refusedWithoutChange(() => capture(o.pKey, captureOf('NO-SUCH-SKU', pc(1), bk, '1')), apiError(404, 'svc.wms.rec.product404'));
      expect(reply.body.message).toBe('Product with SKU [NO-SUCH-SKU] does not exist');
    });

    it('a product no position demands: 404 svc.wms.rec.product404', async () => {
      const reply = await refusedWithoutChange(() => capture(o.pKey, captureOf(other.sku, pc(1), bk, '1')), apiError(404, 'svc.wms.rec.product404'));
      expect(reply.body.message).toBe(`No open position of ReceivingOrder [${o.orderId}] demands the Product with SKU [${other.sku}]`);
    });

    it('a product whose positions are all satisfied: 404 svc.wms.rec.product404', async () => {
      const reply = await refusedWithoutChange(() => capture(o.pKey, captureOf(b.sku, pc(1), bk, '1')), apiError(404, 'svc.wms.rec.product404'));
      expect(reply.body.message).toContain('No open position');
    });

    it('unknown transport unit: 404 svc.common.common.tu.notFoundByBK', async () => {
      await refusedWithoutChange(
        () => capture(o.pKey, captureOf(a.sku, pc(1), 'NO-SUCH-TU', '1'), 'CARTON'),
        apiError(404, 'svc.common.common.tu.notFoundByBK'),
      );
    });

    it('a missing load unit and no loadUnitType: 400 svc.wms.inv.pu.loadUnitTypeMissing', async () => {
      await refusedWithoutChange(() => capture(o.pKey, captureOf(a.sku, pc(1), bk, 'NEW-LU')), apiError(400, 'svc.wms.inv.pu.loadUnitTypeMissing'));
    });

    it('unknown order: 404 not.found', async () => {
      await refusedWithoutChange(() => capture('no-such-order', captureOf(a.sku, pc(1), bk, '1')), apiError(404, 'not.found'));
    });

    it('a quantity of another family than the product: 400 generic validation error', async () => {
      await refusedWithoutChange(
        () => capture(o.pKey, captureOf(a.sku, kg(1), bk, '1')),
        validation(`quantityReceived: [KG] is a unit of Weight, but product [${a.sku}] is kept in Piece`),
      );
    });

    const bodies: [string, () => unknown, string[]][] = [
      ['no body', () => undefined, ['body:']],
      ['empty array', () => [], ['body: at least one capture request is required']],
      ['missing barcode', () => ({ quantityReceived: pc(1), product: { sku: a.sku } }), ['barcode:']],
      ['missing product', () => ({ quantityReceived: pc(1), barcode: bk }), ['product:']],
      ['missing quantity', () => ({ product: { sku: a.sku }, barcode: bk }), ['quantityReceived:']],
      ['negative magnitude', () => captureOf(a.sku, pc(-1), bk), ['quantityReceived: magnitude must not be negative']],
      ['zero quantity', () => captureOf(a.sku, pc(0), bk), ['quantityReceived: must be greater than 0']],
      ['unknown unit', () => captureOf(a.sku, { '@class': PIECE, unitType: [PIECE_UNIT, 'BOX'], magnitude: 1 }, bk), ['quantityReceived: unknown unit [BOX]']],
      // A malformed quantity: the refusal shows what one looks like.
      [
        'a quantity as a bare number',
        () => ({ quantityReceived: 5, product: { sku: a.sku }, barcode: bk }),
        [`quantityReceived: must be an object; a Quantity looks like ${QUANTITY_EXAMPLE}`],
      ],
      [
        'a unitType that is only the symbol',
        () => captureOf(a.sku, { '@class': PIECE, unitType: 'PC', magnitude: 1 }, bk),
        [
          `quantityReceived.unitType: unitType must be [unit class, unit symbol], two texts; a Quantity looks like ${QUANTITY_EXAMPLE}`,
          'units PC, DOZ, MG, G, KG, T, OZ, LB',
        ],
      ],
      [
        'a magnitude as text',
        () => captureOf(a.sku, { '@class': PIECE, unitType: [PIECE_UNIT, 'PC'], magnitude: '1' }, bk),
        [`quantityReceived.magnitude: magnitude must be a number; a Quantity looks like ${QUANTITY_EXAMPLE}`],
      ],
      [
        'a quantity without a unit',
        () => captureOf(a.sku, { quantity: 1, uom: 'PC' }, bk),
        [`quantityReceived: unitType (or unit) is required; a Quantity looks like ${QUANTITY_EXAMPLE}`],
      ],
      ['an invalid element of an array, named by index', () => [captureOf(a.sku, pc(1), bk), captureOf(a.sku, pc(1), '')], ['[1].barcode: must not be empty']],
    ];
    for (const [what, body, fragments] of bodies) {
      it(`invalid body: ${what}`, async () => {
        await refusedWithoutChange(() => capture(o.pKey, body(), 'CARTON'), validation(...fragments));
      });
    }

    it('an array whose last element fails leaves no packaging unit and no state change', async () => {
      const c = await newProduct();
      const tu = await newTransportUnit();
      const fresh = await newOrder([position('A', a.sku, pc(5)), position('C', c.sku, pc(5))]);
      const before = await state();
      const reply = await refusedWithoutChange(
        () => capture(fresh.pKey, [captureOf(a.sku, pc(5), tu, '1'), captureOf(c.sku, pc(2), tu, '2'), captureOf(c.sku, pc(3), 'NO-SUCH-TU', '2')], 'CARTON'),
        apiError(404, 'svc.common.common.tu.notFoundByBK'),
      );
      expect(reply.body.obj).toEqual(['NO-SUCH-TU']);
      expect(await packagingUnitsOn(tu)).toEqual([]);
      expect(await listOf(`/v1/transport-units/${enc(tu)}/load-units`)).toEqual([]);
      const after = await orderOf(fresh.pKey);
      expect(after.state).toBe('CREATED');
      expect(after.positions.map((p: any) => [p.state, p.quantityReceived.magnitude, p.captures.length])).toEqual([
        ['OPEN', 0, 0],
        ['OPEN', 0, 0],
      ]);
      expect(before.orders.find((x) => x.pKey === fresh.pKey)).toEqual(after);
      // The same array with an over-capture at the end is refused as a whole too.
      await refusedWithoutChange(
        () => capture(fresh.pKey, [captureOf(a.sku, pc(5), tu, '1'), captureOf(c.sku, pc(3), tu, '2'), captureOf(c.sku, pc(3), tu, '2')], 'CARTON'),
        apiError(409, 'svc.wms.rec.overbookingNotAllowed'),
      );
    });

    it('a product whose base unit changed family since the announcement: 400 generic validation error', async () => {
      const p = await newProduct();
      const announced = await newOrder([position('X', p.sku, pc(2))]);
      const changed = await wms.put('/v1/products', { pKey: p.pKey, sku: p.sku, baseUnit: kg(1) });
      expect(changed.status, changed.text).toBe(200);
      await refusedWithoutChange(
        () => capture(announced.pKey, captureOf(p.sku, kg(1), bk, '1')),
        validation('quantityReceived: [KG] is a unit of Weight, but position [X] expects Piece'),
      );
    });

    it('capture on a cancelled order: 409 svc.wms.rec.order.captureDenied', async () => {
      const cancelled = await newOrder([position('A', a.sku, pc(5))]);
      expect((await wms.del(`${RO}/${cancelled.pKey}`)).status).toBe(204);
      const reply = await refusedWithoutChange(
        () => capture(cancelled.pKey, captureOf(a.sku, pc(1), bk, '1')),
        apiError(409, 'svc.wms.rec.order.captureDenied'),
      );
      expect(reply.body.obj).toEqual([cancelled.orderId, 'CANCELED', cancelled.pKey]);
    });
  });
});

// ---- grants ------------------------------------------------------------------

describe('grants', () => {
  let readerToken: string;
  beforeAll(async () => {
    const role = await wms.post('/roles', { name: 'RO-READER', grants: ['receiving-orders:read'] });
    expect(role.status, role.text).toBe(201);
    const user = await wms.post('/users', { username: 'ro-reader', password: 'ro-reader-password', roleNames: ['RO-READER'] });
    expect(user.status, user.text).toBe(201);
    const login = await wms.post('/oauth/token', { grant_type: 'password', username: 'ro-reader', password: 'ro-reader-password' }, { anonymous: true });
    expect(login.status, login.text).toBe(200);
    readerToken = login.body.access_token;
  });

  it('reads with receiving-orders:read and needs receiving-orders:write to change', async () => {
    const a = await newProduct();
    const bk = await newTransportUnit();
    const o = await newOrder([position('1', a.sku, pc(1))]);
    const token = readerToken;
    expect((await wms.get(`${RO}/${o.pKey}`, { token })).status).toBe(200);
    expect((await wms.get(`${RO}/index`, { token })).status).toBe(200);
    for (const send of [
      () => wms.post(RO, { orderId: unique('RO'), positions: [position('1', a.sku, pc(1))] }, { token }),
      () => wms.post(`${RO}/${o.pKey}/capture?loadUnitType=CARTON`, captureOf(a.sku, pc(1), bk), { token }),
      () => wms.del(`${RO}/${o.pKey}`, { token }),
    ]) {
      const reply = await refusedWithoutChange(send, (r) => expectServerError(r, 403));
      expect(reply.body.message).toContain('receiving-orders:write');
    }
  });

  it('refuses a request without a token with 401', async () => {
    await refusedWithoutChange(
      () => wms.get(RO, { anonymous: true }),
      (r) => expectServerError(r, 401),
    );
  });
});
