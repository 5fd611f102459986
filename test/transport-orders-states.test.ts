import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent, TestAppliance } from './support/appliance.ts';
import { apiError, refusal } from './support/expect.ts';
import {
  cancel,
  create,
  ENDED,
  eventsSince,
  eventTypesSince,
  ISO_MS,
  keys,
  L_OTHER,
  L_SUB,
  L_WH,
  L_ZONE,
  list,
  newUnit,
  ofUnit,
  orderIn,
  patch,
  patchReply,
  read,
  snapshot,
  startedOf,
  stateOf,
  STATES,
  TO,
  transportOrderAppliance,
  type State,
} from './support/transport-orders.ts';

// Transport orders (docs/transport-orders.md, the transition table): every state an
// order may move to by PATCH and every move refused, the next order of a unit started
// when the running one ends (highest priority first, then the oldest; never two
// STARTED), and cancelling by DELETE. Every refused request is shown to change
// nothing: all orders, transport units and locations read the same after it as
// before, and no event was published.

let wms: TestAppliance;
const events: RecordedEvent[] = [];
beforeAll(async () => {
  wms = await transportOrderAppliance(events);
});
afterAll(() => wms.close());

const refused = refusal({ state: () => snapshot(wms), events });

// ---- the transition table ----------------------------------------------------

describe('state transitions by PATCH (table-driven)', () => {
  type Outcome = 'same' | 'ok' | 'invalid' | 'oneStarted';
  const table: Record<Exclude<State, 'CREATED'>, Record<State, Outcome>> = {
    INITIALIZED: {
      CREATED: 'invalid',
      INITIALIZED: 'same',
      STARTED: 'oneStarted',
      INTERRUPTED: 'invalid',
      ONFAILURE: 'ok',
      CANCELED: 'ok',
      FINISHED: 'invalid',
    },
    STARTED: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'same',
      INTERRUPTED: 'ok',
      ONFAILURE: 'ok',
      CANCELED: 'ok',
      FINISHED: 'ok',
    },
    INTERRUPTED: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'invalid',
      INTERRUPTED: 'same',
      ONFAILURE: 'invalid',
      CANCELED: 'invalid',
      FINISHED: 'invalid',
    },
    ONFAILURE: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'invalid',
      INTERRUPTED: 'invalid',
      ONFAILURE: 'same',
      CANCELED: 'invalid',
      FINISHED: 'invalid',
    },
    CANCELED: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'invalid',
      INTERRUPTED: 'invalid',
      ONFAILURE: 'invalid',
      CANCELED: 'same',
      FINISHED: 'invalid',
    },
    FINISHED: {
      CREATED: 'invalid',
      INITIALIZED: 'invalid',
      STARTED: 'invalid',
      INTERRUPTED: 'invalid',
      ONFAILURE: 'invalid',
      CANCELED: 'invalid',
      FINISHED: 'same',
    },
  };

  const eventOf: Partial<Record<State, string>> = {
    STARTED: 'transportOrder.started',
    FINISHED: 'transportOrder.finished',
    CANCELED: 'transportOrder.canceled',
    INTERRUPTED: 'transportOrder.changed',
    ONFAILURE: 'transportOrder.changed',
  };

  for (const [from, row] of Object.entries(table) as [Exclude<State, 'CREATED'>, Record<State, Outcome>][]) {
    for (const [to, outcome] of Object.entries(row) as [State, Outcome][]) {
      it(`${from} → ${to}: ${outcome}`, async () => {
        const order = await orderIn(wms, from);
        expect(order.state).toBe(from);
        if (outcome === 'invalid') {
          await refused(
            () => patchReply(wms, order.pKey, { state: to }),
            apiError(409, 'svc.tms.to.invalidStateTransition', `from ${from} to ${to}`, [order.pKey, from, to]),
          );
        } else if (outcome === 'oneStarted') {
          const running = (await startedOf(wms, order.transportUnitBK))[0]!;
          await refused(
            () => patchReply(wms, order.pKey, { state: to }),
            apiError(409, 'svc.tms.to.alreadyStartedForTu', running.pKey, [order.pKey, order.transportUnitBK, running.pKey]),
          );
        } else if (outcome === 'same') {
          const from_ = events.length;
          const after = await patch(wms, order.pKey, { state: to });
          expect(after).toEqual(order);
          expect(events.length).toBe(from_);
        } else {
          const from_ = events.length;
          const after = await patch(wms, order.pKey, { state: to });
          expect(after.state).toBe(to);
          expect(after.ol).toBe(order.ol + 1);
          expect(after.endDate).toMatch(ISO_MS);
          expect(after.startDate).toBe(order.startDate);
          expect(after.links.map((l) => l.rel).sort()).toEqual(['transport-orders-findbypkey', 'transport-unit']);
          const ownEvents = events.slice(from_).filter((e) => 'pKey' in e.data && e.data.pKey === order.pKey);
          expect(ownEvents.map((e) => e.type)).toEqual([eventOf[to]]);
          expect(ownEvents[0]!.data).toMatchObject({ state: to, from });
          const own = ownEvents[0]!;
          if (own.type === 'transportOrder.changed') expect(own.data.fields).toEqual(['state', 'endDate']);
          // Nothing moves back out of an ended state.
          for (const back of STATES.filter((s) => s !== to)) {
            await refused(() => patchReply(wms, order.pKey, { state: back }), apiError(409, 'svc.tms.to.invalidStateTransition'));
          }
        }
      });
    }
  }

  it('no move leads into CREATED, and an order is never seen CREATED', async () => {
    const all = await list(wms, TO);
    expect(all.some((o) => o.state === 'CREATED')).toBe(false);
  });
});

