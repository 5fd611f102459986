import type { Db } from '../../core/db.ts';
import type { Logger } from '../../core/log.ts';
import { nowIso } from '../../core/time.ts';
import { decoyHash, generatePassword, hashPassword, verifyPassword } from '../../auth/passwords.ts';
import { bearerToken, type IssuedToken, type TokenService } from '../../auth/tokens.ts';
import type { Principal } from '../../http/context.ts';
import { ServerDeclined } from '../../http/errors.ts';
import type { UserStore } from './store.ts';

export const ADMIN_ROLE = 'ADMIN';
export const ADMIN_USER = 'admin';

/** How long a resolved caller (grants, roles) is reused before it is read again. */
const PRINCIPAL_TTL_MS = 30_000;

export interface UserServiceDeps {
  db: Db;
  store: UserStore;
  tokens: TokenService;
  log: Logger;
}

export function createUserService({ db, store, tokens, log }: UserServiceDeps) {
  const principals = new Map<string, { principal: Principal; loadedAt: number }>();

  function loadPrincipal(id: string): Principal {
    const cached = principals.get(id);
    if (cached && Date.now() - cached.loadedAt < PRINCIPAL_TTL_MS) return cached.principal;
    const user = store.userByPk(id);
    if (!user) throw new ServerDeclined(401, 'Invalid token: the user no longer exists');
    const refusal = refusalOf(user);
    if (refusal) throw new ServerDeclined(401, `Token no longer valid: ${refusal}`);
    const principal: Principal = {
      id: user.pk,
      username: user.username,
      kind: 'user',
      grants: new Set(store.grantsOfUser(user.pk)),
      roleNames: store.roleNamesOfUser(user.pk),
    };
    principals.set(id, { principal, loadedAt: Date.now() });
    return principal;
  }

  return {
    /**
     * First-start data of this module: every grant the route table names, the role
     * ADMIN holding all of them (kept complete on every start, so grants added by an
     * update reach it), and, on an empty user table, the user `admin`.
     * Returns the generated admin password when one had to be made.
     */
    async seed(grants: readonly { name: string; description: string }[], adminPassword: string | undefined) {
      const needsAdmin = !(db.prepare('SELECT 1 FROM users LIMIT 1').get() as unknown);
      const password = needsAdmin ? (adminPassword ?? generatePassword()) : undefined;
      const hash = password ? await hashPassword(password) : undefined;
      db.transaction(() => {
        const now = nowIso();
        const rolePk =
          store.roleByName(ADMIN_ROLE)?.pk ?? store.insertRole(ADMIN_ROLE, 'Administrators: every grant', true, now);
        for (const grant of grants) {
          const grantPk = store.grantByName(grant.name)?.pk ?? store.insertGrant(grant.name, grant.description, now);
          store.linkRoleGrant(rolePk, grantPk);
        }
        if (hash) {
          const userPk = store.insertUser(ADMIN_USER, hash, now);
          store.linkUserRole(userPk, rolePk);
        }
      })();
      principals.clear();
      return { generatedPassword: needsAdmin && !adminPassword ? password : undefined, adminCreated: needsAdmin };
    },

    /** The password grant of `POST /oauth/token`. */
    async login(username: string, password: string): Promise<IssuedToken> {
      const user = store.userByName(username);
      if (!user || !user.password_hash) {
        await verifyPassword(password, await decoyHash());
        throw badCredentials();
      }
      if (!(await verifyPassword(password, user.password_hash))) {
        store.failedLogin(user.pk);
        log.info({ username }, 'login failed: wrong password');
        throw badCredentials();
      }
      const refusal = refusalOf(user);
      if (refusal) throw new ServerDeclined(401, `Login refused: ${refusal}`);
      store.resetFailedLogins(user.pk);
      return tokens.issue({ id: user.pk, username: user.username, kind: 'user' });
    },

    /** Resolves the caller of a request from its `Authorization` header; synchronous for a token seen before. */
    authenticate(authorization: string | undefined): Principal | Promise<Principal> {
      const token = bearerToken(authorization);
      const known = tokens.cached(token);
      if (known) return loadPrincipal(known.id);
      return tokens.verify(token).then((verified) => loadPrincipal(verified.id));
    },

    /** Forget resolved callers after users, roles or grants changed. */
    invalidatePrincipals(): void {
      principals.clear();
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;

function refusalOf(user: { locked: number; enabled: number; expiration_date: string | null }): string | undefined {
  if (user.locked) return 'the account is locked';
  if (!user.enabled) return 'the account is disabled';
  if (user.expiration_date && user.expiration_date <= nowIso()) return 'the account has expired';
  return undefined;
}

const badCredentials = () => new ServerDeclined(401, 'Bad credentials');
