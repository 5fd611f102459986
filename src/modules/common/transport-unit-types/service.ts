import type { Db } from '../../../core/db.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { createTypeCatalogue, type CatalogueEntry } from '../type-catalogue/service.ts';
import { COMMON_KEYS } from '../errors.ts';

/** A transport unit type; dimensions in millimetres, weights in kilograms. */
type TransportUnitTypeFields = {
  type: string;
  description: string | null;
  length: number | null;
  width: number | null;
  height: number | null;
  weightTare: number | null;
  weightMax: number | null;
};

export type TransportUnitType = CatalogueEntry<TransportUnitTypeFields>;

export const createTransportUnitTypeService = (db: Db, work: UnitOfWork) =>
  createTypeCatalogue<TransportUnitTypeFields>(db, work, {
    table: 'transport_unit_types',
    columns: {
      type: 'type',
      description: 'description',
      length: 'length',
      width: 'width',
      height: 'height',
      weightTare: 'weight_tare',
      weightMax: 'weight_max',
    },
    usageSql: 'SELECT count(*) FROM transport_units WHERE transport_unit_type_pk = ?',
    what: 'TransportUnitType',
    usedBy: 'transport unit(s)',
    events: 'transportUnitType',
    keys: {
      notFoundByName: COMMON_KEYS.tutNotFoundByName,
      notFoundByPKey: COMMON_KEYS.tutNotFoundByPKey,
      inUse: COMMON_KEYS.tutInUse,
    },
  });

export type TransportUnitTypeService = ReturnType<typeof createTransportUnitTypeService>;
