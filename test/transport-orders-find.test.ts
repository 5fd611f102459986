import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent, TestAppliance } from './support/appliance.ts';
import { apiError, refusal, validation } from './support/expect.ts';
import {
  cancel,
  create,
  keys,
  L_OTHER,
  L_WH,
  L_ZONE,
  list,
  newUnit,
  ofUnit,
  read,
  snapshot,
  TO,
  transportOrderAppliance,
  type Order,
} from './support/transport-orders.ts';

// Transport orders (docs/transport-orders.md): the lookups by pKey, barcode and state,
// oldest first. Every refused request is shown to change nothing: all orders,
// transport units and locations read the same after it as before, and no event was
// published.

let wms: TestAppliance;
const events: RecordedEvent[] = [];
beforeAll(async () => {
  wms = await transportOrderAppliance(events);
});
afterAll(() => wms.close());

const refused = refusal({ state: () => snapshot(wms), events });

// ---- lookups ----------------------------------------------------------------

describe('GET /v1/transport-orders', () => {
  let unitA: string;
  let unitB: string;
  let a1: Order;
  let a2: Order;
  let a3: Order;
  let b1: Order;
  beforeAll(async () => {
    unitA = await newUnit(wms);
    unitB = await newUnit(wms);
    a1 = await create(wms, unitA, { targetLocation: L_ZONE });
    a2 = await create(wms, unitA, { targetLocation: L_OTHER });
    a3 = await create(wms, unitA, { targetLocation: L_WH });
    b1 = await create(wms, unitB, { targetLocationGroup: 'TO-SUB' });
    a3 = await cancel(wms, a3.pKey);
  });

  it('by pKey', async () => {
    const o = await read(wms, a2.pKey);
    expect(o).toMatchObject({ pKey: a2.pKey, persistentKey: a2.pKey, state: 'INITIALIZED', transportUnitBK: unitA });
  });

  it('an unknown pKey: 404 not.found naming it', async () => {
    await refused(() => wms.get(`${TO}/no-such-order`), apiError(404, 'not.found', 'no-such-order', ['no-such-order']));
  });

  it('all, oldest first', async () => {
    const all = keys(await list(wms, TO));
    const mine = all.filter((k) => [a1.pKey, a2.pKey, a3.pKey, b1.pKey].includes(k));
    expect(mine).toEqual([a1.pKey, a2.pKey, a3.pKey, b1.pKey]);
  });

  it("by barcode: the unit's orders, oldest first; an unknown barcode has none", async () => {
    expect(keys(await ofUnit(wms, unitA))).toEqual([a1.pKey, a2.pKey, a3.pKey]);
    expect(keys(await ofUnit(wms, unitB))).toEqual([b1.pKey]);
    expect(await ofUnit(wms, 'TO-NO-SUCH-TU')).toEqual([]);
  });

  it('by state (comma-separated or repeated)', async () => {
    const started = keys(await list(wms, `${TO}?state=STARTED`));
    expect(started).toContain(a1.pKey);
    expect(started).toContain(b1.pKey);
    expect(started).not.toContain(a2.pKey);
    const some = keys(await list(wms, `${TO}?state=INITIALIZED,CANCELED`));
    expect(some).toContain(a2.pKey);
    expect(some).toContain(a3.pKey);
    expect(some).not.toContain(a1.pKey);
    expect(keys(await list(wms, `${TO}?state=INITIALIZED&state=CANCELED`))).toEqual(some);
    for (const o of await list(wms, `${TO}?state=CANCELED`)) expect(o.state).toBe('CANCELED');
  });

  it('by barcode and state', async () => {
    expect(keys(await list(wms, `${TO}?barcode=${unitA}&state=STARTED,INITIALIZED`))).toEqual([a1.pKey, a2.pKey]);
    expect(keys(await list(wms, `${TO}?barcode=${unitA}&state=CANCELED`))).toEqual([a3.pKey]);
    expect(keys(await list(wms, `${TO}?barcode=${unitB}&state=FINISHED`))).toEqual([]);
  });

  it('refuses unknown states and unknown parameters with 400 core.validation.error', async () => {
    await refused(() => wms.get(`${TO}?state=RUNNING`), validation('RUNNING'));
    await refused(() => wms.get(`${TO}?state=`), validation('state'));
    await refused(() => wms.get(`${TO}?barcode=${unitA}&state=STARTED,DONE`), validation('DONE'));
    await refused(() => wms.get(`${TO}?barcode=`), validation('barcode'));
    await refused(() => wms.get(`${TO}?bk=${unitA}`), validation('bk'));
    await refused(() => wms.get(`${TO}?state=STARTED&priority=HIGH`), validation('priority'));
  });
});
