import type { RequestContext } from '../../http/context.ts';
import { defined, link, technical } from '../../http/hal.ts';
import type { ApiKey } from './api-keys/store.ts';
import type { Grant } from './grants/store.ts';
import type { Role } from './roles/store.ts';
import type { User } from './users/store.ts';

// What the users module shows of its resources. A user's password (or its hash) is
// never part of any representation.

export const ROLE_CLASS = 'org.vendor.core.uaa.api.RoleVO';
export const GRANT_CLASS = 'org.vendor.core.uaa.api.SecurityObjectVO';

export function userVO(ctx: RequestContext, u: User) {
  const details: Record<string, unknown> = { ...u.details };
  if (u.image) {
    details.image = { contentType: u.image.contentType, size: u.image.size, href: `${ctx.baseUrl}/users/${u.pk}/details/image` };
  }
  return {
    ...technical(u, [link(ctx, 'user-findbypkey', `/users/${u.pk}`)]),
    username: u.username,
    externalUser: u.externalUser,
    ...defined({ lastPasswordChange: u.lastPasswordChange }),
    locked: u.locked,
    enabled: u.enabled,
    ...defined({ expirationDate: u.expirationDate, fullname: u.fullname }),
    details,
    emailAddresses: u.emailAddresses,
    roleNames: u.roleNames,
  };
}

export const grantVO = (ctx: RequestContext, g: Grant) => ({
  '@class': GRANT_CLASS,
  ...technical(g, [link(ctx, 'grant-findbypkey', `/grants/${g.pk}`)]),
  name: g.name,
  ...defined({ description: g.description }),
});

export const roleVO = (ctx: RequestContext, r: Role, users: readonly User[], grants: readonly Grant[]) => ({
  '@class': ROLE_CLASS,
  ...technical(r, [link(ctx, 'role-findbypkey', `/roles/${r.pk}`)]),
  name: r.name,
  ...defined({ description: r.description }),
  immutable: r.immutable,
  users: users.map((u) => userVO(ctx, u)),
  grants: grants.map((g) => grantVO(ctx, g)),
});

export const apiKeyVO = (ctx: RequestContext, k: ApiKey) => ({
  ...technical(k, [link(ctx, 'api-key-findbypkey', `/api-keys/${k.pk}`)]),
  name: k.name,
  keyId: k.keyId,
  roleName: k.roleName,
  createdBy: k.createdBy,
  ...defined({ expiresAt: k.expiresAt, revokedAt: k.revokedAt, lastUsedAt: k.lastUsedAt }),
});
