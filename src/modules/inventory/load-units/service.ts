import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { type Listing } from '../../../core/listing.ts';
import { mapListing } from '../../../core/listing-ops.ts';
import type { Quantity } from '../../../core/quantity.ts';
import { nowIso } from '../../../core/time.ts';
import { BARCODE_PATTERN } from '../../../core/barcode.ts';
import { alreadyExists, validationError } from '../../../core/errors.ts';
import type { CommonServices } from '../../common/service.ts';
import { actualLocationMissing, loadUnitNotFound, loadUnitTypeMissing, otherProductOnLoadUnit, transportUnitTypeMissing, wrongFamily } from '../errors.ts';
import type { Product, ProductService } from '../products/service.ts';
import type { LoadUnitRecord, LoadUnitStore } from './store.ts';

// Load units (docs/inventory.md): the carrier areas a transport unit is
// divided into. Transport units belong to the common module and are reached only
// through its services.

/** A load unit with the business key of its transport unit. */
export interface LoadUnit extends LoadUnitRecord {
  transportUnitBK: string;
}

type TransportUnit = ReturnType<CommonServices['transportUnits']['byBarcode']>;

interface DivideInput {
  transportUnitBK: string;
  loadUnitType: string;
  parts: number;
  /** With `actualLocation`: the type of a transport unit to create when none has the barcode. */
  transportUnitType?: string | undefined;
  /** ERP code of the location a transport unit to create stands on. */
  actualLocation?: string | undefined;
}

interface LoadUnitServiceDeps {
  work: UnitOfWork;
  store: LoadUnitStore;
  common: Pick<CommonServices, 'transportUnits' | 'transportUnitTypes' | 'locations'>;
  products: ProductService;
  /** Config `inventory.oneProductPerLoadUnit`. */
  oneProductPerLoadUnit: boolean;
}

