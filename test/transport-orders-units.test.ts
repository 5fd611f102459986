import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent, TestAppliance } from './support/appliance.ts';
import { apiError, refusal } from './support/expect.ts';
import {
  cancel,
  create,
  eventsSince,
  eventTypesSince,
  ISO_MS,
  keys,
  L_OTHER,
  L_SUB,
  L_WH,
  L_ZONE,
  move,
  newUnit,
  ofUnit,
  orderIn,
  read,
  snapshot,
  SRC,
  startedOf,
  stateOf,
  transportOrderAppliance,
  TU,
  unit,
} from './support/transport-orders.ts';

// Transport orders and their units (docs/transport-orders.md; docs/routing.md and
// docs/plc.md): a unit booked onto its target finishes its order, however it gets
// there; a renamed unit keeps its orders, a deleted one cancels them; a location or
// group an open order targets cannot go; and the service functions the PLC adapter
// and routing call inside their own unit of work. Every refused request is shown to
// change nothing: all orders, transport units and locations read the same after it
// as before, and no event was published.

let wms: TestAppliance;
const events: RecordedEvent[] = [];
beforeAll(async () => {
  wms = await transportOrderAppliance(events);
});
afterAll(() => wms.close());

const refused = refusal({ state: () => snapshot(wms), events });

// ---- moving the unit finishes orders --------------------------------------------

describe('a unit booked onto its target finishes its order', () => {
  it('at the target location: FINISHED with endDate, and the next order starts', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const b = await create(wms, barcode, { targetLocation: L_OTHER });
    let from = events.length;
    await move(wms, barcode, L_WH); // not the target
    expect(await stateOf(wms, a.pKey)).toBe('STARTED');
    expect(eventTypesSince(events, from)).toEqual([]);

    from = events.length;
    await move(wms, barcode, L_ZONE);
    const finished = await read(wms, a.pKey);
    expect(finished.state).toBe('FINISHED');
    expect(finished.endDate).toMatch(ISO_MS);
    expect(finished.sourceLocation).toBe(SRC);
    expect(eventsSince(events, from)).toEqual([`transportOrder.finished ${a.pKey}`, `transportOrder.started ${b.pKey}`]);
    expect(keys(await startedOf(wms, barcode))).toEqual([b.pKey]);
    // The next order's source stays where the unit stood when it was created.
    expect((await read(wms, b.pKey)).sourceLocation).toBe(SRC);

    await move(wms, barcode, L_OTHER);
    expect(await stateOf(wms, b.pKey)).toBe('FINISHED');
    expect(await startedOf(wms, barcode)).toEqual([]);
    // A further move touches no ended order.
    from = events.length;
    await move(wms, barcode, L_ZONE);
    expect(eventTypesSince(events, from)).toEqual([]);
  });

  it("anywhere in the target group's subtree, for an order with only a group target", async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocationGroup: 'TO-ZONE' });
    await move(wms, barcode, L_WH); // WAREHOUSE is above TO-ZONE, not in it
    expect(await stateOf(wms, a.pKey)).toBe('STARTED');
    await move(wms, barcode, L_SUB); // TO-SUB lies below TO-ZONE
    expect(await stateOf(wms, a.pKey)).toBe('FINISHED');

    const other = await newUnit(wms);
    const b = await create(wms, other, { targetLocationGroup: 'TO-ZONE' });
    await move(wms, other, L_ZONE); // the group itself
    expect(await stateOf(wms, b.pKey)).toBe('FINISHED');
  });

  it('an order with a location and a group target finishes at the location only', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_SUB, targetLocationGroup: 'TO-ZONE' });
    await move(wms, barcode, L_ZONE);
    expect(await stateOf(wms, a.pKey)).toBe('STARTED');
    await move(wms, barcode, L_SUB);
    expect(await stateOf(wms, a.pKey)).toBe('FINISHED');
  });

  it('a next order whose target the unit already reached finishes at once, and the one after starts', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const b = await create(wms, barcode, { targetLocationGroup: 'TO-ZONE' });
    const c = await create(wms, barcode, { targetLocation: L_OTHER });
    const from = events.length;
    await move(wms, barcode, L_ZONE);
    expect(eventsSince(events, from)).toEqual([
      `transportOrder.finished ${a.pKey}`,
      `transportOrder.started ${b.pKey}`,
      `transportOrder.finished ${b.pKey}`,
      `transportOrder.started ${c.pKey}`,
    ]);
    expect((await ofUnit(wms, barcode)).map((o) => o.state)).toEqual(['FINISHED', 'FINISHED', 'STARTED']);
  });

  it('also when the move comes with an update of the unit (PUT …?bk= with actualLocation)', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const reply = await wms.put(`${TU}?bk=${barcode}`, { actualLocation: L_ZONE });
    expect(reply.status, reply.text).toBe(200);
    expect(await stateOf(wms, a.pKey)).toBe('FINISHED');
  });

  it('also when a completed movement books the unit', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const movement = await wms.post(`${TU}/${barcode}/movements`, { sourceLocation: SRC, target: L_ZONE });
    expect(movement.status, movement.text).toBe(201);
    const done = await wms.post(`/v1/movements/${movement.body.pKey}/complete`, {});
    expect(done.status, done.text).toBe(200);
    expect(await stateOf(wms, a.pKey)).toBe('FINISHED');
  });

  it('cancelling the running order starts the next one, which finishes at once when the unit stands at its target', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const b = await create(wms, barcode, { targetLocation: SRC }); // where the unit stands
    const c = await create(wms, barcode, { targetLocation: L_WH });
    const from = events.length;
    await cancel(wms, a.pKey);
    expect(eventsSince(events, from)).toEqual([
      `transportOrder.canceled ${a.pKey}`,
      `transportOrder.started ${b.pKey}`,
      `transportOrder.finished ${b.pKey}`,
      `transportOrder.started ${c.pKey}`,
    ]);
  });
});

