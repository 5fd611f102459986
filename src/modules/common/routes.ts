import type { Route } from '../../http/router.ts';
import { accountRoutes } from './accounts/routes.ts';
import { locationGroupRoutes } from './location-groups/routes.ts';
import { locationTypeRoutes } from './location-types/routes.ts';
import { locationRoutes } from './locations/routes.ts';
import type { CommonServices } from './service.ts';
import { transportUnitTypeRoutes } from './transport-unit-types/routes.ts';
import { transportUnitRoutes } from './transport-units/routes.ts';

/** Entry-index links of the common base module (the API conventions (README, "API")), plus location types. */
export const commonIndexLinks = {
  'account-index': '/v1/accounts/index',
  'location-index': '/v1/locations/index',
  'location-group-index': '/v1/location-groups/index',
  'location-type-index': '/v1/location-types/index',
  'transport-unit-type-index': '/v1/transport-unit-types/index',
  'transport-unit-index': '/v1/transport-units/index',
};

export function commonRoutes(common: CommonServices): Route[] {
  return [
    ...accountRoutes(common.accounts),
    ...locationGroupRoutes(common.locationGroups),
    ...locationTypeRoutes(common.locationTypes),
    ...locationRoutes(common.locations),
    ...transportUnitTypeRoutes(common.transportUnitTypes),
    ...transportUnitRoutes(common.transportUnits),
  ];
}
