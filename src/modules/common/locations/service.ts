import { hasWildcard, isForeignKeyViolation, likeToGlob } from '../../../core/db.ts';
import type { Listing } from '../../../core/listing.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { nowIso } from '../../../core/time.ts';
import { alreadyExists, DomainError, inUse, notFound } from '../../../core/errors.ts';
import { COMMON_KEYS } from '../errors.ts';
import type { AccountService } from '../accounts/service.ts';
import { activeAt, checkErrorCode, groupStateAt } from '../error-code.ts';
import type { LocationGroupService } from '../location-groups/service.ts';
import type { LocationTypeService } from '../location-types/service.ts';
import { checkVersion } from '../../../core/versioned.ts';
import { COORDINATE_PARTS, parseCoordinate, type Coordinate } from '../../../core/coordinate.ts';
import type { Location, LocationFields, LocationStore } from './store.ts';

interface LocationInput {
  locationId: string;
  locationGroupName: string;
  plcCode?: string | null | undefined;
  erpCode?: string | null | undefined;
  type?: string | null | undefined;
  accountId?: string | undefined;
  description?: string | null | undefined;
  sortOrder?: number | null | undefined;
  stockZone?: string | null | undefined;
}

/** The shared key for a location that another resource names but that does not exist. */
export const locationNotFoundByName = (locationId: string) =>
  new DomainError(404, COMMON_KEYS.locNotFoundByName, `Location [${locationId}] does not exist`, {
    obj: [locationId],
  });

interface LocationServiceDeps {
  work: UnitOfWork;
  store: LocationStore;
  accounts: AccountService;
  groups: LocationGroupService;
  types: LocationTypeService;
}