// ---- names and deleted units ---------------------------------------------------------

describe('the transport unit', () => {
  it('a renamed unit shows its new barcode in its orders, which are found by it', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode);
    const renamed = `${barcode}-R`;
    const reply = await wms.put(`${TU}?bk=${barcode}`, { barcode: renamed });
    expect(reply.status, reply.text).toBe(200);
    expect((await read(wms, a.pKey)).transportUnitBK).toBe(renamed);
    expect(keys(await ofUnit(wms, renamed))).toEqual([a.pKey]);
    // Its orders still follow its moves.
    await move(wms, renamed, L_ZONE);
    expect(await stateOf(wms, a.pKey)).toBe('FINISHED');
  });

  it("a deleted unit's open orders are CANCELED with a message; they are still found by its barcode", async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode);
    const b = await create(wms, barcode, { targetLocation: L_OTHER });
    const done = await create(wms, await newUnit(wms), { targetLocation: L_WH });
    const tu = await unit(wms, barcode);
    const from = events.length;
    expect((await wms.del(`${TU}/${tu.pKey}`)).status).toBe(204);
    expect(eventsSince(events, from)).toEqual([`transportOrder.canceled ${b.pKey}`, `transportOrder.canceled ${a.pKey}`]);
    const orders = await ofUnit(wms, barcode);
    expect(keys(orders)).toEqual([a.pKey, b.pKey]);
    for (const o of orders) {
      expect(o.state).toBe('CANCELED');
      expect(o.message).toBe(`TransportUnit [${barcode}] was deleted`);
      expect(o.transportUnitBK).toBe(barcode);
    }
    expect(await stateOf(wms, done.pKey)).toBe('STARTED');
  });
});

// ---- the service for the PLC adapter and routing -------------------------------------------

describe('the targets of open orders', () => {
  const L_TMP = 'TOT/0001/0001/0000/0000'; // in TO-OTHER
  const G_TMP = 'TO-TMP'; // empty

  it('cannot be deleted while an order is open (409 …inUse); once it has ended they can, and it keeps their names', async () => {
    const location = await wms.post('/v1/locations', { locationId: L_TMP, locationGroupName: 'TO-OTHER' });
    expect(location.status, location.text).toBe(201);
    const group = await wms.post('/v1/location-groups', { name: G_TMP, parentName: 'WAREHOUSE' });
    expect(group.status, group.text).toBe(201);
    const barcode = await newUnit(wms);
    const toLocation = await create(wms, barcode, { targetLocation: L_TMP });
    const toGroup = await create(wms, barcode, { targetLocationGroup: G_TMP });
    expect([toLocation.state, toGroup.state]).toEqual(['STARTED', 'INITIALIZED']);

    const deleteLocation = () => wms.del(`/v1/locations/${location.body.pKey}`);
    const deleteGroup = () => wms.del(`/v1/location-groups/${group.body.pKey}`);
    await refused(deleteLocation, apiError(409, 'svc.common.common.loc.inUse', L_TMP, [L_TMP]));
    await refused(deleteGroup, apiError(409, 'svc.common.common.lg.inUse', G_TMP, [G_TMP]));

    await cancel(wms, toLocation.pKey);
    expect(await stateOf(wms, toGroup.pKey)).toBe('STARTED');
    expect((await deleteLocation()).status).toBe(204);
    await refused(deleteGroup, apiError(409, 'svc.common.common.lg.inUse', G_TMP, [G_TMP]));
    await cancel(wms, toGroup.pKey);
    expect((await deleteGroup()).status).toBe(204);

    expect(await read(wms, toLocation.pKey)).toMatchObject({ state: 'CANCELED', targetLocation: L_TMP });
    expect(await read(wms, toGroup.pKey)).toMatchObject({ state: 'CANCELED', targetLocationGroup: G_TMP });
  });
});

