import type { Subject } from '../../../core/event-catalogue.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { type Listing } from '../../../core/listing.ts';
import { filterListing, firstOf, mapListing } from '../../../core/listing-ops.ts';
import { describeQuantity, tidy, type Dimension, type Quantity } from '../../../core/quantity.ts';
import { nowIso } from '../../../core/time.ts';
import type { CommonServices } from '../../common/service.ts';
import { noPackagingUnitOnLocation, notEnoughOnLocation, packagingUnitNotFound, wrongFamily } from '../errors.ts';
import type { LoadUnitService } from '../load-units/service.ts';
import type { Product, ProductService } from '../products/service.ts';
import type { PackagingUnitRecord, PackagingUnitStore } from './store.ts';

// Packaging units (docs/inventory.md): amounts of a product in a load
// unit of a transport unit. Receiving puts stock in with `create`, shipping reads it
// with `onTransportUnit` and blocks it with `setAllocated`; `move` takes stock off a
// location onto another transport unit.

/** A packaging unit with where it is: its transport unit's barcode and location. */
export interface PackagingUnit extends PackagingUnitRecord {
  transportUnitBK: string;
  /** Coordinate of the location the transport unit stands on. */
  actualLocation: string;
}

/** A new packaging unit, as receiving (and `POST …/packaging-units`) puts one in. */
export interface NewPackagingUnit {
  transportUnitBK: string;
  luPos: string;
  sku: string;
  quantity: Quantity;
  /** Needed when the load unit does not exist yet and is created now. */
  loadUnitType?: string | null | undefined;
  /** Label of a load unit created now. */
  loadUnitLabel?: string | null | undefined;
  message?: string | null | undefined;
  dimension?: Dimension | null | undefined;
  weight?: Quantity | null | undefined;
  serialNumber?: string | null | undefined;
  expiresAt?: string | null | undefined;
  labels?: readonly string[] | null | undefined;
  piecesPerLoadUnitLayer?: number | null | undefined;
  numberOfLoadUnitLayers?: number | null | undefined;
}

/** `POST /v1/packaging-units/move`. */
export interface StockMove {
  sku: string;
  /** Coordinate of the location the stock is taken from. */
  sourceLocation: string;
  quantity: Quantity;
  targetTransportUnitBK: string;
  targetLuPos: string;
  loadUnitType?: string | null | undefined;
}

export interface ForProductOptions {
  /** At most this many. */
  amount?: number | undefined;
  /** By quantity; absent: oldest first. */
  sort?: 'ASC' | 'DESC' | undefined;
}

interface PackagingUnitServiceDeps {
  work: UnitOfWork;
  store: PackagingUnitStore;
  common: Pick<CommonServices, 'transportUnits' | 'locations' | 'locationGroups'>;
  products: ProductService;
  loadUnits: LoadUnitService;
}

type TransportUnit = ReturnType<CommonServices['transportUnits']['byBarcode']>;

