import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectServerError, type RecordedEvent, type TestAppliance } from './support/appliance.ts';
import { apiError, refusal, validation } from './support/expect.ts';
import {
  create,
  createReply,
  eventTypesSince,
  invalidParameter,
  ISO_MS,
  keys,
  L_OTHER,
  L_SUB,
  L_WH,
  L_ZONE,
  LOC_UNKNOWN,
  newUnit,
  plainNotFound,
  rawJson,
  read,
  snapshot,
  SRC,
  startedOf,
  stateOf,
  TO,
  transportOrderAppliance,
  TU,
  unit,
  type Order,
} from './support/transport-orders.ts';

// Transport orders (docs/transport-orders.md): the module's index, creating an order,
// which starts at once when its unit has no running order and is queued otherwise, and
// the grants that read and change orders. Black-box over real HTTP. Every refused
// request is shown to change nothing: all orders, transport units and locations read
// the same after it as before, and no event was published.

const ORDER_TYPE = 'application/vnd.vendor.tms.transport-order-v1+json';

let wms: TestAppliance;
const events: RecordedEvent[] = [];
beforeAll(async () => {
  wms = await transportOrderAppliance(events);
});
afterAll(() => wms.close());

const refused = refusal({ state: () => snapshot(wms), events });

// ---- index ------------------------------------------------------------------

