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
  'user.changed', 'user.deleted', 'user.locked', 'user.unlocked', 'user.passwordChanged',
  'role.changed', 'role.deleted', 'grant.changed', 'apiKey.revoked',
] as const;

/** Failed logins in a row that lock an account (for `auth.lockoutMinutes`, doubling with repeats). */
export const LOCK_AFTER_FAILURES = 5;

export interface AuthenticationDeps {
  users: UserService;
  grants: GrantService;
  apiKeys: ApiKeyService;
  tokens: TokenService;
  bus: EventBus;
  log: Logger;
  /** How long a lock after failed logins lasts the first time (doubling with repeats); 0: until an administrator unlocks. */
  lockoutMinutes: number;
}

export function createAuthentication(deps: AuthenticationDeps) {
  const { users, grants, apiKeys, tokens, bus, log, lockoutMinutes } = deps;
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
    /**
     * The password grant of `POST /oauth/token`. Every refusal reads the same ("Bad
     * credentials") and takes as long: a locked, disabled or expired account must not
     * tell a right password from a wrong one, or guessing would go on behind the lock.
     */
    async login(username: string, password: string): Promise<IssuedToken> {
      let user = users.findByName(username);
      if (user?.lockExpired) {
        users.releaseEndedLock(user);
        user = users.findByPk(user.pk);
      }
      if (!user || !user.passwordHash || refusalOf(user)) {
        await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
        if (user) log.info({ username, refusal: refusalOf(user) ?? 'no password set' }, 'login refused');
        throw badCredentials();
      }
      const right = await verifyPassword(password, user.passwordHash);
      // Read again: logins run in parallel, and one of them may have locked the account
      // (or an administrator changed it) while this password was being checked.
      const now = users.findByPk(user.pk);
      if (!right) {
        if (now && !refusalOf(now)) {
          const locked = users.recordFailedLogin(now, LOCK_AFTER_FAILURES, lockoutMinutes);
          if (locked) log.warn({ username, until: locked.until }, `account locked after ${LOCK_AFTER_FAILURES} failed logins in a row`);
        }
        throw badCredentials();
      }
      if (!now || !now.passwordHash || now.passwordHash !== user.passwordHash || refusalOf(now)) throw badCredentials();
      users.loggedIn(now);
      return tokens.issue({ id: now.pk, username: now.username, kind: 'user' });
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
