import { expect } from 'vitest';
import type { TestAppliance } from './appliance.ts';

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
