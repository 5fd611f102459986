import { DomainError, notFound, validationError } from '../../core/errors.ts';
import type { Quantity } from '../../core/quantity.ts';

// The message keys of the inventory module (docs/inventory.md), with
// the statuses the appliance gives them (the spec shows none), and the few keys of
// our own where the spec names a condition without a key. docs/inventory.md lists them.

export const INVENTORY_KEYS = {
  tuBk: 'svc.wms.inv.tu.bk',
  tuActualLocation: 'svc.wms.inv.tu.actualLocation.erpCode',
  tuType: 'svc.wms.inv.tu.transportUnitType',
  productPKey: 'svc.wms.inv.product.pKey',
  productSku: 'svc.wms.inv.product.sku',
  productBaseUnit: 'svc.wms.inv.product.baseUnit',
  puPKeyNotExists: 'svc.wms.inv.pu.pKeyNotExists',
  puLoadUnitTypeMissing: 'svc.wms.inv.pu.loadUnitTypeMissing',
  puNoPUOnLocation: 'svc.wms.inv.pu.noPUOnLocation',
  // Ours:
  productNotFoundBySku: 'svc.wms.inv.product.notFoundBySku',
  productBaseUnitInUse: 'svc.wms.inv.product.baseUnitInUse',
  luPKeyNotExists: 'svc.wms.inv.lu.pKeyNotExists',
  luOtherProduct: 'svc.wms.inv.lu.otherProduct',
  puNotEnoughOnLocation: 'svc.wms.inv.pu.notEnoughOnLocation',
} as const;

export const transportUnitBKMissing = () => new DomainError(400, INVENTORY_KEYS.tuBk, 'TransportUnit is missing the business key: transportUnitBK is required');

export const transportUnitTypeMissing = (barcode: string) =>
  new DomainError(400, INVENTORY_KEYS.tuType, `TransportUnit [${barcode}] does not exist and is to be created, but transportUnitType is missing`, {
    obj: [barcode],
  });

export const actualLocationMissing = (barcode: string) =>
  new DomainError(
    400,
    INVENTORY_KEYS.tuActualLocation,
    `TransportUnit [${barcode}] does not exist and is to be created, but actualLocation (the ERP code of a location) is missing`,
    { obj: [barcode] },
  );

export const productPKeyMissing = () =>
  new DomainError(400, INVENTORY_KEYS.productPKey, 'Product is missing its persistent key: pKey is required to update it');

export const productSkuMissing = () => new DomainError(400, INVENTORY_KEYS.productSku, 'Product is missing its SKU: sku is required');

export const productBaseUnitMissing = () => new DomainError(400, INVENTORY_KEYS.productBaseUnit, 'Product is missing its base unit: baseUnit is required');

/** A product that another resource or request names by SKU does not exist. */
export const productNotFoundBySku = (sku: string) =>
  new DomainError(404, INVENTORY_KEYS.productNotFoundBySku, `Product with sku [${sku}] does not exist`, { obj: [sku] });

/** The product lookups of `/v1/products` answer the shared `not.found`. */
export const productNotFound = (what: string, value: string) => notFound(`Product with ${what} [${value}] does not exist`, [value]);

export const packagingUnitNotFound = (pKey: string) =>
  new DomainError(404, INVENTORY_KEYS.puPKeyNotExists, `PackagingUnit with pKey [${pKey}] does not exist`, { obj: [pKey] });

export const loadUnitNotFound = (pKey: string) =>
  new DomainError(404, INVENTORY_KEYS.luPKeyNotExists, `LoadUnit with pKey [${pKey}] does not exist`, { obj: [pKey] });

export const loadUnitTypeMissing = (barcode: string, luPos: string) =>
  new DomainError(
    400,
    INVENTORY_KEYS.puLoadUnitTypeMissing,
    `LoadUnit [${luPos}] of TransportUnit [${barcode}] does not exist and must be created, but no loadUnitType was given`,
    { obj: [barcode, luPos] },
  );

export const otherProductOnLoadUnit = (barcode: string, luPos: string, otherSku: string, sku: string) =>
  new DomainError(
    409,
    INVENTORY_KEYS.luOtherProduct,
    `LoadUnit [${luPos}] of TransportUnit [${barcode}] already carries or is reserved for product [${otherSku}]; ` +
      `only one product per load unit is allowed, [${sku}] cannot be added`,
    { obj: [barcode, luPos, otherSku, sku] },
  );

export const noPackagingUnitOnLocation = (sku: string, locationId: string) =>
  new DomainError(404, INVENTORY_KEYS.puNoPUOnLocation, `Product [${sku}] is not on location [${locationId}] (or all of it is allocated) and cannot be moved`, {
    obj: [sku, locationId],
  });

export const notEnoughOnLocation = (sku: string, locationId: string, available: string, requested: string) =>
  new DomainError(
    409,
    INVENTORY_KEYS.puNotEnoughOnLocation,
    `Only ${available} of product [${sku}] are free on location [${locationId}]; ${requested} were requested`,
    { obj: [sku, locationId, available, requested] },
  );

/** A quantity of another unit family than the product is kept in. */
export const wrongFamily = (field: string, q: Quantity, sku: string, baseUnit: Quantity) =>
  validationError(
    `Validation failed: ${field}: [${q.unit}] is a unit of ${q.family}, but product [${sku}] is kept in ${baseUnit.family} (base unit ${baseUnit.unit})`,
  );
