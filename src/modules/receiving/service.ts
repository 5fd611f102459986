import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { describeQuantity, tidy, type Quantity } from '../../core/quantity.ts';
import { nowIso } from '../../core/time.ts';
import { DomainError, alreadyExists, notFound } from '../../core/errors.ts';
import type { CommonServices } from '../common/service.ts';
import type { InventoryServices, Product } from '../inventory/service.ts';
import { productNotFound, RECEIVING_KEYS } from './errors.ts';
import { genericValidationError, type CaptureRequest, type NewReceivingOrder } from './schema.ts';
import type { OrderState, Position, ReceivingOrder, ReceivingStore } from './store.ts';

// The rules of the receiving module (docs/receiving.md, "States and
// transitions / Receiving order", "Receiving orders"). Products and packaging units are
// the inventory module's, transport units the common module's: reached only through
// their services. docs/receiving.md describes the decisions.

/** A load unit position used when a capture names none: the first one, as a division numbers them "1" … "n". */
const DEFAULT_LOAD_UNIT_LABEL = '1';

/** Order states in which goods can still be captured. */
const CAPTURABLE: readonly OrderState[] = ['CREATED', 'PROCESSING'];

interface ReceivingDeps {
  work: UnitOfWork;
  store: ReceivingStore;
  inventory: Pick<InventoryServices, 'products' | 'packagingUnits'>;
  common: Pick<CommonServices, 'transportUnits'>;
}

/** The quantity received on a position so far, in the unit of its expected quantity where that is whole. */
export const quantityReceived = (p: Position): Quantity => tidy({ family: p.quantityExpected.family, unit: p.quantityExpected.unit, base: p.receivedBase });

const wrongFamily = (field: string, q: Quantity, product: Product) =>
  `${field}: [${q.unit}] is a unit of ${q.family}, but product [${product.sku}] is kept in ${product.baseUnit.family} (base unit ${product.baseUnit.unit})`;

/** What one capture request did, for the event. */
interface Booked {
  sku: string;
  quantity: string;
  transportUnitBK: string;
  loadUnitLabel: string;
  packagingUnitPKey: string;
  positions: { positionId: string; quantity: string }[];
}

