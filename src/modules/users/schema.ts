import { z } from 'zod';
import { name, ol, text, timestamp } from '../../core/schema.ts';

// Request bodies of the users module (users, roles, grants, API keys).

export const username = z.string().regex(/^[\w.@+-]{1,64}$/, 'must be 1-64 of letters, digits and _ . @ + -');

export const password = z.string().min(8, 'must have at least 8 characters').max(256);

const emailAddress = z.object({
  emailAddress: z.email().max(254),
  primary: z.boolean().default(false),
  fullname: z.string().max(255).optional(),
});

/** Free details of a user; the image is uploaded on its own, an `image` field here is ignored. */
const details = z
  .record(z.string().max(64), z.union([z.string().max(1024), z.number(), z.boolean(), z.null()]))
  .refine((d) => Object.keys(d).length <= 50, 'at most 50 entries')
  .transform(({ image: _image, ...rest }) => rest);

/** `POST /users`. */
export const newUser = z.object({
  username,
  externalUser: z.boolean().optional(),
  locked: z.boolean().optional(),
  enabled: z.boolean().optional(),
  expirationDate: timestamp.nullable().optional(),
  fullname: z.string().max(255).nullable().optional(),
  details: details.optional(),
  emailAddresses: z.array(emailAddress).max(20).optional(),
  roleNames: z.array(name()).optional(),
  password: password.optional(),
});

/** `PUT /users`: the user with its pKey; absent fields keep their values, a password is never taken here. */
export const userUpdate = newUser.omit({ password: true }).extend({ pKey: name(), ol: ol.optional(), username: username.optional() });

/** `POST /users/{pKey}/password`. */
export const passwordChange = z.object({ password });

const grantRef = z.union([name(), z.object({ name: name() }).transform((g) => g.name)]);
const userRef = z.union([name(), z.object({ username: name() }).transform((u) => u.username)]);

/** `POST /roles`: grants and users by name (or as objects carrying `name` / `username`). */
export const newRole = z.object({
  name: name(64),
  description: text().nullable().optional(),
  immutable: z.boolean().optional(),
  grants: z.array(grantRef).optional(),
  users: z.array(userRef).optional(),
});

/** `PUT /roles`: the role with its pKey; absent fields keep their values, grants and users are replaced when given. */
export const roleUpdate = newRole.extend({ pKey: name(), ol: ol.optional(), name: name(64).optional() });

/** `POST /grants`. */
export const newGrant = z.object({ name: name(128), description: text().nullable().optional() });

export const grantUpdate = newGrant.extend({ pKey: name(), ol: ol.optional() });

/** `POST /api-keys`. */
export const newApiKey = z.object({
  name: name(64),
  roleName: name(),
  expiresAt: timestamp.nullable().optional(),
});
