import { type Listing } from '../../../core/listing.ts';
import { mapListing } from '../../../core/listing-ops.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { newPKey } from '../../../core/ids.ts';
import { FAMILIES, UNIT_SYMBOLS, type Dimension } from '../../../core/quantity.ts';
import { nowIso } from '../../../core/time.ts';
import { checkVersion } from '../../../core/versioned.ts';
import { alreadyExists, DomainError, validationError } from '../../../core/errors.ts';
import type { CommonServices } from '../../common/service.ts';
import { INVENTORY_KEYS, productNotFound, productNotFoundBySku } from '../errors.ts';
import type { ProductInput, ProductUpdateInput } from '../schema.ts';
import type { ProductFields, ProductRecord, ProductStore, ProductUnit } from './store.ts';

// Products (docs/inventory.md): article definitions identified by SKU.
// Other modules (receiving, shipping) reach them through `bySku` / `findBySku`.

/** A product as the appliance shows it: the stored record and its account's identifier. */
export interface Product extends ProductRecord {
  accountId: string;
}

interface ProductServiceDeps {
  work: UnitOfWork;
  store: ProductStore;
  common: Pick<CommonServices, 'accounts'>;
}

export function createProductService({ work, store, common }: ProductServiceDeps) {
  /** Account pk → identifier; accounts are few and read-only over the API, one lookup per list is plenty. */
  function shower() {
    const identifiers = new Map<string, string>();
    return (record: ProductRecord): Product => {
      let accountId = identifiers.get(record.accountPk);
      if (accountId === undefined) {
        accountId = common.accounts.byPKey(record.accountPk).identifier;
        identifiers.set(record.accountPk, accountId);
      }
      return { ...record, accountId };
    };
  }
  const show = (record: ProductRecord): Product => shower()(record);

  function byPKey(pKey: string): Product {
    const record = store.byPk(pKey);
    if (!record) throw productNotFound('pKey', pKey);
    return show(record);
  }

  function findBySku(sku: string): Product | undefined {
    const record = store.bySku(sku);
    return record && show(record);
  }

  /** The units of a create or update; a unit's pKey is kept when it names a unit of this product. */
  function unitsOf(input: ProductInput, own: ProductRecord | undefined): ProductUnit[] {
    const seen = new Set<string>();
    return (input.units ?? []).map((u, i) => {
      let pk = newPKey();
      if (own && u.pKey) {
        if (store.unitOwner(u.pKey) !== own.pk || seen.has(u.pKey)) {
          throw validationError(`Validation failed: units[${i}].pKey: [${u.pKey}] is not a unit of product [${own.sku}]`);
        }
        seen.add(u.pKey);
        pk = u.pKey;
      }
      return {
        pk,
        label: u.label ?? null,
        quantity: u.quantity,
        dimension: u.dimension ?? null,
        piecesPerLayer: u.details?.piecesPerLayer ?? null,
        numbersOfLayers: u.details?.numbersOfLayers ?? null,
        carrierType: u.details?.carrierType ?? null,
      };
    });
  }

  /**
   * What a create writes, or an update (the whole product: descriptive fields not sent
   * are cleared; account, availability and overbooking keep their values when not sent).
   */
  function fieldsOf(input: ProductInput, current: ProductRecord | undefined): ProductFields {
    const accountPk = input.accountId != null ? common.accounts.resolve(input.accountId).pk : (current?.accountPk ?? common.accounts.resolve(undefined).pk);
    return {
      sku: input.sku,
      label: input.label ?? null,
      accountPk,
      baseUnit: input.baseUnit,
      overbookingAllowed: input.overbookingAllowed ?? current?.overbookingAllowed ?? false,
      description: input.description ?? null,
      availabilityState: input.availabilityState ?? current?.availabilityState ?? 'AVAILABLE',
      classification: input.classification ?? null,
      group: input.group ?? null,
      stockZone: input.stockZone ?? null,
      dimension: input.dimension ?? null,
      details: input.details ?? {},
      units: unitsOf(input, current),
      stackingRules: (input.stackingRules ?? []).map((r) => ({ noProducts: r.noProducts, allowedSku: r.allowedProduct.sku })),
    };
  }

  /** The stored content of a product in one comparable text (for updates that change nothing). */
  const canonDim = (d: Dimension | null) => d && [d.length ?? null, d.width ?? null, d.height ?? null, d.uom];
  const comparable = (f: ProductFields) =>
    JSON.stringify([
      f.sku,
      f.label,
      f.accountPk,
      f.baseUnit.family,
      f.baseUnit.unit,
      f.baseUnit.base,
      f.overbookingAllowed,
      f.description,
      f.availabilityState,
      f.classification,
      f.group,
      f.stockZone,
      canonDim(f.dimension),
      Object.entries(f.details).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      f.units.map((u) => [
        u.pk,
        u.label,
        u.quantity.family,
        u.quantity.unit,
        u.quantity.base,
        canonDim(u.dimension),
        u.piecesPerLayer,
        u.numbersOfLayers,
        u.carrierType,
      ]),
      f.stackingRules.map((r) => [r.noProducts, r.allowedSku]),
    ]);

  return {
    /** Every product by SKU: pages, or the whole list streamed. */
    list(): Listing<Product> {
      const toProduct = shower();
      return mapListing(store.list(), (records) => records.map(toProduct));
    },
    byPKey,

    /** `GET /v1/products?sku=`: unknown → 404 `not.found`. */
    lookupBySku(sku: string): Product {
      const product = findBySku(sku);
      if (!product) throw productNotFound('sku', sku);
      return product;
    },

    /** For resources and modules that name a product: unknown → 404 `svc.wms.inv.product.notFoundBySku`. */
    bySku(sku: string): Product {
      const product = findBySku(sku);
      if (!product) throw productNotFoundBySku(sku);
      return product;
    },

    /** Unthrowing lookup for other modules. */
    findBySku,

    /** `?sku=&uom=`: the product whose base unit is given in that unit symbol. */
    bySkuAndUom(sku: string, uom: string): Product {
      if (!UNIT_SYMBOLS.includes(uom)) {
        throw validationError(`Validation failed: uom: unknown unit [${uom}]; known are ${UNIT_SYMBOLS.join(', ')}`);
      }
      const product = findBySku(sku);
      if (!product || product.baseUnit.unit !== uom) {
        throw productNotFound('sku and uom', `${sku}, ${uom}`);
      }
      return product;
    },

    /** Creates every product of a batch, or none of them. */
    create(inputs: readonly ProductInput[]): Product[] {
      return work.run(() => {
        const inBatch = new Set<string>();
        for (const input of inputs) {
          if (inBatch.has(input.sku)) throw alreadyExists(`Product with sku [${input.sku}] is sent twice`, [input.sku]);
          inBatch.add(input.sku);
          if (store.bySku(input.sku)) throw alreadyExists(`Product with sku [${input.sku}] already exists`, [input.sku]);
        }
        const now = nowIso();
        const pks = inputs.map((input) => store.insert(fieldsOf(input, undefined), now));
        const toProduct = shower();
        const products = pks.map((pk) => toProduct(store.byPk(pk)!));
        for (const p of products) work.emit({ type: 'product.created', key: p.sku, data: { pKey: p.pk, sku: p.sku } });
        return products;
      });
    },

    /**
     * `PUT /v1/products`: replaces the product named by `pKey`. A stale `ol` → 409; a
     * new SKU that another product has → 409; the base unit's family cannot change
     * while stock of the product exists. An update that changes nothing writes nothing.
     */
    update(input: ProductUpdateInput): Product {
      return work.run(() => {
        const current = store.byPk(input.pKey);
        if (!current) throw productNotFound('pKey', input.pKey);
        checkVersion('Product', current, input.ol);
        if (input.sku !== current.sku && store.bySku(input.sku)) {
          throw alreadyExists(`Product with sku [${input.sku}] already exists`, [input.sku]);
        }
        const fields = fieldsOf(input, current);
        if (fields.baseUnit.family !== current.baseUnit.family && store.stockCount(current.pk) > 0) {
          throw new DomainError(
            409,
            INVENTORY_KEYS.productBaseUnitInUse,
            `Product [${current.sku}] has stock counted in ${FAMILIES[current.baseUnit.family].baseSymbol} (${current.baseUnit.family}); ` +
              `its base unit cannot become ${fields.baseUnit.unit} (${fields.baseUnit.family})`,
            { obj: [current.sku, current.baseUnit.unit, fields.baseUnit.unit] },
          );
        }
        if (comparable(fields) === comparable(current)) return byPKey(input.pKey);
        store.update(current.pk, fields, nowIso());
        const product = byPKey(input.pKey);
        const renamed = product.sku !== current.sku ? [{ kind: 'product' as const, key: current.sku }] : undefined;
        work.emit({ type: 'product.changed', key: product.sku, data: { pKey: product.pk, sku: product.sku }, refs: renamed });
        return product;
      });
    },
  };
}

export type ProductService = ReturnType<typeof createProductService>;
