import type { Logger } from '../../core/log.ts';
import type { EventBus } from '../../core/events.ts';
import { nowIso } from '../../core/time.ts';
import { decoyHash, verifyPassword } from '../../auth/passwords.ts';
import { bearerToken, type IssuedToken, type TokenService } from '../../auth/tokens.ts';
import type { Principal } from '../../http/context.ts';
import { AuthenticationError, TooManyAttempts } from '../../core/errors.ts';
import { isApiKey, type ApiKeyService } from './api-keys/service.ts';
import type { GrantService } from './grants/service.ts';
import type { LoginAddresses } from './login-addresses/service.ts';
import type { LoginThrottle } from './login-throttle.ts';
import type { User } from './users/store.ts';
import type { UserService } from './users/service.ts';

// Who is calling. Tokens are verified once and remembered; the caller behind them
// (user or API key, with its effective grants) is remembered until anything about
// users, roles, grants or keys changes, so a locked user's live tokens stop working
// with the next request.

/** Events after which a resolved caller may no longer be what it was (locked, demoted, revoked, …). */
export const FORGET_AFTER = [
  'user.changed',
  'user.deleted',
  'user.locked',
  'user.unlocked',
  'user.passwordChanged',
  'role.changed',
  'role.deleted',
  'grant.changed',
  'apiKey.revoked',
] as const;

/**
 * Failed logins in a row from addresses a user never signed in from that lock the account
 * against such addresses (for `auth.lockoutMinutes`, doubling with repeats); from an
 * address it signed in from, that forget the address (login-addresses/service.ts).
 */
const LOCK_AFTER_FAILURES = 5;

interface AuthenticationDeps {
  users: UserService;
  grants: GrantService;
  apiKeys: ApiKeyService;
  tokens: TokenService;
  bus: EventBus;
  log: Logger;
  /** How long a lock after failed logins lasts the first time (doubling with repeats); 0: until an administrator unlocks. */
  lockoutMinutes: number;
  /** scrypt's N of new hashes: an unknown user's login checks a decoy of the same cost, so it takes as long. */
  passwordHashCost: number;
  /** The places each user signed in from. */
  addresses: LoginAddresses;
  /** Login attempts per client address. */
  throttle: LoginThrottle;
}

export function createAuthentication(deps: AuthenticationDeps) {
  const { users, grants, apiKeys, tokens, bus, log, lockoutMinutes, passwordHashCost, addresses, throttle } = deps;
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
    // A token went to someone who had the password: a lock after failed logins, which
    // guards the password against guessing, does not end it (an administrator's does).
    const refusal = refusalOf(user, true);
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

  /** The password check of a login, once the address may try: a token, or "Bad credentials". */
  async function checkPassword(found: User | undefined, username: string, password: string, address: string, known: boolean): Promise<IssuedToken> {
    if (!found || !found.passwordHash || refusalOf(found, known)) {
      await verifyPassword(password, found?.passwordHash ?? (await decoyHash(passwordHashCost)));
      if (found) log.info({ username, address, refusal: refusalOf(found, known) ?? 'no password set' }, 'login refused');
      throw badCredentials();
    }
    const right = await verifyPassword(password, found.passwordHash);
    // Read again: logins run in parallel, and one of them may have locked the account,
    // made the address a stranger's (or an administrator changed the user) while this
    // password was being checked.
    const now = users.findByPk(found.pk);
    const knownNow = !!now && addresses.isKnown(now.pk, address);
    if (!right) {
      if (now) countFailure(now, address, knownNow);
      throw badCredentials();
    }
    if (!now || !now.passwordHash || now.passwordHash !== found.passwordHash || refusalOf(now, knownNow)) throw badCredentials();
    // The account's failures are those of strangers: only a stranger's success ends them.
    if (!knownNow) users.loggedIn(now);
    addresses.signedIn(now.pk, address);
    return tokens.issue({ id: now.pk, username: now.username, kind: 'user' });
  }

  /** A wrong password: counted for the known address it came from, else for the account. */
  function countFailure(user: User, address: string, known: boolean): void {
    // Behind a lock that holds for this address, guessing changes nothing.
    if (refusalOf(user, known)) return;
    const failure = addresses.failed(user.pk, address, LOCK_AFTER_FAILURES);
    if (failure === 'forgotten') {
      log.warn(
        { username: user.username, address },
        `${LOCK_AFTER_FAILURES} failed logins in a row from an address the user signed in from: it counts as a stranger's from now on`,
      );
    }
    if (failure !== 'unknown') return;
    const locked = users.recordFailedLogin(user, LOCK_AFTER_FAILURES, lockoutMinutes);
    if (locked) {
      log.warn(
        { username: user.username, until: locked.until },
        `account locked against addresses it never signed in from after ${LOCK_AFTER_FAILURES} failed logins in a row from them`,
      );
    }
  }

  return {
    /**
     * The password grant of `POST /oauth/token`, from the client `address`. Every refusal
     * reads the same ("Bad credentials") and takes as long: a locked, disabled or expired
     * account must not tell a right password from a wrong one, or guessing would go on
     * behind the lock. From an address the user signed in from before, neither the
     * per-address limit nor a lock after failed logins holds (login-addresses/service.ts).
     */
    async login(username: string, password: string, address: string): Promise<IssuedToken> {
      let user = users.findByName(username);
      const known = !!user && addresses.isKnown(user.pk, address);
      // An attempt the address may not make now is refused before it changes anything.
      if (!known) {
        const wait = throttle.take(address);
        if (wait > 0) throw new TooManyAttempts(`Too many login attempts from this address; try again in ${wait} s`, wait);
      }
      if (user?.lockExpired) {
        users.releaseEndedLock(user);
        user = users.findByPk(user.pk);
      }
      const token = await checkPassword(user, username, password, address, known);
      // A successful login does not use up the address's attempts.
      if (!known) throttle.giveBack(address);
      return token;
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
        return (
          principals.get(`api-key:${key.pk}`)?.principal ?? {
            id: key.pk,
            username: `api-key:${key.name}`,
            kind: 'api-key',
            grants: new Set(key.rolePk ? grants.namesOfRole(key.rolePk) : []),
            roleNames: [key.roleName],
          }
        );
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

/**
 * Why the user may not sign in, if it may not. `known`: from an address it signed in
 * from before (or with a token it was given), where a lock after failed logins does not hold.
 */
function refusalOf(user: User, known: boolean): string | undefined {
  if (user.locked && !(known && user.lockedAfterFailures)) {
    return user.lockedAfterFailures ? 'the account is locked against addresses it never signed in from' : 'the account is locked';
  }
  if (!user.enabled) return 'the account is disabled';
  if (user.expirationDate && user.expirationDate <= nowIso()) return 'the account has expired';
  return undefined;
}

const badCredentials = () => new AuthenticationError('Bad credentials');
