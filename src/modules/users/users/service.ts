import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { nowIso } from '../../../core/time.ts';
import { hashPassword } from '../../../auth/passwords.ts';
import { DomainError, notFound, validationError } from '../../../core/errors.ts';
import { USER_KEYS } from '../errors.ts';
import { checkVersion } from '../../../core/versioned.ts';
import type { RoleService } from '../roles/service.ts';
import { createUserImages } from './image.ts';
import { createLoginLockout } from './lockout.ts';
import type { EmailAddress, User, UserFields, UserStore } from './store.ts';

export const ADMIN_ROLE = 'ADMIN';

interface UserInput {
  username: string;
  externalUser?: boolean | undefined;
  locked?: boolean | undefined;
  enabled?: boolean | undefined;
  expirationDate?: string | null | undefined;
  fullname?: string | null | undefined;
  details?: Record<string, unknown> | undefined;
  emailAddresses?: readonly EmailAddress[] | undefined;
  roleNames?: readonly string[] | undefined;
  /** Only on create: the first password. */
  password?: string | undefined;
}

interface UserServiceOptions {
  imageMaxBytes: number;
  /** scrypt's N for passwords set from now on. */
  passwordHashCost: number;
}

export function createUserService(work: UnitOfWork, store: UserStore, roles: RoleService, options: UserServiceOptions) {
  function byPKey(pKey: string): User {
    const user = store.byPk(pKey);
    if (!user) throw notFound(`User with pKey [${pKey}] does not exist`, [pKey]);
    return user;
  }
  function requireUnique(username: string, ownPk?: string) {
    const existing = store.byName(username);
    if (existing && existing.pk !== ownPk) {
      throw new DomainError(409, USER_KEYS.userAlreadyExists, `User with username [${username}] already exists`, { obj: [username] });
    }
  }
  function checkEmails(emails: readonly EmailAddress[] | undefined) {
    if (!emails) return;
    if (emails.filter((e) => e.primary).length > 1) {
      throw new DomainError(400, USER_KEYS.emailMultiplePrimary, 'A user has at most one primary e-mail address', {
        obj: emails.filter((e) => e.primary).map((e) => e.emailAddress),
      });
    }
    const seen = new Set<string>();
    for (const e of emails) {
      const key = e.emailAddress.toLowerCase();
      if (seen.has(key)) throw validationError(`Validation failed: emailAddresses: [${e.emailAddress}] is given twice`);
      seen.add(key);
    }
  }
  const isActiveAdmin = (u: User | undefined) => !!u && u.enabled && !u.locked && u.roleNames.includes(ADMIN_ROLE);
  /**
   * The appliance must stay administrable: a change that takes an enabled, unlocked
   * user out of the role ADMIN (locks, disables, deletes or demotes it) must leave
   * another one. Checked inside the change's transaction, so a change that breaks it
   * rolls back. A change to a user that was no active administrator takes none away.
   */
  function requireAnAdministrator(before: User) {
    if (!isActiveAdmin(before)) return;
    const admin = roles.byName(ADMIN_ROLE);
    const remaining = store.otherActiveMembers(admin.pk, before.pk);
    if (remaining === 0 && !isActiveAdmin(store.byPk(before.pk))) {
      throw new DomainError(409, USER_KEYS.lastAdministrator, 'This would leave no enabled, unlocked user in the role ADMIN', {
        obj: [ADMIN_ROLE],
      });
    }
  }
  const changed = (type: 'user.created' | 'user.changed' | 'user.passwordChanged' | 'user.deleted', user: { pk: string; username: string }) =>
    work.emit({ type, key: user.username, data: { pKey: user.pk, username: user.username } });
  const lockout = createLoginLockout({ work, store });
  const images = createUserImages({ work, store, byPKey, changed, imageMaxBytes: options.imageMaxBytes });

  return {
    /** Every user by name: pages, or the whole list. */
    list: () => store.list(),
    byPKey,
    findByPk: (pk: string) => store.byPk(pk),
    findByName: (username: string) => store.byName(username),

    // The lock after failed logins (lockout.ts).
    ...lockout,

    /** Username → pKey, 404 when unknown (for role membership). */
    pkOf(username: string): string {
      const user = store.byName(username);
      if (!user) throw notFound(`User [${username}] does not exist`, [username]);
      return user.pk;
    },

    async create(input: UserInput): Promise<User> {
      checkEmails(input.emailAddresses);
      const hash = input.password !== undefined ? await hashPassword(input.password, options.passwordHashCost) : undefined;
      return work.run(() => {
        requireUnique(input.username);
        const now = nowIso();
        const fields: UserFields = {
          username: input.username,
          externalUser: input.externalUser ?? false,
          locked: input.locked ?? false,
          enabled: input.enabled ?? true,
          expirationDate: input.expirationDate ?? null,
          fullname: input.fullname ?? null,
          details: input.details ?? {},
        };
        const pk = store.insert(fields, now);
        store.setEmails(pk, input.emailAddresses ?? []);
        store.setRoles(
          pk,
          (input.roleNames ?? []).map((r) => roles.byName(r).pk),
        );
        if (hash) store.setPassword(pk, hash, now);
        const user = byPKey(pk);
        changed('user.created', user);
        return user;
      });
    },

    /** Changes the fields the request carries; absent ones keep their values. */
    update(pKey: string, input: Omit<UserInput, 'password' | 'username'> & { username?: string | undefined; ol?: number | undefined }): User {
      checkEmails(input.emailAddresses);
      return work.run(() => {
        const current = byPKey(pKey);
        checkVersion('User', current, input.ol);
        const username = input.username ?? current.username;
        requireUnique(username, current.pk);
        store.update(
          current.pk,
          {
            username,
            externalUser: input.externalUser ?? current.externalUser,
            locked: input.locked ?? current.locked,
            enabled: input.enabled ?? current.enabled,
            expirationDate: input.expirationDate === undefined ? current.expirationDate : input.expirationDate,
            fullname: input.fullname === undefined ? current.fullname : input.fullname,
            details: input.details ?? current.details,
          },
          (current.locked || current.lockExpired) && input.locked === false,
          nowIso(),
        );
        if (input.emailAddresses) store.setEmails(current.pk, input.emailAddresses);
        if (input.roleNames)
          store.setRoles(
            current.pk,
            input.roleNames.map((r) => roles.byName(r).pk),
          );
        requireAnAdministrator(current);
        const user = byPKey(pKey);
        changed('user.changed', user);
        if (current.username !== user.username) {
          work.emit({
            type: 'user.renamed',
            key: user.username,
            data: { pKey: user.pk, from: current.username, to: user.username },
            refs: [{ kind: 'user', key: current.username }],
          });
        }
        return user;
      });
    },

    async setPassword(pKey: string, password: string): Promise<User> {
      byPKey(pKey);
      const hash = await hashPassword(password, options.passwordHashCost);
      return work.run(() => {
        store.setPassword(byPKey(pKey).pk, hash, nowIso());
        const user = byPKey(pKey);
        changed('user.passwordChanged', user);
        return user;
      });
    },

    // The user's image (image.ts).
    ...images,

    delete(pKey: string): void {
      work.run(() => {
        const user = byPKey(pKey);
        store.delete(user.pk);
        requireAnAdministrator(user);
        changed('user.deleted', user);
      });
    },

    /** Start-up: the first administrator, on an empty user table. */
    async ensureFirstAdmin(username: string, password: string, adminRolePk: string): Promise<boolean> {
      if (store.count() > 0) return false;
      await this.resetAdministrator(username, password, adminRolePk);
      return true;
    },

    /**
     * The recovery path of an appliance whose administrators are locked out: the user
     * exists (created when missing), is enabled and unlocked, holds the role ADMIN and
     * has this password. Only reachable from the box's command line (`--reset-admin`).
     */
    async resetAdministrator(username: string, password: string, adminRolePk: string): Promise<void> {
      const hash = await hashPassword(password, options.passwordHashCost);
      work.run(() => {
        const now = nowIso();
        const existing = store.byName(username);
        const fields = { username, externalUser: false, locked: false, enabled: true, expirationDate: null };
        const pk = existing
          ? (store.update(existing.pk, { ...existing, ...fields }, true, now), existing.pk)
          : store.insert({ ...fields, fullname: null, details: {} }, now);
        store.setPassword(pk, hash, now);
        store.addRole(pk, adminRolePk);
        changed(existing ? 'user.changed' : 'user.created', { pk, username });
      });
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
