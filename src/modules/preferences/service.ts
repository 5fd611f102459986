import type { Listing } from '../../core/listing.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { nowIso } from '../../core/time.ts';
import { DomainError, notFound, validationError } from '../../core/errors.ts';
import { checkVersion } from '../../core/versioned.ts';
import { notOwner, PREFERENCE_KEYS, userNotNamed } from './errors.ts';
import { inferType, scopeOfClass, valueText, type NewPreference, type PreferenceUpdate, type Scope } from './schema.ts';
import type { Preference, PreferenceFields, PreferenceStore } from './store.ts';

// The rules of the preferences module. A user preference belongs to one user: only
// that user sees it (other users never find it in a list) and only that user reads,
// changes or deletes it. Role, module and application preferences are shared by every
// caller holding the grants.

/** Who is asking: the user name decides which user preferences are theirs. */
interface Caller {
  username: string;
}

const invalid = (field: string, reason: string) => validationError(`Validation failed: ${field}: ${reason}`);

interface CreateResult {
  preference: Preference;
  /** False when `strict=false` found the preference and updated it instead. */
  created: boolean;
}

export function createPreferenceService(work: UnitOfWork, store: PreferenceStore) {
  // User and role preferences belong to their owner by name: they follow a rename and
  // go with a deletion, in the same unit of work, so a later user or role of the old
  // name never inherits them.
  work.react('user.renamed', (e) => store.renameOwner('USER', e.data.from, e.data.to, e.at));
  work.react('user.deleted', (e) => store.deleteOwner('USER', e.data.username));
  work.react('role.renamed', (e) => store.renameOwner('ROLE', e.data.from, e.data.to, e.at));
  work.react('role.deleted', (e) => store.deleteOwner('ROLE', e.data.name));
  const emitPreference = (type: 'preference.created' | 'preference.changed' | 'preference.deleted', p: Preference) =>
    work.emit({ type, key: p.pk, data: eventData(p) });
  function byPKey(caller: Caller, pKey: string): Preference {
    const preference = store.byPk(pKey);
    if (!preference) throw new DomainError(404, PREFERENCE_KEYS.notFoundByPKey, `Preference with pKey [${pKey}] does not exist`, { obj: [pKey] });
    if (preference.scope === 'USER' && preference.owner !== caller.username) throw notOwner(preference.owner!, caller);
    return preference;
  }

  function requireOwnUser(caller: Caller, user: string): void {
    if (user !== caller.username) throw notOwner(user, caller);
  }

  /**
   * The owner a request names for a scope: users may omit it (they mean themselves)
   * but not name someone else; roles and modules need one; the application has none.
   */
  function ownerFor(caller: Caller, scope: Scope, owner: string | null | undefined): string | null {
    switch (scope) {
      case 'APPLICATION':
        if (owner != null) throw invalid('owner', 'application preferences have no owner; leave it out');
        return null;
      case 'USER':
        if (owner == null) return caller.username;
        requireOwnUser(caller, owner);
        return owner;
      case 'ROLE':
      case 'MODULE':
        if (owner == null) throw invalid('owner', `is required for ${scope.toLowerCase()} preferences (the ${scope.toLowerCase()} name)`);
        return owner;
    }
  }

  function fieldsOf(input: NewPreference, type = input.type ?? inferType(input.value)): PreferenceFields {
    return {
      description: input.description ?? null,
      value: valueText(type, input.value),
      groupName: input.groupName ?? null,
      type,
    };
  }

  const sameFields = (p: Preference, f: PreferenceFields) =>
    p.description === f.description && p.value === f.value && p.groupName === f.groupName && p.type === f.type;

  const eventData = (p: Preference) => ({ pKey: p.pk, scope: p.scope, owner: p.owner, key: p.key });

  return {
    byPKey,

    /** `GET /v1/preferences`: everything the caller may see (their own user preferences, no one else's). Lists are in the order of scope, owner and key. */
    all: (caller: Caller): Listing<Preference> => store.visibleTo(caller.username),

    /** `?scope=`: user preferences only with the user named (`ofScopeAndUser`). */
    ofScope(scope: Scope): Listing<Preference> {
      if (scope === 'USER') throw userNotNamed();
      return store.ofScope(scope);
    },

    /** `?scope=&user=`: the user preferences of the caller; other scopes take no user. */
    ofScopeAndUser(caller: Caller, scope: Scope, user: string): Listing<Preference> {
      if (scope !== 'USER') throw invalid('user', `applies to scope USER only, not ${scope}`);
      requireOwnUser(caller, user);
      return store.ofOwner('USER', user);
    },

    /** `?user=`, `?role=`, `?module=`: the preferences of one owner. */
    ofOwner(caller: Caller, scope: 'USER' | 'ROLE' | 'MODULE', owner: string): Listing<Preference> {
      if (scope === 'USER') requireOwnUser(caller, owner);
      return store.ofOwner(scope, owner);
    },

    /** `?user=&key=`, `?role=&key=`, `?module=&key=`: one preference; 404 `not.found` when absent. */
    ofOwnerAndKey(caller: Caller, scope: 'USER' | 'ROLE' | 'MODULE', owner: string, key: string): Preference {
      if (scope === 'USER') requireOwnUser(caller, owner);
      const preference = store.byIdentity(scope, owner, key);
      if (!preference) {
        const kind = { USER: 'UserPreference', ROLE: 'RolePreference', MODULE: 'ModulePreference' }[scope];
        throw notFound(`${kind} with key [${key}] of ${scope.toLowerCase()} [${owner}] does not exist`, [owner, key]);
      }
      return preference;
    },

    /** `GET /preferences/groups?owner=&scope=&name=`: the preferences of a scope and owner in one group. */
    inGroup(caller: Caller, scope: Scope, owner: string | undefined, groupName: string): Listing<Preference> {
      if (scope === 'USER' && owner === undefined) throw userNotNamed();
      return store.inGroup(scope, ownerFor(caller, scope, owner), groupName);
    },

    /**
     * Creates a preference. A duplicate (same kind, owner and key) is refused when
     * `strict`; otherwise the existing one takes the sent fields (idempotent
     * provisioning), and is left alone when they are what it holds already.
     */
    create(caller: Caller, input: NewPreference, strict: boolean): CreateResult {
      const scope = scopeOfClass(input['@class']);
      const owner = ownerFor(caller, scope, input.owner);
      const fields = fieldsOf(input);
      return work.run(() => {
        const existing = store.byIdentity(scope, owner, input.key);
        if (!existing) {
          const preference = store.byPk(store.insert(scope, owner, input.key, fields, nowIso()))!;
          emitPreference('preference.created', preference);
          return { preference, created: true };
        }
        if (strict) {
          throw new DomainError(
            409,
            PREFERENCE_KEYS.alreadyExistsWithOwnerAndScopeAndKey,
            `Preference with key [${input.key}], owner [${owner ?? ''}] and scope [${scope}] already exists`,
            {
              obj: [input.key, owner, scope],
            },
          );
        }
        if (sameFields(existing, fields)) return { preference: existing, created: false };
        store.update(existing.pk, fields, nowIso());
        const preference = store.byPk(existing.pk)!;
        emitPreference('preference.changed', preference);
        return { preference, created: false };
      });
    },

    /**
     * Replaces description, value, group and type. Kind, owner and key identify the
     * preference and cannot change; without `type` the current one stays.
     */
    update(caller: Caller, pKey: string, input: PreferenceUpdate): Preference {
      return work.run(() => {
        const current = byPKey(caller, pKey);
        if (input.pKey !== undefined && input.pKey !== pKey) {
          throw invalid('pKey', `must be the pKey of the path [${pKey}], not [${input.pKey}]`);
        }
        if (scopeOfClass(input['@class']) !== current.scope) {
          throw invalid('@class', `the kind of a preference cannot change; it is ${current.scope}`);
        }
        if (input.key !== current.key) throw invalid('key', `cannot change; it is [${current.key}]`);
        const owner = current.scope === 'USER' ? (input.owner ?? current.owner) : (input.owner ?? null);
        if (owner !== current.owner) {
          if (current.scope === 'APPLICATION') throw invalid('owner', 'application preferences have no owner; leave it out');
          if (owner === null) throw invalid('owner', `is required; it is [${current.owner}] and cannot change`);
          throw invalid('owner', `cannot change; it is [${current.owner}]`);
        }
        checkVersion('Preference', current, input.ol);
        store.update(current.pk, fieldsOf(input, input.type ?? current.type), nowIso());
        const preference = store.byPk(pKey)!;
        emitPreference('preference.changed', preference);
        return preference;
      });
    },

    delete(caller: Caller, pKey: string): void {
      work.run(() => {
        const found = byPKey(caller, pKey);
        store.delete(found.pk);
        emitPreference('preference.deleted', found);
      });
    },
  };
}

export type PreferenceService = ReturnType<typeof createPreferenceService>;
