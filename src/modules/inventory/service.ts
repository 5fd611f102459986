import type { Db } from '../../core/db.ts';
import type { ReadPool } from '../../core/read-pool.ts';
import type { UnitOfWork } from '../../core/unit-of-work.ts';
import type { CommonServices } from '../common/service.ts';
import { createLoadUnitService } from './load-units/service.ts';
import { createLoadUnitStore } from './load-units/store.ts';
import { createPackagingUnitService } from './packaging-units/service.ts';
import { createPackagingUnitStore } from './packaging-units/store.ts';
import { createProductService } from './products/service.ts';
import { createProductStore } from './products/store.ts';

// The inventory module as the rest of the appliance sees it (receiving, shipping,
// movements): products, load units and packaging units. It reaches the common module
// (accounts, locations, groups, transport units and their types) only through
// `CommonServices`.

export type { LoadUnit } from './load-units/service.ts';
export type { ForProductOptions, NewPackagingUnit, PackagingUnit, StockMove } from './packaging-units/service.ts';
export type { Product } from './products/service.ts';
export type { ProductUnit, StackingRule } from './products/store.ts';

interface InventoryOptions {
  /** Config `inventory.oneProductPerLoadUnit`: a load unit carries one product only. */
  oneProductPerLoadUnit: boolean;
}

interface InventoryDeps {
  db: Db;
  /** Read connections for the lists that stream (products, load units, packaging units). */
  reads?: ReadPool | undefined;
  work: UnitOfWork;
  common: CommonServices;
  options: InventoryOptions;
}

export function createInventory({ db, reads, work, common, options }: InventoryDeps) {
  const products = createProductService({ work, store: createProductStore(db, reads), common });
  const loadUnits = createLoadUnitService({
    work,
    store: createLoadUnitStore(db, reads),
    common,
    products,
    oneProductPerLoadUnit: options.oneProductPerLoadUnit,
  });
  const packagingUnits = createPackagingUnitService({ work, store: createPackagingUnitStore(db, reads), common, products, loadUnits });
  return { products, loadUnits, packagingUnits };
}

export type InventoryServices = ReturnType<typeof createInventory>;
