import type { Logger } from '../../core/log.ts';
import type { EventBus } from '../../core/events.ts';
import { nowIso } from '../../core/time.ts';
import { decoyHash, verifyPassword } from '../../auth/passwords.ts';
import { bearerToken, type IssuedToken, type TokenService } from '../../auth/tokens.ts';
import type { Principal } from '../../http/context.ts';
import { AuthenticationError } from '../../core/errors.ts';
import { isApiKey, type ApiKeyService } from './api-keys/service.ts';
import type { GrantService } from './grants/service.ts';
import type { User } from './users/store.ts';
import type { UserService } from './users/service.ts';

// Who is calling. Tokens are verified once and remembered; the caller behind them
// (user or API key, with its effective grants) is remembered until anything about
// users, roles, grants or keys changes, so a locked user's live tokens stop working
// with the next request.

/** Events after which a resolved caller may no longer be what it was (locked, demoted, revoked, …). */
export const FORGET_AFTER = [
  'user.changed', 'user.deleted', 'user.locked', 'user.passwordChanged',
  'role.changed', 'role.deleted', 'grant.changed', 'apiKey.revoked',
] as const;

/** Failed logins in a row that lock an account (an administrator unlocks it). */
export const LOCK_AFTER_FAILURES = 5;

export interface AuthenticationDeps {
  users: UserService;
  grants: GrantService;
  apiKeys: ApiKeyService;
  tokens: TokenService;
  bus: EventBus;
  log: Logger;
}

export function createAuthentication(deps: AuthenticationDeps) {
  const { users, grants, apiKeys, tokens, bus, log } = deps;
  /**
   * Resolved callers, with the instant until which they stay valid (an account's
   * expiration date) and the instant before which its tokens were issued in vain (the
   * last password change), in epoch seconds like a token's `iat`.
   */
  const principals = new Map<string, { principal: Principal; validUntil: string | null; notBeforeSeconds: number }>();
  const forget = () => principals.clear();
  for (const type of FORGET_AFTER) bus.on(type, forget);

  function userPrincipal(id: string, issuedAt: number): Principal {
    let entry = principals.get(id);
    if (!entry || (entry.validUntil !== null && entry.validUntil <= nowIso())) entry = loadUser(id);
    // Seconds, as `iat` has them: a token of the very second of a password change still counts.
    if (issuedAt < entry.notBeforeSeconds) {
      throw new AuthenticationError('Token no longer valid: the password was changed after it was issued');
    }
    return entry.principal;
  }

  function loadUser(id: string) {
    const user = users.findByPk(id);
    if (!user) throw new AuthenticationError('Invalid token: the user no longer exists');
    const refusal = refusalOf(user);
    if (refusal) throw new AuthenticationError(`Token no longer valid: ${refusal}`);
    const principal: Principal = {
      id: user.pk,
      username: user.username,
      kind: 'user',
      grants: new Set(grants.namesOfUser(user.pk)),
      roleNames: user.roleNames,
    };
    const notBeforeSeconds = user.tokensNotBefore ? Math.floor(Date.parse(user.tokensNotBefore) / 1000) : 0;
    const entry = { principal, validUntil: user.expirationDate, notBeforeSeconds };
    principals.set(id, entry);
    return entry;
  }

  function apiKeyPrincipal(bearer: string): Principal {
    const key = apiKeys.verify(bearer);
    const cacheKey = `api-key:${key.pk}`;
    const cached = principals.get(cacheKey);
    if (cached) return cached.principal;
    const principal: Principal = {
      id: key.pk,
      username: `api-key:${key.name}`,
      kind: 'api-key',
      grants: new Set(key.rolePk ? grants.namesOfRole(key.rolePk) : []),
      roleNames: [key.roleName],
    };
    principals.set(cacheKey, { principal, validUntil: null, notBeforeSeconds: 0 });
    return principal;
  }

  return {
    /** The password grant of `POST /oauth/token`. */
    async login(username: string, password: string): Promise<IssuedToken> {
      const user = users.findByName(username);
      if (!user || !user.passwordHash) {
        await verifyPassword(password, await decoyHash());
        throw badCredentials();
      }
      if (!(await verifyPassword(password, user.passwordHash))) {
        if (users.recordFailedLogin(user, LOCK_AFTER_FAILURES)) {
          log.warn({ username }, `account locked after ${LOCK_AFTER_FAILURES} failed logins in a row`);
        }
        throw badCredentials();
      }
      const refusal = refusalOf(user);
      if (refusal) throw new AuthenticationError(`Login refused: ${refusal}`);
      users.resetFailedLogins(user);
      return tokens.issue({ id: user.pk, username: user.username, kind: 'user' });
    },

    /** The caller of a request; synchronous for a token seen before and for API keys. */
    authenticate(authorization: string | undefined): Principal | Promise<Principal> {
      const bearer = bearerToken(authorization);
      if (isApiKey(bearer)) return apiKeyPrincipal(bearer);
      const known = tokens.cached(bearer);
      if (known) return userPrincipal(known.id, known.iat);
      return tokens.verify(bearer).then((verified) => userPrincipal(verified.id, verified.iat));
    },

    /**
     * The caller as it is now, with its current grants; undefined when it may no longer
     * act (locked, disabled, expired or deleted user; revoked or expired key). Long-lived
     * connections (event streams) check their caller again with it.
     */
    current(principal: Principal): Principal | undefined {
      try {
        if (principal.kind === 'user') {
          const entry = principals.get(principal.id);
          return entry && (entry.validUntil === null || entry.validUntil > nowIso()) ? entry.principal : loadUser(principal.id).principal;
        }
        const key = apiKeys.findByPk(principal.id);
        if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= nowIso())) return undefined;
        return principals.get(`api-key:${key.pk}`)?.principal ?? {
          id: key.pk,
          username: `api-key:${key.name}`,
          kind: 'api-key',
          grants: new Set(key.rolePk ? grants.namesOfRole(key.rolePk) : []),
          roleNames: [key.roleName],
        };
      } catch (err) {
        if (err instanceof AuthenticationError) return undefined;
        throw err;
      }
    },

    /** Forget resolved callers (after a change made outside the services, e.g. in a test). */
    invalidatePrincipals: forget,
  };
}

export type Authentication = ReturnType<typeof createAuthentication>;

function refusalOf(user: User): string | undefined {
  if (user.locked) return 'the account is locked';
  if (!user.enabled) return 'the account is disabled';
  if (user.expirationDate && user.expirationDate <= nowIso()) return 'the account has expired';
  return undefined;
}

const badCredentials = () => new AuthenticationError('Bad credentials');