export function createReceivingService({ work, store, inventory, common }: ReceivingDeps) {
  function byPKey(pKey: string): ReceivingOrder {
    const order = store.byPk(pKey);
    if (!order) throw notFound(`ReceivingOrder with pKey [${pKey}] does not exist`, [pKey]);
    return order;
  }

  /** Books one capture request inside the capture's transaction; the positions are updated in place. */
  function book(order: ReceivingOrder, request: CaptureRequest, field: string, loadUnitType: string | undefined, now: string) {
    const product = inventory.products.findBySku(request.product.sku);
    if (!product) throw productNotFound(request.product.sku);
    const q = request.quantityReceived;
    if (q.family !== product.baseUnit.family) throw genericValidationError([wrongFamily(`${field}quantityReceived`, q, product)]);
    const demanding = order.positions.filter((p) => p.productPk === product.pk && p.receivedBase < p.quantityExpected.base && p.state !== 'CANCELED');
    if (demanding.length === 0) {
      throw new DomainError(
        404,
        RECEIVING_KEYS.product404,
        `No open position of ReceivingOrder [${order.orderId}] demands the Product with SKU [${product.sku}]`,
        { obj: [product.sku, order.orderId] },
      );
    }
    // A product's base unit may have changed family since the order was announced.
    const open = demanding.filter((p) => p.quantityExpected.family === q.family);
    if (open.length === 0) {
      const p = demanding[0]!;
      throw genericValidationError([
        `${field}quantityReceived: [${q.unit}] is a unit of ${q.family}, but position [${p.positionId}] expects ${p.quantityExpected.family}`,
      ]);
    }
    const openBase = open.reduce((sum, p) => sum + p.quantityExpected.base - p.receivedBase, 0);
    if (q.base > openBase && !product.overbookingAllowed) {
      const stillOpen = describeQuantity(tidy({ ...q, base: openBase }));
      throw new DomainError(
        409,
        RECEIVING_KEYS.overbookingNotAllowed,
        `ReceivingOrder [${order.orderId}] still expects ${stillOpen} of Product [${product.sku}]; ${describeQuantity(q)} were captured ` +
          'and the product does not allow overbooking',
        { obj: [order.orderId, product.sku, describeQuantity(q), stillOpen] },
      );
    }
    const tu = common.transportUnits.byBarcode(request.barcode);
    const luPos = request.loadUnitLabel ?? DEFAULT_LOAD_UNIT_LABEL;
    const pu = inventory.packagingUnits.create({
      transportUnitBK: tu.barcode,
      luPos,
      sku: product.sku,
      quantity: q,
      loadUnitType,
      loadUnitLabel: request.loadUnitLabel,
      message: `Received with ReceivingOrder [${order.orderId}]`,
    });
    // Fill the open positions in the order they were announced; what is left goes onto the last one (overbooking).
    let remaining = q.base;
    const positions: Booked['positions'] = [];
    open.forEach((p, i) => {
      if (remaining === 0) return;
      const take = i === open.length - 1 ? remaining : Math.min(remaining, p.quantityExpected.base - p.receivedBase);
      remaining -= take;
      p.receivedBase += take;
      p.state = p.receivedBase >= p.quantityExpected.base ? 'PROCESSED' : 'PROCESSING';
      store.receive(p.pk, p.receivedBase, p.state, now);
      const part = tidy({ ...q, base: take });
      store.insertCapture({ orderPk: order.pk, positionPk: p.pk, packagingUnitPk: pu.pk, transportUnitBK: tu.barcode, luPos, quantity: part }, now);
      positions.push({ positionId: p.positionId, quantity: describeQuantity(part) });
    });
    const booked: Booked = {
      sku: product.sku,
      quantity: describeQuantity(q),
      transportUnitBK: tu.barcode,
      loadUnitLabel: luPos,
      packagingUnitPKey: pu.pk,
      positions,
    };
    return booked;
  }

  return {
    byPKey,
    byOrderId(orderId: string): ReceivingOrder {
      const order = store.byOrderId(orderId);
      if (!order) throw notFound(`ReceivingOrder with orderId [${orderId}] does not exist`, [orderId]);
      return order;
    },
    /** Every order with its positions, oldest first: pages, or the whole list streamed. */
    list: () => store.list(),
    /** The product a position names (for representations). */
    product: (pk: string): Product => inventory.products.byPKey(pk),

    /**
     * Announces a goods receipt: every position names a known product and expects a
     * quantity of the family of that product's base unit.
     */
    create(input: NewReceivingOrder): ReceivingOrder {
      return work.run(() => {
        if (store.byOrderId(input.orderId)) {
          throw alreadyExists(`ReceivingOrder with orderId [${input.orderId}] already exists`, [input.orderId]);
        }
        const products = input.positions.map((p) => {
          const product = inventory.products.findBySku(p.product.sku);
          if (!product) throw productNotFound(p.product.sku);
          return product;
        });
        const problems: string[] = [];
        input.positions.forEach((p, i) => {
          if (p.quantityExpected.family !== products[i]!.baseUnit.family) {
            problems.push(wrongFamily(`positions[${i}].quantityExpected`, p.quantityExpected, products[i]!));
          }
        });
        if (problems.length > 0) throw genericValidationError(problems);
        const pk = store.insertOrder(
          input.orderId,
          input.details ?? {},
          input.positions.map((p, i) => ({ positionId: p.positionId, productPk: products[i]!.pk, quantityExpected: p.quantityExpected })),
          nowIso(),
        );
        const order = byPKey(pk);
        work.emit({ type: 'receivingOrder.created', key: order.orderId, data: { pKey: pk, orderId: order.orderId, positions: order.positions.length } });
        return order;
      });
    },

    /** Cancels a CREATED order; any other state → 403 `CANCELLATION.DENIED` [orderId, state, pKey]. */
    cancel(pKey: string): ReceivingOrder {
      return work.run(() => {
        const order = byPKey(pKey);
        if (order.state !== 'CREATED') {
          const why = order.state === 'CANCELED' ? 'is already cancelled' : order.state === 'PROCESSING' ? 'is in process' : 'is processed';
          throw new DomainError(403, RECEIVING_KEYS.cancellationDenied, `ReceivingOrder [${order.orderId}] ${why} and cannot be cancelled`, {
            obj: [order.orderId, order.state, order.pk],
          });
        }
        const now = nowIso();
        store.setOrderState(order.pk, 'CANCELED', now);
        store.cancelPositions(order.pk, now);
        work.emit({ type: 'receivingOrder.canceled', key: order.orderId, data: { pKey, orderId: order.orderId } });
        return byPKey(pKey);
      });
    },

    /**
     * Captures received goods: each request is booked against the open positions that
     * demand its product and put as a packaging unit onto a load unit of its transport
     * unit. All requests, the packaging units and the order's state change in one
     * transaction: a request that fails leaves everything as it was.
     */
    capture(pKey: string, requests: readonly CaptureRequest[], single: boolean, loadUnitType: string | undefined): ReceivingOrder {
      return work.run(() => {
        const order = byPKey(pKey);
        if (!CAPTURABLE.includes(order.state)) {
          throw new DomainError(
            409,
            RECEIVING_KEYS.captureDenied,
            `ReceivingOrder [${order.orderId}] is ${order.state}; goods can be captured only while it is CREATED or PROCESSING`,
            { obj: [order.orderId, order.state, order.pk] },
          );
        }
        const now = nowIso();
        const booked: Booked[] = [];
        requests.forEach((request, i) => {
          booked.push(book(order, request, single ? '' : `[${i}].`, loadUnitType, now));
        });
        const after: OrderState = order.positions.every((p) => p.state === 'PROCESSED') ? 'PROCESSED' : 'PROCESSING';
        store.setOrderState(order.pk, after, now);
        const units = [...new Set(booked.map((b) => b.transportUnitBK))].map((key) => ({ kind: 'transportUnit' as const, key }));
        const data = { pKey, orderId: order.orderId };
        work.emit({ type: 'receivingOrder.captured', key: order.orderId, data: { ...data, state: after, captures: booked }, refs: units });
        if (after === 'PROCESSED') work.emit({ type: 'receivingOrder.processed', key: order.orderId, data });
        return byPKey(pKey);
      });
    },
  };
}

export type ReceivingService = ReturnType<typeof createReceivingService>;
