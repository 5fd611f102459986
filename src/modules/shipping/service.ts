import type { UnitOfWork } from '../../core/unit-of-work.ts';
import { sameFamily, type Quantity } from '../../core/quantity.ts';
import { nowIso } from '../../core/time.ts';
import { checkVersion, type Versioned } from '../../core/versioned.ts';
import { DomainError, alreadyExists, notFound, validationError } from '../../core/errors.ts';
import type { CommonServices } from '../common/service.ts';
import { SHIPPING_KEYS } from './errors.ts';
import type { NewShippingOrder, OrderPatch, PositionInput, PositionPatch } from './schema.ts';
import type { OrderFields, OrderState, Position, PositionFields, ShippingOrder, ShippingStore } from './store.ts';

/** What shipping needs of a product (the inventory module's products). */
interface ProductRef extends Versioned {
  sku: string;
  baseUnit: Quantity;
}

interface ProductLookup {
  /** 404 when unknown. */
  bySku(sku: string): ProductRef;
  byPKey(pKey: string): ProductRef;
}

/**
 * Order (and position) states and the moves between them. An order is released
 * (AVAILABLE), processed (picked), commissioned (packed, staged), loaded (ON_TRUCK) and
 * completed; a failure in the warehouse (FAILURE_WMS) or in transport (FAILURE_TMS)
 * is retried from where it can resume. COMPLETED is final.
 */
export const TRANSITIONS: Record<OrderState, readonly OrderState[]> = {
  CREATED: ['AVAILABLE', 'FAILURE_WMS'],
  AVAILABLE: ['CREATED', 'PROCESSING', 'FAILURE_WMS'],
  PROCESSING: ['PROCESSED', 'FAILURE_WMS', 'FAILURE_TMS'],
  PROCESSED: ['COMMISSIONING', 'FAILURE_WMS'],
  COMMISSIONING: ['ON_TRUCK', 'FAILURE_WMS', 'FAILURE_TMS'],
  ON_TRUCK: ['COMPLETED', 'FAILURE_TMS'],
  FAILURE_WMS: ['AVAILABLE', 'PROCESSING'],
  FAILURE_TMS: ['COMMISSIONING', 'ON_TRUCK'],
  COMPLETED: [],
};

interface ShippingDeps {
  work: UnitOfWork;
  store: ShippingStore;
  products: ProductLookup;
  common: CommonServices;
}

