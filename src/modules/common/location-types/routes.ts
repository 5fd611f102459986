import type { Route } from '../../../http/router.ts';
import { catalogueRoutes } from '../type-catalogue/routes.ts';
import { locationTypeBody, locationTypeUpdate } from './schema.ts';
import type { LocationTypeService } from './service.ts';
import { LocationTypeSchema } from '../openapi.ts';

export const locationTypeRoutes = (types: LocationTypeService): Route[] =>
  catalogueRoutes(types, {
    resource: 'location-type',
    noun: 'location type',
    usedBy: 'location',
    nameQueries: [{ param: 'typeName', link: 'location-types-findbytypename' }, { param: 'type' }],
    create: locationTypeBody,
    update: locationTypeUpdate,
    representation: LocationTypeSchema,
  });
