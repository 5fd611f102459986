import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHENTICATED, PUBLIC, type Route } from '../src/http/router.ts';
import { startTestAppliance, type Reply, type TestAppliance } from './support/appliance.ts';
import { allPages, connectedPlc, site, unitWithOrder, until } from './support/warehouse.ts';

// The API description at /openapi.json: valid OpenAPI 3.1 by two validators, every
// route of the table in it, and real replies of the appliance valid against the
// schemas it declares (a schema that disagrees with the code fails here).

type Json = Record<string, any>;

const API_DECLINED = { $ref: '#/components/schemas/ApiDeclined' };
const SERVER_DECLINED = { $ref: '#/components/schemas/ServerDeclined' };

let wms: TestAppliance;
let doc: Json;
beforeAll(async () => {
  // A PLC channel, so that its diagnostics have something to show.
  wms = await startTestAppliance({ plc: { channels: [{ name: 'CNV01', transport: 'tcp-server', host: '127.0.0.1', port: 0, resReasonCodes: true }] } });
  const reply = await wms.get('/openapi.json', { anonymous: true });
  expect(reply.status).toBe(200);
  doc = reply.body;
});
afterAll(() => wms.close());

const operationOf = (route: Route): Json | undefined => doc.paths[route.path]?.[route.method.toLowerCase()];

/** A request path for a route: parameters filled in, the query parameters that select it present. */
function concretePath(route: Route): string {
  const path = route.path.replace(/\{\w+\}/g, 'OAS-KEY');
  const query = (route.query ?? []).map((q) => (q.includes('=') ? q : `${q}=X`)).join('&');
  return query ? `${path}?${query}` : path;
}

