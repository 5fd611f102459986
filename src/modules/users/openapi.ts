import { z } from 'zod';
import { instant, resource } from '../../http/openapi/representation.ts';

// The representations of the users module (representation.ts) as schemas of the API description.

export const TokenSchema = z
  .object({
    access_token: z.string().meta({ description: 'A signed JWT; send it as Authorization: Bearer.' }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().meta({ description: 'Seconds until the token expires.' }),
  })
  .meta({ id: 'Token', description: 'An access token (RFC 6749 §5.1).' });

export const UserSchema = resource('User', 'A user; never its password.', {
  username: z.string(),
  externalUser: z.boolean(),
  lastPasswordChange: instant.optional(),
  locked: z.boolean(),
  enabled: z.boolean(),
  expirationDate: instant.optional(),
  fullname: z.string().optional(),
  details: z.record(z.string(), z.unknown()).meta({ description: 'Free details; `image` ({contentType, size, href}) when the user has an image.' }),
  emailAddresses: z.array(z.object({ emailAddress: z.string(), primary: z.boolean(), fullname: z.string().optional() })),
  roleNames: z.array(z.string()),
});

export const GrantSchema = resource('Grant', 'A grant (security object): the right to call some operations.', {
  '@class': z.string(),
  name: z.string(),
  description: z.string().optional(),
});

export const RoleSchema = resource('Role', 'A role with its users and grants.', {
  '@class': z.string(),
  name: z.string(),
  description: z.string().optional(),
  immutable: z.boolean(),
  users: z.array(UserSchema),
  grants: z.array(GrantSchema),
});

const apiKeyFields = {
  name: z.string(),
  keyId: z.string(),
  roleName: z.string(),
  createdBy: z.string(),
  expiresAt: instant.optional(),
  revokedAt: instant.optional(),
  lastUsedAt: instant.optional(),
};

export const ApiKeySchema = resource('ApiKey', 'An API key; never its secret.', apiKeyFields);

export const NewApiKeySchema = resource('NewApiKey', 'A new API key with its secret `key`, shown this once.', {
  ...apiKeyFields,
  key: z.string().meta({ description: 'The whole key to send as Authorization: Bearer; not shown again.' }),
});