export function createShippingService({ work, store, products, common }: ShippingDeps) {
  function byPKey(pKey: string): ShippingOrder {
    const order = store.byPk(pKey);
    if (!order) throw notFound(`ShippingOrder with pKey [${pKey}] does not exist`, [pKey]);
    return order;
  }
  function positionByPKey(pKey: string): Position {
    const position = store.positionByPk(pKey);
    if (!position) throw notFound(`ShippingOrderPosition with pKey [${pKey}] does not exist`, [pKey]);
    return position;
  }
  function requireMove(what: 'order' | 'position', id: string, from: OrderState, to: OrderState | undefined) {
    if (to === undefined || to === from || TRANSITIONS[from].includes(to)) return;
    throw new DomainError(
      409,
      what === 'order' ? SHIPPING_KEYS.orderInvalidStateTransition : SHIPPING_KEYS.positionInvalidStateTransition,
      `The ${what} [${id}] cannot go from ${from} to ${to}; from ${from} it can go to ${TRANSITIONS[from].join(', ') || 'nothing (final)'}`,
      { obj: [id, from, to] },
    );
  }
  function requireOpen(order: ShippingOrder) {
    if (order.state === 'COMPLETED') {
      throw new DomainError(409, SHIPPING_KEYS.orderCompleted, `ShippingOrder [${order.orderId}] is COMPLETED and cannot change`, {
        obj: [order.orderId],
      });
    }
  }
  function requireFamily(field: string, quantity: Quantity | null | undefined, product: ProductRef) {
    if (quantity && !sameFamily(quantity, product.baseUnit)) {
      throw validationError(`Validation failed: ${field}: product [${product.sku}] is counted in ${product.baseUnit.family}, not in ${quantity.family}`);
    }
  }
  function positionFields(p: PositionInput, index: number): PositionFields {
    const common_ = { pos: p.pos, state: 'CREATED' as const, priority: p.priority ?? null, details: p.details ?? {}, targetName: p.targetName ?? null };
    if (p['@class'] === 'org.vendor.wms.shipping.api.ShippingOrderPositionVO') {
      const product = products.bySku(p.product.sku);
      requireFamily(`positions.${index}.qtyOrdered`, p.qtyOrdered, product);
      requireFamily(`positions.${index}.qtyCrossdock`, p.qtyCrossdock, product);
      if (p.qtyCrossdock && p.qtyCrossdock.base > p.qtyOrdered.base) {
        throw validationError(`Validation failed: positions.${index}.qtyCrossdock: more than qtyOrdered`);
      }
      return {
        ...common_,
        kind: 'PRODUCT',
        productPk: product.pk,
        qtyOrdered: p.qtyOrdered,
        qtyCrossdock: p.qtyCrossdock ?? null,
        transportUnitBK: null,
        transportUnitTypeName: null,
      };
    }
    const unit = common.transportUnits.byBarcode(p.transportUnitBK);
    if (p.transportUnitTypeName !== undefined) common.transportUnitTypes.byType(p.transportUnitTypeName);
    return {
      ...common_,
      kind: 'TRANSPORT_UNIT',
      productPk: null,
      qtyOrdered: null,
      qtyCrossdock: null,
      transportUnitBK: unit.barcode,
      transportUnitTypeName: p.transportUnitTypeName ?? unit.transportUnitType,
    };
  }

  return {
    byPKey,
    byOrderId(orderId: string): ShippingOrder {
      const order = store.byOrderId(orderId);
      if (!order) throw notFound(`ShippingOrder with orderId [${orderId}] does not exist`, [orderId]);
      return order;
    },
    inStates: (states: readonly OrderState[], withPositions: boolean) => store.inStates(states, withPositions),
    /** The order a position belongs to. */
    byPositionPKey: (pKey: string) => byPKey(positionByPKey(pKey).orderPk),
    product: (pk: string) => products.byPKey(pk),

    create(input: NewShippingOrder): ShippingOrder {
      return work.run(() => {
        if (store.byOrderId(input.orderId)) throw alreadyExists(`ShippingOrder [${input.orderId}] already exists`, [input.orderId]);
        const now = nowIso();
        const fields: OrderFields = {
          orderId: input.orderId,
          customerOrderId: input.customerOrderId ?? null,
          customerNo: input.customerNo ?? null,
          state: 'CREATED',
          startMode: input.startMode ?? null,
          shippingType: input.shippingType ?? null,
          priority: input.priority ?? null,
          latestDueDate: input.latestDueDate ?? null,
          startDate: input.startDate ?? null,
          details: input.details ?? {},
        };
        const pk = store.insertOrder(fields, now);
        input.positions.forEach((p, i) => store.insertPosition(pk, positionFields(p, i), now));
        work.emit({ type: 'shippingOrder.created', key: input.orderId, data: { pKey: pk, orderId: input.orderId } });
        return byPKey(pk);
      });
    },

    /** Changes the fields the request carries; `state` only along the transition table. */
    updateOrder(pKey: string, patch: OrderPatch): ShippingOrder {
      return work.run(() => {
        const current = byPKey(pKey);
        checkVersion('ShippingOrder', current, patch.ol);
        requireOpen(current);
        requireMove('order', current.orderId, current.state, patch.state);
        const pick = <T>(value: T | undefined, fallback: T) => (value === undefined ? fallback : value);
        store.updateOrder(
          current.pk,
          {
            orderId: current.orderId,
            customerOrderId: pick(patch.customerOrderId, current.customerOrderId),
            customerNo: pick(patch.customerNo, current.customerNo),
            state: patch.state ?? current.state,
            startMode: pick(patch.startMode, current.startMode),
            shippingType: pick(patch.shippingType, current.shippingType),
            priority: pick(patch.priority, current.priority),
            latestDueDate: pick(patch.latestDueDate, current.latestDueDate),
            startDate: pick(patch.startDate, current.startDate),
            details: patch.details === undefined ? current.details : (patch.details ?? {}),
          },
          nowIso(),
        );
        const order = byPKey(pKey);
        work.emit({ type: 'shippingOrder.changed', key: order.orderId, data: { pKey, orderId: order.orderId } });
        if (order.state !== current.state) {
          work.emit({ type: 'shippingOrder.stateChanged', key: order.orderId, data: { pKey, orderId: order.orderId, from: current.state, to: order.state } });
        }
        return order;
      });
    },

    position: positionByPKey,

    /** Changes a position; its state moves along the same table as an order's. */
    updatePosition(pKey: string, patch: PositionPatch): Position {
      return work.run(() => {
        const current = positionByPKey(pKey);
        checkVersion('ShippingOrderPosition', current, patch.ol);
        const order = byPKey(current.orderPk);
        requireOpen(order);
        requireMove('position', `${order.orderId}/${current.pos}`, current.state, patch.orderPositionState);
        if (current.kind === 'TRANSPORT_UNIT' && (patch.qtyOrdered !== undefined || patch.qtyCrossdock !== undefined)) {
          throw validationError('Validation failed: a transport unit position has no quantities');
        }
        const qtyOrdered = patch.qtyOrdered ?? current.qtyOrdered;
        const qtyCrossdock = patch.qtyCrossdock === undefined ? current.qtyCrossdock : patch.qtyCrossdock;
        if (current.kind === 'PRODUCT') {
          const product = products.byPKey(current.productPk!);
          requireFamily('qtyOrdered', patch.qtyOrdered, product);
          requireFamily('qtyCrossdock', patch.qtyCrossdock, product);
          if (qtyCrossdock && qtyOrdered && qtyCrossdock.base > qtyOrdered.base) {
            throw validationError('Validation failed: qtyCrossdock: more than qtyOrdered');
          }
        }
        store.updatePosition(
          current.pk,
          {
            ...current,
            state: patch.orderPositionState ?? current.state,
            priority: patch.priority === undefined ? current.priority : patch.priority,
            details: patch.details === undefined ? current.details : (patch.details ?? {}),
            targetName: patch.targetName === undefined ? current.targetName : patch.targetName,
            qtyOrdered,
            qtyCrossdock,
          },
          nowIso(),
        );
        const position = positionByPKey(pKey);
        work.emit({
          type: 'shippingOrderPosition.changed',
          key: position.orderId,
          data: { pKey, orderPKey: current.orderPk, orderId: position.orderId },
        });
        return position;
      });
    },
  };
}

export type ShippingService = ReturnType<typeof createShippingService>;
