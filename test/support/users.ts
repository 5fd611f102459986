import { deflateSync } from 'node:zlib';
import { expect } from 'vitest';
import { expectServerError, loginReply, type Reply, type TestAppliance } from './appliance.ts';

// Users and roles set up as an administrator sets them up: over the API, with the
// admin's token. A user's flags (locked, disabled, an expiry) are the ones the API
// takes, so the rules that check them run as in production.

/** A role holding the grants; returns its name. */
export async function roleWith(wms: TestAppliance, name: string, grants: readonly string[], description = 'a role of a test'): Promise<string> {
  const reply = await wms.post('/roles', { name, description, grants });
  expect(reply.status, reply.text).toBe(201);
  return name;
}

export interface NewUser {
  username: string;
  password: string;
  roleNames?: readonly string[];
  locked?: boolean;
  enabled?: boolean;
  /** ISO time; a time past makes an expired account. */
  expirationDate?: string;
}

/** A user as `POST /users` creates it; returns its pKey. */
export async function userWith(wms: TestAppliance, user: NewUser): Promise<string> {
  const reply = await wms.post('/users', { ...user, roleNames: user.roleNames ?? [] });
  expect(reply.status, reply.text).toBe(201);
  return reply.body.pKey as string;
}

/** A user holding the grants through a role of its own (`<username>-role`); returns its pKey. */
export async function userWithGrants(wms: TestAppliance, username: string, password: string, grants: readonly string[]): Promise<string> {
  const role = await roleWith(wms, `${username}-role`, grants);
  return userWith(wms, { username, password, roleNames: [role] });
}

// ---- the user administration, as its own tests read it (test/users-*.test.ts) ----
//
// Those tests check the replies themselves; these helpers create what a test starts
// from and read the whole administration (users, roles, grants, API keys) to show that
// a refused request changed nothing.

export const ROLE_CLASS = 'org.vendor.core.uaa.api.RoleVO';
export const GRANT_CLASS = 'org.vendor.core.uaa.api.SecurityObjectVO';

/** The `_links` of an index, which must answer 200 as HAL. */
export async function indexLinks(wms: TestAppliance, path: string): Promise<Record<string, { href: string }>> {
  const reply = await wms.get(path);
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('content-type')).toBe('application/hal+json');
  return reply.body._links as Record<string, { href: string }>;
}

/** A token of the user, whose login must succeed. */
export async function login(wms: TestAppliance, username: string, password: string): Promise<string> {
  const reply = await loginReply(wms, username, password);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.access_token as string;
}

/** A login the appliance refuses with its 401. */
export async function expectLoginRefused(wms: TestAppliance, username: string, password: string): Promise<Reply> {
  const reply = await loginReply(wms, username, password);
  expectServerError(reply, 401);
  return reply;
}

/** `POST /users` with the body as given; returns the user as the reply shows it. */
export async function createUser(wms: TestAppliance, body: Record<string, unknown>): Promise<any> {
  const reply = await wms.post('/users', { links: [], ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

/** `POST /roles` with the body as given; returns the role as the reply shows it. */
export async function createRole(wms: TestAppliance, body: Record<string, unknown>): Promise<any> {
  const reply = await wms.post('/roles', body);
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

export const allUsers = async (wms: TestAppliance) => {
  const reply = await wms.get('/users');
  expect(reply.status).toBe(200);
  return reply.body as any[];
};
export const allRoles = async (wms: TestAppliance) => {
  const reply = await wms.get('/roles');
  expect(reply.status).toBe(200);
  return reply.body as any[];
};
export const allGrants = async (wms: TestAppliance) => {
  const reply = await wms.get('/grants');
  expect(reply.status).toBe(200);
  return reply.body as any[];
};
export const allApiKeys = async (wms: TestAppliance) => {
  const reply = await wms.get('/api-keys');
  expect(reply.status).toBe(200);
  return reply.body as any[];
};
export const userByPk = async (wms: TestAppliance, pKey: string) => {
  const reply = await wms.get(`/users/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
};
export const roleByPk = async (wms: TestAppliance, pKey: string) => {
  const reply = await wms.get(`/roles/${pKey}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
};
export const grantNames = (grants: { name: string }[]) => grants.map((g) => g.name).sort();

/** Runs a refused request and proves the users, roles, grants and API keys read the same before and after. */
export async function unchangedBy(wms: TestAppliance, action: () => Promise<Reply>): Promise<Reply> {
  const before = [await allUsers(wms), await allRoles(wms), await allGrants(wms), await allApiKeys(wms)];
  const reply = await action();
  const after = [await allUsers(wms), await allRoles(wms), await allGrants(wms), await allApiKeys(wms)];
  expect(after).toEqual(before);
  return reply;
}

// A user's image: the bytes of a picture, sent as they are.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid 1×1 RGB PNG; `comment` adds a tEXt chunk (to make the file as large as needed). */
export function tinyPng(red = 255, comment = ''): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header[8] = 8; // bit depth
  header[9] = 2; // colour type RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    ...(comment ? [pngChunk('tEXt', Buffer.from(`Comment\0${comment}`, 'latin1'))] : []),
    pngChunk('IDAT', deflateSync(Buffer.from([0, red, 0, 0]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The bytes as a user's image (`POST`, or `method`), with the content type given. */
export function sendImage(wms: TestAppliance, pKey: string, bytes: Buffer | string, method = 'POST', contentType = 'application/octet-stream') {
  return wms.request(method, `/users/${pKey}/details/image`, { raw: bytes, headers: { 'Content-Type': contentType } });
}
