import type { Db } from '../../../core/db.ts';
import type { EventBus } from '../../../core/events.ts';
import { nowIso } from '../../../core/time.ts';
import { ApiError, alreadyExists } from '../../../http/errors.ts';
import { checkVersion, inUse } from '../shared.ts';
import type { TransportUnitType, TransportUnitTypeFields, TransportUnitTypeStore } from './store.ts';

export type TransportUnitTypeInput = { type: string } & Partial<Omit<TransportUnitTypeFields, 'type'>>;

export const transportUnitTypeNotFound = (type: string) =>
  new ApiError(404, 'svc.common.common.tut.notFoundByName', `TransportUnitType [${type}] does not exist`, { obj: [type] });

export function createTransportUnitTypeService(db: Db, store: TransportUnitTypeStore, bus: EventBus) {
  function byPKey(pKey: string): TransportUnitType {
    const type = store.byPk(pKey);
    if (!type) {
      throw new ApiError(404, 'svc.common.common.tut.notFoundByPKey', `TransportUnitType with pKey [${pKey}] does not exist`, {
        obj: [pKey],
      });
    }
    return type;
  }
  function requireUnique(type: string, ownPk?: string) {
    const existing = store.byType(type);
    if (existing && existing.pk !== ownPk) throw alreadyExists(`TransportUnitType [${type}] already exists`, [type]);
  }
  const fieldsOf = (input: TransportUnitTypeInput): TransportUnitTypeFields => ({
    type: input.type,
    description: input.description ?? null,
    length: input.length ?? null,
    width: input.width ?? null,
    height: input.height ?? null,
    weightTare: input.weightTare ?? null,
    weightMax: input.weightMax ?? null,
  });

  return {
    all: () => store.all(),
    byPKey,
    byType(type: string): TransportUnitType {
      const found = store.byType(type);
      if (!found) throw transportUnitTypeNotFound(type);
      return found;
    },
    create(input: TransportUnitTypeInput): TransportUnitType {
      const pk = db.transaction(() => {
        requireUnique(input.type);
        return store.insert(fieldsOf(input), nowIso());
      })();
      bus.publish('transportUnitType.created', { type: input.type, pKey: pk });
      return store.byPk(pk)!;
    },
    update(pKey: string, input: TransportUnitTypeInput & { ol?: number | undefined }): TransportUnitType {
      db.transaction(() => {
        const current = byPKey(pKey);
        checkVersion('TransportUnitType', current, input.ol);
        requireUnique(input.type, current.pk);
        store.update(current.pk, fieldsOf(input), nowIso());
      })();
      bus.publish('transportUnitType.changed', { type: input.type, pKey });
      return store.byPk(pKey)!;
    },
    delete(pKey: string): void {
      db.transaction(() => {
        const current = byPKey(pKey);
        const used = store.usage(current.pk);
        if (used > 0) {
          throw inUse('svc.common.common.tut.inUse', `TransportUnitType [${current.type}] is used by ${used} transport unit(s)`, [
            current.type,
          ]);
        }
        store.delete(current.pk);
      })();
      bus.publish('transportUnitType.deleted', { pKey });
    },
  };
}

export type TransportUnitTypeService = ReturnType<typeof createTransportUnitTypeService>;
