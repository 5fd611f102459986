import { DomainError } from '../../core/errors.ts';

// The message keys of the receiving module (docs/receiving.md, "Errors"): the spec's,
// and those of our own where the spec names a condition without a key.

export const RECEIVING_KEYS = {
  /** Spec: captured (or announced) product unknown, or no open position demands it. */
  product404: 'svc.wms.rec.product404',
  /** Spec: cancelling an order that is not CREATED. */
  cancellationDenied: 'CANCELLATION.DENIED',
  /** Ours: capturing on a PROCESSED or CANCELED order. */
  captureDenied: 'svc.wms.rec.order.captureDenied',
  /** Ours: more was captured than the open positions demand and the product does not allow overbooking. */
  overbookingNotAllowed: 'svc.wms.rec.overbookingNotAllowed',
} as const;

export const productNotFound = (sku: string) => new DomainError(404, RECEIVING_KEYS.product404, `Product with SKU [${sku}] does not exist`, { obj: [sku] });
