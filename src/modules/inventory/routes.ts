import type { Route } from '../../http/router.ts';
import { loadUnitRoutes } from './load-units/routes.ts';
import { packagingUnitRoutes } from './packaging-units/routes.ts';
import { productRoutes } from './products/routes.ts';
import type { InventoryServices } from './service.ts';

/** Entry-index links of the inventory module (the API conventions (README, "API")). */
export const inventoryIndexLinks = {
  'product-index': '/v1/products/index',
  'load-unit-index': '/v1/load-units/index',
  'packaging-unit-index': '/v1/packaging-units/index',
};

export function inventoryRoutes(inventory: InventoryServices): Route[] {
  return [
    ...productRoutes(inventory.products),
    ...loadUnitRoutes(inventory.loadUnits, inventory.packagingUnits),
    ...packagingUnitRoutes(inventory.packagingUnits),
  ];
}
