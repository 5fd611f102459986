import type { Route } from '../../../http/router.ts';
import { catalogueRoutes } from '../type-catalogue/routes.ts';
import { transportUnitTypeBody, transportUnitTypeUpdate } from './schema.ts';
import type { TransportUnitTypeService } from './service.ts';
import { TransportUnitTypeSchema } from '../openapi.ts';

export const transportUnitTypeRoutes = (types: TransportUnitTypeService): Route[] =>
  catalogueRoutes(types, {
    resource: 'transport-unit-type',
    noun: 'transport unit type',
    usedBy: 'transport unit',
    nameQueries: [{ param: 'type', link: 'transport-unit-types-findtransportunittype' }],
    create: transportUnitTypeBody,
    update: transportUnitTypeUpdate,
    representation: TransportUnitTypeSchema,
  });