export function createPackagingUnitService({ work, store, common, products, loadUnits }: PackagingUnitServiceDeps) {
  /** Adds where each unit is; transport units are looked up once per reply. */
  function shower() {
    const units = new Map<string, TransportUnit>();
    const unitOf = (pk: string) => {
      let tu = units.get(pk);
      if (!tu) {
        tu = common.transportUnits.byPKey(pk);
        units.set(pk, tu);
      }
      return tu;
    };
    return (record: PackagingUnitRecord): PackagingUnit & { transportUnit: TransportUnit } => {
      const tu = unitOf(record.transportUnitPk);
      return { ...record, transportUnitBK: tu.barcode, actualLocation: tu.actualLocation, transportUnit: tu };
    };
  }
  const showAll = (records: PackagingUnitRecord[]): PackagingUnit[] => records.map(shower());
  /** A list with where each unit is; transport units looked up once per page or chunk, so a long stream keeps no map of them all. */
  const shown = (listing: Listing<PackagingUnitRecord>) => mapListing(listing, showAll);

  function byPKey(pKey: string): PackagingUnit {
    const record = store.byPk(pKey);
    if (!record) throw packagingUnitNotFound(pKey);
    return shower()(record);
  }

  function requireFamily(field: string, q: Quantity, product: Product) {
    if (q.family !== product.baseUnit.family) throw wrongFamily(field, q, product.sku, product.baseUnit);
  }

  /** Stock is about its product and the transport unit that carries it. */
  const refsOf = (pu: PackagingUnit): Subject[] => [
    { kind: 'product', key: pu.productSku },
    ...(pu.transportUnitBK ? [{ kind: 'transportUnit' as const, key: pu.transportUnitBK }] : []),
  ];

  function create(input: NewPackagingUnit): PackagingUnit {
    return work.run(() => {
      const tu = common.transportUnits.byBarcode(input.transportUnitBK);
      const product = products.bySku(input.sku);
      requireFamily('quantity', input.quantity, product);
      const lu = loadUnits.ensureAt(tu, input.luPos, input.loadUnitType, input.loadUnitLabel);
      loadUnits.requireOnlyProduct(tu, lu, product);
      const pk = store.insert(
        {
          loadUnitPk: lu.pk,
          productPk: product.pk,
          quantity: input.quantity,
          dimension: input.dimension ?? null,
          weight: input.weight ?? null,
          message: input.message ?? null,
          serialNumber: input.serialNumber ?? null,
          expiresAt: input.expiresAt ?? null,
          labels: [...(input.labels ?? [])],
          piecesPerLoadUnitLayer: input.piecesPerLoadUnitLayer ?? null,
          numberOfLoadUnitLayers: input.numberOfLoadUnitLayers ?? null,
        },
        nowIso(),
      );
      const pu = byPKey(pk);
      work.emit({
        type: 'packagingUnit.created',
        key: pk,
        data: {
          pKey: pu.pk,
          sku: pu.productSku,
          transportUnitBK: pu.transportUnitBK,
          physicalPosition: pu.physicalPosition,
          quantity: describeQuantity(pu.quantity),
        },
        refs: refsOf(pu),
      });
      return pu;
    });
  }

  return {
    /** Every packaging unit, oldest first: pages, or the whole list streamed. */
    list: (): Listing<PackagingUnit> => shown(store.list()),
    byPKey,

    /** A packaging unit addressed under its transport unit and load unit (404 when it is not there). */
    at(barcode: string, luPos: string, pKey: string): PackagingUnit {
      const pu = byPKey(pKey);
      if (pu.transportUnitBK !== barcode || pu.physicalPosition !== luPos) throw packagingUnitNotFound(pKey);
      return pu;
    },

    inLoadUnit: (loadUnitPk: string): PackagingUnit[] => showAll(store.inLoadUnit(loadUnitPk)),

    /** The units of several load units (a page of load units), by load unit pk. */
    inLoadUnits(loadUnitPks: readonly string[]): Map<string, PackagingUnit[]> {
      const byLoadUnit = new Map<string, PackagingUnit[]>();
      for (const pu of showAll(store.inLoadUnits(loadUnitPks))) {
        const list = byLoadUnit.get(pu.loadUnitPk) ?? [];
        list.push(pu);
        byLoadUnit.set(pu.loadUnitPk, list);
      }
      return byLoadUnit;
    },

    /** All packaging units in all load units of a transport unit, oldest first (404 when the unit is unknown). */
    onTransportUnit(barcode: string): PackagingUnit[] {
      const tu = common.transportUnits.byBarcode(barcode);
      return showAll(store.onTransportUnit(tu.pk));
    },
    /** The same as a list: pages, or the whole list (a transport unit carries few, read at once). */
    listOnTransportUnit(barcode: string): Listing<PackagingUnit> {
      const tu = common.transportUnits.byBarcode(barcode);
      return shown(store.listOnTransportUnit(tu.pk));
    },

    /**
     * Packaging units of a product not blocked by allocation, on one transport unit or
     * anywhere: oldest first, or by quantity (`sort`, oldest first among equals); the
     * first `amount` only when given.
     */
    forProduct(sku: string, options: ForProductOptions = {}, barcode?: string): Listing<PackagingUnit> {
      const tu = barcode === undefined ? undefined : common.transportUnits.byBarcode(barcode);
      const product = products.bySku(sku);
      const free = shown(store.listFreeOfProduct(product.pk, options.sort ?? 'FIFO', tu?.pk));
      return options.amount === undefined ? free : firstOf(free, options.amount);
    },

    /**
     * Packaging units of a product on transport units standing in a location group or any
     * group below it, oldest first. The units of the product are read in order and each
     * kept when its transport unit's location is in one of the groups.
     */
    inLocationGroup(productPKey: string, groupName: string): Listing<PackagingUnit> {
      const product = products.byPKey(productPKey);
      const group = common.locationGroups.byName(groupName);
      const groups = new Set(common.locationGroups.subtree(group.pk));
      const inGroups = (pu: PackagingUnit) => groups.has(common.locations.findByLocationId(pu.actualLocation)?.groupPk ?? '');
      return filterListing(shown(store.listOfProduct(product.pk)), (units) => units.filter(inGroups));
    },

    /**
     * Puts a packaging unit into a load unit of a transport unit, creating the load
     * unit when it does not exist and a type is given. Joins a running unit of work
     * (receiving books its captures so).
     */
    create,

    /** Blocks (or releases) a packaging unit for allocation; shipping calls it. */
    setAllocated(pKey: string, allocated: boolean): PackagingUnit {
      return work.run(() => {
        const current = store.byPk(pKey);
        if (!current) throw packagingUnitNotFound(pKey);
        if (current.allocated === allocated) return byPKey(pKey);
        store.setAllocated(pKey, allocated, nowIso());
        const pu = byPKey(pKey);
        work.emit({ type: 'packagingUnit.allocationChanged', key: pKey, data: { pKey, sku: pu.productSku, allocated }, refs: refsOf(pu) });
        return pu;
      });
    },

    /**
     * Takes a quantity of a product from the packaging units (not allocated) on the
     * transport units at a location, oldest first, splitting the last one when only
     * part of it is taken, and puts it as one new packaging unit into a load unit of the
     * target transport unit. All or nothing.
     */
    move(request: StockMove): PackagingUnit {
      return work.run(() => {
        const product = products.bySku(request.sku);
        requireFamily('quantity', request.quantity, product);
        const target = common.transportUnits.byBarcode(request.targetTransportUnitBK);
        const sourceUnits = common.transportUnits.onLocation(request.sourceLocation);
        const targetLu = loadUnits.ensureAt(target, request.targetLuPos, request.loadUnitType);
        loadUnits.requireOnlyProduct(target, targetLu, product);
        // Stock already in the target load unit is not taken from: it would only go round.
        const sources = store
          .freeOfProductOn(
            product.pk,
            sourceUnits.map((tu) => tu.pk),
          )
          .filter((pu) => pu.loadUnitPk !== targetLu.pk);
        if (sources.length === 0) throw noPackagingUnitOnLocation(product.sku, request.sourceLocation);
        const available = sources.reduce((sum, pu) => sum + pu.quantity.base, 0);
        if (available < request.quantity.base) {
          throw notEnoughOnLocation(
            product.sku,
            request.sourceLocation,
            describeQuantity(tidy({ ...request.quantity, base: available })),
            describeQuantity(request.quantity),
          );
        }
        const now = nowIso();
        let remaining = request.quantity.base;
        const taken: { pKey: string; quantity: string; emptied: boolean }[] = [];
        let expiresAt: string | null = null;
        for (const pu of sources) {
          if (remaining === 0) break;
          const take = Math.min(pu.quantity.base, remaining);
          remaining -= take;
          if (take === pu.quantity.base) store.delete(pu.pk);
          else store.setQuantity(pu.pk, tidy({ ...pu.quantity, base: pu.quantity.base - take }), now);
          taken.push({ pKey: pu.pk, quantity: describeQuantity(tidy({ ...request.quantity, base: take })), emptied: take === pu.quantity.base });
          if (pu.expiresAt !== null && (expiresAt === null || pu.expiresAt < expiresAt)) expiresAt = pu.expiresAt;
        }
        const pk = store.insert(
          {
            loadUnitPk: targetLu.pk,
            productPk: product.pk,
            quantity: request.quantity,
            dimension: null,
            weight: null,
            message: null,
            serialNumber: null,
            expiresAt,
            labels: [],
            piecesPerLoadUnitLayer: null,
            numberOfLoadUnitLayers: null,
          },
          now,
        );
        const pu = byPKey(pk);
        const sourceRefs = sourceUnits.map((tu) => ({ kind: 'transportUnit' as const, key: tu.barcode }));
        work.emit({
          type: 'packagingUnit.moved',
          key: pk,
          data: {
            sku: pu.productSku,
            sourceLocation: request.sourceLocation,
            quantity: describeQuantity(pu.quantity),
            pKey: pk,
            transportUnitBK: pu.transportUnitBK,
            physicalPosition: pu.physicalPosition,
            taken,
          },
          refs: [...refsOf(pu), { kind: 'location', key: request.sourceLocation }, ...sourceRefs],
        });
        return pu;
      });
    },
  };
}

export type PackagingUnitService = ReturnType<typeof createPackagingUnitService>;
