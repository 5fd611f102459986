// What the fuzz suite aims at: a small site set up over the API (one of everything, all
// named FZ…), so that hostile requests reach real resources and not only 404s; the
// values it fills path and query parameters with; and a catalogue of valid create
// bodies, each of which the hostile variants spoil in one place.

import type { Operation } from './routes.ts';

export const PIECE = { '@class': 'org.vendor.core.units.api.Piece', unitType: ['org.vendor.core.units.api.PieceUnit', 'PC'], magnitude: 5 };
const APPLICATION_PREFERENCE = 'org.vendor.core.preferences.api.ApplicationPreferenceVO';
const PRODUCT_POSITION = 'org.vendor.wms.shipping.api.ShippingOrderPositionVO';

export const L1 = 'FZ/0001/0001/0000/0000';
export const L2 = 'FZ/0001/0002/0000/0000';
/** The target of the catalogue's transport orders: nothing else moves a unit there. */
const L3 = 'FZ/0001/0003/0000/0000';
export const BARCODE = 'FZTU1';
export const SKU = 'FZ-SKU';
/** The user whose pKey path parameters name: not the admin, whose password or lock would end the run. */
const VICTIM = 'fz-victim';
/** Logins are fuzzed with a user that does not exist: failed logins of a real one lock it (on purpose). */
export const NOBODY = 'fz-nobody';
export const CHANNEL = 'FZPLC';

/** Path parameter values by `<segment before it>/<name>`; filled by `seedSite`. */
export type Site = Record<string, string>;

type Api = (method: string, path: string, body?: unknown, type?: string) => Promise<any>;

/** Sets the site up; every step must succeed (a set-up failure is not a finding, it stops the run). */
export async function seedSite(api: Api): Promise<Site> {
  const site: Site = {};
  site['location-groups/pKey'] = site['location-group/pKey'] = (await api('POST', '/v1/location-groups', { name: 'FZ', parentName: 'WAREHOUSE' })).pKey;
  site['location-types/pKey'] = (await api('POST', '/v1/location-types', { type: 'FZ-LT', description: 'fuzz' })).pKey;
  site['transport-unit-types/pKey'] = (await api('POST', '/v1/transport-unit-types', { type: 'FZ-TUT' })).pKey;
  const l1 = await api('POST', '/v1/locations', { locationId: L1, locationGroupName: 'FZ', erpCode: 'FZ-ERP1', plcCode: 'FZPLC1' });
  await api('POST', '/v1/locations', { locationId: L2, locationGroupName: 'FZ' });
  await api('POST', '/v1/locations', { locationId: L3, locationGroupName: 'FZ' });
  site['locations/pKey'] = site['location/pKey'] = l1.pKey;
  const unit = await api('POST', '/v1/transport-units', { barcode: BARCODE, actualLocation: L1, transportUnitType: 'EURO' });
  site['transport-units/pKey'] = unit.pKey;
  site['transport-units/transportUnitBK'] = site['transport-units/bk'] = BARCODE;
  site['products/pKey'] = (await api('POST', '/v1/products', [{ sku: SKU, baseUnit: { ...PIECE, magnitude: 1 } }]))[0].pKey;
  const pu = await api('POST', `/v1/transport-units/${BARCODE}/load-units/1/packaging-units?loadUnitType=EURO-HALF`, {
    product: { sku: SKU },
    quantity: PIECE,
  });
  site['packaging-units/pKey'] = pu.pKey;
  site['load-units/luPos'] = '1';
  site['load-units/pKey'] = (await api('GET', `/v1/transport-units/${BARCODE}/load-units`))[0].pKey;
  site['users/pKey'] = (await api('POST', '/users', { username: VICTIM, password: 'victim-password-1' })).pKey;
  site['roles/pKey'] = (await api('POST', '/roles', { name: 'FZ_ROLE', grants: ['locations:read'] })).pKey;
  site['grants/pKey'] = (await api('POST', '/grants', { name: 'fz:grant', description: 'fuzz' })).pKey;
  site['api-keys/pKey'] = (await api('POST', '/api-keys', { name: 'fz-key', roleName: 'FZ_ROLE' })).pKey;
  site['preferences/pKey'] = (await api('POST', '/v1/preferences', { '@class': APPLICATION_PREFERENCE, key: 'fz.pref', value: 'v' })).pKey;
  site['tasks/pKey'] = (await api('POST', '/tasks', { type: 'MANUAL', description: 'fuzz' })).pKey;
  site['accounts/pKey'] = (await api('GET', '/v1/accounts'))[0].pKey;
  const route = await api('POST', '/v1/api/routes', { name: 'FZ-ROUTE', sourceLocationName: L1, targetLocationName: L2 });
  site['routes/key'] = route.key;
  site['transport-orders/pKey'] = (await api('POST', '/v1/transport-orders', { barcode: BARCODE, targetLocation: L2 })).pKey;
  site['movements/pKey'] = (await api('POST', `/v1/transport-units/${BARCODE}/movements`, { sourceLocation: L1, target: L2 })).pKey;
  const shipping = await api('POST', '/v1/shipping-orders', {
    orderId: 'FZ-SHP',
    positions: [{ '@class': PRODUCT_POSITION, pos: '1', product: { sku: SKU }, qtyOrdered: PIECE }],
  });
  site['shipping-orders/pKey'] = shipping.pKey;
  site['shipping-order-positions/pKey'] = shipping.positions[0].pKey;
  site['receiving-orders/pKey'] = (
    await api('POST', '/v1/receiving-orders', { orderId: 'FZ-REC', positions: [{ positionId: '1', quantityExpected: PIECE, product: { sku: SKU } }] })
  ).pKey;
  site['backups/name'] = (await api('POST', '/v1/backups')).name;
  // A location reporting a PLC state raises an alarm: one to acknowledge and shelve.
  await api('PATCH', `/v1/location/${l1.pKey}?op=change-state`, { errorCode: '********', plcState: 5 });
  site['alarms/id'] = String((await api('GET', '/v1/alarms'))[0].id);
  site['plc-channels/name'] = CHANNEL;
  return site;
}