export function createLoadUnitService({ work, store, common, products, oneProductPerLoadUnit }: LoadUnitServiceDeps) {
  /** Transport unit pk → barcode, for one reply (a unit's barcode may change between requests). */
  function shower() {
    const barcodes = new Map<string, string>();
    return (record: LoadUnitRecord): LoadUnit => {
      let barcode = barcodes.get(record.transportUnitPk);
      if (barcode === undefined) {
        barcode = common.transportUnits.byPKey(record.transportUnitPk).barcode;
        barcodes.set(record.transportUnitPk, barcode);
      }
      return { ...record, transportUnitBK: barcode };
    };
  }
  const show = (record: LoadUnitRecord) => shower()(record);

  function byPKey(pKey: string): LoadUnit {
    const record = store.byPk(pKey);
    if (!record) throw loadUnitNotFound(pKey);
    return show(record);
  }

  /**
   * With `inventory.oneProductPerLoadUnit`, a load unit carries one product only: one
   * reserved for or holding another product refuses this one (409).
   */
  function requireOnlyProduct(tu: TransportUnit, lu: LoadUnitRecord, product: Product): void {
    if (!oneProductPerLoadUnit) return;
    const other = lu.productPk !== null && lu.productPk !== product.pk ? lu.productSku! : store.carriedSkus(lu.pk).find((sku) => sku !== product.sku);
    if (other !== undefined) throw otherProductOnLoadUnit(tu.barcode, lu.physicalPosition, other, product.sku);
  }

  /** Dimensions of `parts` load units side by side on a transport unit of this type (millimetres). */
  function partDimensions(tu: TransportUnit, parts: number) {
    const type = common.transportUnitTypes.byType(tu.transportUnitType);
    return {
      length: type.length === null ? null : Math.floor(type.length / parts),
      width: type.width,
      height: type.height,
    };
  }

  return {
    /** Every load unit by transport unit and position: pages, or the whole list streamed. */
    list: (): Listing<LoadUnit> =>
      // Barcodes looked up once per page or chunk: a long stream keeps no map of every unit.
      mapListing(store.list(), (records) => records.map(shower())),
    byPKey,

    /** The load units of a transport unit (404 `svc.common.common.tu.notFoundByBK` when unknown). */
    onTransportUnit(barcode: string): LoadUnit[] {
      const tu = common.transportUnits.byBarcode(barcode);
      return store.onTransportUnit(tu.pk).map((lu) => ({ ...lu, transportUnitBK: tu.barcode }));
    },
    /** The same as a list: pages, or the whole list (a transport unit has few, read at once). */
    listOnTransportUnit(barcode: string): Listing<LoadUnit> {
      const tu = common.transportUnits.byBarcode(barcode);
      return mapListing(store.listOnTransportUnit(tu.pk), (records) => records.map((lu) => ({ ...lu, transportUnitBK: tu.barcode })));
    },

    /**
     * `POST /v1/transport-unit`: divides a transport unit into `parts` load units at
     * positions "1" … "n". An unknown transport unit is created first when the request
     * says where it stands and what type it is (goods-in onto a new carrier).
     */
    divide(input: DivideInput): { transportUnit: TransportUnit; loadUnits: LoadUnit[] } {
      return work.run(() => {
        let tu = common.transportUnits.findByBarcode(input.transportUnitBK);
        if (!tu) {
          if (!input.transportUnitType && !input.actualLocation) common.transportUnits.byBarcode(input.transportUnitBK);
          if (!input.transportUnitType) throw transportUnitTypeMissing(input.transportUnitBK);
          if (!input.actualLocation) throw actualLocationMissing(input.transportUnitBK);
          if (!BARCODE_PATTERN.test(input.transportUnitBK)) {
            throw validationError('Validation failed: transportUnitBK: must be 1-64 characters of A-Z a-z 0-9 _ . -');
          }
          const location = common.locations.byErpCode(input.actualLocation);
          tu = common.transportUnits.create({
            barcode: input.transportUnitBK,
            actualLocation: location.locationId,
            transportUnitType: input.transportUnitType,
          });
        }
        if (store.countOn(tu.pk) > 0) {
          throw alreadyExists(`TransportUnit [${tu.barcode}] is already divided into load units`, [tu.barcode]);
        }
        const now = nowIso();
        const dimensions = partDimensions(tu, input.parts);
        const pks: string[] = [];
        for (let i = 1; i <= input.parts; i++) {
          pks.push(store.insert({ transportUnitPk: tu.pk, physicalPosition: String(i), label: null, type: input.loadUnitType, ...dimensions }, now));
        }
        const loadUnits = pks.map((pk) => ({ ...store.byPk(pk)!, transportUnitBK: tu.barcode }));
        work.emit({ type: 'transportUnit.divided', key: tu.barcode, data: { barcode: tu.barcode, parts: input.parts, loadUnitType: input.loadUnitType } });
        return { transportUnit: tu, loadUnits };
      });
    },

    /**
     * The load unit at a position of a transport unit, created when it does not exist
     * and a type is given (else 400 `svc.wms.inv.pu.loadUnitTypeMissing`). Runs in the
     * caller's transaction.
     */
    ensureAt(tu: TransportUnit, luPos: string, loadUnitType: string | null | undefined, label?: string | null): LoadUnitRecord {
      const existing = store.atPosition(tu.pk, luPos);
      if (existing) return existing;
      if (!loadUnitType) throw loadUnitTypeMissing(tu.barcode, luPos);
      const pk = store.insert(
        { transportUnitPk: tu.pk, physicalPosition: luPos, label: label ?? null, type: loadUnitType, length: null, width: null, height: null },
        nowIso(),
      );
      return store.byPk(pk)!;
    },

    requireOnlyProduct,

    /** Reserves a load unit for a product (`PUT|POST /v1/load-units/{pKey}`). */
    reserve(pKey: string, request: { sku: string; baseUnit?: Quantity | null | undefined }): LoadUnit {
      return work.run(() => {
        const current = store.byPk(pKey);
        if (!current) throw loadUnitNotFound(pKey);
        const product = products.bySku(request.sku);
        if (request.baseUnit && request.baseUnit.family !== product.baseUnit.family) {
          throw wrongFamily('baseUnit', request.baseUnit, product.sku, product.baseUnit);
        }
        requireOnlyProduct(common.transportUnits.byPKey(current.transportUnitPk), current, product);
        if (current.productPk === product.pk) return byPKey(pKey);
        store.reserve(current.pk, product.pk, nowIso());
        const lu = byPKey(pKey);
        work.emit({
          type: 'loadUnit.reserved',
          key: pKey,
          data: { pKey, transportUnitBK: lu.transportUnitBK, physicalPosition: lu.physicalPosition, sku: lu.productSku },
          refs: [
            { kind: 'transportUnit', key: lu.transportUnitBK },
            { kind: 'product', key: product.sku },
          ],
        });
        return lu;
      });
    },
  };
}

export type LoadUnitService = ReturnType<typeof createLoadUnitService>;
