import { randomInt } from 'node:crypto';
import { isForeignKeyViolation } from '../../../core/db.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { nowIso } from '../../../core/time.ts';
import { DomainError, alreadyExists, inUse } from '../../../core/errors.ts';
import { COMMON_KEYS } from '../errors.ts';
import type { LocationService } from '../locations/service.ts';
import type { TransportUnitTypeService } from '../transport-unit-types/service.ts';
import { checkVersion } from '../../../core/versioned.ts';
import type { TransportUnit, TransportUnitState, TransportUnitStore } from './store.ts';

interface TransportUnitInput {
  /** Absent: the appliance assigns a numeric barcode. */
  barcode?: string | undefined;
  actualLocation: string;
  transportUnitType: string;
  state?: TransportUnitState | undefined;
  weight?: number | null | undefined;
  targetLocation?: string | null | undefined;
}

/** A location as a move names it. */
type Place = { pk: string; locationId: string };

type TransportUnitUpdate = Partial<TransportUnitInput> & { ol?: number | undefined };

/** The fields an update can change, as the API names them (`transportUnit.changed` lists those that did). */
const CHANGEABLE = ['barcode', 'transportUnitType', 'actualLocation', 'targetLocation', 'state', 'weight'] as const;

export const transportUnitNotFoundByBK = (barcode: string) =>
  new DomainError(404, COMMON_KEYS.tuNotFoundByBK, `TransportUnit with barcode [${barcode}] does not exist`, {
    obj: [barcode],
  });

interface TransportUnitServiceDeps {
  work: UnitOfWork;
  store: TransportUnitStore;
  locations: LocationService;
  types: TransportUnitTypeService;
}

export function createTransportUnitService({ work, store, locations, types }: TransportUnitServiceDeps) {
  function byBarcode(barcode: string): TransportUnit {
    const unit = store.byBarcode(barcode);
    if (!unit) throw transportUnitNotFoundByBK(barcode);
    return unit;
  }

  function byPKey(pKey: string): TransportUnit {
    const unit = store.byPk(pKey);
    if (!unit) {
      throw new DomainError(404, COMMON_KEYS.tuNotFoundByPKey, `TransportUnit with pKey [${pKey}] does not exist`, {
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

  /**
   * Records that a unit now stands at another location: both locations are touched and
   * `transportUnit.moved` is emitted, whose reactions (its transport orders, its
   * movements) run in the same unit of work.
   */
  function booked(unit: TransportUnit, from: Place, to: Place, now: string) {
    locations.touch(from.pk, now);
    locations.touch(to.pk, now);
    work.emit({
      type: 'transportUnit.moved',
      key: unit.barcode,
      data: { barcode: unit.barcode, pKey: unit.pk, from: from.locationId, to: to.locationId },
      refs: [
        { kind: 'location', key: from.locationId },
        { kind: 'location', key: to.locationId },
      ],
    });
  }

  /** Books a unit onto a location; nothing happens when it stands there already. Returns whether it moved. */
  function moveTo(unit: TransportUnit, location: Place): boolean {
    return work.run(() => {
      if (unit.actualLocationPk === location.pk) return false;
      const now = nowIso();
      store.move(unit.pk, location, now);
      booked(unit, { pk: unit.actualLocationPk, locationId: unit.actualLocation }, location, now);
      return true;
    });
  }

  return {
    /** Every unit by barcode: pages, or the whole list streamed. */
    list: () => store.list(),
    byPKey,
    byBarcode,
    findByBarcode: (barcode: string) => store.byBarcode(barcode),
    /** Unthrowing lookup for modules that keep a unit's pKey (movements, transport orders). */
    findByPk: (pk: string) => store.byPk(pk),
    /** The units with these barcodes, by barcode; unknown ones are skipped. */
    byBarcodes: (barcodes: readonly string[]) => store.byBarcodes(barcodes),
    onLocation: (locationId: string) => store.onLocation(locations.resolve(locationId).pk),
    /** The units on a location (coordinate), by barcode: pages, or the whole list streamed. */
    listOnLocation: (locationId: string) => store.listOnLocation(locations.resolve(locationId).pk),

    /** A new unit standing at `actualLocation`. Joins a running unit of work (a PLC telegram that reports an unknown unit). */
    create(input: TransportUnitInput): TransportUnit {
      return work.run(() => {
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
        work.emit({
          type: 'transportUnit.created',
          key: unit.barcode,
          data: { barcode: unit.barcode, pKey: pk, actualLocation: unit.actualLocation },
          refs: [{ kind: 'location', key: unit.actualLocation }],
        });
        return unit;
      });
    },

    /** Moves a unit to another location (by coordinate): `PATCH /v1/transport-units?bk=&newLocation=`. */
    move(barcode: string, newLocation: string): TransportUnit {
      return work.run(() => {
        const unit = byBarcode(barcode);
        moveTo(unit, locations.resolve(newLocation));
        return byBarcode(barcode);
      });
    },

    /** Books a unit onto a location it was seen at (a movement completed, a PLC report). */
    moveTo,

    /** Changes the given fields; a new `actualLocation` is a move. */
    update(barcode: string, patch: TransportUnitUpdate): TransportUnit {
      return work.run(() => {
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
          patch.targetLocation === undefined ? current.targetLocationPk : patch.targetLocation === null ? null : locations.resolve(patch.targetLocation).pk;
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
        const unit = store.byPk(current.pk)!;
        const fields = CHANGEABLE.filter((f) => JSON.stringify(unit[f]) !== JSON.stringify(current[f]));
        const renamed = unit.barcode !== current.barcode ? { from: { barcode: current.barcode } } : {};
        work.emit({
          type: 'transportUnit.changed',
          key: unit.barcode,
          data: { barcode: unit.barcode, pKey: unit.pk, fields, ...renamed },
          ...(renamed.from ? { refs: [{ kind: 'transportUnit', key: current.barcode }] } : {}),
        });
        if (moving) booked(unit, { pk: current.actualLocationPk, locationId: current.actualLocation }, location, now);
        return store.byPk(current.pk)!;
      });
    },

    setState(barcode: string, state: TransportUnitState): TransportUnit {
      return work.run(() => {
        const unit = byBarcode(barcode);
        if (unit.state !== state) {
          store.setState(unit.pk, state, nowIso());
          work.emit({ type: 'transportUnit.stateChanged', key: barcode, data: { barcode, pKey: unit.pk, from: unit.state, state } });
        }
        return store.byPk(unit.pk)!;
      });
    },

    /** Deletes a unit nothing else refers to any more (e.g. one that still carries load units is refused). */
    delete(pKey: string): void {
      work.run(() => {
        const unit = byPKey(pKey);
        try {
          store.delete(unit.pk);
        } catch (err) {
          if (!isForeignKeyViolation(err)) throw err;
          throw inUse(COMMON_KEYS.tuInUse, `TransportUnit [${unit.barcode}] still carries load units or stock; empty it first`, [unit.barcode]);
        }
        work.emit({
          type: 'transportUnit.deleted',
          key: unit.barcode,
          data: { barcode: unit.barcode, pKey, actualLocation: unit.actualLocation },
          refs: [{ kind: 'location', key: unit.actualLocation }],
        });
      });
    },
  };
}

export type TransportUnitService = ReturnType<typeof createTransportUnitService>;
