import { isForeignKeyViolation } from '../../../core/db.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { nowIso } from '../../../core/time.ts';
import { alreadyExists, DomainError, inUse, validationError } from '../../../core/errors.ts';
import { COMMON_KEYS } from '../errors.ts';
import type { AccountService } from '../accounts/service.ts';
import { checkErrorCode, groupStateAt, type GroupState } from '../error-code.ts';
import { checkVersion } from '../../../core/versioned.ts';
import type { LocationGroup, LocationGroupFields, LocationGroupStore, OperationMode } from './store.ts';

interface NewLocationGroup {
  name: string;
  description?: string | undefined;
  accountId?: string | undefined;
  groupType?: string | undefined;
  operationMode?: OperationMode | undefined;
  parentName?: string | null | undefined;
  groupStateIn?: GroupState | undefined;
  groupStateOut?: GroupState | undefined;
}

type LocationGroupPatch = Partial<Omit<NewLocationGroup, 'description' | 'groupType'>> & {
  description?: string | null | undefined;
  groupType?: string | null | undefined;
  ol?: number | undefined;
};

export const groupNotFoundByName = (name: string) =>
  new DomainError(404, COMMON_KEYS.lgNotFoundByName, `LocationGroup with name [${name}] does not exist`, {
    obj: [name],
  });

export interface GroupStateChange {
  groupStateIn?: GroupState | undefined;
  groupStateOut?: GroupState | undefined;
}

export function createLocationGroupService(work: UnitOfWork, store: LocationGroupStore, accounts: AccountService) {
  function byPKey(pKey: string): LocationGroup {
    const group = store.byPk(pKey);
    if (!group) {
      throw new DomainError(404, COMMON_KEYS.lgNotFoundByPKey, `LocationGroup with pKey [${pKey}] does not exist`, {
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
   * of every group below it; one event per group and field that really changed.
   * Runs inside the caller's unit of work; returns what changed.
   */
  function applyState(group: LocationGroup, change: GroupStateChange, reason?: string) {
    const changed: { name: string; pk: string; field: string; value: GroupState }[] = [];
    if (!change.groupStateIn && !change.groupStateOut) return changed;
    const now = nowIso();
    for (const pk of store.subtree(group.pk)) {
      const before = store.byPk(pk)!;
      if (change.groupStateIn && store.setStateIn(pk, change.groupStateIn, now)) {
        changed.push({ pk, name: before.name, field: 'groupStateIn', value: change.groupStateIn });
        emitState(before, 'groupStateIn', change.groupStateIn, before.groupStateIn, reason);
      }
      if (change.groupStateOut && store.setStateOut(pk, change.groupStateOut, now)) {
        changed.push({ pk, name: before.name, field: 'groupStateOut', value: change.groupStateOut });
        emitState(before, 'groupStateOut', change.groupStateOut, before.groupStateOut, reason);
      }
    }
    return changed;
  }

  function emitState(group: LocationGroup, field: string, value: GroupState, from: GroupState, reason: string | undefined) {
    work.emit({ type: 'locationGroup.stateChanged', key: group.name, data: { name: group.name, pKey: group.pk, field, value, from }, reason });
  }

  return {
    all: () => store.all(),
    /** Every group by name: pages, or the whole list streamed. */
    list: () => store.list(),
    byPKey,
    /** Unthrowing lookup for modules that keep a group's pKey. */
    findByPk: (pk: string) => store.byPk(pk),
    byName,
    byNames: (names: readonly string[]) => names.map((n) => store.byName(n)).filter((g): g is LocationGroup => g !== undefined),
    /** The group and its descendants, as pKeys. */
    subtree: (pk: string) => store.subtree(pk),
    /** The group's ancestors, nearest first, as pKeys. */
    ancestors: (pk: string) => store.ancestors(pk),

    create(input: NewLocationGroup): LocationGroup {
      return work.run(() => {
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
        const pk = store.insert(fields, nowIso());
        work.emit({ type: 'locationGroup.created', key: input.name, data: { name: input.name, pKey: pk } });
        return store.byPk(pk)!;
      });
    },

    /** Partial update; a new parent must exist and must not lie below the group itself. */
    modify(pKey: string, patch: LocationGroupPatch): LocationGroup {
      return work.run(() => {
        const current = byPKey(pKey);
        checkVersion('LocationGroup', current, patch.ol);
        if (patch.name !== undefined) requireUniqueName(patch.name, current.pk);
        let parentPk = current.parentPk;
        if (patch.parentName !== undefined) {
          parentPk = patch.parentName === null ? null : byName(patch.parentName).pk;
          if (parentPk && store.subtree(current.pk).includes(parentPk)) {
            throw validationError(`Validation failed: parentName [${patch.parentName}] lies below [${current.name}]; a group cannot be its own ancestor`);
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
        work.emit({
          type: 'locationGroup.changed',
          key: updated.name,
          data: { name: updated.name, pKey, ...(updated.name !== current.name ? { from: current.name } : {}) },
        });
        applyState(updated, { groupStateIn: patch.groupStateIn, groupStateOut: patch.groupStateOut });
        return store.byPk(pKey)!;
      });
    },

    delete(pKey: string): void {
      work.run(() => {
        const group = byPKey(pKey);
        if (group.childNames.length > 0) {
          throw inUse(COMMON_KEYS.lgNotEmpty, `LocationGroup [${group.name}] still has child groups: ${group.childNames.join(', ')}`, [group.name]);
        }
        const locations = store.locationCount(group.pk);
        if (locations > 0) {
          throw inUse(COMMON_KEYS.lgNotEmpty, `LocationGroup [${group.name}] still holds ${locations} location(s)`, [group.name]);
        }
        try {
          store.delete(group.pk);
        } catch (err) {
          if (!isForeignKeyViolation(err)) throw err;
          throw inUse(
            COMMON_KEYS.lgInUse,
            `LocationGroup [${group.name}] is still named by a route, a default hop, an open transport order or another record; remove those references first`,
            [group.name],
          );
        }
        work.emit({ type: 'locationGroup.deleted', key: group.name, data: { name: group.name, pKey } });
      });
    },

    /**
     * Changes `groupStateIn`/`groupStateOut` of a group and its descendants; `reason`
     * (the operator's or the PLC's) is kept on the events. Joins a running unit of work.
     */
    changeState(pKey: string, change: GroupStateChange, reason?: string) {
      return work.run(() => applyState(byPKey(pKey), change, reason));
    },

    /** A group addressed by the bitmap: position 0 = groupStateIn, 1 = groupStateOut (docs/plc.md, decision 2). */
    changeStateByCode(name: string, errorCode: string, reason?: string) {
      checkErrorCode(errorCode);
      const group = byName(name);
      return this.changeState(group.pk, { groupStateIn: groupStateAt(errorCode, 0), groupStateOut: groupStateAt(errorCode, 1) }, reason);
    },
  };
}

export type LocationGroupService = ReturnType<typeof createLocationGroupService>;