/** A value for a path parameter: the site's resource, or a key that names nothing. */
export function pathValue(site: Site, op: Operation, index: number): string {
  const segments = op.path.split('/');
  const params = segments.map((s, i) => ({ s, i })).filter(({ s }) => s.startsWith('{'));
  const { s, i } = params[index]!;
  const name = s.slice(1, -1);
  // DELETE with a real key would delete it: the site would thin out as the run goes on.
  if (op.method === 'DELETE') return 'fz-missing';
  return site[`${segments[i - 1]}/${name}`] ?? 'fz-missing';
}

/** Values of query parameters, by name (some depend on the path). */
export function queryValue(op: Operation, name: string): string {
  const p = op.path;
  switch (name) {
    case 'name':
      return p.startsWith('/roles') ? 'FZ_ROLE' : p.startsWith('/grants') ? 'fz:grant' : p.startsWith('/preferences') ? 'fz-group' : 'FZ';
    case 'names':
    case 'locationGroupNames':
    case 'locationGroupName':
    case 'area':
      return 'FZ';
    case 'scope':
      return 'APPLICATION';
    case 'user':
      return VICTIM;
    case 'key':
      return 'fz.pref';
    case 'role':
      return 'FZ_ROLE';
    case 'module':
      return 'FZMOD';
    case 'typeName':
    case 'type':
      return p.includes('transport-unit-types') ? 'FZ-TUT' : 'FZ-LT';
    case 'locationId':
    case 'locationPK':
    case 'actualLocation':
    case 'location':
      return L1;
    case 'newLocation':
      return L2;
    case 'erpCode':
      return 'FZ-ERP1';
    case 'plcCode':
      return 'FZPLC1';
    case 'tut':
      return 'EURO';
    case 'bk':
    case 'barcode':
    case 'bks':
      return BARCODE;
    case 'sku':
      return SKU;
    case 'uom':
      return 'PC';
    case 'orderId':
      return p.includes('receiving') ? 'FZ-REC' : 'FZ-SHP';
    case 'state':
    case 'states':
      return 'CREATED';
    case 'identifier':
      return 'FZ-ACCOUNT';
    case 'default':
      return 'true';
    case 'productPKey':
      return 'fz-missing';
  }
  return 'fz';
}

/** A valid create body and its fields that are names (where NUL, bidi controls and lone surrogates are refused). */
export interface CatalogueEntry {
  op: string;
  path: string;
  build: (n: number) => Record<string, unknown> | Record<string, unknown>[];
  /** Field paths (dot-separated; `0.sku` in an array body) holding names. */
  names: readonly string[];
}

