import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from './support/appliance.ts';

// The appliance's own endpoints: probes, metrics for scrapers, the API description.

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

describe('probes', () => {
  it('GET /healthz and /readyz answer without a token', async () => {
    const health = await wms.get('/healthz', { anonymous: true });
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'UP', version: expect.any(String) });
    expect((await wms.get('/readyz', { anonymous: true })).body).toEqual({ status: 'UP' });
  });
});

describe('GET /metrics', () => {
  it('counts answered requests by route template and status, in the Prometheus text format', async () => {
    const created = await wms.post('/v1/location-groups', { name: 'METRICS-G' });
    expect(created.status).toBe(201);
    await wms.get(`/v1/location-groups/${created.body.pKey}`);
    await wms.get('/v1/location-groups/unknown-pkey');
    await wms.get('/no/such/path', { anonymous: true });

    const reply = await wms.get('/metrics', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
    const line = (labels: string) =>
      reply.text.split('\n').find((l) => l.startsWith(`wms_http_requests_total{${labels}}`));
    expect(line('method="GET",route="/v1/location-groups/{pKey}",status="200"')).toMatch(/ 1$/);
    expect(line('method="GET",route="/v1/location-groups/{pKey}",status="404"')).toMatch(/ 1$/);
    expect(line('method="POST",route="/v1/location-groups",status="201"')).toMatch(/ 1$/);
    expect(line('method="GET",route="unmatched",status="404"')).toMatch(/ \d+$/);
    expect(reply.text).toContain('wms_http_request_duration_seconds_bucket');
    expect(reply.text).toContain('wms_process_resident_memory_bytes');
    // The concrete key never becomes a label: the series stay bounded.
    expect(reply.text).not.toContain(created.body.pKey);
  });
});

describe('GET /openapi.json', () => {
  it('describes every route of the table with its grant, link names and selecting query', async () => {
    const reply = await wms.get('/openapi.json', { anonymous: true });
    expect(reply.status).toBe(200);
    const doc = reply.body as {
      openapi: string;
      paths: Record<string, Record<string, { security?: { bearer: string[] }[]; 'x-link-names'?: string[]; operationId: string }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const byCoordinate = doc.paths['/v1/locations?locationId']?.get;
    expect(byCoordinate?.security).toEqual([{ bearer: ['locations:read'] }]);
    expect(byCoordinate?.['x-link-names']).toEqual(['location-findbycoordinate']);
    expect(doc.paths['/index']?.get?.security).toBeUndefined();
    const stream = doc.paths['/v1/events']?.get as unknown as { responses: { default: { content: Record<string, object> } } };
    expect(Object.keys(stream.responses.default.content)).toEqual(['text/event-stream']);

    let operations = 0;
    for (const route of wms.app.routes) {
      const key = route.path + (route.query?.length ? `?${route.query.join('&')}` : '');
      expect(doc.paths[key]?.[route.method.toLowerCase()], `${route.method} ${key}`).toBeDefined();
      operations++;
    }
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(ids).toHaveLength(operations);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