describe('service functions for callers with their own transaction', () => {
  it("startedOrderOf: the STARTED order's key, source and target; none for a free or unknown unit", async () => {
    const orders = wms.app.module('transport-orders');
    const barcode = await newUnit(wms);
    expect(orders.startedOrderOf(barcode)).toBeUndefined();
    expect(orders.startedOrderOf('TO-NO-SUCH-TU')).toBeUndefined();
    const a = await create(wms, barcode, { targetLocation: L_SUB, targetLocationGroup: 'TO-ZONE' });
    await create(wms, barcode, { targetLocation: L_OTHER });
    expect(orders.startedOrderOf(barcode)).toEqual({
      pKey: a.pKey,
      sourceLocation: a.sourceLocation,
      targetLocation: L_SUB,
      targetLocationGroup: 'TO-ZONE',
    });
    const g = await create(wms, await newUnit(wms), { targetLocationGroup: 'TO-ZONE' });
    expect(orders.startedOrderOf(g.transportUnitBK)).toEqual({
      pKey: g.pKey,
      sourceLocation: g.sourceLocation,
      targetLocation: null,
      targetLocationGroup: 'TO-ZONE',
    });
  });

  it("a unit booked inside a caller's unit of work settles its orders there; the events follow the commit", async () => {
    const { work } = wms.app;
    const common = wms.app.module('common');
    const orders = wms.app.module('transport-orders');
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const b = await create(wms, barcode, { targetLocation: L_OTHER });
    const from = events.length;
    // As the PLC adapter does for one telegram: book the unit and look at its orders in one unit of work.
    const inside = work.run(() => {
      const moved = common.transportUnits.moveTo(common.transportUnits.byBarcode(barcode), common.locations.resolve(L_ZONE));
      return { moved, a: orders.byPKey(a.pKey).state, b: orders.byPKey(b.pKey).state, delivered: events.length };
    });
    expect(inside).toEqual({ moved: true, a: 'FINISHED', b: 'STARTED', delivered: from }); // settled inside, nothing delivered yet
    expect(eventsSince(events, from)).toEqual([`transportOrder.finished ${a.pKey}`, `transportOrder.started ${b.pKey}`]);
    expect(await stateOf(wms, b.pKey)).toBe('STARTED');
  });

  it('the booking and its orders roll back with the caller; a location that is no target changes no order', async () => {
    const { work } = wms.app;
    const common = wms.app.module('common');
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const before = await snapshot(wms);
    const from = events.length;
    expect(() =>
      work.run(() => {
        common.transportUnits.moveTo(common.transportUnits.byBarcode(barcode), common.locations.resolve(L_ZONE));
        throw new Error('telegram refused');
      }),
    ).toThrow('telegram refused');
    expect(await snapshot(wms)).toEqual(before);
    expect(events.length).toBe(from);
    expect(work.run(() => common.transportUnits.moveTo(common.transportUnits.byBarcode(barcode), common.locations.resolve(L_WH)))).toBe(true);
    expect(eventTypesSince(events, from)).toEqual([]);
    expect(await stateOf(wms, a.pKey)).toBe('STARTED');
  });

  it('recordProblem sets the message in the running unit of work; an ended order refuses it', async () => {
    const { work } = wms.app;
    const orders = wms.app.module('transport-orders');
    const a = await create(wms, await newUnit(wms));
    const from = events.length;
    const delivered = work.run(() => {
      orders.recordProblem(a.pKey, `no route at ${SRC}`);
      return events.length;
    });
    expect(delivered).toBe(from);
    expect(eventTypesSince(events, from)).toEqual(['transportOrder.changed']);
    expect(events.at(-1)!.data).toMatchObject({ fields: ['message'], message: `no route at ${SRC}` });
    expect((await read(wms, a.pKey)).message).toBe(`no route at ${SRC}`);
    const ended = await orderIn(wms, 'FINISHED');
    expect(() => orders.recordProblem(ended.pKey, 'late')).toThrow(/has ended/);
  });
});