// ---- starting the next order -------------------------------------------------

describe('the next order starts when one ends', () => {
  it('highest priority first, then the oldest; one STARTED order at most at every step', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const b = await create(wms, barcode, { targetLocation: L_OTHER }); // NORMAL
    const c = await create(wms, barcode, { targetLocation: L_WH, priority: 'HIGH' });
    const d = await create(wms, barcode, { targetLocation: L_SUB, priority: 'HIGH' });
    const e = await create(wms, barcode, { targetLocationGroup: 'TO-ZONE', priority: 'LOWEST' });
    const f = await create(wms, barcode, { targetLocation: L_OTHER, priority: 'HIGHEST' });
    const g = await create(wms, barcode, { targetLocation: L_WH, priority: 'LOW' });
    const states = async () => Object.fromEntries((await ofUnit(wms, barcode)).map((o) => [o.pKey, o.state]));
    expect(await states()).toEqual({
      [a.pKey]: 'STARTED',
      [b.pKey]: 'INITIALIZED',
      [c.pKey]: 'INITIALIZED',
      [d.pKey]: 'INITIALIZED',
      [e.pKey]: 'INITIALIZED',
      [f.pKey]: 'INITIALIZED',
      [g.pKey]: 'INITIALIZED',
    });

    let from = events.length;
    await patch(wms, a.pKey, { state: 'FINISHED' });
    expect(eventsSince(events, from)).toEqual([`transportOrder.finished ${a.pKey}`, `transportOrder.started ${f.pKey}`]);
    expect(keys(await startedOf(wms, barcode))).toEqual([f.pKey]);
    const started = await read(wms, f.pKey);
    expect(started.startDate).toMatch(ISO_MS);
    expect(started.ol).toBe(f.ol + 1);

    await patch(wms, f.pKey, { state: 'FINISHED' });
    expect(keys(await startedOf(wms, barcode))).toEqual([c.pKey]);

    from = events.length;
    const canceled = await cancel(wms, c.pKey);
    expect(canceled.state).toBe('CANCELED');
    expect(eventsSince(events, from)).toEqual([`transportOrder.canceled ${c.pKey}`, `transportOrder.started ${d.pKey}`]);
    expect(keys(await startedOf(wms, barcode))).toEqual([d.pKey]);

    await patch(wms, d.pKey, { state: 'INTERRUPTED' });
    expect(keys(await startedOf(wms, barcode))).toEqual([b.pKey]);
    await patch(wms, b.pKey, { state: 'ONFAILURE' });
    expect(keys(await startedOf(wms, barcode))).toEqual([g.pKey]);
    await patch(wms, g.pKey, { state: 'CANCELED' });
    expect(keys(await startedOf(wms, barcode))).toEqual([e.pKey]);
    await patch(wms, e.pKey, { state: 'CANCELED' });
    expect(await startedOf(wms, barcode)).toEqual([]);
    expect(await states()).toEqual({
      [a.pKey]: 'FINISHED',
      [b.pKey]: 'ONFAILURE',
      [c.pKey]: 'CANCELED',
      [d.pKey]: 'INTERRUPTED',
      [e.pKey]: 'CANCELED',
      [f.pKey]: 'FINISHED',
      [g.pKey]: 'CANCELED',
    });

    // The unit is free again: a new order starts at once.
    const h = await create(wms, barcode, { targetLocation: L_ZONE });
    expect(h.state).toBe('STARTED');
  });

  it('three orders of one unit finished and cancelled one by one, in any order: never two STARTED', async () => {
    const barcode = await newUnit(wms);
    const [a, b, c] = [
      await create(wms, barcode, { targetLocation: L_ZONE }),
      await create(wms, barcode, { targetLocation: L_OTHER }),
      await create(wms, barcode, { targetLocation: L_WH }),
    ];
    const check = async (expected: string[]) => {
      expect(keys(await startedOf(wms, barcode))).toEqual(expected);
      expect((await list(wms, `${TO}?state=STARTED`)).filter((o) => o.transportUnitBK === barcode).length).toBeLessThanOrEqual(1);
    };
    await check([a.pKey]);
    // Cancel the queued middle one first: the running one stays.
    await cancel(wms, b.pKey);
    await check([a.pKey]);
    // Cancelling it again is refused.
    await refused(() => wms.del(`${TO}/${b.pKey}`), apiError(409, 'svc.tms.to.endedNotCancelled', b.pKey, [b.pKey, 'CANCELED']));
    await patch(wms, a.pKey, { state: 'FINISHED' });
    await check([c.pKey]);
    // A second start of the same order is no change.
    await patch(wms, c.pKey, { state: 'STARTED' });
    await check([c.pKey]);
    await cancel(wms, c.pKey);
    await check([]);
    expect((await ofUnit(wms, barcode)).map((o) => o.state)).toEqual(['FINISHED', 'CANCELED', 'CANCELED']);
  });

  it('a priority change of a queued order decides which one starts next', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const b = await create(wms, barcode, { targetLocation: L_OTHER });
    const c = await create(wms, barcode, { targetLocation: L_WH });
    await patch(wms, c.pKey, { priority: 'HIGH' });
    await cancel(wms, a.pKey);
    expect(keys(await startedOf(wms, barcode))).toEqual([c.pKey]);
    expect(await stateOf(wms, b.pKey)).toBe('INITIALIZED');
  });

  it('the schema itself refuses a second STARTED order of a unit', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode, { targetLocation: L_ZONE });
    const b = await create(wms, barcode, { targetLocation: L_OTHER });
    // Tried on a copy of the database (an online backup): the running appliance's
    // tables are written by its services only.
    const backup = await wms.post('/v1/backups');
    expect(backup.status, backup.text).toBe(201);
    const copy = new Database(path.join(wms.dataDir, 'backups', backup.body.name));
    try {
      expect(() => copy.prepare("UPDATE transport_orders SET state = 'STARTED', start_date = ? WHERE pk = ?").run(new Date().toISOString(), b.pKey)).toThrow(
        /UNIQUE constraint failed/,
      );
      expect(copy.prepare('SELECT pk, state FROM transport_orders WHERE pk IN (?, ?) ORDER BY state').all(a.pKey, b.pKey)).toEqual([
        { pk: b.pKey, state: 'INITIALIZED' },
        { pk: a.pKey, state: 'STARTED' },
      ]);
    } finally {
      copy.close();
    }
    expect(await stateOf(wms, a.pKey)).toBe('STARTED');
  });
});