/** `ref` as it points into the document. */
function resolve(node: Json): Json {
  if (typeof node?.$ref !== 'string') return node;
  return (node.$ref as string)
    .slice(2)
    .split('/')
    .reduce((at: Json, key) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    const api = await SwaggerParser.validate(structuredClone(doc) as never);
    expect((api as Json).openapi).toBe('3.1.0');
  });

  it('has no error under the recommended rules of Redocly lint', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
    expect(errors).toEqual([]);
  });

  it('names the licence: proprietary', () => {
    expect(doc.info.license).toEqual({ name: 'Proprietary', identifier: 'LicenseRef-Proprietary' });
  });

  it('gives the limits a body is checked against, from the schema that checks it', () => {
    const shelve = doc.paths['/v1/alarms/{id}/shelve'].post.requestBody.content['application/json'].schema;
    expect(shelve.properties.minutes).toMatchObject({ type: 'integer', minimum: 1, maximum: 7 * 24 * 60 });
    expect(shelve.required).toEqual(['minutes']);
  });

  it('has an operation for every route, no query in a path key, and unique operation ids', () => {
    for (const route of wms.app.routes) expect(operationOf(route), `${route.method} ${route.path} ${route.query ?? ''}`).toBeDefined();
    expect(Object.keys(doc.paths).filter((p) => p.includes('?'))).toEqual([]);
    const ids = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((o: any) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes the body of every POST, PUT and PATCH that takes JSON or a form', () => {
    const missing: string[] = [];
    for (const route of wms.app.routes) {
      if (route.method === 'GET' || route.method === 'DELETE') continue;
      const kinds = route.body === undefined ? ['json'] : [route.body].flat();
      if (!kinds.includes('json') && !kinds.includes('form')) continue;
      const content = operationOf(route)?.requestBody?.content ?? {};
      const schema = content['application/json']?.schema ?? content['application/x-www-form-urlencoded']?.schema;
      if (!route.requestSchema || !schema || Object.keys(schema).length === 0) missing.push(`${route.method} ${route.path}`);
    }
    expect(missing).toEqual([]);
  });

  it('describes every media type a request body is taken as: JSON also as application/hal+json and the vendor types of its route', () => {
    const missing: string[] = [];
    for (const route of wms.app.routes) {
      const kinds = route.body === undefined ? (route.method === 'GET' || route.method === 'DELETE' ? [] : ['json']) : [route.body].flat();
      if (!kinds.includes('json')) continue;
      const content = operationOf(route)?.requestBody?.content ?? {};
      for (const type of ['application/json', 'application/hal+json', ...(route.vendorTypes ?? [])]) {
        if (!content[type]?.schema) missing.push(`${route.method} ${route.path} ${type}`);
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(doc.paths['/v1/location-groups'].post.requestBody.content)).toEqual([
      'application/json',
      'application/hal+json',
      'application/vnd.vendor.common.location-group-v1+json',
    ]);
  });

  it('describes the JSON reply of every route that answers JSON', () => {
    const missing: string[] = [];
    for (const route of wms.app.routes) {
      const statuses = [route.status ?? 200].flat();
      const answersJson = !route.eventStream && !route.replyType && !route.index && statuses.some((s) => s !== 204);
      const key = `${route.method} ${route.path}`;
      if (answersJson && route.responseSchema === undefined) missing.push(key);
    }
    expect(missing).toEqual([]);
  });

  it('expresses lookups selected by query as one operation with optional typed parameters', () => {
    const lookups = doc.paths['/v1/locations'].get;
    const parameter = (op: Json, name: string) => (op.parameters as Json[]).find((p) => p.name === name);
    for (const name of ['locationId', 'erpCode', 'plcCode', 'area', 'locationGroupNames']) {
      expect(parameter(lookups, name), name).toMatchObject({ in: 'query', required: false });
    }
    expect(lookups.description).toContain('`?erpCode={erpCode}` (link `location-findbyerpcode`)');
    expect(lookups['x-link-names']).toEqual(expect.arrayContaining(['location-findall', 'location-findbycoordinate']));
    const ok = lookups.responses['200'].content['application/hal+json'].schema;
    expect(ok.oneOf).toEqual(expect.arrayContaining([{ $ref: '#/components/schemas/Location' }]));

    const changeState = doc.paths['/v1/location/{pKey}'].patch;
    expect(parameter(changeState, 'op')).toMatchObject({ required: true, schema: { type: 'string', enum: ['change-state'] } });
    expect(changeState.requestBody.content['application/json'].schema.properties).toHaveProperty('errorCode');

    // A create by body or by query parameters: the body is optional, both forms are described.
    const create = doc.paths['/v1/transport-units'].post;
    expect(create.requestBody.required).toBe(false);
    expect(parameter(create, 'tut')).toMatchObject({ required: false });
  });

  it('names the grant of every operation as a scope of both bearer schemes; public ones need none', () => {
    expect(doc.components.securitySchemes.oauth2.flows.password.tokenUrl).toBe(`${wms.url}/oauth/token`);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const route of wms.app.routes) {
      const security = operationOf(route)!.security;
      if (route.grant === PUBLIC) expect(security, route.path).toEqual([]);
      else if (route.grant === AUTHENTICATED) expect(security, route.path).toEqual([{ oauth2: [] }, { bearer: [] }]);
      else expect(security, route.path).toEqual(expect.arrayContaining([{ oauth2: [route.grant] }, { bearer: [route.grant] }]));
    }
    expect(doc.paths['/index'].get.security).toEqual([]);
  });

  it('describes who-am-I (GET /hmi/session) as needing a token of any scope: 401 without one, never 403', () => {
    const session = doc.paths['/hmi/session'].get;
    expect(session.security).toEqual([{ oauth2: [] }, { bearer: [] }]);
    expect(resolve(session.responses['401']).content).toEqual({ 'application/json': { schema: SERVER_DECLINED } });
    expect(session.responses['403']).toBeUndefined();
  });

  it('answers the event stream as text/event-stream, also with a ticket', () => {
    const stream = doc.paths['/v1/events'].get;
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
    expect(stream.security).toContainEqual({ eventTicket: [] });
    expect(doc.components.securitySchemes.eventTicket).toMatchObject({ type: 'apiKey', in: 'query', name: 'ticket' });
    expect((stream.parameters as Json[]).map((p) => p.name)).toEqual(expect.arrayContaining(['types', 'lastEventId', 'Last-Event-ID']));
  });

  it('refers the refusals to the error bodies described once', () => {
    const byPKey = doc.paths['/v1/locations/{pKey}'].get.responses;
    for (const status of ['401', '403', '404']) expect(byPKey[status]).toEqual({ $ref: expect.stringMatching(/^#\/components\/responses\//) });
    expect(doc.paths['/v1/locations'].put.responses['409']).toBeDefined();
    expect(doc.paths['/v1/locations'].post.responses['400']).toBeDefined();
    expect(resolve(byPKey['404']).content).toEqual({ 'application/hal+json': { schema: API_DECLINED } });
  });

  it('describes each refusal with the body it really has: one schema per status and media type as sent', () => {
    const serverOnly = { 'application/json': { schema: SERVER_DECLINED } };
    const either = { 'application/hal+json': { schema: API_DECLINED }, 'application/json': { schema: SERVER_DECLINED } };
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          if (Number(status) < 400) continue;
          const content = resolve(response).content as Json;
          const where = `${method} ${path} ${status}`;
          // A rule's refusal is ApiDeclined as hal+json; a refusal before processing is ServerDeclined as json.
          for (const [type, media] of Object.entries(content)) {
            expect(media.schema, `${where} ${type}`).toEqual(type === 'application/hal+json' ? API_DECLINED : SERVER_DECLINED);
            expect(['application/hal+json', 'application/json'], where).toContain(type);
          }
          if (['405', '406', '415', '429', '500'].includes(status)) expect(content, where).toEqual(serverOnly);
          if (status === '409') expect(Object.keys(content), where).toEqual(['application/hal+json']);
        }
        // Any request can carry a malformed URL.
        expect(resolve(operation.responses['400']).content['application/json'], `${method} ${path}`).toEqual({ schema: SERVER_DECLINED });
      }
    }
    const index = doc.paths['/v1/locations/index'].get.responses;
    for (const status of ['401', '403', '406']) expect(resolve(index[status]).content, status).toEqual(serverOnly);
    expect(resolve(doc.paths['/v1/location-groups'].post.responses['400']).content).toEqual(either);
    expect(resolve(doc.paths['/v1/location-groups'].post.responses['415']).content).toEqual(serverOnly);
    // Rules of the spec that refuse with 401 and 403: both bodies, each under its own type.
    expect(resolve(doc.paths['/v1/preferences'].get.responses['401']).content).toEqual(either);
    expect(resolve(doc.paths['/v1/receiving-orders/{pKey}'].delete.responses['403']).content).toEqual(either);
    // Where a literal path shadows the template, the router answers 405 with the methods it serves.
    const shadowed = resolve(doc.paths['/v1/locations/{pKey}'].delete.responses['405']);
    expect(shadowed.content).toEqual(serverOnly);
    expect(shadowed.headers).toHaveProperty('Allow');
    expect(doc.paths['/index'].get.responses['405']).toBeUndefined();
    // `/` answers clients that do not ask for HTML 404.
    expect(resolve(doc.paths['/'].get.responses['404']).content).toEqual(serverOnly);
  });
});

