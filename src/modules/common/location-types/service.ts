import type { Db } from '../../../core/db.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { createTypeCatalogue, type CatalogueEntry } from '../type-catalogue/service.ts';
import { COMMON_KEYS } from '../errors.ts';

/** A location type; dimensions in millimetres. */
type LocationTypeFields = {
  type: string;
  description: string | null;
  length: number | null;
  width: number | null;
  height: number | null;
};

export type LocationType = CatalogueEntry<LocationTypeFields>;

export const createLocationTypeService = (db: Db, work: UnitOfWork) =>
  createTypeCatalogue<LocationTypeFields>(db, work, {
    table: 'location_types',
    columns: { type: 'type', description: 'description', length: 'length', width: 'width', height: 'height' },
    usageSql: 'SELECT count(*) FROM locations WHERE location_type_pk = ?',
    what: 'LocationType',
    usedBy: 'location(s)',
    events: 'locationType',
    keys: {
      notFoundByName: COMMON_KEYS.ltNotFoundByType,
      notFoundByPKey: COMMON_KEYS.ltNotFoundByPKey,
      inUse: COMMON_KEYS.ltInUse,
    },
  });

export type LocationTypeService = ReturnType<typeof createLocationTypeService>;
