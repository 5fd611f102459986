import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, startTestAppliance, type TestAppliance } from './support/appliance.ts';

// HTTP writes that arrive together share one transaction and one fsync, each in a
// savepoint of its own; every reply leaves only after its write is on disk.

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance();
  expect((await wms.post('/v1/location-groups', { name: 'GC-TAKEN' })).status).toBe(201);
});
afterAll(() => wms.close());

describe('group commit of HTTP writes', () => {
  it('a failing write among concurrent ones is refused alone; the others are committed with their events', async () => {
    const names = Array.from({ length: 24 }, (_, i) => (i % 8 === 3 ? 'GC-TAKEN' : `GC-${i}`));
    const delivered: string[] = [];
    const off = wms.app.bus.on('locationGroup.created', (e) => delivered.push(e.data.name as string));
    const replies = await Promise.all(names.map((name) => wms.post('/v1/location-groups', { name })));
    off();
    replies.forEach((reply, i) => {
      if (names[i] === 'GC-TAKEN') expectApiError(reply, 409, 'already.exists');
      else expect(reply.status, reply.text).toBe(201);
    });
    const created = names.filter((n) => n !== 'GC-TAKEN');
    expect(delivered.sort()).toEqual([...created].sort());
    for (const name of created) expect((await wms.get(`/v1/location-groups?name=${name}`)).status).toBe(200);
    // Every reply came after the commit: nothing is left in an open transaction.
    expect(wms.app.db.inTransaction).toBe(false);
  });
});
