import { randomInt } from 'node:crypto';
import { isForeignKeyViolation, type Db } from '../../../core/db.ts';
import type { EventBus } from '../../../core/events.ts';
import { nowIso } from '../../../core/time.ts';
import { DomainError, alreadyExists, inUse } from '../../../core/errors.ts';
import type { LocationService } from '../locations/service.ts';
import type { TransportUnitTypeService } from '../transport-unit-types/service.ts';
import { checkVersion } from '../../../core/versioned.ts';
import type { TransportUnit, TransportUnitState, TransportUnitStore } from './store.ts';

export interface TransportUnitInput {
  /** Absent: the appliance assigns a numeric barcode. */
  barcode?: string | undefined;
  actualLocation: string;
  transportUnitType: string;
  state?: TransportUnitState | undefined;
  weight?: number | null | undefined;
  targetLocation?: string | null | undefined;
}

export type TransportUnitUpdate = Partial<TransportUnitInput> & { ol?: number | undefined };

export const transportUnitNotFoundByBK = (barcode: string) =>
  new DomainError(404, 'svc.common.common.tu.notFoundByBK', `TransportUnit with barcode [${barcode}] does not exist`, {
    obj: [barcode],
  });

export interface TransportUnitServiceDeps {
  db: Db;
  store: TransportUnitStore;
  locations: LocationService;
  types: TransportUnitTypeService;
  bus: EventBus;
}

