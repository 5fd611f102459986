import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, expectServerError, startTestAppliance, type TestAppliance } from './support/appliance.ts';
import { createUser, sendImage, tinyPng, unchangedBy, userByPk } from './support/users.ts';

// A user's image (docs/users.md): the picture's bytes stored beside the user, shown in
// its details, replaced and removed; bytes that are no picture, a JSON body and a
// picture over users.imageMaxBytes are refused and keep what was stored.

let wms: TestAppliance;

beforeAll(async () => {
  wms = await startTestAppliance();
});
afterAll(() => wms.close());

/** The raw bytes of a reply (the JSON helper would decode them as text). */
async function getBytes(path: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(wms.url + path, { headers: { Authorization: `Bearer ${await wms.token()}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('user image', () => {
  let user: any;
  beforeAll(async () => {
    user = await createUser(wms, { username: 'ivy', details: { badge: 'B-17' } });
  });

  it('POST stores PNG bytes and answers the user with details.image', async () => {
    const png = tinyPng(255);
    const reply = await sendImage(wms, user.pKey, png);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.details).toEqual({
      badge: 'B-17',
      image: { contentType: 'image/png', size: png.length, href: `${wms.url}/users/${user.pKey}/details/image` },
    });
    const read = await getBytes(`/users/${user.pKey}/details/image`);
    expect(read.status).toBe(200);
    expect(read.type).toBe('image/png');
    expect(read.bytes.equals(png)).toBe(true);
    expect((await userByPk(wms, user.pKey)).details.image.size).toBe(png.length);
  });

  it('PATCH replaces the image', async () => {
    const png = tinyPng(7, 'second image');
    const reply = await sendImage(wms, user.pKey, png, 'PATCH');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.details.image).toEqual({
      contentType: 'image/png',
      size: png.length,
      href: `${wms.url}/users/${user.pKey}/details/image`,
    });
    const read = await getBytes(`/users/${user.pKey}/details/image`);
    expect(read.type).toBe('image/png');
    expect(read.bytes.equals(png)).toBe(true);
  });

  it('refuses bytes that are no image with 400 user.image.notAnImage and keeps the stored image', async () => {
    const stored = await getBytes(`/users/${user.pKey}/details/image`);
    const reply = await unchangedBy(wms, () => sendImage(wms, user.pKey, Buffer.from('this is plain text, not a picture')));
    expectApiError(reply, 400, 'user.image.notAnImage');
    expect((await getBytes(`/users/${user.pKey}/details/image`)).bytes.equals(stored.bytes)).toBe(true);
  });

  it('refuses a JSON content type with 415 (server-declined) and keeps the stored image', async () => {
    const stored = await getBytes(`/users/${user.pKey}/details/image`);
    const reply = await unchangedBy(wms, () => sendImage(wms, user.pKey, JSON.stringify({ image: 'x' }), 'POST', 'application/json'));
    expectServerError(reply, 415);
    expect((await getBytes(`/users/${user.pKey}/details/image`)).bytes.equals(stored.bytes)).toBe(true);
  });

  it('an image field in details sent with PUT does not replace the image', async () => {
    const stored = await getBytes(`/users/${user.pKey}/details/image`);
    const reply = await wms.put('/users', { pKey: user.pKey, username: 'ivy', details: { badge: 'B-18', image: 'junk' } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.details.badge).toBe('B-18');
    expect(reply.body.details.image).toMatchObject({ contentType: 'image/png', size: stored.bytes.length });
    expect((await getBytes(`/users/${user.pKey}/details/image`)).bytes.equals(stored.bytes)).toBe(true);
  });

  it('DELETE removes the image: 204, then GET answers 404', async () => {
    const reply = await wms.del(`/users/${user.pKey}/details/image`);
    expect(reply.status).toBe(204);
    expectApiError(await wms.get(`/users/${user.pKey}/details/image`), 404, 'not.found');
    const read = await userByPk(wms, user.pKey);
    expect(read.details).toEqual({ badge: 'B-18' });
  });

  describe('with users.imageMaxBytes 1024', () => {
    let small: TestAppliance;
    beforeAll(async () => {
      small = await startTestAppliance({ users: { imageMaxBytes: 1024 } });
    });
    afterAll(() => small.close());

    it('refuses a larger image with 413 user.image.tooLarge and stores nothing', async () => {
      const created = await small.post('/users', { links: [], username: 'big-picture' });
      expect(created.status).toBe(201);
      const pKey = created.body.pKey as string;
      const large = tinyPng(1, 'x'.repeat(2000));
      expect(large.length).toBeGreaterThan(1024);
      const reply = await sendImage(small, pKey, large);
      expectApiError(reply, 413, 'user.image.tooLarge');
      const after = await small.get(`/users/${pKey}`);
      expect(after.body).toEqual(created.body);
      expectApiError(await small.get(`/users/${pKey}/details/image`), 404, 'not.found');

      // The control: an image within the limit is stored.
      const fits = tinyPng(2);
      const ok = await sendImage(small, pKey, fits);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.details.image.size).toBe(fits.length);
    });
  });
});
