import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectServerError, lastOfType, type RecordedEvent, type TestAppliance } from './support/appliance.ts';
import { apiError, refusal, validation } from './support/expect.ts';
import {
  create,
  ENDED,
  eventTypesSince,
  invalidParameter,
  L_OTHER,
  L_SUB,
  L_WH,
  L_ZONE,
  LOC_UNKNOWN,
  move,
  newUnit,
  orderIn,
  patch,
  patchReply,
  plainNotFound,
  rawJson,
  snapshot,
  SRC,
  stateOf,
  TO,
  transportOrderAppliance,
} from './support/transport-orders.ts';

// Transport orders (docs/transport-orders.md): what PATCH changes of an order that has
// not ended (its targets, priority and problem) and what it refuses. Every refused
// request is shown to change nothing: all orders, transport units and locations read
// the same after it as before, and no event was published.

let wms: TestAppliance;
const events: RecordedEvent[] = [];
beforeAll(async () => {
  wms = await transportOrderAppliance(events);
});
afterAll(() => wms.close());

const refused = refusal({ state: () => snapshot(wms), events });

// ---- redirect -------------------------------------------------------------------

describe('PATCH redirects an order that has not ended', () => {
  it('a STARTED order to a new location: 204, ol + 1, event, and it finishes there, not at the old target', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const from = events.length;
    const after = await patch(wms, a.pKey, { targetLocation: L_OTHER });
    expect(after).toMatchObject({ state: 'STARTED', targetLocation: L_OTHER, targetLocationGroup: null, ol: a.ol + 1 });
    expect(after.startDate).toBe(a.startDate);
    expect(eventTypesSince(events, from)).toEqual(['transportOrder.redirected']);
    expect(events.at(-1)!.data).toMatchObject({
      pKey: a.pKey,
      targetLocation: L_OTHER,
      from: { targetLocation: L_ZONE, targetLocationGroup: null },
    });
    await move(wms, barcode, L_ZONE);
    expect(await stateOf(wms, a.pKey)).toBe('STARTED');
    await move(wms, barcode, L_OTHER);
    expect(await stateOf(wms, a.pKey)).toBe('FINISHED');
  });

  it('to a group; a location given alone must lie in the kept group; null clears one target', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    let o = await patch(wms, a.pKey, { targetLocationGroup: 'TO-ZONE' });
    expect(o).toMatchObject({ targetLocation: L_ZONE, targetLocationGroup: 'TO-ZONE' });
    o = await patch(wms, a.pKey, { targetLocation: L_SUB }); // TO-SUB lies below TO-ZONE
    expect(o).toMatchObject({ targetLocation: L_SUB, targetLocationGroup: 'TO-ZONE' });
    await refused(() => patchReply(wms, a.pKey, { targetLocation: L_OTHER }), validation('targetLocationGroup [TO-ZONE]'));
    o = await patch(wms, a.pKey, { targetLocation: null });
    expect(o).toMatchObject({ targetLocation: null, targetLocationGroup: 'TO-ZONE' });
    o = await patch(wms, a.pKey, { targetLocation: L_WH, targetLocationGroup: null });
    expect(o).toMatchObject({ targetLocation: L_WH, targetLocationGroup: null });
    await refused(() => patchReply(wms, a.pKey, { targetLocation: null }), validation('at least one target'));
    await refused(() => patchReply(wms, a.pKey, { targetLocation: null, targetLocationGroup: null }), validation('at least one target'));
  });

  it('a queued order, even to where the unit stands now', async () => {
    const barcode = await newUnit(wms);
    await create(wms, barcode, { targetLocation: L_ZONE });
    const b = await create(wms, barcode, { targetLocation: L_OTHER });
    const after = await patch(wms, b.pKey, { targetLocation: SRC });
    expect(after).toMatchObject({ state: 'INITIALIZED', targetLocation: SRC });
  });

  it('the same target again is no change', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const from = events.length;
    expect(await patch(wms, a.pKey, { targetLocation: L_ZONE, targetLocationGroup: null, barcode, pKey: a.pKey, priority: 'NORMAL' })).toEqual(a);
    expect(events.length).toBe(from);
  });

  it('refuses an unknown target (404 not.found), a STARTED order to where the unit stands (400), and every ended order (409)', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    await refused(() => patchReply(wms, a.pKey, { targetLocation: LOC_UNKNOWN }), plainNotFound);
    await refused(() => patchReply(wms, a.pKey, { targetLocationGroup: 'TO-NO-SUCH-GROUP' }), plainNotFound);
    await refused(() => patchReply(wms, a.pKey, { targetLocation: SRC }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget', SRC, [barcode, SRC]));
    await refused(() => patchReply(wms, a.pKey, { targetLocation: null, targetLocationGroup: 'WAREHOUSE' }), apiError(400, 'svc.tms.to.tuAlreadyAtTarget'));
    for (const state of ENDED) {
      const ended = await orderIn(wms, state);
      await refused(() => patchReply(wms, ended.pKey, { targetLocation: L_OTHER }), apiError(409, 'svc.tms.to.endedNotRedirected', state, [ended.pKey, state]));
      await refused(() => patchReply(wms, ended.pKey, { targetLocationGroup: 'TO-ZONE' }), apiError(409, 'svc.tms.to.endedNotRedirected'));
    }
  });
});

// ---- priority and problem ----------------------------------------------------------