describe('GET /v1/transport-orders/index and the entry index', () => {
  it('names every operation of the module', async () => {
    const reply = await wms.get(`${TO}/index`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const links = reply.body._links as Record<string, { href: string }>;
    expect(Object.keys(links).sort()).toEqual(
      [
        'transport-orders-create',
        'transport-orders-findbypkey',
        'transport-orders-findall',
        'transport-orders-findbybarcode',
        'transport-orders-findbystate',
        'transport-orders-findbybarcodeandstate',
        'transport-orders-update',
        'transport-orders-cancel',
      ].sort(),
    );
    const href = (name: string) => links[name]!.href;
    expect(href('transport-orders-create')).toBe(`${wms.url}${TO}`);
    expect(href('transport-orders-findbypkey')).toBe(`${wms.url}${TO}/{pKey}`);
    expect(href('transport-orders-findall')).toBe(`${wms.url}${TO}`);
    expect(href('transport-orders-findbybarcode')).toBe(`${wms.url}${TO}?barcode={barcode}`);
    expect(href('transport-orders-findbystate')).toBe(`${wms.url}${TO}?state={state}`);
    expect(href('transport-orders-findbybarcodeandstate')).toBe(`${wms.url}${TO}?barcode={barcode}&state={state}`);
    expect(href('transport-orders-update')).toBe(`${wms.url}${TO}/{pKey}`);
    expect(href('transport-orders-cancel')).toBe(`${wms.url}${TO}/{pKey}`);
  });

  it('answers the index as XML when asked', async () => {
    const reply = await wms.get(`${TO}/index`, { headers: { Accept: 'application/xml' } });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('rel="transport-orders-findbybarcodeandstate"');
  });

  it('links the module index from the public entry index as transport-order-index', async () => {
    const reply = await wms.get('/index', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body._links['transport-order-index']).toEqual({ href: `${wms.url}${TO}/index` });
  });
});

// ---- create -----------------------------------------------------------------

describe('POST /v1/transport-orders', () => {
  it('creates an order and starts it at once: 201, Location, the TransportOrder', async () => {
    const barcode = await newUnit(wms);
    const from = events.length;
    const reply = await createReply(wms, { barcode, targetLocation: L_ZONE });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/hal\+json/);
    const o = reply.body as Order;
    expect(reply.headers.get('location')).toBe(`${wms.url}${TO}/${o.persistentKey}`);
    expect(o).toMatchObject({
      pKey: o.persistentKey,
      ol: 0,
      transportUnitBK: barcode,
      priority: 'NORMAL',
      state: 'STARTED',
      sourceLocation: SRC,
      targetLocation: L_ZONE,
      targetLocationGroup: null,
    });
    expect(o.startDate).toMatch(ISO_MS);
    expect(o.createDt).toMatch(ISO_MS);
    expect(o.lastModifiedDt).toMatch(ISO_MS);
    expect(o).not.toHaveProperty('endDate');
    expect(o).not.toHaveProperty('message');
    expect(o.links.map((l) => l.rel).sort()).toEqual(
      ['transport-orders-cancel', 'transport-orders-findbypkey', 'transport-orders-update', 'transport-unit'].sort(),
    );
    expect(o.links.find((l) => l.rel === 'transport-orders-findbypkey')!.href).toBe(`${wms.url}${TO}/${o.pKey}`);
    expect(o.links.find((l) => l.rel === 'transport-unit')!.href).toBe(`${wms.url}${TU}?bk=${barcode}`);
    expect(eventTypesSince(events, from)).toEqual(['transportOrder.created', 'transportOrder.started']);
    expect(events.at(-1)!.data).toMatchObject({ pKey: o.pKey, transportUnitBK: barcode, state: 'STARTED', targetLocation: L_ZONE });
    expect(await read(wms, o.pKey)).toEqual(o);
    // Creating an order moves nothing.
    expect((await unit(wms, barcode)).actualLocation).toBe(SRC);
  });

  it('queues a second order of the unit as INITIALIZED, without a start date', async () => {
    const barcode = await newUnit(wms);
    const first = await create(wms, barcode);
    const from = events.length;
    const second = await create(wms, barcode, { targetLocationGroup: 'TO-ZONE', priority: 'HIGHEST' });
    expect(second).toMatchObject({ state: 'INITIALIZED', priority: 'HIGHEST', targetLocation: null, targetLocationGroup: 'TO-ZONE' });
    expect(second).not.toHaveProperty('startDate');
    expect(eventTypesSince(events, from)).toEqual(['transportOrder.created']);
    // A higher priority does not push the running order aside.
    expect(await stateOf(wms, first.pKey)).toBe('STARTED');
    expect(keys(await startedOf(wms, barcode))).toEqual([first.pKey]);
  });

  it('takes a group target, and a location in the group or below it together with the group', async () => {
    const byGroup = await create(wms, await newUnit(wms), { targetLocationGroup: 'TO-ZONE' });
    expect(byGroup).toMatchObject({ targetLocation: null, targetLocationGroup: 'TO-ZONE', state: 'STARTED' });
    const direct = await create(wms, await newUnit(wms), { targetLocation: L_ZONE, targetLocationGroup: 'TO-ZONE' });
    expect(direct).toMatchObject({ targetLocation: L_ZONE, targetLocationGroup: 'TO-ZONE' });
    const below = await create(wms, await newUnit(wms), { targetLocation: L_SUB, targetLocationGroup: 'WAREHOUSE' });
    expect(below).toMatchObject({ targetLocation: L_SUB, targetLocationGroup: 'WAREHOUSE' });
  });

  it('takes every priority level', async () => {
    const barcode = await newUnit(wms);
    for (const priority of ['LOWEST', 'LOW', 'NORMAL', 'HIGH', 'HIGHEST']) {
      expect((await create(wms, barcode, { targetLocation: L_WH, priority })).priority).toBe(priority);
    }
  });

  it('records a problem (text or the problem object) as message; empty pKey and state CREATED are accepted', async () => {
    const a = await create(wms, await newUnit(wms), { targetLocation: L_ZONE, problem: 'scanner fault at infeed', pKey: null, state: null });
    expect(a.message).toBe('scanner fault at infeed');
    const b = await create(wms, await newUnit(wms), { targetLocation: L_ZONE, problem: { message: 'overweight', messageNo: 7 }, state: 'CREATED' });
    expect(b.message).toBe('overweight');
    expect(b.state).toBe('STARTED');
    const c = await create(wms, await newUnit(wms), { targetLocation: L_ZONE, problem: null });
    expect(c).not.toHaveProperty('message');
  });

  it('accepts and answers the vendor media type', async () => {
    const barcode = await newUnit(wms);
    const reply = await wms.request('POST', TO, {
      raw: JSON.stringify({ barcode, targetLocation: L_ZONE }),
      headers: { 'Content-Type': ORDER_TYPE, Accept: ORDER_TYPE },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(new RegExp(`^${ORDER_TYPE.replace(/[.+]/g, '\\$&')}`));
  });

  it('queues an order to where the unit stands while another order runs', async () => {
    const barcode = await newUnit(wms);
    await create(wms, barcode, { targetLocation: L_ZONE });
    const back = await create(wms, barcode, { targetLocation: SRC });
    expect(back.state).toBe('INITIALIZED');
  });

  describe('refusals', () => {
    let barcode: string;
    beforeAll(async () => {
      barcode = await newUnit(wms);
    });

    it('an unknown transport unit: 404 not.found, message not.found', async () => {
      await refused(() => createReply(wms, { barcode: 'TO-NO-SUCH-TU', targetLocation: L_ZONE }), plainNotFound);
    });

    it('an unknown target location or group: 404 not.found, message not.found', async () => {
      await refused(() => createReply(wms, { barcode, targetLocation: LOC_UNKNOWN }), plainNotFound);
      await refused(() => createReply(wms, { barcode, targetLocation: 'not-a-coordinate' }), plainNotFound);
      await refused(() => createReply(wms, { barcode, targetLocationGroup: 'TO-NO-SUCH-GROUP' }), plainNotFound);
      await refused(() => createReply(wms, { barcode, targetLocation: L_ZONE, targetLocationGroup: 'TO-NO-SUCH-GROUP' }), plainNotFound);
    });

    it('a priority level that is not defined: 400 core.invalid.parameter', async () => {
      for (const priority of ['URGENT', 'highest', '', 3, null, true]) {
        await refused(() => createReply(wms, { barcode, targetLocation: L_ZONE, priority }), invalidParameter);
      }
    });

    it('a location outside the target group: 400 core.validation.error', async () => {
      await refused(() => createReply(wms, { barcode, targetLocation: L_OTHER, targetLocationGroup: 'TO-ZONE' }), validation('targetLocationGroup'));
      await refused(() => createReply(wms, { barcode, targetLocation: L_WH, targetLocationGroup: 'TO-SUB' }), validation('targetLocation'));
    });

    it('no target, no barcode, a pKey or another state: 400 core.validation.error', async () => {
      await refused(() => createReply(wms, { barcode }), validation('targetLocation'));
      await refused(() => createReply(wms, { barcode, targetLocation: null, targetLocationGroup: null }), validation('targetLocationGroup'));
      await refused(() => createReply(wms, { targetLocation: L_ZONE }), validation('barcode'));
      await refused(() => createReply(wms, { barcode: '', targetLocation: L_ZONE }), validation('barcode'));
      await refused(() => createReply(wms, { barcode, targetLocation: L_ZONE, pKey: 'my-own-key' }), validation('pKey'));
      await refused(() => createReply(wms, { barcode, targetLocation: L_ZONE, state: 'STARTED' }), validation('state'));
      await refused(() => createReply(wms, { barcode, targetLocation: 42 }), validation('targetLocation'));
      await refused(() => createReply(wms, { barcode, targetLocation: L_ZONE, problem: 12 }), validation('problem'));
      await refused(() => wms.post(TO, undefined), validation('body'));
    });

    it('malformed JSON: 400 server-declined', async () => {
      await refused(
        () => rawJson(wms, 'POST', TO, '{"barcode": '),
        (r) => expectServerError(r, 400),
      );
    });

    it('a target the unit already stands at, when the order would start: 400 svc.tms.to.tuAlreadyAtTarget', async () => {
      await refused(() => createReply(wms, { barcode, targetLocation: SRC }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget', SRC, [barcode, SRC]));
      // SRC lies in TO-OTHER, below WAREHOUSE.
      await refused(() => createReply(wms, { barcode, targetLocationGroup: 'TO-OTHER' }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget'));
      await refused(() => createReply(wms, { barcode, targetLocationGroup: 'WAREHOUSE' }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget'));
      await refused(() => createReply(wms, { barcode, targetLocation: SRC, targetLocationGroup: 'WAREHOUSE' }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget'));
    });
  });
});

// ---- grants ----------------------------------------------------------------------

describe('grants', () => {
  let readerToken: string;
  beforeAll(async () => {
    const role = await wms.post('/roles', { name: 'TO-READER', grants: ['transport-orders:read'] });
    expect(role.status, role.text).toBe(201);
    const user = await wms.post('/users', { username: 'to-reader', password: 'to-reader-password', roleNames: ['TO-READER'] });
    expect(user.status, user.text).toBe(201);
    const login = await wms.post('/oauth/token', { grant_type: 'password', username: 'to-reader', password: 'to-reader-password' }, { anonymous: true });
    expect(login.status, login.text).toBe(200);
    readerToken = login.body.access_token;
  });

  it('reads with transport-orders:read and needs transport-orders:write to change', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode);
    const token = readerToken;
    for (const path of [`${TO}/index`, TO, `${TO}/${a.pKey}`, `${TO}?barcode=${barcode}`, `${TO}?state=STARTED`, `${TO}?barcode=${barcode}&state=STARTED`]) {
      expect((await wms.get(path, { token })).status, path).toBe(200);
    }
    for (const send of [
      () => wms.post(TO, { barcode, targetLocation: L_OTHER }, { token }),
      () => wms.patch(`${TO}/${a.pKey}`, { priority: 'HIGH' }, { token }),
      () => wms.del(`${TO}/${a.pKey}`, { token }),
    ]) {
      const reply = await refused(send, (r) => expectServerError(r, 403));
      expect(reply.body.message).toContain('transport-orders:write');
    }
  });

  it('refuses a request without a token with 401', async () => {
    await refused(
      () => wms.get(TO, { anonymous: true }),
      (r) => expectServerError(r, 401),
    );
  });
});
