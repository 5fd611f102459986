import type { Db } from '../../../core/db.ts';
import type { EventBus } from '../../../core/events.ts';
import { nowIso } from '../../../core/time.ts';
import { ApiError, alreadyExists } from '../../../http/errors.ts';
import { checkVersion, inUse } from '../shared.ts';
import type { LocationType, LocationTypeFields, LocationTypeStore } from './store.ts';

export type LocationTypeInput = { type: string } & Partial<Omit<LocationTypeFields, 'type'>>;

export const locationTypeNotFound = (type: string) =>
  new ApiError(404, 'svc.common.common.lt.notFoundByType', `LocationType [${type}] does not exist`, { obj: [type] });

export function createLocationTypeService(db: Db, store: LocationTypeStore, bus: EventBus) {
  function byPKey(pKey: string): LocationType {
    const type = store.byPk(pKey);
    if (!type) {
      throw new ApiError(404, 'svc.common.common.lt.notFoundByPKey', `LocationType with pKey [${pKey}] does not exist`, {
        obj: [pKey],
      });
    }
    return type;
  }
  function requireUnique(type: string, ownPk?: string) {
    const existing = store.byType(type);
    if (existing && existing.pk !== ownPk) throw alreadyExists(`LocationType [${type}] already exists`, [type]);
  }
  const fieldsOf = (input: LocationTypeInput): LocationTypeFields => ({
    type: input.type,
    description: input.description ?? null,
    length: input.length ?? null,
    width: input.width ?? null,
    height: input.height ?? null,
  });

  return {
    all: () => store.all(),
    byPKey,
    byType(type: string): LocationType {
      const found = store.byType(type);
      if (!found) throw locationTypeNotFound(type);
      return found;
    },
    create(input: LocationTypeInput): LocationType {
      const pk = db.transaction(() => {
        requireUnique(input.type);
        return store.insert(fieldsOf(input), nowIso());
      })();
      bus.publish('locationType.created', { type: input.type, pKey: pk });
      return store.byPk(pk)!;
    },
    update(pKey: string, input: LocationTypeInput & { ol?: number | undefined }): LocationType {
      db.transaction(() => {
        const current = byPKey(pKey);
        checkVersion('LocationType', current, input.ol);
        requireUnique(input.type, current.pk);
        store.update(current.pk, fieldsOf(input), nowIso());
      })();
      bus.publish('locationType.changed', { type: input.type, pKey });
      return store.byPk(pKey)!;
    },
    delete(pKey: string): void {
      db.transaction(() => {
        const current = byPKey(pKey);
        const used = store.usage(current.pk);
        if (used > 0) {
          throw inUse('svc.common.common.lt.inUse', `LocationType [${current.type}] is used by ${used} location(s)`, [current.type]);
        }
        store.delete(current.pk);
      })();
      bus.publish('locationType.deleted', { pKey });
    },
  };
}

export type LocationTypeService = ReturnType<typeof createLocationTypeService>;