export const CATALOGUE: readonly CatalogueEntry[] = [
  { op: 'POST /v1/location-groups', path: '/v1/location-groups', build: (n) => ({ name: `FZG${n}`, parentName: 'FZ', description: 'fuzz' }), names: ['name'] },
  { op: 'POST /v1/location-types', path: '/v1/location-types', build: (n) => ({ type: `FZLT${n}`, description: 'fuzz', length: 10 }), names: ['type'] },
  { op: 'POST /v1/transport-unit-types', path: '/v1/transport-unit-types', build: (n) => ({ type: `FZT${n}`, weightMax: 5 }), names: ['type'] },
  {
    op: 'POST /v1/locations',
    path: '/v1/locations',
    build: (n) => ({ locationId: `FZ/N${n}/0/0/0`, locationGroupName: 'FZ', erpCode: `FZE${n}`, plcCode: `FZP${n}`, sortOrder: 1 }),
    names: ['locationId', 'erpCode', 'plcCode'],
  },
  {
    op: 'POST /v1/transport-units',
    path: '/v1/transport-units',
    build: (n) => ({ barcode: `FZU${n}`, actualLocation: L2, transportUnitType: 'EURO', weight: 1 }),
    names: ['barcode'],
  },
  {
    op: 'POST /v1/products',
    path: '/v1/products',
    build: (n) => [{ sku: `FZS${n}`, baseUnit: { ...PIECE, magnitude: 1 }, description: 'fuzz' }],
    names: ['0.sku'],
  },
  {
    op: 'POST /users',
    path: '/users',
    build: (n) => ({ username: `fz-u${n}`, fullname: 'Fuzz', password: 'fuzz-password-1', enabled: true }),
    names: ['username'],
  },
  { op: 'POST /roles', path: '/roles', build: (n) => ({ name: `FZ_R${n}`, description: 'fuzz', grants: ['locations:read'] }), names: ['name'] },
  { op: 'POST /grants', path: '/grants', build: (n) => ({ name: `fz:g${n}`, description: 'fuzz' }), names: ['name'] },
  { op: 'POST /api-keys', path: '/api-keys', build: (n) => ({ name: `fz-k${n}`, roleName: 'FZ_ROLE' }), names: ['name'] },
  {
    op: 'POST /v1/preferences',
    path: '/v1/preferences',
    build: (n) => ({ '@class': APPLICATION_PREFERENCE, key: `fz.k${n}`, value: 'v', type: 'STRING' }),
    names: ['key'],
  },
  { op: 'POST /tasks', path: '/tasks', build: () => ({ type: 'MANUAL', description: 'fuzz' }), names: [] },
  {
    op: 'POST /v1/api/routes',
    path: '/v1/api/routes',
    build: (n) => ({ name: `FZR${n}`, sourceLocationName: L1, targetLocationName: L2, enabled: false }),
    names: ['name'],
  },
  { op: 'POST /v1/transport-orders', path: '/v1/transport-orders', build: () => ({ barcode: BARCODE, targetLocation: L3, priority: 'HIGH' }), names: [] },
  {
    op: 'POST /v1/shipping-orders',
    path: '/v1/shipping-orders',
    build: (n) => ({ orderId: `FZS${n}`, positions: [{ '@class': PRODUCT_POSITION, pos: '1', product: { sku: SKU }, qtyOrdered: PIECE }] }),
    names: ['orderId'],
  },
  {
    op: 'POST /v1/receiving-orders',
    path: '/v1/receiving-orders',
    build: (n) => ({ orderId: `FZR${n}`, positions: [{ positionId: '1', quantityExpected: PIECE, product: { sku: SKU } }] }),
    names: ['orderId'],
  },
  {
    op: 'POST /v1/transport-units/{transportUnitBK}/movements',
    path: `/v1/transport-units/${BARCODE}/movements`,
    build: (n) => ({ sourceLocation: L1, target: L2, initiator: `fz${n}`, priority: 1 }),
    names: ['initiator'],
  },
];

/** A copy of a body with the value at a dot-separated path replaced. */
export function withField(body: unknown, fieldPath: string, value: unknown): unknown {
  const parts = fieldPath.split('.');
  // A learnt `0.sku` on a body that is not (yet) an array: the array is made.
  const copy = (Array.isArray(body) || !/^\d+$/.test(parts[0]!) ? structuredClone(body ?? {}) : []) as Record<string, unknown>;
  let at: Record<string, unknown> = copy;
  parts.slice(0, -1).forEach((part, i) => {
    if (typeof at[part] !== 'object' || at[part] === null) at[part] = /^\d+$/.test(parts[i + 1]!) ? [] : {};
    at = at[part] as Record<string, unknown>;
  });
  at[parts.at(-1)!] = value;
  return copy;
}

/** The top-level fields of a body (of its first element, for an array body) as paths. */
export function fieldsOf(body: unknown): string[] {
  if (Array.isArray(body)) return body.length && typeof body[0] === 'object' ? Object.keys(body[0] as object).map((k) => `0.${k}`) : [];
  return body && typeof body === 'object' ? Object.keys(body) : [];
}
