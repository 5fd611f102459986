import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { nowIso } from '../../../core/time.ts';
import { alreadyExists, DomainError, inUse, notFound } from '../../../core/errors.ts';
import { USER_KEYS } from '../errors.ts';
import { checkVersion } from '../../../core/versioned.ts';
import type { GrantService } from '../grants/service.ts';
import type { Role, RoleStore } from './store.ts';

interface RoleInput {
  name: string;
  description?: string | null | undefined;
  immutable?: boolean | undefined;
  /** Grant names; replaces the role's grants when given. */
  grants?: readonly string[] | undefined;
  /** Usernames; replaces the role's members when given. */
  users?: readonly string[] | undefined;
}

const roleNotFound = (name: string) => notFound(`Role [${name}] does not exist`, [name]);

/** Resolves usernames to user pKeys for the role service (users live beside roles in this module). */
type UserResolver = (username: string) => string;

export function createRoleService(work: UnitOfWork, store: RoleStore, grants: GrantService, resolveUser: UserResolver) {
  function byPKey(pKey: string): Role {
    const role = store.byPk(pKey);
    if (!role) throw notFound(`Role with pKey [${pKey}] does not exist`, [pKey]);
    return role;
  }
  function byName(name: string): Role {
    const role = store.byName(name);
    if (!role) throw roleNotFound(name);
    return role;
  }
  function requireUnique(name: string, ownPk?: string) {
    const existing = store.byName(name);
    if (existing && existing.pk !== ownPk) throw alreadyExists(`Role [${name}] already exists`, [name]);
  }
  function requireMutable(role: Role) {
    if (role.immutable) {
      throw new DomainError(403, USER_KEYS.roleImmutable, `Role [${role.name}] is immutable; it cannot be changed or deleted`, {
        obj: [role.name],
      });
    }
  }
  function assign(pk: string, input: Pick<RoleInput, 'grants' | 'users'>) {
    if (input.grants)
      store.setGrants(
        pk,
        input.grants.map((g) => grants.byName(g).pk),
      );
    if (input.users) store.setUsers(pk, input.users.map(resolveUser));
  }
  const changed = (type: 'role.created' | 'role.changed' | 'role.deleted', role: { pk: string; name: string }) =>
    work.emit({ type, key: role.name, data: { pKey: role.pk, name: role.name } });

  return {
    /** Every role by name: pages, or the whole list. */
    list: () => store.list(),
    byPKey,
    byName,
    /** The roles of a user, by name: pages, or the whole list. */
    ofUser: (userPk: string) => store.ofUser(userPk),

    create(input: RoleInput): Role {
      return work.run(() => {
        requireUnique(input.name);
        const pk = store.insert({ name: input.name, description: input.description ?? null, immutable: input.immutable ?? false }, nowIso());
        assign(pk, input);
        changed('role.created', { pk, name: input.name });
        return byPKey(pk);
      });
    },

    /** Replaces name, description and flag; grants and users when the request names them. */
    update(pKey: string, input: Omit<RoleInput, 'name'> & { name?: string | undefined; ol?: number | undefined }): Role {
      return work.run(() => {
        const current = byPKey(pKey);
        requireMutable(current);
        checkVersion('Role', current, input.ol);
        const name = input.name ?? current.name;
        requireUnique(name, current.pk);
        store.update(
          current.pk,
          {
            name,
            description: input.description === undefined ? current.description : input.description,
            immutable: input.immutable ?? current.immutable,
          },
          nowIso(),
        );
        assign(current.pk, input);
        changed('role.changed', { pk: pKey, name });
        if (current.name !== name) {
          work.emit({
            type: 'role.renamed',
            key: name,
            data: { pKey, from: current.name, to: name },
            refs: [{ kind: 'role', key: current.name }],
          });
        }
        return byPKey(pKey);
      });
    },

    delete(pKey: string): void {
      work.run(() => {
        const role = byPKey(pKey);
        requireMutable(role);
        // Active keys act in the role; revoked ones only remember its name.
        const { active } = store.apiKeyCounts(role.pk);
        if (active > 0) {
          throw inUse(USER_KEYS.roleInUse, `Role [${role.name}] is the scope of ${active} API key(s); revoke them first`, [role.name]);
        }
        store.delete(role.pk);
        changed('role.deleted', role);
      });
    },

    /** Start-up: the role exists, immutable, and holds these grants (pKeys). */
    ensure(name: string, description: string, grantPks: readonly string[], now: string): string {
      const pk = store.byName(name)?.pk ?? store.insert({ name, description, immutable: true }, now);
      for (const grantPk of grantPks) store.addGrant(pk, grantPk);
      return pk;
    },
  };
}

export type RoleService = ReturnType<typeof createRoleService>;