export function createTransportUnitService({ db, store, locations, types, bus }: TransportUnitServiceDeps) {
  function byBarcode(barcode: string): TransportUnit {
    const unit = store.byBarcode(barcode);
    if (!unit) throw transportUnitNotFoundByBK(barcode);
    return unit;
  }

  function byPKey(pKey: string): TransportUnit {
    const unit = store.byPk(pKey);
    if (!unit) {
      throw new DomainError(404, 'svc.common.common.tu.notFoundByPKey', `TransportUnit with pKey [${pKey}] does not exist`, {
        obj: [pKey],
      });
    }
    return unit;
  }

  /** A free 16-digit barcode for units created without one (as the reference system numbers them). */
  function freeBarcode(): string {
    for (;;) {
      const candidate = String(randomInt(1e9, 1e10)) + String(randomInt(1e5, 1e6));
      if (!store.byBarcode(candidate)) return candidate;
    }
  }

  /** Books a unit onto a location inside the caller's transaction; returns the event to publish, if it moved. */
  function moveInTransaction(unit: TransportUnit, locationPk: string, locationId: string, now: string) {
    if (unit.actualLocationPk === locationPk) return undefined;
    store.move(unit.pk, locationPk, now);
    locations.touch(unit.actualLocationPk, now);
    locations.touch(locationPk, now);
    return { barcode: unit.barcode, pKey: unit.pk, from: unit.actualLocation, to: locationId };
  }

  return {
    all: () => store.all(),
    byPKey,
    byBarcode,
    findByBarcode: (barcode: string) => store.byBarcode(barcode),
    /** Unthrowing lookup for modules that keep a unit's pKey (movements, transport orders). */
    findByPk: (pk: string) => store.byPk(pk),
    byBarcodes: (barcodes: readonly string[]) => store.byBarcodes(barcodes),
    onLocation: (locationId: string) => store.onLocation(locations.resolve(locationId).pk),

    create(input: TransportUnitInput): TransportUnit {
      const created = db.transaction(() => this.createInTransaction(input))();
      created.publish();
      return created.unit;
    },

    /** The create for callers that already run a transaction; `publish` after their commit. */
    createInTransaction(input: TransportUnitInput) {
      if (input.barcode !== undefined && store.byBarcode(input.barcode)) {
        throw alreadyExists(`TransportUnit with barcode [${input.barcode}] already exists`, [input.barcode]);
      }
      const location = locations.resolve(input.actualLocation);
      const now = nowIso();
      const pk = store.insert(
        {
          barcode: input.barcode ?? freeBarcode(),
          typePk: types.byType(input.transportUnitType).pk,
          actualLocationPk: location.pk,
          actualLocationDate: now,
          targetLocationPk: input.targetLocation ? locations.resolve(input.targetLocation).pk : null,
          state: input.state ?? 'AVAILABLE',
          weight: input.weight ?? null,
        },
        now,
      );
      locations.touch(location.pk, now);
      const unit = store.byPk(pk)!;
      return {
        unit,
        publish: () => bus.publish('transportUnit.created', { barcode: unit.barcode, pKey: pk, actualLocation: unit.actualLocation }),
      };
    },

    /** Moves a unit to another location (by coordinate): `PATCH /v1/transport-units?bk=&newLocation=`. */
    move(barcode: string, newLocation: string): TransportUnit {
      const moved = db.transaction(() => {
        const unit = byBarcode(barcode);
        const location = locations.resolve(newLocation);
        return moveInTransaction(unit, location.pk, location.locationId, nowIso());
      })();
      if (moved) bus.publish('transportUnit.moved', moved);
      return byBarcode(barcode);
    },

    /** For services that already run a transaction (movements, the PLC adapter). */
    moveInTransaction,

    /** Changes the given fields; a new `actualLocation` is a move. */
    update(barcode: string, patch: TransportUnitUpdate): TransportUnit {
      const { pk, moved } = db.transaction(() => {
        const current = byBarcode(barcode);
        checkVersion('TransportUnit', current, patch.ol);
        const now = nowIso();
        if (patch.barcode !== undefined && patch.barcode !== current.barcode && store.byBarcode(patch.barcode)) {
          throw alreadyExists(`TransportUnit with barcode [${patch.barcode}] already exists`, [patch.barcode]);
        }
        const location = patch.actualLocation !== undefined ? locations.resolve(patch.actualLocation) : undefined;
        // A new location is booked by the same row update, so one request raises ol by one.
        const moving = location !== undefined && location.pk !== current.actualLocationPk;
        const target =
          patch.targetLocation === undefined
            ? current.targetLocationPk
            : patch.targetLocation === null
              ? null
              : locations.resolve(patch.targetLocation).pk;
        store.update(
          current.pk,
          {
            barcode: patch.barcode ?? current.barcode,
            typePk: types.byType(patch.transportUnitType ?? current.transportUnitType).pk,
            actualLocationPk: moving ? location.pk : current.actualLocationPk,
            actualLocationDate: moving ? now : current.actualLocationDate,
            targetLocationPk: target,
            state: patch.state ?? current.state,
            weight: patch.weight === undefined ? current.weight : patch.weight,
          },
          now,
        );
        let moved: ReturnType<typeof moveInTransaction>;
        if (moving) {
          locations.touch(current.actualLocationPk, now);
          locations.touch(location.pk, now);
          moved = { barcode: current.barcode, pKey: current.pk, from: current.actualLocation, to: location.locationId };
        }
        return { pk: current.pk, moved };
      })();
      const unit = store.byPk(pk)!;
      bus.publish('transportUnit.changed', { barcode: unit.barcode, pKey: pk });
      if (moved) bus.publish('transportUnit.moved', { ...moved, barcode: unit.barcode });
      return unit;
    },

    setState(barcode: string, state: TransportUnitState): TransportUnit {
      const unit = db.transaction(() => {
        const unit = byBarcode(barcode);
        if (unit.state !== state) store.setState(unit.pk, state, nowIso());
        return unit;
      })();
      if (unit.state !== state) bus.publish('transportUnit.stateChanged', { barcode, pKey: unit.pk, state });
      return store.byPk(unit.pk)!;
    },

    /** Deletes a unit nothing else refers to any more (e.g. one that still carries load units is refused). */
    delete(pKey: string): void {
      const unit = db.transaction(() => {
        const unit = byPKey(pKey);
        try {
          store.delete(unit.pk);
        } catch (err) {
          if (!isForeignKeyViolation(err)) throw err;
          throw inUse('svc.common.common.tu.inUse', `TransportUnit [${unit.barcode}] still carries load units or stock; empty it first`, [
            unit.barcode,
          ]);
        }
        return unit;
      })();
      bus.publish('transportUnit.deleted', { barcode: unit.barcode, pKey });
    },
  };
}

export type TransportUnitService = ReturnType<typeof createTransportUnitService>;
