import { expect } from 'vitest';
import { Conveyor, PlcSimulator } from '../../plc/simulator/index.ts';
import type { TestAppliance } from './appliance.ts';

// A small conveyor set up over the API, for tests that drive units through it by PLC
// telegrams or REST: a group with four locations and a route INFEED → C1 → C2 → STOCK.

export const coordinate = (area: string, n: number) => `${area}/000${n}/0000/0000/0000`;

export interface Site {
  INFEED: string;
  C1: string;
  C2: string;
  STOCK: string;
  /** Location coordinate → pKey. */
  pKey: Record<string, string>;
}

/** A group `area` (under WAREHOUSE) with four locations and a route INFEED → STOCK over C1 and C2. */
export async function site(wms: TestAppliance, area: string): Promise<Site> {
  expect((await wms.post('/v1/location-groups', { name: area, parentName: 'WAREHOUSE' })).status).toBe(201);
  const pKey: Record<string, string> = {};
  for (let n = 1; n <= 4; n++) {
    const created = await wms.post('/v1/locations', { locationId: coordinate(area, n), locationGroupName: area });
    expect(created.status, created.text).toBe(201);
    pKey[coordinate(area, n)] = created.body.pKey;
  }
  const [INFEED, C1, C2, STOCK] = [1, 2, 3, 4].map((n) => coordinate(area, n)) as [string, string, string, string];
  const route = await wms.post('/v1/api/routes', { name: `${area}-IN`, sourceLocationName: INFEED, targetLocationName: STOCK, enabled: true });
  expect(route.status, route.text).toBe(201);
  const hops = await wms.put(`/v1/api/routes/${route.body.key}/hops`, [
    { source: INFEED, next: C1 },
    { source: C1, next: C2 },
    { source: C2, next: STOCK },
  ]);
  expect(hops.status, hops.text).toBe(200);
  return { INFEED, C1, C2, STOCK, pKey };
}

/** A unit at `at` with a STARTED order to `target`; returns the order's pKey. */
export async function unitWithOrder(wms: TestAppliance, barcode: string, at: string, target: string): Promise<string> {
  const unit = await wms.post('/v1/transport-units', { barcode, actualLocation: at, transportUnitType: 'EURO' });
  expect(unit.status, unit.text).toBe(201);
  const order = await wms.post('/v1/transport-orders', { barcode, targetLocation: target });
  expect(order.status, order.text).toBe(201);
  expect(order.body.state).toBe('STARTED');
  return order.body.persistentKey;
}

/**
 * `count` locations `AREA/0000/0000/0000/0000` … in the WAREHOUSE group, made by the
 * service in one unit of work: a backlog of as many events, without as many requests
 * and commits.
 */
export function createLocations(wms: TestAppliance, area: string, count: number): void {
  const { work } = wms.app;
  const common = wms.app.module('common');
  work.run(() => {
    for (let i = 0; i < count; i++)
      common.locations.create({ locationId: `${area}/${String(i).padStart(4, '0')}/0000/0000/0000`, locationGroupName: 'WAREHOUSE' });
  });
}

/** Polls until the check holds (a one-way telegram has no reply to wait for). */
export async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every page of a paged list, following `Link: rel="next"`. */
export async function allPages(wms: TestAppliance, path: string, token?: string): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let next: string | undefined = path;
  let pages = 0;
  while (next) {
    const reply = await wms.get(next, token ? { token } : {});
    expect(reply.status, reply.text).toBe(200);
    items.push(...reply.body);
    pages++;
    const link = reply.headers.get('link');
    const m = link ? /^<([^>]+)>; rel="next"$/.exec(link) : null;
    next = m ? m[1]!.slice(wms.url.length) : undefined;
  }
  return { items, pages };
}

/** A simulated PLC connected over TCP to a tcp-server channel of the appliance, its link proven by a SYNQ. */
export async function connectedPlc(wms: TestAppliance, channel: string): Promise<PlcSimulator> {
  const sim = new PlcSimulator({
    transport: { kind: 'tcp-client', host: '127.0.0.1', port: wms.app.module('plc').channel(channel).address()!.port },
    name: channel,
    requestTimeoutMs: 10_000,
    conveyor: new Conveyor([], { defaultMs: 5 }),
  });
  await sim.connect({ timeoutMs: 10_000 });
  // As a PLC does when it connects: a SYNQ proves the link. A connection that sends no
  // valid telegram for idleTimeoutMs (60 s) is dropped to free its slot, and on a busy
  // box a file's first tests can take longer than that before its PLC speaks.
  await sim.synq({ timeoutMs: 10_000 });
  return sim;
}
