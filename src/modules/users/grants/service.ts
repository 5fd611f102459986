import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { nowIso } from '../../../core/time.ts';
import { DomainError, alreadyExists, notFound } from '../../../core/errors.ts';
import { USER_KEYS } from '../errors.ts';
import { checkVersion } from '../../../core/versioned.ts';
import type { Grant, GrantStore } from './store.ts';

const grantNotFound = (name: string) => notFound(`Grant [${name}] does not exist`, [name]);

const systemGrant = (name: string) =>
  new DomainError(403, USER_KEYS.grantImmutable, `Grant [${name}] is needed by the appliance; it cannot be renamed or deleted`, {
    obj: [name],
  });

export function createGrantService(work: UnitOfWork, store: GrantStore) {
  function byPKey(pKey: string): Grant {
    const grant = store.byPk(pKey);
    if (!grant) throw notFound(`Grant with pKey [${pKey}] does not exist`, [pKey]);
    return grant;
  }
  function byName(name: string): Grant {
    const grant = store.byName(name);
    if (!grant) throw grantNotFound(name);
    return grant;
  }
  function requireUnique(name: string, ownPk?: string) {
    const existing = store.byName(name);
    if (existing && existing.pk !== ownPk) throw alreadyExists(`Grant [${name}] already exists`, [name]);
  }
  const changed = (grant: { pk: string; name: string }, change: 'created' | 'changed' | 'deleted') =>
    work.emit({ type: 'grant.changed', key: grant.name, data: { pKey: grant.pk, name: grant.name, change } });

  return {
    /** Every grant by name: pages, or the whole list. */
    list: () => store.list(),
    byPKey,
    byName,
    /** The effective grants of a user, by name: pages, or the whole list. */
    ofUser: (userPk: string) => store.ofUser(userPk),
    namesOfUser: (userPk: string) => store.namesOfUser(userPk),
    namesOfRole: (rolePk: string) => store.namesOfRole(rolePk),

    create(input: { name: string; description?: string | null | undefined }): Grant {
      return work.run(() => {
        requireUnique(input.name);
        const pk = store.insert(input.name, input.description ?? null, false, nowIso());
        changed({ pk, name: input.name }, 'created');
        return byPKey(pk);
      });
    },

    /** A system grant keeps its name; its description may change. */
    update(pKey: string, input: { name: string; description?: string | null | undefined; ol?: number | undefined }): Grant {
      return work.run(() => {
        const current = byPKey(pKey);
        checkVersion('Grant', current, input.ol);
        if (current.system && input.name !== current.name) throw systemGrant(current.name);
        requireUnique(input.name, current.pk);
        store.update(current.pk, input.name, input.description === undefined ? current.description : input.description, nowIso());
        changed({ pk: pKey, name: input.name }, 'changed');
        return byPKey(pKey);
      });
    },

    delete(pKey: string): void {
      work.run(() => {
        const grant = byPKey(pKey);
        if (grant.system) throw systemGrant(grant.name);
        store.delete(grant.pk);
        changed(grant, 'deleted');
      });
    },

    /** Start-up: every grant the route table names exists and is marked as a system grant; returns their pKeys. */
    ensureSystemGrants(grants: readonly { name: string; description: string }[], now: string): string[] {
      return grants.map((g) => {
        const existing = store.byName(g.name);
        if (!existing) return store.insert(g.name, g.description, true, now);
        store.markSystem(existing.pk);
        return existing.pk;
      });
    },
  };
}

export type GrantService = ReturnType<typeof createGrantService>;