export function createLocationService({ work, store, accounts, groups, types }: LocationServiceDeps) {
  function byPKey(pKey: string): Location {
    const location = store.byPk(pKey);
    if (!location) throw notFound(`Location with pKey [${pKey}] does not exist`);
    return location;
  }

  function requireUnique(input: LocationInput, ownPk?: string) {
    const clash = (found: Location | undefined, what: string, value: string) => {
      if (found && found.pk !== ownPk) throw alreadyExists(`Location with ${what} [${value}] already exists`, [value]);
    };
    clash(store.byLocationId(input.locationId), 'locationId', input.locationId);
    if (input.plcCode) clash(store.byPlcCode(input.plcCode), 'plcCode', input.plcCode);
    if (input.erpCode) clash(store.byErpCode(input.erpCode), 'erpCode', input.erpCode);
  }

  function fieldsOf(input: LocationInput, accountPk: string): LocationFields {
    const coordinate = parseCoordinate(input.locationId);
    if (!coordinate) throw notFound(`Invalid location [${input.locationId}]`);
    return {
      ...coordinate,
      locationId: input.locationId,
      accountPk,
      groupPk: groups.byName(input.locationGroupName).pk,
      typePk: input.type ? types.byType(input.type).pk : null,
      plcCode: input.plcCode ?? null,
      erpCode: input.erpCode ?? null,
      description: input.description ?? null,
      sortOrder: input.sortOrder ?? null,
      stockZone: input.stockZone ?? null,
    };
  }

  return {
    /** Every location, in coordinate order: pages, or the whole list streamed. */
    list: () => store.list(),
    byPKey,

    /** By coordinate; an unknown or badly formatted one is `not.found`, as the spec shows. */
    byLocationId(locationId: string): Location {
      const location = store.byLocationId(locationId);
      if (location) return location;
      if (!parseCoordinate(locationId)) throw notFound(`Invalid location [${locationId}]`);
      throw notFound(`Location with locationId [${locationId}] does not exist`);
    },

    /** For other resources that name a location: the shared `loc.notFoundByName` key. */
    resolve(locationId: string): Location {
      const location = store.byLocationId(locationId);
      if (!location) throw locationNotFoundByName(locationId);
      return location;
    },

    /** Unthrowing lookups for the PLC adapter and routing. */
    findByLocationId: (locationId: string) => store.byLocationId(locationId),
    findByPlcCode: (plcCode: string) => store.byPlcCode(plcCode),
    findByPk: (pk: string) => store.byPk(pk),
    findByErpCode: (erpCode: string) => store.byErpCode(erpCode),

    byPlcCode(plcCode: string): Location {
      const location = store.byPlcCode(plcCode);
      if (!location) throw notFound(`Location with plcCode [${plcCode}] does not exist`);
      return location;
    },

    byErpCode(erpCode: string): Location {
      const location = store.byErpCode(erpCode);
      if (!location) throw notFound(`Location with erpCode [${erpCode}] does not exist`);
      return location;
    },

    /** Wildcard search: each part takes `%` and `_`; a part not given matches anything. In coordinate order. */
    search(parts: Partial<Coordinate>): Listing<Location> {
      const globs = {} as Coordinate;
      for (const key of COORDINATE_PARTS) globs[key] = likeToGlob(parts[key] ?? '%');
      return store.search(globs);
    },

    /** Locations of the named groups, in coordinate order; a wildcard only counts when a single name is given. */
    forGroups(names: readonly string[]): Listing<Location> {
      if (names.length === 1 && hasWildcard(names[0]!)) return store.inGroupsGlob(likeToGlob(names[0]!));
      return store.inGroups(names);
    },

    /** Locations of a group and all groups below it. */
    inGroupTree: (groupPk: string) => store.inGroupPks(groups.subtree(groupPk)),

    create(input: LocationInput): Location {
      return work.run(() => {
        requireUnique(input);
        const pk = store.insert(fieldsOf(input, accounts.resolve(input.accountId).pk), nowIso());
        work.emit({ type: 'location.created', key: input.locationId, data: { locationId: input.locationId, pKey: pk } });
        return store.byPk(pk)!;
      });
    },

    /** Full update; the flags and `plcState` are not taken from it (they change by state change only). */
    update(pKey: string, input: LocationInput & { ol?: number | undefined }): Location {
      return work.run(() => {
        const current = byPKey(pKey);
        checkVersion('Location', current, input.ol);
        requireUnique(input, current.pk);
        const accountPk = input.accountId === undefined ? accounts.byIdentifier(current.accountId).pk : accounts.byIdentifier(input.accountId).pk;
        store.update(current.pk, fieldsOf(input, accountPk), nowIso());
        const from = current.locationId !== input.locationId ? { from: current.locationId } : {};
        work.emit({ type: 'location.changed', key: input.locationId, data: { locationId: input.locationId, pKey, ...from } });
        return store.byPk(pKey)!;
      });
    },

    delete(pKey: string): void {
      work.run(() => {
        const location = byPKey(pKey);
        const units = store.transportUnitCount(location.pk);
        if (units > 0) {
          throw inUse(COMMON_KEYS.locNotEmpty, `Location [${location.locationId}] is the actual or target location of ${units} transport unit(s)`, [
            location.locationId,
          ]);
        }
        try {
          store.delete(location.pk);
        } catch (err) {
          if (!isForeignKeyViolation(err)) throw err;
          throw inUse(
            COMMON_KEYS.locInUse,
            `Location [${location.locationId}] is still named by a route, a hop, an open transport order or another record; remove those references first`,
            [location.locationId],
          );
        }
        work.emit({ type: 'location.deleted', key: location.locationId, data: { locationId: location.locationId, pKey } });
      });
    },

    /**
     * The state change of the API and docs/plc.md: position 0 from the
     * right = incomingActive, 1 = outgoingActive, 2 = groupStateIn and 3 =
     * groupStateOut of the location's group (cascading to the groups below it);
     * `plcState`, when given, is set as well. One event per field that really changed,
     * each with `reason` when the caller gave one. Joins a running unit of work (a PLC
     * telegram's).
     */
    changeState(pKey: string, errorCode: string, plcState?: number, reason?: string) {
      return work.run(() => {
        checkErrorCode(errorCode);
        const location = byPKey(pKey);
        const wanted = { incomingActive: activeAt(errorCode, 0), outgoingActive: activeAt(errorCode, 1), plcState };
        const changed: { field: string; value: unknown; from: unknown }[] = [];
        for (const field of ['incomingActive', 'outgoingActive', 'plcState'] as const) {
          const value = wanted[field];
          if (value !== undefined && value !== location[field]) changed.push({ field, value, from: location[field] });
        }
        if (changed.length > 0) store.setFlags(location.pk, wanted, nowIso());
        for (const c of changed) {
          work.emit({
            type: 'location.stateChanged',
            key: location.locationId,
            data: { locationId: location.locationId, pKey: location.pk, ...c },
            reason,
          });
        }
        const groupChanges = groups.changeState(
          location.groupPk,
          { groupStateIn: groupStateAt(errorCode, 2), groupStateOut: groupStateAt(errorCode, 3) },
          reason,
        );
        return { changed, groupChanges };
      });
    },

    /** Marks that a transport unit arrived at or left the location (inside the caller's transaction). */
    touch: (pk: string, at: string) => store.touch(pk, at),
  };
}

export type LocationService = ReturnType<typeof createLocationService>;
