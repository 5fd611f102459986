import { isForeignKeyViolation, type Db } from '../../../core/db.ts';
import type { EventBus } from '../../../core/events.ts';
import { nowIso } from '../../../core/time.ts';
import { alreadyExists, DomainError, inUse, validationError } from '../../../core/errors.ts';
import type { AccountService } from '../accounts/service.ts';
import { checkErrorCode, groupStateAt, type GroupState } from '../error-code.ts';
import { checkVersion } from '../../../core/versioned.ts';
import type { LocationGroup, LocationGroupFields, LocationGroupStore, OperationMode } from './store.ts';

export interface NewLocationGroup {
  name: string;
  description?: string | undefined;
  accountId?: string | undefined;
  groupType?: string | undefined;
  operationMode?: OperationMode | undefined;
  parentName?: string | null | undefined;
  groupStateIn?: GroupState | undefined;
  groupStateOut?: GroupState | undefined;
}

export type LocationGroupPatch = Partial<Omit<NewLocationGroup, 'description' | 'groupType'>> & {
  description?: string | null | undefined;
  groupType?: string | null | undefined;
  ol?: number | undefined;
};

export const groupNotFoundByName = (name: string) =>
  new DomainError(404, 'svc.common.common.lg.notFoundByName', `LocationGroup with name [${name}] does not exist`, {
    obj: [name],
  });

export interface GroupStateChange {
  groupStateIn?: GroupState | undefined;
  groupStateOut?: GroupState | undefined;
}

