import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, tempDir, type TestAppliance } from './support/appliance.ts';

// HTTPS on the LAN: the appliance with server.tls (a self-signed certificate for
// localhost and 127.0.0.1, kept in test/support/tls), spoken to over a real TLS
// connection that checks the certificate against that one.

const TLS_DIR = path.join(import.meta.dirname, 'support', 'tls');
const CA = readFileSync(path.join(TLS_DIR, 'cert.pem'));

function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: CA, headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

let wms: TestAppliance;
beforeAll(async () => {
  wms = await startTestAppliance({ server: { tls: { cert: path.join(TLS_DIR, 'cert.pem'), key: path.join(TLS_DIR, 'key.pem') } } });
});
afterAll(() => wms.close());

describe('server.tls', () => {
  it('serves HTTPS with the configured certificate; links and the logged URL say https', async () => {
    expect(wms.app.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const reply = await get(`${wms.app.url}/index`);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)._links['location-index'].href).toMatch(/^https:\/\//);
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(wms.logs().some((l) => l.includes('"url":"https://'))).toBe(true);
  });

  it('a plain-HTTP request on the HTTPS port gets no answer in clear text', async () => {
    await expect(fetch(wms.app.url.replace('https:', 'http:') + '/index')).rejects.toThrow();
  });

  it('a certificate file that cannot be read, or a key that does not match, stops the start naming the key', async () => {
    await expect(startTestAppliance({ server: { tls: { cert: '/nonexistent/cert.pem', key: path.join(TLS_DIR, 'key.pem') } } })).rejects.toThrow(
      /server\.tls\.cert: cannot read \/nonexistent\/cert\.pem/,
    );
    const other = path.join(tempDir('wms-tls-'), 'garbage.pem');
    writeFileSync(other, 'not a key');
    await expect(startTestAppliance({ server: { tls: { cert: path.join(TLS_DIR, 'cert.pem'), key: other } } })).rejects.toThrow(
      /server\.tls: .* are not a PEM certificate and its private key/,
    );
  });
});