// ---- cancel ----------------------------------------------------------------------

describe('DELETE /v1/transport-orders/{pKey} cancels', () => {
  it('a STARTED order: 200 with the CANCELED order (endDate, no change links)', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode);
    const from = events.length;
    const o = await cancel(wms, a.pKey);
    expect(o).toMatchObject({ pKey: a.pKey, state: 'CANCELED', ol: a.ol + 1, startDate: a.startDate });
    expect(o.endDate).toMatch(ISO_MS);
    expect(o.links.map((l) => l.rel).sort()).toEqual(['transport-orders-findbypkey', 'transport-unit']);
    expect(eventTypesSince(events, from)).toEqual(['transportOrder.canceled']);
    expect(await read(wms, a.pKey)).toEqual(o);
  });

  it('a queued order: the running one goes on', async () => {
    const barcode = await newUnit(wms);
    const a = await create(wms, barcode);
    const b = await create(wms, barcode, { targetLocation: L_OTHER });
    const o = await cancel(wms, b.pKey);
    expect(o.state).toBe('CANCELED');
    expect(o).not.toHaveProperty('startDate');
    expect(await stateOf(wms, a.pKey)).toBe('STARTED');
  });

  it('refuses an ended order (409 svc.tms.to.endedNotCancelled) and an unknown one (404 not.found)', async () => {
    for (const state of ENDED) {
      const ended = await orderIn(wms, state);
      await refused(() => wms.del(`${TO}/${ended.pKey}`), apiError(409, 'svc.tms.to.endedNotCancelled', state, [ended.pKey, state]));
    }
    await refused(() => wms.del(`${TO}/no-such-order`), apiError(404, 'not.found', 'no-such-order'));
  });
});