export function createLocationGroupService(db: Db, store: LocationGroupStore, accounts: AccountService, bus: EventBus) {
  function byPKey(pKey: string): LocationGroup {
    const group = store.byPk(pKey);
    if (!group) {
      throw new DomainError(404, 'svc.common.common.lg.notFoundByPKey', `LocationGroup with pKey [${pKey}] does not exist`, {
        obj: [pKey],
      });
    }
    return group;
  }

  function byName(name: string): LocationGroup {
    const group = store.byName(name);
    if (!group) throw groupNotFoundByName(name);
    return group;
  }

  function requireUniqueName(name: string, ownPk?: string) {
    const existing = store.byName(name);
    if (existing && existing.pk !== ownPk) {
      throw alreadyExists(`LocationGroup with name [${name}] already exists`, [name]);
    }
  }

  /**
   * Sets the state of a group and, as the PLC protocol and the reference system do,
   * of every group below it. Runs inside the caller's transaction; returns what changed.
   */
  function applyState(group: LocationGroup, change: GroupStateChange, now: string) {
    const changed: { name: string; pk: string; field: string; value: GroupState }[] = [];
    if (!change.groupStateIn && !change.groupStateOut) return changed;
    for (const pk of store.subtree(group.pk)) {
      if (change.groupStateIn && store.setStateIn(pk, change.groupStateIn, now)) {
        changed.push({ pk, name: '', field: 'groupStateIn', value: change.groupStateIn });
      }
      if (change.groupStateOut && store.setStateOut(pk, change.groupStateOut, now)) {
        changed.push({ pk, name: '', field: 'groupStateOut', value: change.groupStateOut });
      }
    }
    for (const c of changed) c.name = store.byPk(c.pk)!.name;
    return changed;
  }

  function publishStateChanges(changes: ReturnType<typeof applyState>) {
    for (const c of changes) {
      bus.publish('locationGroup.stateChanged', { name: c.name, pKey: c.pk, field: c.field, value: c.value });
    }
  }

  return {
    all: () => store.all(),
    byPKey,
    /** Unthrowing lookup for modules that keep a group's pKey. */
    findByPk: (pk: string) => store.byPk(pk),
    byName,
    byNames: (names: readonly string[]) =>
      names.map((n) => store.byName(n)).filter((g): g is LocationGroup => g !== undefined),
    /** The group and its descendants, as pKeys. */
    subtree: (pk: string) => store.subtree(pk),
    /** The group's ancestors, nearest first, as pKeys. */
    ancestors: (pk: string) => store.ancestors(pk),

    create(input: NewLocationGroup): LocationGroup {
      const pk = db.transaction(() => {
        requireUniqueName(input.name);
        const parent = input.parentName ? byName(input.parentName) : undefined;
        const fields: LocationGroupFields = {
          name: input.name,
          description: input.description ?? null,
          accountPk: input.accountId !== undefined ? accounts.byIdentifier(input.accountId).pk : null,
          groupType: input.groupType ?? null,
          operationMode: input.operationMode ?? 'INFEED_AND_OUTFEED',
          parentPk: parent?.pk ?? null,
          groupStateIn: input.groupStateIn ?? parent?.groupStateIn ?? 'AVAILABLE',
          groupStateOut: input.groupStateOut ?? parent?.groupStateOut ?? 'AVAILABLE',
        };
        return store.insert(fields, nowIso());
      })();
      const group = store.byPk(pk)!;
      bus.publish('locationGroup.created', { name: group.name, pKey: pk });
      return group;
    },

    /** Partial update; a new parent must exist and must not lie below the group itself. */
    modify(pKey: string, patch: LocationGroupPatch): LocationGroup {
      const changes = db.transaction(() => {
        const current = byPKey(pKey);
        checkVersion('LocationGroup', current, patch.ol);
        if (patch.name !== undefined) requireUniqueName(patch.name, current.pk);
        let parentPk = current.parentPk;
        if (patch.parentName !== undefined) {
          parentPk = patch.parentName === null ? null : byName(patch.parentName).pk;
          if (parentPk && store.subtree(current.pk).includes(parentPk)) {
            throw validationError(
              `Validation failed: parentName [${patch.parentName}] lies below [${current.name}]; a group cannot be its own ancestor`,
            );
          }
        }
        store.update(
          current.pk,
          {
            name: patch.name ?? current.name,
            description: patch.description !== undefined ? patch.description : current.description,
            accountPk: patch.accountId !== undefined ? accounts.byIdentifier(patch.accountId).pk : store.accountPkOf(current.pk),
            groupType: patch.groupType !== undefined ? patch.groupType : current.groupType,
            operationMode: patch.operationMode ?? current.operationMode,
            parentPk,
            groupStateIn: current.groupStateIn,
            groupStateOut: current.groupStateOut,
          },
          nowIso(),
        );
        const updated = store.byPk(current.pk)!;
        return applyState(updated, { groupStateIn: patch.groupStateIn, groupStateOut: patch.groupStateOut }, nowIso());
      })();
      const group = store.byPk(pKey)!;
      bus.publish('locationGroup.changed', { name: group.name, pKey });
      publishStateChanges(changes);
      return group;
    },

    delete(pKey: string): void {
      const group = db.transaction(() => {
        const group = byPKey(pKey);
        if (group.childNames.length > 0) {
          throw inUse('svc.common.common.lg.notEmpty', `LocationGroup [${group.name}] still has child groups: ${group.childNames.join(', ')}`, [group.name]);
        }
        const locations = store.locationCount(group.pk);
        if (locations > 0) {
          throw inUse('svc.common.common.lg.notEmpty', `LocationGroup [${group.name}] still holds ${locations} location(s)`, [group.name]);
        }
        try {
          store.delete(group.pk);
        } catch (err) {
          if (!isForeignKeyViolation(err)) throw err;
          throw inUse('svc.common.common.lg.inUse', `LocationGroup [${group.name}] is still named by a route, a default hop, an open transport order or another record; remove those references first`, [
            group.name,
          ]);
        }
        return group;
      })();
      bus.publish('locationGroup.deleted', { name: group.name, pKey });
    },

    /** Changes `groupStateIn`/`groupStateOut` of a group and its descendants. */
    changeState(pKey: string, change: GroupStateChange) {
      const changes = db.transaction(() => applyState(byPKey(pKey), change, nowIso()))();
      publishStateChanges(changes);
      return changes;
    },

    /** A group addressed by the bitmap: position 0 = groupStateIn, 1 = groupStateOut (plc-osip.md §B4.3, decision 2). */
    changeStateByCode(name: string, errorCode: string) {
      checkErrorCode(errorCode);
      const group = byName(name);
      return this.changeState(group.pk, { groupStateIn: groupStateAt(errorCode, 0), groupStateOut: groupStateAt(errorCode, 1) });
    },

    /** For services that already run a transaction (location state change): apply now, publish after commit. */
    applyStateInTransaction: (group: LocationGroup, change: GroupStateChange) => applyState(group, change, nowIso()),
    publishStateChanges,
  };
}

export type LocationGroupService = ReturnType<typeof createLocationGroupService>;
