import { expect } from 'vitest';

// What every build of the single executable must do once started (x64 natively, arm64
// under qemu): serve the entry index, issue a token, keep what is written.

export async function expectEntryIndex(url: string): Promise<void> {
  const reply = await fetch(`${url}/index`);
  expect(reply.status).toBe(200);
  const body = (await reply.json()) as { _links: Record<string, { href: string }> };
  expect(body._links['location-index']?.href).toMatch(/\/v1\/locations\/index$/);
}

/** Logs in as admin, creates a location in `area` with `plcCode`, and reads it back by that code. */
export async function expectTokenAndWrite(url: string, password: string, area: string, plcCode: string): Promise<void> {
  const tokenReply = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=password&username=admin&password=${password}`,
  });
  expect(tokenReply.status).toBe(200);
  const { access_token: token } = (await tokenReply.json()) as { access_token: string };
  const auth = { Authorization: `Bearer ${token}` };
  const locationId = `${area}/0001/0001/0001/0001`;
  const created = await fetch(`${url}/v1/locations`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ locationId, locationGroupName: 'WAREHOUSE', plcCode }),
  });
  expect(created.status).toBe(201);
  const read = await fetch(`${url}/v1/locations?plcCode=${plcCode}`, { headers: auth });
  expect(read.status).toBe(200);
  expect(await read.json()).toMatchObject({ locationId, locationGroupName: 'WAREHOUSE' });
}
