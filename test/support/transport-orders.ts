import { expect } from 'vitest';
import { expectApiError, startTestAppliance, unique, type RecordedEvent, type Reply, type TestAppliance } from './appliance.ts';
import { recordEvents } from './expect.ts';

// The transport orders' tests (test/transport-orders-*.test.ts) start from the same
// location groups and locations, make transport units and orders over the API, and read
// back what the API shows of them.

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const TU = '/v1/transport-units';
export const TO = '/v1/transport-orders';

// Topology: WAREHOUSE ⊃ TO-ZONE ⊃ TO-SUB; WAREHOUSE ⊃ TO-OTHER.
export const SRC = 'TOA/0001/0001/0000/0000'; // in TO-OTHER; where new units stand
export const L_ZONE = 'TOB/0001/0001/0000/0000'; // in TO-ZONE
export const L_SUB = 'TOB/0002/0001/0000/0000'; // in TO-SUB
export const L_OTHER = 'TOC/0001/0001/0000/0000'; // in TO-OTHER
export const L_WH = 'TOD/0001/0001/0000/0000'; // in WAREHOUSE
export const LOC_UNKNOWN = 'TOX/9999/9999/9999/9999';

export const STATES = ['CREATED', 'INITIALIZED', 'STARTED', 'INTERRUPTED', 'ONFAILURE', 'CANCELED', 'FINISHED'] as const;
export type State = (typeof STATES)[number];
export const ENDED: readonly State[] = ['INTERRUPTED', 'ONFAILURE', 'CANCELED', 'FINISHED'];

export interface Order {
  pKey: string;
  persistentKey: string;
  ol: number;
  createDt: string;
  lastModifiedDt: string;
  links: { rel: string; href: string }[];
  transportUnitBK: string;
  priority: string;
  state: State;
  sourceLocation: string;
  targetLocation: string | null;
  targetLocationGroup: string | null;
  startDate?: string;
  endDate?: string;
  message?: string;
}

/**
 * A fresh appliance (port 0, a data directory of its own) with the topology above;
 * every transportOrder.* event it commits from its start on is kept in `events`.
 */
export async function transportOrderAppliance(events: RecordedEvent[]): Promise<TestAppliance> {
  const wms = await startTestAppliance();
  recordEvents(wms, events, (event) => event.type.startsWith('transportOrder.'));
  for (const [name, parentName] of [
    ['TO-ZONE', 'WAREHOUSE'],
    ['TO-SUB', 'TO-ZONE'],
    ['TO-OTHER', 'WAREHOUSE'],
  ]) {
    const reply = await wms.post('/v1/location-groups', { name, parentName });
    expect(reply.status, reply.text).toBe(201);
  }
  for (const [locationId, locationGroupName] of [
    [SRC, 'TO-OTHER'],
    [L_ZONE, 'TO-ZONE'],
    [L_SUB, 'TO-SUB'],
    [L_OTHER, 'TO-OTHER'],
    [L_WH, 'WAREHOUSE'],
  ]) {
    const reply = await wms.post('/v1/locations', { locationId, locationGroupName });
    expect(reply.status, reply.text).toBe(201);
  }
  return wms;
}

const q = encodeURIComponent;

/** A new transport unit on a location; returns its barcode. */
export async function newUnit(wms: TestAppliance, location = SRC): Promise<string> {
  const barcode = unique(wms, 'TO-TU');
  const reply = await wms.post(TU, { barcode, actualLocation: location, transportUnitType: 'EURO' });
  expect(reply.status, reply.text).toBe(201);
  return barcode;
}

export const createReply = (wms: TestAppliance, body: unknown) => wms.post(TO, body);

export async function create(wms: TestAppliance, barcode: string, body: Record<string, unknown> = { targetLocation: L_ZONE }): Promise<Order> {
  const reply = await createReply(wms, { barcode, ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

export async function read(wms: TestAppliance, pKey: string): Promise<Order> {
  const reply = await wms.get(`${TO}/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

export async function list(wms: TestAppliance, path: string): Promise<Order[]> {
  const reply = await wms.get(path);
  expect(reply.status, reply.text).toBe(200);
  expect(Array.isArray(reply.body)).toBe(true);
  return reply.body;
}

export const ofUnit = (wms: TestAppliance, barcode: string) => list(wms, `${TO}?barcode=${q(barcode)}`);
export const keys = (orders: Order[]) => orders.map((o) => o.pKey);
export const stateOf = async (wms: TestAppliance, pKey: string) => (await read(wms, pKey)).state;

export const patchReply = (wms: TestAppliance, pKey: string, body: unknown) => wms.patch(`${TO}/${pKey}`, body);

export async function patch(wms: TestAppliance, pKey: string, body: Record<string, unknown>): Promise<Order> {
  const reply = await patchReply(wms, pKey, body);
  expect(reply.status, reply.text).toBe(204);
  expect(reply.text).toBe('');
  return read(wms, pKey);
}

export async function cancel(wms: TestAppliance, pKey: string): Promise<Order> {
  const reply = await wms.del(`${TO}/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

export async function unit(wms: TestAppliance, barcode: string): Promise<Record<string, any>> {
  const reply = await wms.get(`${TU}?bk=${q(barcode)}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Books a unit onto a location over REST, as integrators and OpenWMS's CP005 do. */
export async function move(wms: TestAppliance, barcode: string, location: string): Promise<void> {
  const reply = await wms.patch(`${TU}?bk=${q(barcode)}&newLocation=${q(location)}`, undefined);
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body.actualLocation).toBe(location);
}

/** The unit's STARTED orders (never more than one). */
export const startedOf = async (wms: TestAppliance, barcode: string) => list(wms, `${TO}?barcode=${q(barcode)}&state=STARTED`);

/** Every order, transport unit and location as the API shows them: what a refused request must leave as it was. */
export async function snapshot(wms: TestAppliance) {
  const [orders, units, locations] = await Promise.all([wms.get(TO), wms.get(TU), wms.get('/v1/locations')]);
  for (const r of [orders, units, locations]) expect(r.status, r.text).toBe(200);
  return { orders: orders.body, units: units.body, locations: locations.body };
}

/** The spec: `not.found` whose message is the key, without `obj`. */
export const plainNotFound = (reply: Reply) => {
  expectApiError(reply, 404, 'not.found');
  expect(reply.body.message).toBe('not.found');
  expect(reply.body).not.toHaveProperty('obj');
};

export const invalidParameter = (reply: Reply) => {
  expectApiError(reply, 400, 'core.invalid.parameter');
  expect(reply.body).not.toHaveProperty('obj');
};

export const rawJson = (wms: TestAppliance, method: string, path: string, text: string) =>
  wms.request(method, path, { raw: text, headers: { 'Content-Type': 'application/json' } });

export const eventTypesSince = (events: readonly RecordedEvent[], from: number) => events.slice(from).map((e) => e.type);
export const eventsSince = (events: readonly RecordedEvent[], from: number) =>
  events.slice(from).map((e) => `${e.type} ${String('pKey' in e.data ? e.data.pKey : undefined)}`);

/**
 * An order of a fresh unit in the given state: STARTED is the unit's first order;
 * INITIALIZED the second (the first stays STARTED); an ended one was STARTED first.
 */
export async function orderIn(wms: TestAppliance, state: State): Promise<Order> {
  const barcode = await newUnit(wms);
  const first = await create(wms, barcode, { targetLocation: L_ZONE });
  if (state === 'STARTED') return first;
  if (state === 'INITIALIZED') return create(wms, barcode, { targetLocation: L_OTHER });
  return patch(wms, first.pKey, { state });
}
