import { expect } from 'vitest';
import { startTestAppliance, unique, type RecordedEvent, type Reply, type TestAppliance } from './appliance.ts';
import { recordEvents, refusal } from './expect.ts';

// The inventory's tests (test/inventory-*.test.ts) start from the same few location
// groups and locations, and make products, transport units, load units and packaging
// units over the API, each under a name no other test of the appliance uses.

export const PIECE = 'org.vendor.core.units.api.Piece';
export const PIECE_UNIT = 'org.vendor.core.units.api.PieceUnit';
export const WEIGHT = 'org.vendor.core.units.api.Weight';
export const WEIGHT_UNIT = 'org.vendor.core.units.api.WeightUnit';
export const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

export const pc = (magnitude: number) => ({ '@class': PIECE, unitType: [PIECE_UNIT, 'PC'], magnitude });
export const doz = (magnitude: number) => ({ '@class': PIECE, unitType: [PIECE_UNIT, 'DOZ'], magnitude });
export const kg = (magnitude: number) => ({ '@class': WEIGHT, unitType: [WEIGHT_UNIT, 'KG'], magnitude });
export const g = (magnitude: number) => ({ '@class': WEIGHT, unitType: [WEIGHT_UNIT, 'G'], magnitude });
export const enc = encodeURIComponent;

// Locations: STOCK (group INV-STOCK) ⊃ INV-AISLE (group below it); DOCK elsewhere.
export const LOC_AISLE = 'INV/0001/0001/0001/0001';
export const LOC_STOCK = 'INV/0001/0002/0001/0001';
export const LOC_DOCK = 'INV/0009/0001/0001/0001';
export const LOC_PICK = 'INV/0002/0001/0001/0001';
export const LOC_EMPTY = 'INV/0003/0001/0001/0001';
export const ERP_DOCK = 'ERP-DOCK';

/**
 * A fresh appliance (port 0, a data directory of its own) with the groups INV-STOCK ⊃
 * INV-AISLE and INV-OTHER and the five locations above in them; every event it
 * commits from its start on is kept in `events`.
 */
export async function inventoryAppliance(events: RecordedEvent[]): Promise<TestAppliance> {
  const wms = await startTestAppliance();
  recordEvents(wms, events);
  for (const [name, parentName] of [
    ['INV-STOCK', 'WAREHOUSE'],
    ['INV-AISLE', 'INV-STOCK'],
    ['INV-OTHER', 'WAREHOUSE'],
  ]) {
    const reply = await wms.post('/v1/location-groups', { name, parentName });
    expect(reply.status, reply.text).toBe(201);
  }
  for (const [locationId, locationGroupName, erpCode] of [
    [LOC_AISLE, 'INV-AISLE', 'ERP-AISLE'],
    [LOC_STOCK, 'INV-STOCK', 'ERP-STOCK'],
    [LOC_DOCK, 'INV-OTHER', ERP_DOCK],
    [LOC_PICK, 'INV-OTHER', 'ERP-PICK'],
    [LOC_EMPTY, 'INV-OTHER', 'ERP-EMPTY'],
  ]) {
    const reply = await wms.post('/v1/locations', { locationId, locationGroupName, erpCode });
    expect(reply.status, reply.text).toBe(201);
  }
  return wms;
}

export async function createProducts(wms: TestAppliance, body: unknown): Promise<any[]> {
  const reply = await wms.post('/v1/products', body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

export async function newProduct(wms: TestAppliance, fields: Record<string, unknown> = {}): Promise<any> {
  const [product] = await createProducts(wms, [{ sku: unique(wms, 'SKU'), baseUnit: pc(1), ...fields }]);
  return product;
}

export async function newTransportUnit(wms: TestAppliance, actualLocation = LOC_DOCK, transportUnitType = 'EURO'): Promise<string> {
  const barcode = unique(wms, 'TU');
  const reply = await wms.post('/v1/transport-units', { barcode, actualLocation, transportUnitType });
  expect(reply.status, reply.text).toBe(201);
  return barcode;
}

export const divide = (wms: TestAppliance, fields: Record<string, string>) =>
  wms.request('POST', '/v1/transport-unit', { headers: FORM, raw: new URLSearchParams(fields).toString() });

/** A new transport unit divided into `parts` load units of type EURO-HALF; returns its barcode. */
export async function divided(wms: TestAppliance, parts = 2, location = LOC_DOCK): Promise<string> {
  const bk = await newTransportUnit(wms, location);
  const reply = await divide(wms, { transportUnitBK: bk, loadUnitType: 'EURO-HALF', parts: String(parts) });
  expect(reply.status, reply.text).toBe(201);
  return bk;
}

export async function loadUnitsOf(wms: TestAppliance, bk: string): Promise<any[]> {
  const reply = await wms.get(`/v1/transport-units/${enc(bk)}/load-units`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

export const putPU = (wms: TestAppliance, bk: string, luPos: string, body: unknown, loadUnitType?: string) =>
  wms.post(
    `/v1/transport-units/${enc(bk)}/load-units/${enc(luPos)}/packaging-units${loadUnitType === undefined ? '' : `?loadUnitType=${enc(loadUnitType)}`}`,
    body,
  );

export async function newPU(
  wms: TestAppliance,
  bk: string,
  luPos: string,
  sku: string,
  quantity: unknown,
  extra: Record<string, unknown> = {},
  loadUnitType?: string,
): Promise<any> {
  const reply = await putPU(wms, bk, luPos, { product: { sku }, quantity, ...extra }, loadUnitType);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

export async function listOf(wms: TestAppliance, path: string): Promise<any[]> {
  const reply = await wms.get(path);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Everything the inventory and the transport units show. */
export async function inventoryState(wms: TestAppliance) {
  return {
    products: await listOf(wms, '/v1/products'),
    loadUnits: await listOf(wms, '/v1/load-units'),
    packagingUnits: await listOf(wms, '/v1/packaging-units'),
    transportUnits: await listOf(wms, '/v1/transport-units'),
  };
}

/**
 * Runs a request that must be refused, and proves that nothing changed on `wms()` (or
 * on the appliance given after the check) and that no event was recorded in `events`
 * meanwhile (a user's login may be).
 */
export const inventoryRefusal = (wms: () => TestAppliance, events: readonly RecordedEvent[]) =>
  refusal({ state: (on: TestAppliance = wms()) => inventoryState(on), events, ignore: (e) => e.type.startsWith('user.') });

/** The link names of an index, sorted. */
export const relsOf = (reply: Reply) => Object.keys(reply.body._links as Record<string, unknown>).sort();
