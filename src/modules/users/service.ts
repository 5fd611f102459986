import type { TokenService } from '../../auth/tokens.ts';
import { generatePassword } from '../../auth/passwords.ts';
import type { Db } from '../../core/db.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { AuthenticationError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { Principal } from '../../http/context.ts';
import { nowIso } from '../../core/time.ts';
import { createApiKeyService } from './api-keys/service.ts';
import { createApiKeyStore } from './api-keys/store.ts';
import { createAuthentication } from './authentication.ts';
import { createLoginAddresses } from './login-addresses/service.ts';
import { LoginThrottle } from './login-throttle.ts';
import { createGrantService } from './grants/service.ts';
import { createGrantStore } from './grants/store.ts';
import type { Grant } from './grants/store.ts';
import { createRoleService } from './roles/service.ts';
import { createRoleStore, type Role } from './roles/store.ts';
import { ADMIN_ROLE, createUserService } from './users/service.ts';
import { createUserStore, type User } from './users/store.ts';

export { ADMIN_ROLE };
/** Events after which a resolved caller may no longer be what it was: others holding a caller check it again. */
export { FORGET_AFTER } from './authentication.ts';
const ADMIN_USER = 'admin';

// The users module as the rest of the appliance sees it: users, roles, grants and API
// keys, the token endpoint's login, and the authentication of every request.

interface UsersModuleOptions {
  imageMaxBytes: number;
  /** scrypt's N for passwords set from now on (`auth.passwordHashCost`). */
  passwordHashCost: number;
  /** How long the first lock after failed logins (against addresses the user never signed in from) lasts, doubling with repeats; 0: until an administrator unlocks. */
  lockoutMinutes: number;
  /** Login attempts per client address and minute before 429, not counting logins of users the address signed in as before; 0: no limit. */
  loginAttemptsPerMinute: number;
  /** Where an API key's last use is written, when not by this thread's connection (the HTTP thread's only reads). */
  recordKeyUse?: ((pk: string, at: string) => void) | undefined;
}

export function createUsersModule(db: Db, work: UnitOfWork, tokens: TokenService, log: Logger, options: UsersModuleOptions) {
  const grants = createGrantService(work, createGrantStore(db));
  // Roles name their members by username; the user service resolves them (one module, two services).
  const resolveUser = (username: string) => users.pkOf(username);
  const roles = createRoleService(work, createRoleStore(db), grants, resolveUser);
  const users = createUserService(work, createUserStore(db), roles, options);
  const apiKeys = createApiKeyService(work, createApiKeyStore(db), roles, options.recordKeyUse);
  const authentication = createAuthentication({
    users,
    grants,
    apiKeys,
    tokens,
    bus: work.bus,
    log,
    lockoutMinutes: options.lockoutMinutes,
    passwordHashCost: options.passwordHashCost,
    addresses: createLoginAddresses(db, work),
    throttle: new LoginThrottle(options.loginAttemptsPerMinute),
  });

  return {
    users,
    roles,
    grants,
    apiKeys,
    login: authentication.login,
    authenticate: authentication.authenticate,
    currentPrincipal: authentication.current,
    /** The caller as it is now; 401 when it may no longer act (a ticket redeemed after its user was locked). */
    currentPrincipalOrRefuse(principal: Principal): Principal {
      const current = authentication.current(principal);
      if (!current) throw new AuthenticationError(`${principal.username} may no longer sign in`);
      return current;
    },
    invalidatePrincipals: authentication.invalidatePrincipals,

    /** A role's members and grants, as its representation shows them. */
    roleMembers(role: Role): [User[], Grant[]] {
      return [role.userPks.map((pk) => users.byPKey(pk)), role.grantNames.map((name) => grants.byName(name))];
    },

    /**
     * First-start data of this module, kept complete on every start: every grant the
     * route table names (marked as needed by the appliance), the immutable role ADMIN
     * holding all of them, and, on an empty user table, the user `admin`. With
     * `resetAdmin`, `admin` is restored with `adminPassword` (the recovery path).
     * Returns the generated admin password when one had to be made.
     */
    async seed(routeGrants: readonly { name: string; description: string }[], adminPassword: string | undefined, resetAdmin = false) {
      const adminRolePk = work.run(() => {
        const now = nowIso();
        const grantPks = grants.ensureSystemGrants(routeGrants, now);
        return roles.ensure(ADMIN_ROLE, 'Administrators: every grant', grantPks, now);
      });
      const password = adminPassword ?? generatePassword();
      if (resetAdmin && adminPassword) await users.resetAdministrator(ADMIN_USER, adminPassword, adminRolePk);
      const adminCreated = !resetAdmin && (await users.ensureFirstAdmin(ADMIN_USER, password, adminRolePk));
      authentication.invalidatePrincipals();
      return { adminCreated, adminReset: resetAdmin, generatedPassword: adminCreated && !adminPassword ? password : undefined };
    },
  };
}

export type UsersModule = ReturnType<typeof createUsersModule>;
