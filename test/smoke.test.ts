import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

describe('smoke', () => {
  it('creates and reads a location', async () => {
    const created = await wms.post('/v1/locations', {
      links: [],
      locationId: 'FGIN/0001/0001/0000/0000',
      plcCode: 'PLC-1',
      erpCode: 'ERP-1',
      type: 'CONVEYOR',
      locationGroupName: 'WAREHOUSE',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${wms.url.replace('127.0.0.1', '127.0.0.1')}/v1/locations/${created.body.pKey}/`);
    const read = await wms.get(`/v1/locations?locationId=${encodeURIComponent('FGIN/0001/0001/0000/0000')}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ locationId: 'FGIN/0001/0001/0000/0000', incomingActive: true, plcState: 0, ol: 0 });
  });
});