describe('PATCH priority and problem', () => {
  it('changes the priority of a STARTED and of a queued order', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode);
    const b = await create(wms, barcode, { targetLocation: L_OTHER });
    const from = events.length;
    expect((await patch(wms, a.pKey, { priority: 'HIGHEST' })).priority).toBe('HIGHEST');
    expect((await patch(wms, b.pKey, { priority: 'LOWEST' })).priority).toBe('LOWEST');
    expect(eventTypesSince(events, from)).toEqual(['transportOrder.changed', 'transportOrder.changed']);
    expect(events.at(-1)!.data).toMatchObject({ pKey: b.pKey, priority: 'LOWEST', fields: ['priority'] });
  });

  it('refuses a priority level that is not defined with 400 core.invalid.parameter', async () => {
    const a = await create(wms, await newUnit(wms));
    for (const priority of ['URGENT', 'normal', 5, null, {}]) {
      await refused(() => patchReply(wms, a.pKey, { priority }), invalidParameter);
    }
    // Also together with other changes, and on an ended order.
    await refused(() => patchReply(wms, a.pKey, { priority: 'URGENT', targetLocation: L_OTHER }), invalidParameter);
    const ended = await orderIn(wms, 'FINISHED');
    await refused(() => patchReply(wms, ended.pKey, { priority: 'URGENT' }), invalidParameter);
  });

  it('refuses to change the priority or the problem of an ended order: 409 svc.tms.to.endedNotChanged', async () => {
    for (const state of ENDED) {
      const ended = await orderIn(wms, state);
      await refused(() => patchReply(wms, ended.pKey, { priority: 'HIGH' }), apiError(409, 'svc.tms.to.endedNotChanged', state, [ended.pKey, state]));
      await refused(() => patchReply(wms, ended.pKey, { problem: 'late' }), apiError(409, 'svc.tms.to.endedNotChanged'));
      // The values it already has are no change.
      expect(await patch(wms, ended.pKey, { priority: 'NORMAL', state, targetLocation: L_ZONE })).toEqual(ended);
    }
  });

  it('records a problem as message; the problem object works too; null clears it', async () => {
    const a = await create(wms, await newUnit(wms));
    const from = events.length;
    expect((await patch(wms, a.pKey, { problem: 'no route at TOA/0001/0001/0000/0000' })).message).toBe('no route at TOA/0001/0001/0000/0000');
    expect(eventTypesSince(events, from)).toEqual(['transportOrder.changed']);
    expect(events.at(-1)!.data).toMatchObject({ fields: ['message'] });
    expect((await patch(wms, a.pKey, { problem: { message: 'target locked', messageNo: 3 } })).message).toBe('target locked');
    const cleared = await patch(wms, a.pKey, { problem: null });
    expect(cleared).not.toHaveProperty('message');
    expect(cleared.state).toBe('STARTED');
  });

  it('changes state, priority and problem in one request', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode);
    const from = events.length;
    const after = await patch(wms, a.pKey, { state: 'ONFAILURE', priority: 'LOW', problem: 'conveyor jam' });
    expect(after).toMatchObject({ state: 'ONFAILURE', priority: 'LOW', message: 'conveyor jam', ol: a.ol + 1 });
    expect(eventTypesSince(events, from)).toEqual(['transportOrder.changed']);
    expect(lastOfType(events, 'transportOrder.changed').data.fields).toEqual(['priority', 'state', 'endDate', 'message']);
  });
});

// ---- other PATCH refusals --------------------------------------------------------

describe('PATCH refusals', () => {
  it('an unknown pKey: 404 not.found', async () => {
    await refused(() => patchReply(wms, 'no-such-order', { priority: 'HIGH' }), apiError(404, 'not.found', 'no-such-order', ['no-such-order']));
  });

  it('another pKey or barcode in the body, an unknown state, a bad body: 400 core.validation.error', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode);
    await refused(() => patchReply(wms, a.pKey, { pKey: 'another-order', priority: 'HIGH' }), validation('pKey'));
    const other = await newUnit(wms);
    await refused(() => patchReply(wms, a.pKey, { barcode: other }), validation('barcode'));
    await refused(() => patchReply(wms, a.pKey, { state: 'RUNNING' }), validation('state'));
    await refused(() => patchReply(wms, a.pKey, { problem: 42 }), validation('problem'));
    await refused(() => patchReply(wms, a.pKey, { ol: -1 }), validation('ol'));
    await refused(() => patchReply(wms, a.pKey, undefined), validation('body'));
    await refused(
      () => rawJson(wms, 'PATCH', `${TO}/${a.pKey}`, '{"priority"'),
      (r) => expectServerError(r, 400),
    );
  });

  it('a stale ol: 409 core.optimistic.lock; the current one applies', async () => {
    const a = await create(wms, await newUnit(wms));
    await refused(
      () => patchReply(wms, a.pKey, { ol: a.ol + 5, priority: 'HIGH' }),
      apiError(409, 'core.optimistic.lock', a.pKey, [a.pKey, String(a.ol + 5), String(a.ol)]),
    );
    expect((await patch(wms, a.pKey, { ol: a.ol, priority: 'HIGH' })).ol).toBe(a.ol + 1);
    await refused(() => patchReply(wms, a.pKey, { ol: a.ol, priority: 'LOW' }), apiError(409, 'core.optimistic.lock'));
  });
});
