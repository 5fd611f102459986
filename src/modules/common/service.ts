import type { Db } from '../../core/db.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { createAccountService } from './accounts/service.ts';
import { createAccountStore } from './accounts/store.ts';
import { createLocationGroupService } from './location-groups/service.ts';
import { createLocationGroupStore } from './location-groups/store.ts';
import { createLocationTypeService } from './location-types/service.ts';
import { createLocationService } from './locations/service.ts';
import { createLocationStore } from './locations/store.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import { seedTopology } from './seed.ts';
import { createTransportUnitTypeService } from './transport-unit-types/service.ts';
import { createTransportUnitService } from './transport-units/service.ts';
import { createTransportUnitStore } from './transport-units/store.ts';

// The common base module as other modules and the PLC adapter see it. They reach
// accounts, locations, groups and transport units only through these services.

export function createCommonServices(db: Db, work: UnitOfWork, reads?: ReadPool) {
  const accounts = createAccountService(createAccountStore(db));
  const locationGroups = createLocationGroupService(work, createLocationGroupStore(db, reads), accounts);
  const locationTypes = createLocationTypeService(db, work);
  const locationStore = createLocationStore(db, reads);
  // Locations show their group's and type's names: a change there is a change of what
  // they show. Forgotten at once, so that the rest of the same unit of work reads them anew.
  for (const type of ['locationGroup.changed', 'locationGroup.deleted', 'locationType.changed', 'locationType.deleted'] as const) {
    work.react(type, () => locationStore.forgetAll());
  }
  const locations = createLocationService({ work, store: locationStore, accounts, groups: locationGroups, types: locationTypes });
  const transportUnitTypes = createTransportUnitTypeService(db, work);
  const transportUnits = createTransportUnitService({
    work,
    store: createTransportUnitStore(db, reads),
    locations,
    types: transportUnitTypes,
  });
  return {
    accounts,
    locationGroups,
    locationTypes,
    locations,
    transportUnitTypes,
    transportUnits,
    /** First start: the default topology; returns true when it was written now. */
    seed: () => seedTopology(work, createAccountStore(db), { locationGroups, locationTypes, transportUnitTypes }),
  };
}

export type CommonServices = ReturnType<typeof createCommonServices>;