describe('real replies', () => {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('binary', true);
  let registered = false;

  const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

  /** The path template of the document that serves a concrete path; literal segments win, as in the router. */
  function templateOf(path: string, method: string): string {
    const candidates = Object.keys(doc.paths).filter((template) => {
      if (!doc.paths[template][method]) return false;
      const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
      return pattern.test(path);
    });
    candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
    if (!candidates[0]) throw new Error(`no operation for ${method} ${path}`);
    return candidates[0];
  }

  /** The reply's body is valid against the schema the document declares for its status and media type. */
  function expectConforms(method: string, url: string, reply: Reply): void {
    if (!registered) {
      ajv.addSchema(doc, 'openapi');
      registered = true;
    }
    const m = method.toLowerCase();
    const template = templateOf(url.split('?')[0]!, m);
    const responses = doc.paths[template][m].responses;
    const declared = responses[String(reply.status)];
    expect(declared, `${method} ${url} answered ${reply.status}, which the description does not list: ${reply.text}`).toBeDefined();
    if (reply.text === '') {
      // No body (204, a 201 that names its resource by Location only, a search that found nothing).
      if (reply.status === 204) expect(resolve(declared).content).toBeUndefined();
      return;
    }
    const type = reply.headers.get('content-type')!.split(';')[0]!;
    const base = typeof declared.$ref === 'string' ? (declared.$ref as string).slice(1) : `/paths/${escape(template)}/${m}/responses/${reply.status}`;
    expect(resolve(declared).content?.[type], `${method} ${url}: ${type} not declared`).toBeDefined();
    const validate = ajv.getSchema(`openapi#${base}/content/${escape(type)}/schema`)!;
    if (!validate(reply.body)) {
      throw new Error(
        `${method} ${url} (${reply.status} ${type}) disagrees with its schema: ${ajv.errorsText(validate.errors, { separator: '\n' })}\n${reply.text.slice(0, 2000)}`,
      );
    }
  }

  const get = async (url: string, options = {}) => {
    const reply = await wms.get(url, options);
    expectConforms('GET', url, reply);
    return reply;
  };
  const send = async (method: string, url: string, body?: unknown) => {
    const reply = await wms.request(method, url, body === undefined ? {} : { body });
    expectConforms(method, url, reply);
    return reply;
  };

  it('of the common module: locations, groups, types, transport units, accounts', async () => {
    const area = await site(wms, 'OAS');
    const location = await send('PUT', '/v1/locations', {
      ...(await get(`/v1/locations/${area.pKey[area.C1]}`)).body,
      erpCode: 'ERP-OAS-1',
      plcCode: 'PLC-OAS-1',
      description: 'conveyor 1',
      sortOrder: 3,
      stockZone: 'A',
      type: null,
    });
    expect(location.status).toBe(200);
    await get(`/v1/locations?locationId=${encodeURIComponent(area.C1)}`);
    await get('/v1/locations?erpCode=ERP-OAS-1');
    await get('/v1/locations?area=OAS&aisle=%25');
    await get('/v1/locations?locationGroupNames=OAS');
    await get('/v1/locations');
    await send('PATCH', `/v1/location/${area.pKey[area.C2]}?op=change-state`, { errorCode: '******11', reason: 'maintenance' });
    await get('/v1/location-groups?name=OAS');
    await get('/v1/location-groups');
    await get('/v1/location-types');
    await get('/v1/transport-unit-types?type=EURO');
    await get('/v1/accounts?default=true');
    await get('/v1/accounts');
    await get('/v1/locations/index');
    await get('/index', { anonymous: true });

    const unit = await send('POST', '/v1/transport-units', { barcode: 'OAS-TU-1', actualLocation: area.INFEED, transportUnitType: 'EURO', weight: 12.5 });
    expect(unit.status).toBe(201);
    await get(`/v1/transport-units/${unit.body.pKey}`);
    await get('/v1/transport-units?bk=OAS-TU-1');
    await get(`/v1/transport-units?actualLocation=${encodeURIComponent(area.INFEED)}`);
    await send('PATCH', `/v1/transport-units?bk=OAS-TU-1&newLocation=${encodeURIComponent(area.C1)}`);
    await send('POST', `/v1/transport-units?actualLocation=${encodeURIComponent(area.INFEED)}&tut=EURO&bk=OAS-TU-2`);

    // The check itself: a reply whose body strays from the schema is caught.
    const stray = { ...location, body: { ...location.body, plcState: 'high', surplus: 1 } };
    expect(() => expectConforms('GET', `/v1/locations/${location.body.pKey}`, stray)).toThrow(/additional properties[\s\S]*plcState must be integer/);

    // Refusals: API-declined and server-declined bodies.
    await get('/v1/locations/no-such-pkey');
    await get('/v1/locations?erpCode=NONE');
    await get('/v1/locations', { anonymous: true });
    await send('POST', '/v1/locations', { locationId: 'bad' });
    await send('POST', '/v1/location-groups', { name: 'OAS' });
  });

  it('of every refusal before processing: each body valid against the schema of its status and of the media type sent', async () => {
    // A caller holding one grant, for the 403 of a grant it lacks.
    expect((await wms.post('/roles', { name: 'OAS-ALARM-READER', grants: ['alarms:read'] })).status).toBe(201);
    const reader = (await wms.post('/api-keys', { name: 'oas-alarm-reader', roleName: 'OAS-ALARM-READER' })).body.key as string;
    const json = (raw: string, type = 'application/json') => ({ raw, headers: { 'Content-Type': type } });
    const refusals: [status: number, method: string, url: string, options: Parameters<typeof wms.request>[2]][] = [
      [401, 'GET', '/v1/locations/index', { anonymous: true }],
      [401, 'GET', '/v1/locations/index', { token: 'not-a-token' }],
      [401, 'GET', '/v1/preferences', { anonymous: true }],
      [403, 'GET', '/v1/locations/index', { token: reader }],
      [406, 'GET', '/v1/locations/index', { headers: { Accept: 'text/html' } }],
      [406, 'GET', '/index', { anonymous: true, headers: { Accept: 'text/html' } }],
      [406, 'GET', '/index', { anonymous: true, headers: { Accept: 'application/vnd.vendor.common.location-v1+json' } }],
      [415, 'POST', '/v1/location-groups', json('{"name":"OAS-TEXT"}', 'text/plain')],
      [413, 'POST', '/v1/location-groups', json(`{"name":"${'x'.repeat(1024 * 1024)}"}`)],
      [400, 'POST', '/v1/location-groups', json('{"name": "OAS-BROKEN",')],
      [400, 'GET', '/v1/locations?erpCode=%zz', {}],
      [400, 'PATCH', `/v1/location/${encodeURIComponent('no-such-pkey')}`, json('{}')],
      [405, 'DELETE', '/v1/locations/index', {}],
      [404, 'GET', '/', { anonymous: true, headers: { Accept: 'application/json' } }],
    ];
    for (const [status, method, url, options] of refusals) {
      const reply = await wms.request(method, url, options);
      expect(reply.status, `${method} ${url}: ${reply.text}`).toBe(status);
      expect(reply.headers.get('content-type'), `${method} ${url}`).toBe('application/json');
      expectConforms(method, url, reply);
    }

    // No operation answers these: their body is the one the description names for refusals before processing.
    for (const [status, method, url] of [
      [404, 'GET', '/v1/nothing-here'],
      [405, 'DELETE', '/index'],
    ] as const) {
      const reply = await wms.request(method, url);
      expect(reply.status, `${method} ${url}`).toBe(status);
      expect(reply.headers.get('content-type')).toBe('application/json');
      if (!registered) ajv.addSchema(doc, 'openapi');
      registered = true;
      const validate = ajv.getSchema('openapi#/components/schemas/ServerDeclined')!;
      expect(validate(reply.body), `${method} ${url}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('of requests whose body comes as a media type the description lists, and of those it does not', async () => {
    const group = (name: string, type: string) => ({ raw: JSON.stringify({ name }), headers: { 'Content-Type': type } });
    for (const [name, type] of [
      ['OAS-VENDOR', 'application/vnd.vendor.common.location-group-v1+json'],
      ['OAS-HAL', 'application/hal+json'],
    ]) {
      const reply = await wms.request('POST', '/v1/location-groups', group(name!, type!));
      expect(reply.status, `${type}: ${reply.text}`).toBe(201);
      expectConforms('POST', '/v1/location-groups', reply);
    }
    // Every route that takes a body refuses a type its description does not list (before its handler runs).
    const undocumented = 'application/vnd.vendor.common.location-v1+json';
    for (const route of wms.app.routes) {
      const kinds = route.body === undefined ? (route.method === 'GET' || route.method === 'DELETE' ? [] : ['json']) : [route.body].flat();
      if (!kinds.some((k) => k !== 'none') || route.vendorTypes?.includes(undocumented)) continue;
      expect(operationOf(route)!.requestBody.content[undocumented], `${route.method} ${route.path}`).toBeUndefined();
      const url = concretePath(route);
      const reply = await wms.request(route.method, url, { raw: '{}', headers: { 'Content-Type': undocumented } });
      expect(reply.status, `${route.method} ${url}: ${reply.text}`).toBe(415);
      expectConforms(route.method, url, reply);
    }
  });

  it('of inventory, orders, movements and routing', async () => {
    const area = await site(wms, 'OAI');
    await unitWithOrder(wms, 'OAI-TU-1', area.INFEED, area.STOCK);
    await get('/v1/transport-orders');
    await get('/v1/transport-orders?barcode=OAI-TU-1&state=STARTED');
    const product = await send('POST', '/v1/products', {
      sku: 'OAI-SKU',
      label: 'bolts',
      baseUnit: { unit: 'PC', amount: 1 },
      units: [{ label: 'box', quantity: { unit: 'PC', amount: 12 }, dimension: { length: 10, width: 5, uom: 'CM' }, details: { carrierType: 'box' } }],
      stackingRules: [{ noProducts: 2, allowedProduct: { sku: 'OAI-SKU' } }],
      details: { colour: 'grey' },
    });
    expect(product.status).toBe(201);
    await get('/v1/products?sku=OAI-SKU');
    const pu = await send('POST', '/v1/transport-units/OAI-TU-1/load-units/P1/packaging-units?loadUnitType=BOX', {
      product: { sku: 'OAI-SKU' },
      quantity: { unit: 'PC', amount: 24 },
      length: 100,
      serialNumber: 'S-1',
      labels: ['fragile'],
      weight: { unit: 'KG', amount: 2 },
      loadUnitDistribution: { piecesPerLoadUnitLayer: 6 },
    });
    expect(pu.status, pu.text).toBe(201);
    await get(`/v1/packaging-units/${pu.body.pKey}`);
    await get('/v1/packaging-units?sku=OAI-SKU');
    await get('/v1/load-units');
    await get('/v1/transport-units/OAI-TU-1/load-units');

    const movement = await send('POST', '/v1/transport-units/OAI-TU-1/movements', { sourceLocation: area.INFEED, target: 'OAI', sku: 'OAI-SKU' });
    expect(movement.status, movement.text).toBe(201);
    await get('/v1/movements?barcode=OAI-TU-1');
    await send('DELETE', `/v1/movements/${movement.body.pKey}`);

    const route = (await get('/v1/api/routes')).body.find((r: Json) => r.name === 'OAI-IN');
    await get(`/v1/api/routes/${route.key}`);
    await get(`/v1/api/routes/${route.key}/hops`);
    await get(`/v1/api/routes/decision?location=${encodeURIComponent(area.INFEED)}&barcode=OAI-TU-1`);
    await get('/v1/api/default-hops');

    const shipping = await send('POST', '/v1/shipping-orders', {
      orderId: 'OAI-SO-1',
      details: { dock: 3 },
      positions: [
        { '@class': 'org.vendor.wms.shipping.api.ShippingOrderPositionVO', pos: '1', product: { sku: 'OAI-SKU' }, qtyOrdered: { unit: 'PC', amount: 5 } },
        { '@class': 'org.vendor.wms.shipping.api.ShippingTransportUnitOrderPositionVO', pos: '2', transportUnitBK: 'OAI-TU-1' },
      ],
    });
    expect(shipping.status, shipping.text).toBe(201);
    await get('/v1/ui/shipping-orders?states=CREATED');
    await get('/v1/ui/shipping-orders', { headers: { Accept: 'application/vnd.vendor.shipping-order-v1-minimum+json' } });
    const receiving = await send('POST', '/v1/receiving-orders', {
      orderId: 'OAI-RO-1',
      positions: [{ positionId: '1', product: { sku: 'OAI-SKU' }, quantityExpected: { unit: 'PC', amount: 10 } }],
    });
    expect(receiving.status, receiving.text).toBe(201);
    await send('POST', `/v1/receiving-orders/${receiving.body.pKey}/capture?loadUnitType=BOX`, {
      quantityReceived: { unit: 'PC', amount: 4 },
      product: { sku: 'OAI-SKU' },
      barcode: 'OAI-TU-1',
      loadUnitLabel: 'P2',
    });
    await get('/v1/transport-units/OAI-TU-1/history');
    await get('/v1/events/history?types=transportUnit.*&limit=5');
  });

  it('of users, preferences, tasks, events, alarms and the probes', async () => {
    await get('/users');
    await get('/roles');
    await get('/grants?name=locations:read');
    const key = await send('POST', '/api-keys', { name: 'oas-key', roleName: 'ADMIN' });
    expect(key.status, key.text).toBe(201);
    await get('/api-keys');
    await send('POST', '/v1/preferences', { '@class': 'org.vendor.core.preferences.api.ApplicationPreferenceVO', key: 'oas.theme', value: { dark: true } });
    await get('/v1/preferences');
    const task = await send('POST', '/tasks', { type: 'MANUAL', description: 'check the scanner' });
    await send('POST', `/tasks/${task.body.pKey}/start`);
    await get('/tasks');
    await send('POST', '/v1/events/tickets');
    await get('/v1/alarms');
    await get('/healthz', { anonymous: true });
    await get('/readyz', { anonymous: true });
    const token = await wms.request('POST', '/oauth/token', {
      anonymous: true,
      raw: 'grant_type=password&username=admin&password=wrong',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expectConforms('POST', '/oauth/token', token);
  });

  it('of the PLC channels: snapshots with counters, the telegram log decoded, the serial ports', async () => {
    const sim = await connectedPlc(wms, 'CNV01');
    try {
      const area = await site(wms, 'OAPL');
      await unitWithOrder(wms, 'OAP-TU-1', area.INFEED, area.STOCK);
      await sim.runTu('OAP-TU-1', area.INFEED, { timeoutMs: 10_000 });
      await sim.synq({ timeoutMs: 10_000 });
      await sim.update('OAP-TU-1', area.STOCK);
      await sim.report(area.C1, '0000****');
      await sim.groupState('OAPL', '****0000');
      await sim.sendUnknownType('ZZZZ');
      await until(async () => (await allPages(wms, '/v1/plc-channels/CNV01/telegrams?type=ZZZZ')).items.length === 1, 'the last telegram logged');

      const channels = await get('/v1/plc-channels');
      expect(channels.body[0]).toMatchObject({ name: 'CNV01', state: 'ONLINE' });
      expect(channels.body[0].telegrams.length).toBeGreaterThan(10);
      await get('/v1/plc-channels/CNV01');
      await get('/v1/plc-channels/NOPE_');
      await get('/v1/plc-channels/index');
      const log = await get('/v1/plc-channels/CNV01/telegrams?limit=1000');
      const types = new Set((log.body as Json[]).map((e) => e.fields?.type ?? null));
      expect([...types]).toEqual(expect.arrayContaining(['REQ_', 'RES_', 'SYNQ', 'SYNC', 'UPD_', 'LOCU', 'SYSU', 'ERR_', null]));
      await get('/v1/plc-channels/CNV01/telegrams?type=REQ_&direction=in&limit=2');
      await get('/v1/plc-channels/CNV01/telegrams?type=REQ');
      await get('/v1/plc-serial-ports');
      await get('/v1/plc-serial-ports?details=true');

      // Decoded fields are described per type: one the codec does not write is caught.
      const req = (log.body as Json[]).find((e) => e.fields?.type === 'REQ_')!;
      const stray = { ...log, body: [{ ...req, fields: { ...req.fields, targetLocationGroup: 'X' } }] };
      expect(() => expectConforms('GET', '/v1/plc-channels/CNV01/telegrams', stray)).toThrow(/disagrees with its schema/);
    } finally {
      await sim.close();
    }
  });
});
