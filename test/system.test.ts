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

    // Not for every LAN client: a token with metrics:read (ADMIN's, or a scraper's API key).
    expect((await wms.get('/metrics', { anonymous: true })).status).toBe(401);
    const reply = await wms.get('/metrics');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
    const line = (labels: string) => reply.text.split('\n').find((l) => l.startsWith(`wms_http_requests_total{${labels}}`));
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

describe('server.metricsPublic', () => {
  it('opens /metrics to a scraper without a token; the grant metrics:read is then not needed', async () => {
    const open = await startTestAppliance({ server: { metricsPublic: true } });
    try {
      const reply = await open.get('/metrics', { anonymous: true });
      expect(reply.status).toBe(200);
      expect(reply.text).toContain('wms_http_requests_total');
    } finally {
      await open.close();
    }
  });

  it("a scraper's API key in a role with only metrics:read reads the metrics and nothing else", async () => {
    expect((await wms.post('/roles', { name: 'SCRAPER', grants: ['metrics:read'] })).status).toBe(201);
    const key = (await wms.post('/api-keys', { name: 'prometheus', roleName: 'SCRAPER' })).body.key as string;
    expect((await wms.get('/metrics', { token: key })).status).toBe(200);
    expect((await wms.get('/v1/locations', { token: key })).status).toBe(403);
  });
});

describe('GET /openapi.json', () => {
  it('is public OpenAPI 3.1 (what it holds: test/openapi.test.ts)', async () => {
    const reply = await wms.get('/openapi.json', { anonymous: true });
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe('3.1.0');
    expect(reply.body.paths['/v1/locations'].get.security).toContainEqual({ oauth2: ['locations:read'] });
  });
});
