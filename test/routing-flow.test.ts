import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';

// Routing and transport orders together, over HTTP: a transport unit walks a three-hop
// route, booked hop by hop as a conveyor would report it, until its order is FINISHED;
// the unit's next order then starts by itself.

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

const enc = encodeURIComponent;
const INFEED = 'WALK/0001/0000/0000/0000';
const CONV1 = 'WALK/0002/0000/0000/0000';
const CONV2 = 'WALK/0003/0000/0000/0000';
const STOCK = 'WALK/0004/0000/0000/0000';
const OUTFEED = 'WALK/0005/0000/0000/0000';
const BARCODE = 'WALK-TU-1';

const decide = async (location: string) => {
  const reply = await wms.get(`/v1/api/routes/decision?location=${enc(location)}&barcode=${BARCODE}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { result: string; nextLocation?: string; order?: { pKey: string } };
};
const book = async (location: string) => {
  const reply = await wms.patch(`/v1/transport-units?bk=${BARCODE}&newLocation=${enc(location)}`);
  expect(reply.status, reply.text).toBe(200);
};
const order = async (pKey: string) => (await wms.get(`/v1/transport-orders/${pKey}`)).body;

describe('a three-hop route walked hop by hop', () => {
  let first: string;
  let second: string;

  it('sets up five locations, a route INFEED → STOCK with three hops, a unit at INFEED and two orders', async () => {
    expect((await wms.post('/v1/location-groups', { name: 'WALK', parentName: 'WAREHOUSE' })).status).toBe(201);
    for (const locationId of [INFEED, CONV1, CONV2, STOCK, OUTFEED]) {
      expect((await wms.post('/v1/locations', { locationId, locationGroupName: 'WALK' })).status).toBe(201);
    }
    const route = await wms.post('/v1/api/routes', { name: 'WALK-IN', sourceLocationName: INFEED, targetLocationName: STOCK, enabled: true });
    expect(route.status, route.text).toBe(201);
    const hops = await wms.put(`/v1/api/routes/${route.body.key}/hops`, [
      { source: INFEED, next: CONV1 },
      { source: CONV1, next: CONV2 },
      { source: CONV2, next: STOCK },
    ]);
    expect(hops.status, hops.text).toBe(200);
    expect((await wms.post('/v1/transport-units', { barcode: BARCODE, actualLocation: INFEED, transportUnitType: 'EURO' })).status).toBe(201);

    const to1 = await wms.post('/v1/transport-orders', { barcode: BARCODE, targetLocation: STOCK });
    expect(to1.status, to1.text).toBe(201);
    expect(to1.body.state).toBe('STARTED');
    first = to1.body.persistentKey;
    const to2 = await wms.post('/v1/transport-orders', { barcode: BARCODE, targetLocation: OUTFEED });
    expect(to2.status, to2.text).toBe(201);
    expect(to2.body.state).toBe('INITIALIZED');
    second = to2.body.persistentKey;
  });

  it('sends the unit INFEED → CONV1 → CONV2 → STOCK; booked at STOCK, the order is FINISHED and the next one STARTED', async () => {
    const visited: string[] = [INFEED];
    let at = INFEED;
    for (let step = 0; step < 5; step++) {
      const decision = await decide(at);
      if (decision.result !== 'NEXT') break;
      expect(decision.order?.pKey).toBe(first);
      at = decision.nextLocation!;
      await book(at);
      visited.push(at);
    }
    expect(visited).toEqual([INFEED, CONV1, CONV2, STOCK]);
    expect((await wms.get(`/v1/transport-units?bk=${BARCODE}`)).body.actualLocation).toBe(STOCK);

    const done = await order(first);
    expect(done.state).toBe('FINISHED');
    expect(typeof done.endDate).toBe('string');
    const next = await order(second);
    expect(next.state).toBe('STARTED');
    expect(typeof next.startDate).toBe('string');
  });

  it('routes by the started order from then on: no route from STOCK to OUTFEED yet', async () => {
    const decision = await decide(STOCK);
    expect(decision).toMatchObject({ result: 'NO_ROUTE', order: { pKey: second } });
  });
});
